"""Run every benchmark: ``python -m perf [--quick] [--only NAME ...] [--workdir DIR]``.

Each prints its figures and a ratio against its baseline measured in the same run; the numbers of a
full run on the reference machine are in ``perf/README.md``. Generated sources (several GB with
the defaults: check ``df -h`` of the work directory) are kept there and reused by later runs.
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m perf", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs (minutes, ~1 GB of disk)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these measurements")
    parser.add_argument("--workdir", help="where generated sources go (default $LONGBENCH_BENCH_DIR or /tmp)")
    args = parser.parse_args()
    if args.workdir:
        os.environ["LONGBENCH_BENCH_DIR"] = args.workdir

    from perf import (
        archive,
        counting,
        downloads,
        end_to_end,
        generate,
        gunzip,
        helmet_longdoc,
        json_array,
        longbench_v2,
        mixture,
        multilength,
        num_proc,
        predict,
        ruler,
        streaming,
        tokenize,
        truncation,
    )

    quick = args.quick
    runs = {
        "truncation": lambda: truncation.main(repeats=3 if quick else 5),
        "tokenize": lambda: tokenize.main(repeats=2 if quick else 3),
        "helmet_longdoc": helmet_longdoc.main,
        "multilength": lambda: multilength.main(*((2, 55) if quick else (6, 20))),
        "json_array": json_array.main,
        "longbench_v2": lambda: longbench_v2.main(100 if quick else 465),
        "end_to_end": lambda: end_to_end.main(quick),
        "streaming": lambda: streaming.main(*((0.3, 150, (4, 16)) if quick else (2.0, 993, (8, 60)))),
        "archive": lambda: archive.main(0.3 if quick else 2.0, 3 if quick else 5),
        "mixture": mixture.main,
        "predict": lambda: predict.main(100 if quick else 200),
        "gunzip": lambda: gunzip.main(0.2 if quick else 1.0, 1 if quick else 2),
        "counting": lambda: counting.main(*((2, 2, 55) if quick else (3, 6, 20))),
        "num_proc": lambda: (num_proc.main(), num_proc.main(rag_questions=150 if quick else 600)),
        "generate": lambda: generate.main(3 if quick else None),
        "downloads": lambda: downloads.main(100 if quick else 500),
        # per row only: the whole 13 x 6 x 500 eval build takes RULER hours (python -m perf.ruler --whole)
        "ruler": lambda: ruler.main(rows=10 if quick else None, ruler_rows_asked=20 if quick else None),
    }
    unknown = set(args.only or ()) - set(runs)
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(sorted(unknown))}; choose from {', '.join(runs)}")
    started = time.perf_counter()
    for name, run in runs.items():
        if args.only and name not in args.only:
            continue
        print(f"\n=== {name} ===", flush=True)
        start = time.perf_counter()
        run()
        print(f"({name}: {time.perf_counter() - start:.0f} s)", flush=True)
    print(f"\nall done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
