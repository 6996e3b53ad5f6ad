"""What each benchmark offers, stated once: ``tests/specs/<benchmark>.py`` holds a ``SPEC`` — its tasks,
each task's lengths and the facts upstream states for it, one line per task — and every count is
derived from it. ``tests/test_registry.py`` checks each spec against the registry; the other tests
enumerate the registry or read these specs, never restate a task list, a length list or a count.

Adding a LongBench-style task, or a length to a benchmark, adds its line here and nothing else in
``tests/`` (a task of a HELMET family also needs the family tests' per-task references, such as the
generation lengths of ``tests/test_helmet_archive.py``).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from longbench_suite import registry

NAMES = ("helmet", "longbench", "lveval", "adaleval", "longbench_v2", "ruler")


@dataclass(frozen=True)
class Spec:
    benchmark: str
    #: task name -> its lengths, both in declaration order; a generator task (no listed configs) has ()
    tasks: Mapping[str, tuple[str, ...]]
    #: task name -> {declared attribute: value upstream states}, for the tasks whose facts are specified
    declared: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: task name -> its eval rows at every length, where upstream publishes them
    eval_rows: Mapping[str, int] = field(default_factory=dict)

    @property
    def listed_tasks(self) -> list[str]:
        """The tasks with configs (not the generators)."""
        return [name for name, lengths in self.tasks.items() if lengths]

    @property
    def configs(self) -> list[str]:
        """``task_length`` of every listed config, in the registry's order."""
        return [f"{name}_{length}" for name, lengths in self.tasks.items() for length in lengths]

    @property
    def lengths(self) -> list[str]:
        """Every length some task has, in order of first appearance."""
        return list(dict.fromkeys(length for lengths in self.tasks.values() for length in lengths))


def spec(name: str) -> Spec:
    return importlib.import_module(f"{__name__}.{name}").SPEC


def all_specs() -> dict[str, Spec]:
    return {name: spec(name) for name in NAMES}


def differences(expected: Spec) -> list[str]:
    """Where the registry's benchmark differs from ``expected``: one line each, empty when it matches."""
    bench = registry.benchmark(expected.benchmark)
    where = expected.benchmark
    found = {task.name: tuple(task.lengths) for task in bench.tasks}
    unspecified, unregistered = found.keys() - expected.tasks.keys(), expected.tasks.keys() - found.keys()
    lines = [f"{where}: task {name} is registered but not in its spec" for name in sorted(unspecified)]
    lines += [f"{where}: task {name} is in its spec but not registered" for name in sorted(unregistered)]
    if not lines and list(found) != list(expected.tasks):
        lines.append(f"{where}: tasks in order {list(found)}, the spec says {list(expected.tasks)}")
    for name in found.keys() & expected.tasks.keys():
        if found[name] != expected.tasks[name]:
            lines.append(f"{where}/{name}: lengths {found[name]}, the spec says {expected.tasks[name]}")
    if list(bench.config_names) != expected.configs:
        listed, derived = len(bench.config_names), len(expected.configs)
        lines.append(f"{where}: {listed} configs listed, the spec derives {derived}")
    tasks = {task.name: task for task in bench.tasks}
    for name, facts in expected.declared.items():
        for attribute, value in facts.items():
            if name in tasks and getattr(tasks[name], attribute) != value:
                got = getattr(tasks[name], attribute)
                lines.append(f"{where}/{name}: {attribute} is {got!r}, the spec says {value!r}")
    for name, rows in expected.eval_rows.items():
        for length in expected.tasks.get(name, ()) if name in tasks else ():
            got = dict(tasks[name].expected_sizes(length)).get("eval")
            if got != rows:
                lines.append(f"{where}/{name}_{length}: {got} eval rows declared, the spec says {rows}")
    return lines
