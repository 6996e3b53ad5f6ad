"""Results in the shape each benchmark reports them: a Markdown table of headline scores by task and
length (HELMET's datasets by length, LV-Eval's datasets by level, Ada-LEval's settings by length),
the benchmark's own summaries (HELMET's and LongBench's categories, LV-Eval's level averages),
breakdowns by row group (LongBench-E's length buckets), and a PNG of score against length."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..metrics.report import partial_label
from ..metrics.scoring import ScoreResult


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, int) and not isinstance(value, bool):  # a count (rows without an answer)
        return str(value)
    return f"{value:.2f}"


def _markdown(
    corner: str,
    columns: Sequence[str],
    rows: Mapping[str, Mapping[str, Any]],
    marks: Mapping[tuple[str, str], str] | None = None,
) -> str:
    """A table; ``marks[(row, column)]`` follows that cell's value (a partial split's note)."""
    marks = marks or {}

    def cell(name: str, column: str) -> str:
        mark = marks.get((name, column))
        return f"{_fmt(rows[name].get(column))} {mark}" if mark else _fmt(rows[name].get(column))

    lines = [
        "| " + " | ".join([corner, *columns]) + " |",
        "|" + "---|" * (len(columns) + 1),
    ]
    for name in rows:
        lines.append("| " + " | ".join([name, *(cell(name, c) for c in columns)]) + " |")
    return "\n".join(lines)


def length_order(benchmark: str, present: Iterable[str]) -> list[str]:
    """The lengths ``present`` (once each), shortest first: by the token count each stands for (the
    ``max_length`` of a task that declares or builds it: ``4k`` 4096, ``3000``, ``48k`` 49152), then
    those that stand for none (LV-Eval's levels, LongBench's ``full``) in the order the tasks declare
    them, then any no task knows, in the order given."""
    from .. import registry

    present = list(dict.fromkeys(present))
    tasks = registry.benchmark(benchmark).tasks
    declared = list(dict.fromkeys(length for task in tasks for length in task.lengths))
    tokens: dict[str, int | None] = {}
    for length in present:
        task = next((t for t in tasks if length in t.lengths or t.accepts_length(length)), None)
        tokens[length] = task.max_length(length) if task is not None else None

    def key(length: str) -> tuple[int, int, int]:
        if tokens[length] is not None:
            return (0, tokens[length], 0)
        if length in declared:
            return (1, 0, declared.index(length))
        return (2, 0, present.index(length))

    return sorted(present, key=key)


def _metric_rows(results: Sequence[ScoreResult]) -> list[tuple[str, str]]:
    """(row label, (task, metric)) pairs: a task with several headline metrics gets one row each."""
    multi = {r.task for r in results if len(r.headline) > 1}
    pairs = dict.fromkeys((r.task, m) for r in results for m in r.headline)
    return [(f"{t} ({m})" if t in multi else t, (t, m)) for t, m in pairs]  # type: ignore[misc]


def by_length(results: Sequence[ScoreResult]) -> tuple[list[str], dict[str, dict[str, float | None]]]:
    """One benchmark's headline scores: columns are lengths, rows tasks (and metrics)."""
    lengths = length_order(results[0].benchmark, [r.length or "" for r in results])
    rows: dict[str, dict[str, float | None]] = {}
    for label, (task, metric) in _metric_rows(results):
        rows[label] = {
            r.length or "": r.headline.get(metric) for r in results if r.task == task and metric in r.headline
        }
    return lengths, rows


def _partial_marks(results: Sequence[ScoreResult]) -> dict[tuple[str, str], str]:
    """The headline table's cells that come from a partial split."""
    return {
        (label, r.length or ""): partial_label(r)
        for label, (task, metric) in _metric_rows(results)
        for r in results
        if r.task == task and metric in r.headline and r.partial
    }


def _summary_rows(summary: Mapping[str, Any]) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """A summary ``{column: {row: score}}`` (rows may nest: ``{column: {language: {category: score}}}``)."""
    columns = list(summary)
    rows: dict[str, dict[str, Any]] = {}

    def walk(column: str, prefix: tuple[str, ...], value: Any) -> None:
        if isinstance(value, Mapping):
            for key, inner in value.items():
                walk(column, (*prefix, str(key)), inner)
        else:
            rows.setdefault(" / ".join(prefix), {})[column] = value

    for column in columns:
        walk(column, (), summary[column])
    return columns, rows


def _summary_sections(by: str, summary: Mapping[str, Any]):
    """(corner, columns, rows) of each table a summary is shown as: one table, or, when its sections
    share no row (LV-Eval's ``per_level`` and ``per_dataset``), one table per section."""
    columns, rows = _summary_rows(summary)
    if len(columns) < 2 or any(len(cells) > 1 for cells in rows.values()):
        return [(by, columns, rows)]
    return [
        (
            column.removeprefix("per_"),
            ["score"],
            {name: {"score": cells[column]} for name, cells in rows.items() if column in cells},
        )
        for column in columns
    ]


def markdown_report(results: Sequence[ScoreResult], summaries: Mapping[str, Mapping[str, Any]]) -> str:
    """Every benchmark's tables, as Markdown."""
    parts: list[str] = []
    for benchmark in dict.fromkeys(r.benchmark for r in results):
        mine = [r for r in results if r.benchmark == benchmark]
        split = ", ".join(dict.fromkeys(r.split or "" for r in mine))
        parts.append(f"## {benchmark} ({split})")
        partial = [r for r in mine if r.partial]
        if partial:
            listed = ", ".join(f"{r.config} {partial_label(r)}" for r in partial)
            parts += ["", f"Scored on the first rows of their split only: {listed}."]
        columns, rows = by_length(mine)
        table = _markdown("task", columns, rows, _partial_marks(mine))
        parts += ["", "Headline scores by task and length:", "", table, ""]
        for by, per_benchmark in summaries.items():
            if benchmark in per_benchmark:
                parts += [f"Summary by {by}:", ""]
                for corner, columns, rows in _summary_sections(by, per_benchmark[benchmark]):
                    # which configs an average takes is the benchmark's rule: every value says it may hold one
                    marks = {
                        (n, c): "partial"
                        for n in rows
                        for c in columns
                        if partial and rows[n].get(c) is not None
                    }
                    parts += [_markdown(corner, columns, rows, marks), ""]
        for column in dict.fromkeys(c for r in mine for c in r.groups):
            rows = {}
            keys: list[str] = []
            marked: list[tuple[str, str]] = []
            for r in mine:
                groups = r.groups.get(column)
                if groups:
                    metric = next(iter(r.headline))
                    keys += [k for k in groups if k not in keys]
                    name = r.config.split("/", 1)[-1]
                    rows[name] = {k: g.get(metric) for k, g in groups.items()}
                    marked += [(name, partial_label(r))] if r.partial else []
            marks = {(name, k): label for name, label in marked for k in keys}
            parts += [f"Headline scores by {column}:", "", _markdown("config", keys, rows, marks), ""]
    return "\n".join(parts).rstrip() + "\n"


def require_plotting() -> None:
    """Refuse the score picture before any work when matplotlib (the ``cards`` extra) is missing."""
    from ..publish.histogram import require_matplotlib

    require_matplotlib(
        "the score-vs-length picture needs", "predict with plot=False / --no-plot; score without --plot"
    )


def plot_scores(results: Sequence[ScoreResult], path: str) -> None:
    """A PNG of headline score against length: one panel per benchmark, one line per task."""
    require_plotting()
    from matplotlib.figure import Figure

    benchmarks = list(dict.fromkeys(r.benchmark for r in results))
    columns = min(2, len(benchmarks))
    grid = (len(benchmarks) + columns - 1) // columns
    fig = Figure(figsize=(6.5 * columns, 4.2 * grid), layout="constrained")
    axes = fig.subplots(grid, columns, squeeze=False).ravel()
    for ax in axes[len(benchmarks) :]:
        ax.set_visible(False)
    for ax, benchmark in zip(axes, benchmarks, strict=False):
        lengths, rows = by_length([r for r in results if r.benchmark == benchmark])
        partial = {label for label, _ in _partial_marks([r for r in results if r.benchmark == benchmark])}
        for label, cells in rows.items():
            points = [(i, cells[n]) for i, n in enumerate(lengths) if cells.get(n) is not None]
            if points:
                xs, ys = zip(*points, strict=True)
                ax.plot(xs, ys, marker="o", label=f"{label} (partial)" if label in partial else label)
        ax.set_xticks(range(len(lengths)), lengths)
        ax.set_xlim(-0.5, len(lengths) - 0.5)
        ax.set_ylim(-2, 102)
        ax.set_xlabel("length")
        ax.set_ylabel("score")
        ax.set_title(benchmark, loc="left")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small", loc="best", ncols=2)
    fig.savefig(path, format="png", dpi=90, metadata={"Software": None})
