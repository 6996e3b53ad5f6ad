"""Every config of every benchmark, and how a name resolves to one.

``benchmark/config`` always resolves; a bare config name resolves when exactly one benchmark has it;
an ambiguous name lists its qualified candidates and an unknown one lists close matches.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Sequence

from .errors import UnknownNameError
from .task import Benchmark

SUITE = "longbench_suite"

#: every benchmark, in the order they are listed, and its folder: the package holding its declarations
#: (``BENCHMARK``, ``Builder``), metrics (``metrics``), card template (``card.md``) and sample data
#: (``samples``)
BENCHMARKS = {
    name: f"longbench_suite.benchmarks.{name}"
    for name in ("helmet", "longbench", "lveval", "adaleval", "longbench_v2", "ruler")
}


def benchmark_names() -> list[str]:
    return list(BENCHMARKS)


def package_name(name: str) -> str:
    """The import path of a benchmark's folder."""
    if name not in BENCHMARKS:
        raise UnknownNameError(_unknown("benchmark", name, benchmark_names()))
    return BENCHMARKS[name]


def part(name: str, module: str = ""):
    """A benchmark's package, or one of its modules (``"samples"``, ``"metrics"``)."""
    return importlib.import_module(package_name(name) + (f".{module}" if module else ""))


def benchmark(name: str) -> Benchmark:
    return part(name).BENCHMARK


def builder_class(name: str):
    return part(name).Builder


def samples(name: str):
    """The benchmark's sample-data writer (``write_samples``, ``DEMO_CONFIGS``, its scales)."""
    return part(name, "samples")


def metrics(name: str):
    """The benchmark's metrics module (``task_scoring``, ``prepare``, ``SUMMARIES``)."""
    return part(name, "metrics")


def list_configs(benchmark_name: str | None = None) -> list[str]:
    """Qualified names (``helmet/nq_8k``) of every config, or of one benchmark's."""
    names = [benchmark_name] if benchmark_name else benchmark_names()
    return [f"{b}/{c}" for b in names for c in benchmark(b).config_names]


def _unknown(kind: str, name: str, candidates: list[str], generators_of: Sequence[str] = ()) -> str:
    """The message for an unknown name: close matches among ``candidates`` and, for a config, the
    generated configs of the benchmarks ``generators_of`` at the length ``name`` asks for, and their
    generator tasks where ``name`` looks like theirs (they have no listed lengths, so `list` cannot
    show them); where ``name`` is a task of those benchmarks at a length it refuses for a reason it
    gives (:meth:`Task.length_refusal`: too short), that reason."""
    for task in (t for b in generators_of for t in benchmark(b).tasks):
        asked = name.removeprefix(task.name + "_")
        refusal = task.length_refusal(asked) if asked != name else None
        if refusal:
            return f"unknown {kind} {name!r}: {refusal}"
    generators = [t for b in generators_of for t in benchmark(b).tasks if not t.lengths]
    length = name.rpartition("_")[2]
    at_length = [f"{t.name}_{length}" for t in generators if length and t.accepts_length(length)]
    close = difflib.get_close_matches(name, [*candidates, *at_length], n=5, cutoff=0.6)
    if name in {t.name for t in generators}:  # a generated task without its length
        return f"{name!r} is a task, not a config: add a length, any (e.g. {name}_8k or {name}_48k)"
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    family = [t.name for t in generators if name.split("_", 1)[0] == t.name.split("_", 1)[0]]
    if family:
        generated = f"TASK_LENGTH at any length (8k, 48k), TASK one of {', '.join(family)}"
        hint += f" Generated configs are {generated}" if close else f"; generated configs are {generated}"
    return f"unknown {kind} {name!r}{hint}"


def _task_configs(benchmark_names: list[str], name: str) -> list[str]:
    """Qualified configs of the tasks called ``name`` (a config name without its length)."""
    return [
        f"{b}/{task.config_name(length)}"
        for b in benchmark_names
        for task in benchmark(b).tasks
        if task.name == name
        for length in task.lengths
    ]


def _task_not_config(name: str, configs: list[str]) -> str:
    return f"{name!r} is a task, not a config: add a length, one of {', '.join(configs)}"


def resolve(name: str, benchmark_name: str | None = None) -> tuple[str, str]:
    """``(benchmark, config)`` for a config name, qualified or bare."""
    if "/" in name:
        benchmark_name, _, name = name.partition("/")
    if benchmark_name:
        if benchmark_name == SUITE:
            return resolve(name)
        if not benchmark(benchmark_name).has_config(name):
            configs = benchmark(benchmark_name).config_names
            lengths = _task_configs([benchmark_name], name)
            if lengths:
                raise UnknownNameError(_task_not_config(f"{benchmark_name}/{name}", lengths))
            raise UnknownNameError(_unknown(f"config of {benchmark_name}", name, configs, [benchmark_name]))
        return benchmark_name, name
    owners = [b for b in benchmark_names() if benchmark(b).has_config(name)]
    if len(owners) == 1:
        return owners[0], name
    if len(owners) > 1:
        qualified = ", ".join(f"{b}/{name}" for b in owners)
        raise UnknownNameError(f"config name {name!r} is ambiguous; use one of {qualified}")
    lengths = _task_configs(benchmark_names(), name)
    if lengths:
        raise UnknownNameError(_task_not_config(name, lengths))
    everything = [c for b in benchmark_names() for c in benchmark(b).config_names]
    raise UnknownNameError(_unknown("config", name, everything + list_configs(), benchmark_names()))
