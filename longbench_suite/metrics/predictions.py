"""Reading a predictions file and matching it to a split's rows, refusing every mismatch.

One JSON object per line: ``{"index": <row position>, "prediction": str}`` or
``{"query_id": ..., "prediction": str}`` (the latter only where the query id is unique in the split;
HELMET's RAG rows repeat it across depth variants). Both keys may be given; they must then agree.
Missing rows, rows outside the split, rows predicted twice and ambiguous query ids are errors.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from ..errors import PredictionError

_SHOWN = 5


def read_predictions(path: str) -> list[tuple[int, dict]]:
    """``(line number, record)`` of every non-blank line."""
    records = []
    try:
        with open(path, "rb") as f:
            for number, raw in enumerate(f, start=1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise PredictionError(
                        f"{path}, line {number}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at column "
                        f"{exc.start + 1}); a predictions file is JSON Lines in UTF-8"
                    ) from None
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError as exc:
                    raise PredictionError(f"{path}, line {number}: malformed JSON ({exc})") from None
                if not isinstance(record, dict):
                    raise PredictionError(
                        f"{path}, line {number}: expected a JSON object, got {type(record).__name__}"
                    )
                records.append((number, record))
    except OSError as exc:
        raise PredictionError(f"cannot read predictions {path}: {exc.__class__.__name__}: {exc}") from None
    return records


def _row_of(record: Mapping, where: str, query_rows: Mapping[str, list[int]], n_rows: int) -> int:
    has_index, has_qid = "index" in record, "query_id" in record
    if not has_index and not has_qid:
        raise PredictionError(f"{where}: needs 'index' (row position) or 'query_id'")
    index = None
    if has_index:
        index = record["index"]
        if not isinstance(index, int) or isinstance(index, bool):
            raise PredictionError(f"{where}: 'index' must be an integer, got {index!r}")
        if not 0 <= index < n_rows:
            raise PredictionError(f"{where}: index {index} is not a row of the split (it has {n_rows} rows)")
    if has_qid:
        qid = record["query_id"]
        rows = query_rows.get(str(qid))
        if not rows:
            raise PredictionError(f"{where}: query_id {qid!r} is not in the split")
        if index is None:
            if len(rows) > 1:
                shown = ", ".join(str(r) for r in rows[:_SHOWN])
                raise PredictionError(
                    f"{where}: query_id {qid!r} is ambiguous: {len(rows)} rows have it (indices {shown}"
                    f"{', ...' if len(rows) > _SHOWN else ''}); give 'index' instead"
                )
            index = rows[0]
        elif index not in rows:
            raise PredictionError(f"{where}: index {index} and query_id {qid!r} name different rows")
    return index


def align_predictions(
    records: Iterable[tuple[int, Mapping]],
    query_ids: Sequence[str],
    source: str = "predictions",
    *,
    allow_partial: bool = False,
) -> list[str]:
    """The predictions in row order; every row exactly once or a :class:`PredictionError`.

    Predictions of the first N rows only (``predict --limit N``) are a partial split: refused, saying
    so, unless ``allow_partial``, which returns those N. Any other row left out is an error."""
    query_rows: dict[str, list[int]] = {}
    for i, qid in enumerate(query_ids):
        query_rows.setdefault(str(qid), []).append(i)
    predictions: list[str | None] = [None] * len(query_ids)
    first_line: dict[int, int] = {}
    for number, record in records:
        where = f"{source}, line {number}"
        if "prediction" not in record:
            raise PredictionError(f"{where}: has no 'prediction'")
        if not isinstance(record["prediction"], str):
            raise PredictionError(
                f"{where}: 'prediction' must be a string, got {type(record['prediction']).__name__}"
            )
        index = _row_of(record, where, query_rows, len(query_ids))
        if index in first_line:
            raise PredictionError(f"{where}: row {index} was already predicted on line {first_line[index]}")
        first_line[index] = number
        predictions[index] = record["prediction"]
    missing = [i for i, p in enumerate(predictions) if p is None]
    first = len(query_ids) - len(missing)
    if missing and first and missing == list(range(first, len(query_ids))):
        if allow_partial:
            return predictions[:first]  # type: ignore[return-value]
        raise PredictionError(
            f"{source}: predictions of the first {first} of {len(query_ids)} rows only (a partial split); "
            "score it with --allow-partial (it is then marked partial), or predict every row"
        )
    if missing:
        shown = ", ".join(f"{i} ({query_ids[i]})" for i in missing[:_SHOWN])
        raise PredictionError(
            f"{source}: {len(missing)} of {len(query_ids)} rows have no prediction, e.g. index {shown}"
        )
    return predictions  # type: ignore[return-value]
