"""Every config × Llama-2 on N nodes × K cores, from measured per-config costs.

Run: ``python -m perf.scale_estimate [--nodes 1 4 16 --cores 2 16 64]``.

Builds one representative config per task family of each benchmark (the family's first task at its
shortest length) from the benchmark's sample sources at ``FULL`` scale (the published row counts),
under the exact Llama-2 tokenizer, one process, and measures its CPU time per input token counted.
Every one of the registry's configs is then priced at its family's rate × its rows (the spec's split
sizes) × its length in tokens (``max_length``; where a name is no token count, the family's measured
mean input). The baseline printed beside it is the rate-only estimate (counting + offsets) this
replaces. Sources are resolved first and timed apart; download and gunzip limits come from
``perf.gunzip``'s measured rate and HELMET's 34 GB tar stream.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile

from perf.common import Timer, builders, llama2_path, offline_environment, table, workdir
from perf.workloads import cached

#: ``perf.gunzip``'s isal figure (MB of tar stream per CPU-second) and HELMET's tar stream (GB)
GUNZIP_MB_PER_CPU_S = 560
HELMET_TAR_GB = 34
DOWNLOAD_GBIT_S = 1.0


def machine() -> str:
    model = "?"
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            model = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    python = platform.python_version()
    return f"{platform.machine()} {model}, {os.cpu_count()} cores, Python {python}, load {load:.1f}"


def families() -> dict[tuple[str, str], list[tuple[object, str, str]]]:
    """Every config, grouped by (benchmark, task family): (task, length, config name)."""
    from longbench_suite import registry

    grouped: dict[tuple[str, str], list] = {}
    for bench in registry.benchmark_names():
        declared = registry.benchmark(bench)
        for name in declared.config_names:
            task, length = declared.lookup(name)
            grouped.setdefault((bench, type(task).__name__), []).append((task, length, name))
    return grouped


def _mirror(bench: str):
    from longbench_suite import registry

    samples = registry.samples(bench)
    name = "helmet-samples-full" if bench == "helmet" else f"{bench}-samples-full"
    params = {"v": 1} if bench == "helmet" else {"v": 1, "bench": bench}
    if bench == "helmet":
        return cached(workdir() / name, params, lambda d: samples.write_samples(str(d), samples.FULL))

    def write(directory) -> None:  # with a manifest, so sample zips are checked against it (docs §7)
        from longbench_suite.source.manifest import write_manifest

        written = samples.write_samples(str(directory), samples.FULL)
        write_manifest(str(directory), written, scale="FULL", writer="perf.scale_estimate", sizes={})

    return cached(workdir() / name, {**params, "manifest": 1}, write)


def main(nodes: tuple[int, ...] = (1, 4, 16), cores: tuple[int, ...] = (2, 16, 64)) -> None:
    offline_environment()
    from longbench_suite import api

    print(f"machine: {machine()}")
    tokenizer = llama2_path()
    grouped = families()
    measured = []
    for (bench, family), configs in grouped.items():
        task, length, name = min(configs, key=lambda c: (c[0].max_length(c[1]) or 0, c[2]))
        with tempfile.TemporaryDirectory(dir=workdir()) as cache:
            (builder,) = builders(
                [f"{bench}/{name}"],
                cache,
                tokenizer=tokenizer,
                pretruncation_tokenizer=tokenizer,
                mirror=str(_mirror(bench)),
            )
            with Timer() as sources:
                api.prefetch([builder])
            with Timer() as build:
                api.prepare_one(builder)
            built = builder.as_dataset()
            counts = [n for split in built.values() for n in split["input_tokens"]]
        rows, tokens = len(counts), sum(counts)
        measured.append((bench, family, name, rows, tokens, sources.cpu, build.cpu, build.cpu / tokens))
    print(
        table(
            [
                [b, f, n, r, t, f"{s:.2f}", f"{c:.2f}", f"{1e6 * rate:.2f}"]
                for b, f, n, r, t, s, c, rate in measured
            ],
            [
                "benchmark",
                "family",
                "measured config",
                "rows",
                "input tokens",
                "sources CPU s",
                "build CPU s",
                "CPU-s per M tokens",
            ],
        )
    )
    rates = {(b, f): (rate, t / r) for b, f, _n, r, t, _s, _c, rate in measured}
    per_family = []
    for (bench, family), configs in grouped.items():
        rate, mean_tokens = rates[(bench, family)]
        tokens = 0.0
        for task, length, _name in configs:
            rows = sum(task.expected_sizes(length).values()) or 0
            size = task.max_length(length) or mean_tokens
            tokens += rows * size
        per_family.append((bench, family, len(configs), tokens, tokens * rate))
    total_cpu = sum(cpu for *_, cpu in per_family)
    total_tokens = sum(t for *_, t, _cpu in per_family)
    print(
        table(
            [[b, f, n, f"{t / 1e9:.2f}", f"{c / 60:.1f}"] for b, f, n, t, c in per_family]
            + [
                [
                    "all",
                    "",
                    sum(n for _, _, n, _, _ in per_family),
                    f"{total_tokens / 1e9:.2f}",
                    f"{total_cpu / 60:.1f}",
                ]
            ],
            ["benchmark", "family", "configs", "G input tokens", "CPU-min"],
        )
    )
    baseline = total_tokens * (2 / 17.5e6 + 1 / 0.8e6)  # the rate-only estimate: counting twice + offsets
    print(
        "rate-only estimate (counting 2x at 17.5 M tok/CPU-s + offsets at 0.8 M): "
        f"{baseline / 60:.0f} CPU-min; "
        f"measured per-config costs: {total_cpu / 60:.0f} CPU-min ({total_cpu / baseline:.2f}x)"
    )
    gunzip = HELMET_TAR_GB * 1000 / GUNZIP_MB_PER_CPU_S
    download = HELMET_TAR_GB * 8 / DOWNLOAD_GBIT_S
    rows_out = []
    for n in nodes:
        for k in cores:
            build = total_cpu / (n * k)
            limit = max(
                ("build (tokenization)", build),
                ("gunzip", gunzip),
                ("download", download),
                key=lambda item: item[1],
            )
            rows_out.append(
                [n, k, f"{build / 60:.1f}", f"{gunzip / 60:.1f}", f"{download / 60:.1f}", limit[0]]
            )
    print(table(rows_out, ["nodes", "cores/node", "build min", "gunzip min", "download min", "limit"]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--cores", type=int, nargs="+", default=[2, 16, 64])
    args = parser.parse_args()
    main(tuple(args.nodes), tuple(args.cores))
