"""Token-length statistics of built splits, and the plain-text table the CLI prints."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..fit.tokenizers import TokenCounter


@dataclass(frozen=True)
class SplitStats:
    """Rows and input tokens of one split; token figures are ``None`` where the rows carry no counts.
    ``truncated`` is how many inputs the fit cut to their budget (``input_truncated``; the table's
    "cut to fit")."""

    config: str
    split: str
    rows: int
    min_tokens: int | None
    median_tokens: float | None
    max_tokens: int | None
    truncated: int | None = None


def token_counts(inputs: Iterable[str], counter: TokenCounter, batch: int = 64) -> list[int]:
    """The token count (special tokens included) of every text, in order."""
    counts: list[int] = []
    pending: list[str] = []
    for text in inputs:
        pending.append(text)
        if len(pending) == batch:
            counts += counter.count_batch(pending)
            pending = []
    if pending:
        counts += counter.count_batch(pending)
    return counts


def stats_of_counts(config: str, split: str, counts: Sequence[int]) -> SplitStats:
    if not counts:
        return SplitStats(config, split, 0, 0, 0, 0)
    return SplitStats(config, split, len(counts), min(counts), statistics.median(counts), max(counts))


def split_stats(config: str, split: str, rows, counter: TokenCounter | None = None) -> SplitStats:
    """Row count, min/median/max input tokens (special tokens included) and cut-to-fit count of one
    split of built rows: from their ``input_tokens`` and ``input_truncated`` columns, counting with
    ``counter`` only where the rows carry no counts."""
    columns = rows.column_names
    counts = list(rows["input_tokens"]) if "input_tokens" in columns else [None]
    if None in counts:
        counts = token_counts(rows["input"], counter) if counter is not None else None
    truncated = sum(rows["input_truncated"]) if "input_truncated" in columns else None
    if counts is None:
        return SplitStats(config, split, len(rows), None, None, None, truncated)
    stats = stats_of_counts(config, split, counts)
    return SplitStats(
        config, split, stats.rows, stats.min_tokens, stats.median_tokens, stats.max_tokens, truncated
    )


def format_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A left/right-aligned plain-text table (numbers right-aligned)."""
    cells = [[str(h) for h in header]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    numeric = [all(_is_number(r[i]) for r in cells[1:]) and len(cells) > 1 for i in range(len(header))]
    lines = []
    for n, row in enumerate(cells):
        parts = [
            c.rjust(w) if numeric[i] else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(parts).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def stats_table(stats: Iterable[SplitStats]) -> str:
    stats = list(stats)
    header = ["config", "split", "rows", "min tokens", "median tokens", "max tokens"]
    over = any(s.truncated is not None for s in stats)
    if over:
        header.append("cut to fit")
    return format_table(
        header,
        (
            [s.config, s.split, s.rows, s.min_tokens, s.median_tokens, s.max_tokens]
            + ([s.truncated if s.truncated is not None else "-"] if over else [])
            for s in stats
        ),
    )


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}" if value != int(value) else str(int(value))
    return str(value)


def _is_number(text: str) -> bool:
    if text == "-":
        return True
    try:
        float(text)
    except ValueError:
        return False
    return True
