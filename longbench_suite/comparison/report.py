"""The comparison written out: ``compare.md`` (tables to read), ``compare.csv`` (one line per cell, for
spreadsheets) and ``compare.json`` (everything, with the models' records)."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from typing import Any

from .runs import Model
from .tables import BenchmarkComparison, Cell, Table

CSV_HEADER = (
    "benchmark",
    "table",
    "at",
    "row",
    "model",
    "column",
    "value",
    "status",
    "reason",
    "covers",
    "of",
)


def _number(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, int) and not isinstance(value, bool):  # a count (rows without an answer)
        return str(value)
    return f"{value:.2f}"


def cell_text(cell: Cell | None) -> str:
    """``55.20``, an average ``55.20 (3/4)``, or ``– (not predicted)``."""
    if cell is None:
        return ""
    if cell.value is None:
        return f"– ({cell.reason})" if cell.reason else "–"
    if cell.of is not None:
        return f"{_number(cell.value)} ({cell.covers}/{cell.of})"
    return _number(cell.value)


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table(table: Table) -> str:
    corner = table.corner or table.kind
    lines = [
        "| " + " | ".join([corner, "model", *table.columns]) + " |",
        "|" + "---|" * (len(table.columns) + 2),
    ]
    for row in table.rows:
        for i, model in enumerate(table.models):
            cells = table.cells.get((row, model))
            if cells is None:
                continue
            first = _escape(row) if i == 0 else ""
            shown = [_escape(cell_text(cells.get(c))) for c in table.columns]
            lines.append("| " + " | ".join([first, _escape(model), *shown]) + " |")
    return "\n".join(lines)


MODEL_COLUMNS = ("model", "endpoint", "tokenizer", "chat_template", "max_input_tokens")


def _recorded(model: Model, key: str) -> str:
    if model.options is None:
        return "not recorded"
    value = model.options.get(key)
    return "default" if value is None else str(value)


def _models_table(models: Sequence[Model]) -> str:
    header = ["model", "named from", "model / directory", "endpoint", "tokenizer", "chat template"]
    header += ["max input tokens", "runs"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for model in models:
        named = ", ".join(dict.fromkeys(run.named_by for run in model.runs))
        runs = ", ".join(run.path for run in model.runs)
        cells = [model.label, named, *(_recorded(model, key) for key in MODEL_COLUMNS), runs]
        lines.append("| " + " | ".join(_escape(c) for c in cells) + " |")
    return "\n".join(lines)


def markdown(models: Sequence[Model], benchmarks: Sequence[BenchmarkComparison], notes: Sequence[str]) -> str:
    parts = ["# Model comparison", "", _models_table(models), ""]
    parts += [f"- {note}" for note in notes]
    parts += [
        "",
        "Averages are each benchmark's own (as `predict --score` reports them), over one model's "
        "complete configs; `(k/n)` = the average covers k of the n configs the compared runs scored for "
        "it. A missing cell says why; missing and partial configs never count as 0 and never enter an "
        "average.",
    ]
    for bench in benchmarks:
        parts += ["", f"## {bench.benchmark} ({bench.split})"]
        for table in bench.tables:
            parts += ["", f"{table.title}:", "", markdown_table(table)]
        if bench.notes:
            parts.append("")
            parts += [f"- {note}" for note in bench.notes]
    return "\n".join(parts).rstrip() + "\n"


def csv_text(benchmarks: Sequence[BenchmarkComparison]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for bench in benchmarks:
        for table in bench.tables:
            for (row, model), cells in table.cells.items():
                for column in table.columns:
                    cell = cells.get(column)
                    if cell is None:
                        continue
                    value = "" if cell.value is None else repr(float(cell.value))
                    covers = "" if cell.of is None else cell.covers
                    writer.writerow(
                        [
                            bench.benchmark,
                            table.title,
                            table.at or "",
                            row,
                            model,
                            column,
                            value,
                            cell.status,
                            cell.reason,
                            covers,
                            "" if cell.of is None else cell.of,
                        ]
                    )
    return out.getvalue()


def json_payload(
    models: Sequence[Model], benchmarks: Sequence[BenchmarkComparison], notes: Sequence[str]
) -> dict[str, Any]:
    return {
        "format": 1,
        "models": [
            {
                "label": m.label,
                "name": m.name,
                "named_by": sorted({r.named_by for r in m.runs}),
                "options": m.options,
                "runs": [{"path": r.path, "record": r.record} for r in m.runs],
                "configs": sorted(m.entries),
            }
            for m in models
        ],
        "notes": list(notes),
        "benchmarks": {
            b.benchmark: {"split": b.split, "tables": [t.to_dict() for t in b.tables], "notes": b.notes}
            for b in benchmarks
        },
    }


def json_text(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=1, allow_nan=False) + "\n"
