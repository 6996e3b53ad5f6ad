"""The comparison's picture: score against length, one panel per benchmark and category (or task, for
a benchmark without averages), one line per model, each model in one colour throughout."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .tables import ALL_LENGTHS, BenchmarkComparison, Table

PANEL_COLUMNS = 3
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def panels(benchmarks: Sequence[BenchmarkComparison]) -> list[tuple[str, Table, str]]:
    """(title, table, row) of every panel: a benchmark's averages by length, else its task scores."""
    out = []
    for bench in benchmarks:
        by_length = [
            t for t in bench.tables if t.kind != "task" and t.at is None and t.columns != [ALL_LENGTHS]
        ]
        for table in by_length or [t for t in bench.tables if t.kind == "task"]:
            out += [(f"{bench.benchmark} · {row}", table, row) for row in table.rows]
    return out


def plot(benchmarks: Sequence[BenchmarkComparison], models: Sequence[str], path: str) -> None:
    """Write the PNG to ``path`` (matplotlib must be installed: the ``cards`` extra)."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    chosen = panels(benchmarks)
    columns = max(1, min(PANEL_COLUMNS, len(chosen)))
    grid = max(1, (len(chosen) + columns - 1) // columns)
    fig = Figure(figsize=(4.6 * columns, 3.4 * grid + 0.9), layout="constrained")
    axes = fig.subplots(grid, columns, squeeze=False).ravel()
    colours = {m: f"C{i % 10}" for i, m in enumerate(models)}
    shapes = {m: MARKERS[i % len(MARKERS)] for i, m in enumerate(models)}
    # models side by side around each length, so equal scores do not hide one another
    dodge = {m: (i - (len(models) - 1) / 2) * min(0.05, 0.4 / len(models)) for i, m in enumerate(models)}
    for ax in axes[len(chosen) :]:
        ax.set_visible(False)
    for ax, (title, table, row) in zip(axes, chosen, strict=False):
        lengths = [
            c
            for c in table.columns
            if any(table.cells.get((row, m), {}).get(c) is not None for m in table.models)
        ]
        for model in table.models:
            cells = table.cells.get((row, model), {})
            points = [
                (i, cells[c]) for i, c in enumerate(lengths) if cells.get(c) and cells[c].value is not None
            ]
            if not points:
                continue
            xs = [i + dodge[model] for i in range(len(lengths))]
            # NaN where a length has no value, so the line breaks there instead of bridging the gap
            ys = [
                cells[c].value if cells.get(c) and cells[c].value is not None else math.nan for c in lengths
            ]
            ax.plot(xs, ys, color=colours[model], linewidth=1.6)
            for x, cell in points:
                short = cell.of is not None and cell.covers < cell.of
                ax.plot(
                    [x + dodge[model]],
                    [cell.value],
                    marker=shapes[model],
                    markersize=6,
                    color=colours[model],
                    markerfacecolor="white" if short else colours[model],
                )
        ax.set_xticks(range(len(lengths)), lengths)
        ax.set_xlim(-0.6 if len(lengths) > 1 else -1.5, len(lengths) - (0.4 if len(lengths) > 1 else -0.5))
        ax.set_ylim(-3, 103)
        ax.set_xlabel("length")
        ax.set_ylabel("score")
        ax.set_title(title, loc="left", fontsize="medium")
        ax.grid(alpha=0.3)
    handles = [Line2D([], [], color=colours[m], marker=shapes[m], label=m) for m in models]
    handles.append(
        Line2D(
            [],
            [],
            color="grey",
            marker="o",
            markerfacecolor="white",
            linestyle="",
            label="average over fewer configs than the other runs scored",
        )
    )
    fig.legend(handles=handles, loc="outside upper center", ncols=min(len(handles), 4), fontsize="small")
    fig.savefig(path, format="png", dpi=90, metadata={"Software": None})
