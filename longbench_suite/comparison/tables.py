"""The comparison's tables: per benchmark, models as rows and lengths as columns, for each task and for
each of the benchmark's own summaries (its ``SUMMARIES``, as ``predict --score`` reports them), and the
same summaries over row groups (LongBench-E's length buckets) at each length.

Nothing here averages anything: every average is the benchmark's own summary function, run on one
model's complete configs. A config a model lacks, or scored on part of its split, is a missing cell
with its reason; it never enters an average, and every average says how many configs it covers out of
those the compared runs scored for it (what each config feeds is found by summarising it alone).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..metrics.scoring import ScoreResult, metrics_module
from ..predict.tables import length_order
from .runs import Entry, Model, differing

#: the column of a summary value that belongs to no one length (LV-Eval's mean over levels)
ALL_LENGTHS = "all"


@dataclass(frozen=True)
class Cell:
    """One model's value in one table cell.

    ``status``: ``"ok"``; ``"missing"`` (``reason`` says why: not predicted, partial, not computed);
    for averages, ``covers`` of ``of`` configs went into it (``configs`` names them).
    """

    value: float | None
    status: str = "ok"
    reason: str = ""
    covers: int | None = None
    of: int | None = None
    configs: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "status": self.status}
        if self.reason:
            out["reason"] = self.reason
        if self.of is not None:
            out.update(covers=self.covers, of=self.of, configs=list(self.configs))
        return out


@dataclass
class Table:
    """``cells[(row, model label)][column]``; rows are grouped by ``row`` (a task, a category)."""

    benchmark: str
    kind: str  # "task", or the summary's name ("category", "level")
    title: str
    columns: list[str]
    rows: list[str]
    models: list[str]
    cells: dict[tuple[str, str], dict[str, Cell]] = field(default_factory=dict)
    #: row groups (lengths) this table breaks down, for a table over row groups
    at: str | None = None
    #: what the rows are (``category``, ``dataset``); the kind where not set
    corner: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "title": self.title,
            "at": self.at,
            "columns": self.columns,
            "rows": [
                {"row": row, "model": model, "cells": {c: cell.to_dict() for c, cell in cells.items()}}
                for (row, model), cells in self.cells.items()
            ],
        }


@dataclass
class BenchmarkComparison:
    benchmark: str
    split: str
    tables: list[Table]
    notes: list[str]


def _ordered(values, known: Sequence[str]) -> list[str]:
    present = list(dict.fromkeys(values))
    return [v for v in known if v in present] + [v for v in present if v not in known]


def _missing(entry: Entry | None) -> Cell | None:
    if entry is None:
        return Cell(None, "missing", "not predicted")
    if entry.partial:
        return Cell(None, "missing", entry.partial_reason())
    return None


# -- per task ---------------------------------------------------------------------------------------


def task_table(benchmark: str, models: Sequence[Model]) -> Table:
    """Headline score per task (and metric, where a task reports several) and length."""
    entries = [e for m in models for e in m.entries_of(benchmark)]
    keys = dict.fromkeys((e.result.task, metric) for e in entries for metric in e.result.headline)
    # a task is labelled with its metric where it has several, in one run or across the runs (one
    # scored strictly, LongBench v2's accuracy_strict, beside one that was not)
    multi = {task for task, n in Counter(task for task, _ in keys).items() if n > 1}
    columns = length_order(benchmark, (e.result.length or ALL_LENGTHS for e in entries))
    configs = {(e.result.task, e.result.length or ALL_LENGTHS): e.config for e in entries}
    labels = {key: f"{key[0]} ({key[1]})" if key[0] in multi else key[0] for key in keys}
    table = Table(
        benchmark, "task", "Headline score by task and length", columns, [], [m.label for m in models]
    )
    table.rows = list(dict.fromkeys(labels.values()))
    for (task, metric), label in labels.items():
        for model in models:
            cells: dict[str, Cell] = {}
            for column in columns:
                config = configs.get((task, column))
                if config is None:
                    continue  # no run has this task at this length
                entry = model.entries.get(config)
                cells[column] = _missing(entry) or _score(entry, metric)
            table.cells[(label, model.label)] = cells
    return table


def _score(entry: Entry, metric: str) -> Cell:
    value = entry.result.headline.get(metric)
    if value is not None:
        return Cell(value)
    why = entry.result.not_computed.get(metric)
    return Cell(None, "missing", f"not computed ({why})" if why else "no row counted")


# -- the benchmark's summaries ----------------------------------------------------------------------


def _leaves(value: Any, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], float | None]:
    if isinstance(value, Mapping):
        out: dict[tuple[str, ...], float | None] = {}
        for key, inner in value.items():
            out.update(_leaves(inner, (*prefix, str(key))))
        return out
    return {prefix: value}


def _place(path: tuple[str, ...], columns: Sequence[str]) -> tuple[str, str]:
    """(column, row label) of a summary value: the path's part that is a column (``"8k"``), or ends in
    one (LongBench's ``"LongBench-E 8k"``), is the column; the rest, joined, is the row."""
    for i, part in enumerate(path):
        if part in columns:
            return part, " / ".join(path[:i] + path[i + 1 :])
        head, _, tail = part.rpartition(" ")
        if head and tail in columns:
            return tail, " / ".join((*path[:i], head, *path[i + 1 :]))
    return ALL_LENGTHS, " / ".join(path)


Summary = Callable[[Sequence[ScoreResult]], Mapping[str, Any]]


def summary_tables(
    benchmark: str,
    by: str,
    summary: Summary,
    models: Sequence[Model],
    entries: Callable[[Model], list[tuple[Entry, ScoreResult]]],
    columns: Sequence[str],
    title: str,
    at: str | None = None,
) -> list[Table]:
    """A summary's values per model, pivoted to rows × ``columns``, with each average's coverage.

    ``entries(model)`` gives a model's (entry, result) pairs to summarise: the result is the entry's
    own, or one of its row groups as a result of its own (then ``columns`` are the groups).
    """
    feeds: dict[str, dict[tuple[str, ...], set[str]]] = {}  # model -> path -> configs feeding it
    values: dict[str, dict[tuple[str, ...], float | None]] = {}
    for model in models:
        pairs = entries(model)
        complete = [result for entry, result in pairs if not entry.partial]
        values[model.label] = _leaves(summary(complete)) if complete else {}
        mine = feeds.setdefault(model.label, {})
        for entry, result in pairs:
            for path, value in _leaves(summary([result])).items():
                if value is not None:
                    mine.setdefault(path, set()).add(entry.config)
    paths = list(dict.fromkeys(p for label in values for p in (*values[label], *feeds[label])))
    scored: dict[tuple[str, ...], set[str]] = {p: set() for p in paths}
    for mine in feeds.values():
        for path, configs in mine.items():
            scored[path] |= configs
    own = {model.label: {e.config: e for e, _ in entries(model)} for model in models}
    placed = {path: _place(path, columns) for path in paths if scored[path]}
    tables = []
    for kind in ("length", ALL_LENGTHS):
        chosen = {p: v for p, v in placed.items() if (v[0] == ALL_LENGTHS) == (kind == ALL_LENGTHS)}
        if not chosen:
            continue
        table_columns = (
            [ALL_LENGTHS]
            if kind == ALL_LENGTHS
            else [c for c in columns if any(v[0] == c for v in chosen.values())]
        )
        corner, chosen = _common_head(by, chosen)
        name = title.replace(f"by {by}", f"by {corner}")
        if kind == ALL_LENGTHS:
            name = f"{name.removesuffix(' and length')}, over all lengths"
        table = Table(benchmark, by, name, table_columns, [], [m.label for m in models], at=at, corner=corner)
        table.rows = list(dict.fromkeys(row for _, row in chosen.values()))
        for row in table.rows:
            for model in models:
                cells: dict[str, Cell] = {}
                for path, (column, label) in chosen.items():
                    if label != row:
                        continue
                    value = values[model.label].get(path)
                    covered = feeds[model.label].get(path, set())
                    cells[column] = _average(value, scored[path], covered, own[model.label])
                table.cells[(row, model.label)] = cells
        tables.append(table)
    return tables


def _common_head(by: str, placed: dict) -> tuple[str, dict]:
    """The table's corner and its rows: where every row label starts with the same section named
    ``per_<thing>`` (LV-Eval's ``per_dataset / <dataset>``), ``<thing>`` names the rows and the section
    leaves their labels; a section named after the summary itself is its one row, ``all tasks``."""
    heads = {row.split(" / ", 1)[0] for _, row in placed.values()}
    if len(heads) != 1 or not next(iter(heads)).startswith("per_"):
        return by, placed
    (head,) = heads
    if head == f"per_{by}" and all(row == head for _, row in placed.values()):
        # the section alone (LV-Eval's ``per_level``, by level): one average over the tasks per column
        return by, {p: (c, "all tasks") for p, (c, _) in placed.items()}
    if not all(" / " in row for _, row in placed.values()):
        return by, placed
    return head.removeprefix("per_"), {p: (c, row.split(" / ", 1)[1]) for p, (c, row) in placed.items()}


def _why(entry: Entry | None) -> str:
    """Why a config is not in a model's average: not predicted, partial, or its score not computed."""
    missing = _missing(entry)
    if missing is not None:
        return missing.reason
    computed = "; ".join(dict.fromkeys(entry.result.not_computed.values()))
    return f"not computed ({computed})" if computed else "no score"


def _average(value: float | None, scored: set[str], covered: set[str], own: Mapping[str, Entry]) -> Cell:
    """One model's average over the configs it has complete, out of those any compared run scored."""
    complete = sorted(c for c in covered if not own[c].partial)
    if value is not None:
        return Cell(value, covers=len(complete), of=len(scored), configs=tuple(complete))
    lacking = sorted(scored - set(complete))
    why = {c: _why(own.get(c)) for c in lacking}
    if len(why) <= 2:
        reason = "; ".join(f"{c.split('/', 1)[-1]} {w}" for c, w in why.items())
    else:
        counts = {w: list(why.values()).count(w) for w in dict.fromkeys(why.values())}
        reason = "; ".join(f"{n} configs {w}" if n > 1 else f"1 config {w}" for w, n in counts.items())
    return Cell(None, "missing", reason, covers=0, of=len(scored))


def _own(model: Model, benchmark: str) -> list[tuple[Entry, ScoreResult]]:
    return [(e, e.result) for e in model.entries_of(benchmark)]


def _as_groups(entry: Entry, column: str) -> list[ScoreResult]:
    """Each row group of an entry (a LongBench-E length bucket) as a result whose length is the group."""
    groups = entry.result.groups.get(column) or {}
    return [
        replace(
            entry.result,
            length=key,
            headline={m: scores.get(m) for m in entry.result.headline},
            metrics=dict(scores),
            groups={},
        )
        for key, scores in groups.items()
    ]


def compare_benchmark(benchmark: str, models: Sequence[Model]) -> BenchmarkComparison:
    """Every table of one benchmark, for the models that have any of its configs."""
    mine = [m for m in models if m.entries_of(benchmark)]
    module = metrics_module(benchmark)
    entries = [e for m in mine for e in m.entries_of(benchmark)]
    lengths = length_order(benchmark, (e.result.length or ALL_LENGTHS for e in entries))
    tables = [task_table(benchmark, mine)]
    for by, summary in module.SUMMARIES.items():
        tables += summary_tables(
            benchmark, by, summary, mine, lambda m: _own(m, benchmark), lengths, f"Average by {by} and length"
        )
    levels: Mapping[str, Sequence[str]] = getattr(module, "GROUP_LEVELS", {})
    for column in dict.fromkeys(c for e in entries for c in e.result.groups):
        keys = _ordered((k for e in entries for k in e.result.groups.get(column, {})), levels.get(column, ()))
        for length in lengths:
            at = [
                e for e in entries if (e.result.length or ALL_LENGTHS) == length and column in e.result.groups
            ]
            if not at:
                continue
            for by, summary in module.SUMMARIES.items():

                def grouped(model: Model, length=length, column=column) -> list[tuple[Entry, ScoreResult]]:
                    return [
                        (e, result)
                        for e in model.entries_of(benchmark)
                        if (e.result.length or ALL_LENGTHS) == length
                        for result in _as_groups(e, column)
                    ]

                title = f"Average by {by} and {column}, configs at {length}"
                tables += summary_tables(benchmark, by, summary, mine, grouped, keys, title, at=length)
    splits = sorted({e.result.split or "" for e in entries})
    return BenchmarkComparison(benchmark, ", ".join(splits), tables, _notes(benchmark, mine, splits))


def _notes(benchmark: str, models: Sequence[Model], splits: Sequence[str]) -> list[str]:
    notes = []
    configs = list(dict.fromkeys(e.config for m in models for e in m.entries_of(benchmark)))
    for model in models:
        lacking = [c.split("/", 1)[-1] for c in configs if c not in model.entries]
        partial = [e for e in model.entries_of(benchmark) if e.partial]
        parts = []
        if lacking:
            parts.append(f"not predicted: {', '.join(lacking)}")
        if partial:
            parts.append("; ".join(f"{e.config.split('/', 1)[-1]} {e.partial_reason()}" for e in partial))
        unscored = [
            e
            for e in model.entries_of(benchmark)
            if not e.partial and all(v is None for v in e.result.headline.values())
        ]
        if unscored:
            parts.append("; ".join(f"{e.config.split('/', 1)[-1]} {_why(e)}" for e in unscored))
        if parts:
            notes.append(f"{model.label} — {'; '.join(parts)}: shown as missing, left out of its averages.")
    if len(splits) > 1:
        notes.append(f"The runs scored different splits ({', '.join(splits)}).")
    recorded = [m for m in models if m.options is not None]
    diff = differing([m.options for m in recorded])
    # what tells models apart, the split (noted above) and how many rows were predicted (a partial split
    # is noted per model): not how the rows were built
    for key in ("model", "backend", "endpoint", "split", "limit"):
        diff.pop(key, None)
    if diff:
        shown = "; ".join(
            f"{key}: " + ", ".join(f"{m.label}={v}" for m, v in zip(recorded, values, strict=True))
            for key, values in diff.items()
        )
        notes.append(
            f"The rows were built with different options ({shown}): compare their scores with that in mind."
        )
    return notes
