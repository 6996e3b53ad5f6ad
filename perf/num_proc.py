"""A prepared build in one process vs ``num_proc`` processes (``datasets``' multiprocessing).

Run: ``python -m perf.num_proc [--num-proc 2 --configs helmet/nq_32k ...] [--rag-questions 600]``.

Builds each config (both splits, Arrow files written, Llama-2 for the fit) from HELMET's samples at
full scale in questions and depths, in a fresh cache, with one process and with ``--num-proc``;
prints wall time, CPU time of all processes, the load average before each build, and the speed-up,
and asserts the rows are identical. Each build runs in a fresh Python process, so none finds the
tokenizer's remembered pieces or a scan that another build made. ``--rag-questions N`` builds
``helmet/nq_32k`` instead from NQ's KILT file at upstream's row size (220 passages of 100 words a
row) with ``N`` questions (``perf/workloads.py``). The speed-up is bounded by the free cores and by
the serial part of a build (resolving and scanning the sources, made once before the workers fork).
"""

from __future__ import annotations

import argparse

from perf.common import llama2_path, offline_environment, run_child, table, workdir
from perf.workloads import cached, rag_mirror

CONFIGS = ("helmet/nq_32k", "helmet/popqa_32k")


#: one build in a fresh process (nothing remembered from another build: tokenizer caches, scans), timed
#: from the prepare call to its end; CPU includes the worker processes; rows reported as a digest
_CHILD = """
import hashlib, json, os, resource, sys, tempfile, time
from perf.common import builders, offline_environment
offline_environment()
from longbench_suite import api
config, mirror, tokenizer, workdir, n = sys.argv[1:6]
def cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
with tempfile.TemporaryDirectory(dir=workdir) as cache:
    built = builders([config], cache, tokenizer=tokenizer, pretruncation_tokenizer=tokenizer, mirror=mirror)
    load = os.getloadavg()[0]
    wall, start = time.perf_counter(), cpu()
    api.prepare(built, num_proc=int(n))
    wall, used = time.perf_counter() - wall, cpu() - start
    rows = {s: ds.to_list() for s, ds in built[0].as_dataset().items()}
digest = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
n_rows = sum(map(len, rows.values()))
print(json.dumps({"wall": wall, "cpu": used, "load": load, "rows": n_rows, "digest": digest}))
"""


def main(
    num_proc: int = 2,
    configs: tuple[str, ...] = CONFIGS,
    mirror: str | None = None,
    rag_questions: int = 0,
) -> None:
    offline_environment()
    from longbench_suite.benchmarks.helmet import samples

    if rag_questions:
        configs = ("helmet/nq_32k",)
        params = {"q": rag_questions, "v": 1}
        mirror = cached(
            workdir() / f"nq-rag-{rag_questions}",
            params,
            lambda d: rag_mirror(d, rag_questions, {"32k": 220}),
        )
    elif mirror is None:
        mirror = cached(
            workdir() / "helmet-samples-full", {"v": 1}, lambda d: samples.write_samples(str(d), samples.FULL)
        )
    tokenizer = llama2_path()
    results = {}
    for config in configs:
        for n in (1, num_proc):
            results[(config, n)] = run_child(_CHILD, config, str(mirror), tokenizer, str(workdir()), str(n))
        one, many = results[(config, 1)], results[(config, num_proc)]
        assert one["digest"] == many["digest"], f"{config}: rows differ with num_proc={num_proc}"
    print(
        table(
            [
                [
                    c,
                    n,
                    r["rows"],
                    f"{r['wall']:.1f}",
                    f"{r['cpu']:.1f}",
                    f"{r['load']:.1f}",
                    f"{results[(c, 1)]['wall'] / r['wall']:.2f}x",
                ]
                for (c, n), r in results.items()
            ],
            ["config", "num_proc", "rows", "wall (s)", "CPU (s)", "load before", "speed-up"],
        )
    )
    print("rows identical")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-proc", type=int, default=2)
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS))
    parser.add_argument("--mirror", help="another mirror (e.g. the work directory's narrativeqa-mirror)")
    parser.add_argument(
        "--rag-questions", type=int, default=0, help="nq_32k at upstream row size, N questions"
    )
    args = parser.parse_args()
    main(args.num_proc, tuple(args.configs), args.mirror, args.rag_questions)
