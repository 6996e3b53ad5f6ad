"""Counts the prose states — tasks, lengths, configs, rows — are the registry's: each claim below names
the file and the sentence, and the numbers are derived from the registry and the specs (``tests/specs``).
A count that a new task or length would make stale fails here, by file and sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from longbench_suite import registry
from tests.specs import helmet as helmet_spec
from tests.specs import longbench as longbench_spec
from tests.specs import spec

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "longbench_suite"
WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}


def _listed(benchmark: str) -> list[str]:
    return spec(benchmark).listed_tasks


def _lengths(benchmark: str) -> str:
    return " ".join(spec(benchmark).lengths)


def _archive_configs() -> int:
    """HELMET configs whose sources are members of ``data.tar.gz``."""
    from longbench_suite.benchmarks.helmet.common import ARCHIVE
    from longbench_suite.source import Member

    bench = registry.benchmark("helmet")
    return sum(
        any(isinstance(s, Member) and s.archive == ARCHIVE for s in task.sources(length).values())
        for task, length in map(bench.lookup, bench.config_names)
    )


def _rows(tasks: list[str]) -> str:
    return f"{sum(spec('longbench').eval_rows[t] for t in tasks):,}"


def _lveval_rows() -> str:
    return f"{sum(spec('lveval').eval_rows.values()):,}"


#: (file, pattern whose groups are the stated values, the values the registry gives, in group order)
CLAIMS: list[tuple[str, str, Callable[[], tuple]]] = [
    (
        "README.md",
        r"\| (\d+) tasks: ((?:`\w+`, )*`\w+`) × `([\w ]+)` \|",
        lambda: (
            len(_listed("helmet")),
            ", ".join(f"`{t}`" for t in _listed("helmet")),
            _lengths("helmet"),
        ),
    ),
    ("README.md", r"LongBench-E counterpart where one exists \(`<task>_e`\) × `([\w ]+)`", lambda: (
        _lengths("longbench"),
    )),
    ("README.md", r"\| (\d+) datasets \(`\w+`, `\w+`, …\) × `([\w ]+)` \|", lambda: (
        len(_listed("lveval")),
        _lengths("lveval"),
    )),
    ("README.md", r"\| `tsort` × `1k`¹ `([\w ]+)`; `bestanswer` × `([\w ]+)` \|", lambda: (
        " ".join(spec("adaleval").tasks["tsort"][1:]),
        " ".join(spec("adaleval").tasks["bestanswer"]),
    )),
    ("README.md", r"read\s+once for all (\d+) configs that use it", lambda: (_archive_configs(),)),
    ("README.md", r"The (\d+) configs are LV-Eval's own", lambda: (len(spec("lveval").configs),)),
    ("README.md", r"The (\d+) configs are `pred.py`'s prompt modes", lambda: (
        len(spec("longbench_v2").configs),
    )),
    ("README.md", r"\| `0shot`, `cot` × `([\w ]+)`; `no_context` × `(\w+)` \|", lambda: (
        " ".join(spec("longbench_v2").tasks["0shot"]), " ".join(spec("longbench_v2").tasks["no_context"]),
    )),
    ("docs/lveval.md", r"(\d+) datasets × (\d+) levels = (\d+) configs", lambda: (
        len(_listed("lveval")),
        len(spec("lveval").lengths),
        len(spec("lveval").configs),
    )),
    ("docs/lveval.md", r"the dataset's QA pairs \(([\d,]+) per level\)", lambda: (_lveval_rows(),)),
    ("docs/lveval.md", r"All (\d+) configs share one schema", lambda: (len(spec("lveval").configs),)),
    ("docs/lveval.md", r"unweighted mean over the (\d+) datasets", lambda: (len(_listed("lveval")),)),
    ("docs/longbench.md", r"LongBench holds ([\d,]+) rows in all \(`task.md`\), LongBench-E ([\d,]+)",
     lambda: (
        _rows(longbench_spec.LONGBENCH),
        _rows(longbench_spec.LONGBENCH_E),
    )),
    ("docs/helmet.md", r"RULER \((\d+) tasks\)", lambda: (
        sum(t.startswith("ruler_") for t in helmet_spec.SPEC.tasks),
    )),
    ("longbench_suite/benchmarks/lveval/card.md", r"with (\d+) length levels", lambda: (
        len(spec("lveval").lengths),
    )),
    ("longbench_suite/benchmarks/lveval/tasks.py", r"The (\d+) LV-Eval datasets", lambda: (
        len(_listed("lveval")),
    )),
    ("longbench_suite/benchmarks/longbench/card.md", r"each exist at (\w+) prompt-token budgets", lambda: (
        len(spec("longbench").lengths),
    )),
    ("README.md", r"all\s+(\w+)\s+benchmarks\*\* in their exact upstream layouts", lambda: (
        len(registry.benchmark_names()),
    )),
    ("README.md", r"at all (\w+) HELMET lengths", lambda: (len(spec("helmet").lengths),)),
    ("README.md", r"the (\w+) levels share one download", lambda: (len(spec("lveval").lengths),)),
    ("docs/lveval.md", r"Each zip holds the (\w+) length levels", lambda: (len(spec("lveval").lengths),)),
    ("docs/adaleval.md", r"describe the same (\w+) tasks", lambda: (len(_listed("adaleval")),)),
    ("README.md", r"\| (\d+) tasks \(`niah_single_1`, …\) × `([\w ]+)`", lambda: (
        len(_listed("ruler")),
        _lengths("ruler"),
    )),
]  # fmt: skip


def _value(stated: str) -> str:
    return str(WORDS.get(stated, stated))


@pytest.mark.parametrize("path, pattern, expected", CLAIMS, ids=[f"{c[0]}:{c[1][:30]}" for c in CLAIMS])
def test_a_stated_count_is_the_registrys(path, pattern, expected):
    text = (ROOT / path).read_text(encoding="utf-8")
    found = re.search(pattern, text)
    assert found, f"{path} no longer says {pattern!r}: update the claim here with the prose"
    assert tuple(map(_value, found.groups())) == tuple(map(str, expected())), f"{path}: {found.group(0)!r}"


def test_a_stale_count_is_caught():
    path, pattern, expected = CLAIMS[0]
    count = len(_listed("helmet"))
    stale = (ROOT / path).read_text(encoding="utf-8").replace(f"| {count} tasks:", f"| {count + 1} tasks:")
    assert re.search(pattern, stale).group(1) == str(count + 1) != str(expected()[0])
