"""The ``ruler`` benchmark through ``load_dataset`` against NVIDIA/RULER's own ``prepare.py``, in one run.

Run: ``python -m perf.ruler [--tokenizer llama2|cl100k] [--tasks T ...] [--rows N] [--ruler-rows M]
[--per-row-lengths 32k 128k] [--whole] [--whole-lengths 4k ... 128k] [--samples 500]
[--ruler-jobs 1]``.

Both sides read the same inputs, the synthetic files of ``tests/upstream/ruler/inputs/`` (RULER's
layouts; ``data_dir=`` and ``generate={"essay": ...}`` for the library, RULER's ``json/`` folder for
RULER), and RULER runs unchanged through the fixtures' harness (``tests/upstream/ruler/record.py``:
a throwaway copy of the checkout ``RULER_SRC``, its venv ``RULER_VENV``). Two measurements:

* **per row**, for every task at 32k and 128k: RULER's ``prepare.py`` for 1 and for 1 + M rows
  (seed 7), CPU per row = the difference over M (its set-up — imports, word lists, the binary search
  — cancels); the library's ``load_dataset(..., split="dev", generate={"seed": 7, "rows": n,
  "screen": False})`` (``dev`` without the screen is RULER's draws for that seed, so the rows must be
  RULER's) into a fresh cache for 1 and 1 + N rows, the process's remembered counts (the tokenizer's,
  cwe's word counts) forgotten before each, the same difference over N. The target (issue 33): the
  library ≤ 1/20 of RULER's CPU per row. Each library build is timed three times and its least figure
  kept (its set-up alone varies by as much as its rows cost); RULER runs once per row count (its
  set-up noise is small beside its 60 or 15 rows).
* **whole eval** (``--whole``): every task at every length of ``--whole-lengths``, 500 rows, seed 42:
  RULER's ``prepare.py`` once per config (CPU of its processes, summed; wall; the largest peak RSS),
  against one fresh Python process building every config's ``eval`` split into a fresh cache (its
  CPU, wall and peak RSS, imports included). Every eval row must be RULER's (``cases.row_digest``).
  The target: ≥ 10x faster than ``prepare.py`` for the same tokenizer. ``--ruler-jobs N`` runs N of
  RULER's configs side by side (its CPU, summed walls and peaks are still per config).
  Its walls are then each measured beside another job, so their sum is not a wall a user would see.
  ``--samples M`` < 500 has RULER make only its first M rows of each config (the same rows as the
  first M of 500) while the library still builds all 500: the CPU and wall ratios are then lower
  bounds, and RULER's CPU per row spreads its set-up over M rows, not 500.

Figures are CPU seconds (user + system, of this process and its threads or of the child processes):
the comparable figure on a shared machine; the load average is printed. The whole run at all six
lengths takes RULER hours (its NIAH and CWE scripts re-tokenize whole prompts at 128k), and under
Llama-2 its NIAH processes grow by ~45 MB a row at 128k: 500 rows would need ~23 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from perf.common import REPO, cl100k_dir, llama2_path, offline_environment, run_child, table

sys.path.insert(0, str(REPO / "tests" / "upstream" / "ruler"))
from cases import ESSAY_TASKS, TASKS, record_row_digest, row_digest, unpack_inputs
from record import Workspace

LENGTH_TOKENS = {"4k": 4096, "8k": 8192, "16k": 16384, "32k": 32768, "64k": 65536, "128k": 131072}
#: rows timed per row measurement: RULER's, enough that their CPU stands above the noise of its ~10 s
#: set-up, and the library's (``--ruler-rows``, ``--rows``)
RULER_ROWS = {"32k": 60, "128k": 15}
ROWS = {"32k": 100, "128k": 25}
DEV_SEED = 7
#: rows of every config's ``eval`` (RULER's default ``--num_samples``)
EVAL_ROWS = 500
#: each library build is timed this often and its least figure kept: a build's set-up varies by tenths
#: of a CPU-second (the collector, the allocator), as much as 100 of its rows cost
LIBRARY_REPEATS = 3


def options(task: str, files: dict[str, str], **generate) -> dict:
    if task in ESSAY_TASKS:
        generate["essay"] = files["essay"]
    return {"data_dir": files["data_dir"], **({"generate": generate} if generate else {})}


def library_dev(task: str, name: str, tokenizer: str, files: dict, rows: int) -> tuple[float, list[str]]:
    """CPU seconds of a ``dev`` build of ``rows`` rows (seed 7, no screen) into a fresh cache, and its
    inputs."""
    from longbench_suite import load_dataset
    from longbench_suite.fit.tokenizers import load_tokenizer
    from longbench_suite.generate import common_words

    # counted texts and cwe's word counts are remembered per process: a rebuild would skip them
    load_tokenizer(tokenizer).clear_cache()
    common_words._COUNTS.clear()
    with tempfile.TemporaryDirectory() as cache:
        cpu = time.process_time()
        built = load_dataset(
            "longbench_suite",
            f"ruler/{task}_{name}",
            split="dev",
            tokenizer=tokenizer,
            cache_dir=cache,
            **options(task, files, seed=DEV_SEED, rows=rows, screen=False),
        )
        made = built["input"]
        return time.process_time() - cpu, made


def ruler_rows(ws: Workspace, task: str, tokenizer: str, length: int, rows: int, seed: int) -> tuple:
    with tempfile.TemporaryDirectory() as out:
        timing = ws.run(task, tokenizer, length, Path(out), samples=rows, seed=seed)
        lines = Path(out, task, "validation.jsonl").read_text(encoding="utf-8").splitlines()
    return timing, [json.loads(line) for line in lines]


def per_row(ws: Workspace, tokenizer: str, spec: str, files: dict, tasks, lengths, rows, asked) -> list:
    out = []
    for task in tasks:
        for name in lengths:
            n, m = rows or ROWS.get(name, 25), asked or RULER_ROWS.get(name, 15)
            length = LENGTH_TOKENS[name]
            one, _ = ruler_rows(ws, task, tokenizer, length, 1, DEV_SEED)
            many, records = ruler_rows(ws, task, tokenizer, length, 1 + m, DEV_SEED)
            library_dev(task, name, spec, files, 1)  # imports and first loads, untimed
            lib_one = min(library_dev(task, name, spec, files, 1)[0] for _ in range(LIBRARY_REPEATS))
            timed = [library_dev(task, name, spec, files, 1 + n) for _ in range(LIBRARY_REPEATS)]
            lib_many, made = min(timed, key=lambda t: t[0])
            ours = max(lib_many - lib_one, 1e-9) / n
            expected = [r["input"] + r["answer_prefix"] for r in records]
            shared = min(len(made), len(expected))
            assert made[:shared] == expected[:shared], f"{task}_{name}: dev rows are not RULER's"
            library = [f"{lib_one - ours:.2f}", f"{ours:.4f}"]
            if many["cpu_s"] <= one["cpu_s"]:  # RULER's rows cost less than its set-up's noise
                figures = [f"{one['cpu_s']:.1f}", "n/a (raise --ruler-rows)", *library, ""]
            else:
                ruler = (many["cpu_s"] - one["cpu_s"]) / m
                figures = [f"{one['cpu_s'] - ruler:.1f}", f"{ruler:.3f}", *library, f"{ruler / ours:.0f}x"]
            out.append([task, name, f"{m}/{n}", *figures])
            print(table(out[-1:], PER_ROW_HEADER).splitlines()[-1], flush=True)
    return out


PER_ROW_HEADER = [
    "task", "length", "rows RULER/library", "RULER set-up CPU-s", "RULER CPU-s/row", "library set-up CPU-s",
    "library CPU-s/row", "RULER / library",
]  # fmt: skip

#: the child process of the whole run: every config's eval split into one fresh cache
WHOLE_CHILD = """
import json, resource, sys, tempfile, time
start_cpu, start = time.process_time(), time.perf_counter()
from longbench_suite import load_dataset
from perf.ruler import options, row_digests_of
configs, tokenizer, files = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
digests = {}
with tempfile.TemporaryDirectory() as cache:
    for task, name in configs:
        rows = load_dataset("longbench_suite", f"ruler/{task}_{name}", split="eval", tokenizer=tokenizer,
                            cache_dir=cache, **options(task, files))
        digests[f"{task}_{name}"] = row_digests_of(rows)
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"cpu": time.process_time() - start_cpu, "wall": time.perf_counter() - start,
                  "self_rss_mb": usage.ru_maxrss / 1024, "digests": digests}))
"""


def row_digests_of(rows) -> list[str]:
    return [row_digest(r["input"], r["answer_prefix"], r["answers"], r["length"]) for r in rows]


def ruler_config(ws: Workspace, tokenizer: str, task: str, name: str, samples: int) -> tuple[dict, list]:
    with tempfile.TemporaryDirectory() as out:
        timing = ws.run(task, tokenizer, LENGTH_TOKENS[name], Path(out), samples=samples)
        lines = Path(out, task, "validation.jsonl").read_text(encoding="utf-8").splitlines()
    print(f"RULER {task}_{name}: {json.dumps(timing)}", flush=True)
    return timing, [record_row_digest(json.loads(line)) for line in lines]


def whole(ws: Workspace, tokenizer: str, spec: str, files: dict, tasks, lengths, samples, jobs) -> list:
    configs = [(task, name) for name in lengths for task in tasks]
    ruler = {"cpu": 0.0, "wall": 0.0, "rss": 0.0}
    expected = {}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = [pool.submit(ruler_config, ws, tokenizer, task, name, samples) for task, name in configs]
    for (task, name), run in zip(configs, runs, strict=True):
        timing, expected[f"{task}_{name}"] = run.result()
        ruler["cpu"] += timing["cpu_s"]
        ruler["wall"] += timing["wall_s"]
        ruler["rss"] = max(ruler["rss"], timing["max_rss_mb"])
    ours = run_child(WHOLE_CHILD, json.dumps(configs), spec, json.dumps(files))
    for config, digests in ours["digests"].items():
        assert digests[: len(expected[config])] == expected[config], f"{config}: eval rows are not RULER's"
    ruler_rows, our_rows = len(configs) * samples, len(configs) * EVAL_ROWS
    ratio = "x" if samples >= EVAL_ROWS else "x (RULER made fewer rows: a lower bound)"
    return [
        ["RULER prepare.py", len(configs), samples, f"{ruler['cpu']:.0f}",
         f"{ruler['cpu'] / ruler_rows * 1000:.1f}", f"{ruler['wall']:.0f}", f"{ruler['rss']:.0f}"],
        ["load_dataset eval", len(configs), EVAL_ROWS, f"{ours['cpu']:.0f}",
         f"{ours['cpu'] / our_rows * 1000:.1f}", f"{ours['wall']:.0f}", f"{ours['peak_rss_mb']:.0f}"],
        ["RULER / library", "", "", f"{ruler['cpu'] / ours['cpu']:.1f}{ratio}", "",
         f"{ruler['wall'] / ours['wall']:.1f}x", ""],
    ]  # fmt: skip


WHOLE_HEADER = ["", "configs", "rows each", "CPU-s (with set-up)", "CPU-ms/row", "wall s", "peak RSS MB"]


def main(
    tokenizer: str = "llama2",
    tasks=TASKS,
    rows: int | None = None,
    ruler_rows_asked: int | None = None,
    per_row_lengths=("32k", "128k"),
    whole_run: bool = False,
    whole_lengths=tuple(LENGTH_TOKENS),
    samples: int = 500,
    ruler_jobs: int = 1,
) -> None:
    offline_environment()
    spec = llama2_path() if tokenizer == "llama2" else (cl100k_dir(), "cl100k_base")[1]
    loads = [os.getloadavg()[0]]
    with Workspace() as ws, tempfile.TemporaryDirectory(prefix="perf-ruler-") as tmp:
        files = unpack_inputs(Path(tmp))
        if per_row_lengths:
            figures = per_row(ws, tokenizer, spec, files, tasks, per_row_lengths, rows, ruler_rows_asked)
            print(table(figures, PER_ROW_HEADER))
        loads.append(os.getloadavg()[0])
        if whole_run:
            figures = whole(ws, tokenizer, spec, files, tasks, whole_lengths, samples, ruler_jobs)
            print(table(figures, WHOLE_HEADER))
        loads.append(os.getloadavg()[0])
    spread = f"{min(loads):.1f}-{max(loads):.1f}"
    print(f"tokenizer {tokenizer}; load average (1 min): {spread} on {os.cpu_count()} cores")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m perf.ruler", description=__doc__.splitlines()[0])
    parser.add_argument("--tokenizer", choices=["llama2", "cl100k"], default="llama2")
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    parser.add_argument("--rows", type=int, help="library rows per row measurement (default 100 / 25)")
    parser.add_argument("--ruler-rows", type=int, help="RULER's rows per row measurement (default 60 / 15)")
    lengths = list(LENGTH_TOKENS)
    parser.add_argument("--per-row-lengths", nargs="*", default=["32k", "128k"], choices=lengths)
    parser.add_argument("--whole", action="store_true", help="also the whole eval build against prepare.py")
    parser.add_argument("--whole-lengths", nargs="+", default=lengths, choices=lengths)
    parser.add_argument("--samples", type=int, default=500, help="RULER's rows per config in the whole run")
    parser.add_argument("--ruler-jobs", type=int, default=1, help="RULER configs side by side (whole)")
    args = parser.parse_args()
    whole_asked = (args.whole, args.whole_lengths, args.samples, args.ruler_jobs)
    main(args.tokenizer, args.tasks, args.rows, args.ruler_rows, args.per_row_lengths, *whole_asked)
