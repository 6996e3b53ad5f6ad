"""The card's token-length picture: small multiples, a panel per config and split.

Every panel shares the token axis, so configs compare by position, and each has its own row-count
axis, so neither a config nor a small split (8 dev rows beside 600 eval rows) can hide another.
The axis is log2 with power-of-two ticks where the counts span at least four times their smallest
value, and linear otherwise (a log2 axis over less than a power of two has no tick to label). Row
counts are integers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..errors import MissingDependencyError

#: split colours: colour-blind-safe (Okabe–Ito), the same split the same colour in every panel
SPLIT_COLOURS = {"dev": "#0072B2", "eval": "#D55E00", "train": "#009E73", "validation": "#CC79A7"}
OTHER_COLOURS = ("#E69F00", "#56B4E9", "#F0E442", "#000000")
#: about this many panels per row of the grid
PANELS_PER_ROW = 4
#: the token axis is log2 when the largest count is at least this many times the smallest
LOG_SPAN = 4


def require_matplotlib(
    picture: str = "token-length histograms need",
    instead: str = "export with histogram=False / --no-histogram",
) -> None:
    """Refuse a picture before any work when matplotlib (the ``cards`` extra) is missing, in one line:
    ``picture`` says what needs it, ``instead`` how to do without."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            f"{picture} matplotlib: pip install 'longbench-suite[cards]' (or {instead})"
        ) from None


def tokens_label(value: float) -> str:
    """A tick label: ``512``, ``4,096``, ``131,072`` (exact, so budgets like 8,192 read as such)."""
    return f"{round(value):,}"


def token_axis(low: int, high: int) -> tuple[str, list[float], list[float]]:
    """The axis scale (``"log2"`` or ``"linear"``), the bin edges and the labelled ticks for counts
    from ``low`` to ``high``."""
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    low, high = max(1, low), max(1, high)
    if high >= LOG_SPAN * low:
        # a margin of 5 % keeps a config at exactly a power of two (8,192) off the frame
        first, last = math.floor(math.log2(low / 1.05)), math.ceil(math.log2(high * 1.05))
        edges = np.geomspace(2.0**first, 2.0**last, 8 * (last - first) + 1)
        step = max(1, math.ceil((last - first) / 8))
        ticks = [2.0**e for e in range(first, last + 1, step)]
        return "log2", list(edges), ticks
    pad = max(1, round((high - low) * 0.05))
    start, stop = max(0, low - pad), high + pad
    ticks = [t for t in MaxNLocator(nbins=5, integer=True).tick_values(start, stop) if start <= t <= stop]
    edges = np.linspace(start, stop + 1, 31)
    return "linear", list(edges), ticks


def _colour(split: str, splits: Sequence[str]) -> str:
    if split in SPLIT_COLOURS:
        return SPLIT_COLOURS[split]
    others = [s for s in splits if s not in SPLIT_COLOURS]
    return OTHER_COLOURS[others.index(split) % len(OTHER_COLOURS)]


def grid(configs: int, splits: int) -> tuple[int, int]:
    """Configs per row and rows of the panel grid: a row holds whole configs (a panel per split),
    about ``PANELS_PER_ROW`` panels wide."""
    per_row = max(1, min(configs, PANELS_PER_ROW // max(1, splits)))
    return per_row, math.ceil(configs / per_row)


def plot_histogram(counts: Sequence, path: str) -> None:
    """Write the PNG of :func:`histogram_figure`."""
    histogram_figure(counts).savefig(path, dpi=100, format="png", metadata={"Software": None})


def histogram_figure(counts: Sequence):
    """The input-token counts of ``counts`` (:class:`~.card.ConfigCounts`; configs without counts are
    left out) as a matplotlib ``Figure``: a panel per config and split, each with its own row-count
    axis, titled ``<config>\n<split> · <rows> rows``."""
    require_matplotlib()
    from matplotlib.figure import Figure
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator

    counts = [c for c in counts if any(c.splits.values())]
    if not counts:
        raise ValueError("no config has token counts to plot")
    values = [n for c in counts for v in c.splits.values() for n in v]
    scale, edges, ticks = token_axis(min(values), max(values))
    present = {s for c in counts for s in c.splits if c.splits[s]}
    splits = [s for s in SPLIT_COLOURS if s in present] + sorted(present - set(SPLIT_COLOURS))

    per_row, rows = grid(len(counts), len(splits))
    columns = per_row * len(splits)
    fig = Figure(figsize=(2.8 * columns + 0.4, 0.6 + 2.1 * rows), layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False, sharex=True)
    used = []
    for index, config in enumerate(counts):
        for offset, split in enumerate(splits):
            ax = axes[index // per_row, (index % per_row) * len(splits) + offset]
            used.append(ax)
            data = config.splits.get(split)
            colour = _colour(split, splits)
            label = f"{config.config}\n{split}"
            if not data:
                rows_only = config.rows.get(split)
                note = f"{rows_only:,} rows, not counted" if rows_only else f"no {split} split"
                label += " (none)" if not rows_only else ""
                ax.text(0.5, 0.5, note, transform=ax.transAxes, ha="center", va="center", color="0.45")
                ax.set_yticks([])
                ax.set_title(label, fontsize="medium", loc="left", color="0.45")
                continue
            ax.hist(data, bins=edges, histtype="stepfilled", color=colour, alpha=0.35)
            ax.hist(data, bins=edges, histtype="step", color=colour, linewidth=1.4)
            # a rug of every row under the bars, so a lone outlier shows beside a 600-row bar
            rug = ax.get_xaxis_transform()
            ax.plot(data, [0.03] * len(data), "|", color=colour, markersize=5, transform=rug)
            ax.set_title(f"{label} · {len(data):,} rows", fontsize="medium", loc="left")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=4, min_n_ticks=1))
            ax.grid(axis="x", color="0.9", linewidth=0.8)
            ax.set_axisbelow(True)
            row = axes[index // per_row]
            if not any(a.get_ylabel() for a in row):
                ax.set_ylabel("rows")
    for ax in axes.flat:
        if ax not in used:
            ax.set_visible(False)
    first = axes.flat[0]
    if scale == "log2":
        first.set_xscale("log", base=2)
    first.set_xlim(edges[0], edges[-1])
    first.xaxis.set_major_locator(FixedLocator(ticks))
    first.xaxis.set_minor_locator(NullLocator())
    first.xaxis.set_major_formatter(FuncFormatter(lambda value, _: tokens_label(value)))
    for column in range(columns):
        # sharex leaves tick labels to the bottom row; a column whose last panels are unused needs them
        lowest = max((r for r in range(rows) if axes[r, column] in used), default=None)
        if lowest is not None:
            ax = axes[lowest, column]
            ax.xaxis.set_tick_params(labelbottom=True)
            for tick in ax.get_xticklabels():
                tick.set(rotation=35, ha="right", rotation_mode="anchor")
            ax.set_xlabel("input tokens" + (" (log scale)" if scale == "log2" else ""))
    return fig
