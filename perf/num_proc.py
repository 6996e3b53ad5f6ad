"""A prepared build in one process vs ``num_proc`` processes (``datasets``' multiprocessing).

Run: ``python -m perf.num_proc [--num-proc 2 --configs helmet/nq_32k ...] [--rag-questions 600]``.

Builds each config (both splits, Arrow files written, Llama-2 for the fit) from HELMET's samples at
full scale in questions and depths, in a fresh cache, with one process and with ``--num-proc``;
prints wall time, CPU time of all processes, the load average before each build, and the speed-up,
and asserts the rows are identical. ``--rag-questions N`` builds ``helmet/nq_32k`` instead from NQ's
KILT file at upstream's row size (220 passages of 100 words a row) with ``N`` questions
(``perf/workloads.py``): a build of tens of seconds. The speed-up is bounded by the free cores.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile

from perf.common import Timer, builders, llama2_path, offline_environment, table, workdir
from perf.workloads import cached, rag_mirror

CONFIGS = ("helmet/nq_32k", "helmet/popqa_32k")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(
    num_proc: int = 2,
    configs: tuple[str, ...] = CONFIGS,
    mirror: str | None = None,
    rag_questions: int = 0,
) -> None:
    offline_environment()
    from longbench_suite import api
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
    rows_out, out = [], {}
    for config in configs:
        for n in (1, num_proc):
            with tempfile.TemporaryDirectory(dir=workdir()) as cache:
                built = builders(
                    [config],
                    cache,
                    tokenizer=tokenizer,
                    pretruncation_tokenizer=tokenizer,
                    mirror=str(mirror),
                )
                load = os.getloadavg()[0]
                children = _children_cpu()
                with Timer() as t:
                    api.prepare(built, num_proc=n)
                cpu = t.cpu + _children_cpu() - children
                out[(config, n)] = {s: ds.to_list() for s, ds in built[0].as_dataset().items()}
            rows_out.append((config, n, t, cpu, load))
        assert out[(config, 1)] == out[(config, num_proc)], f"{config}: rows differ with num_proc={num_proc}"
    base = {c: t.wall for c, n, t, _, _ in rows_out if n == 1}
    print(
        table(
            [
                [
                    c,
                    n,
                    sum(len(v) for v in out[(c, n)].values()),
                    f"{t.wall:.1f}",
                    f"{cpu:.1f}",
                    f"{load:.1f}",
                    f"{base[c] / t.wall:.2f}x",
                ]
                for c, n, t, cpu, load in rows_out
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
