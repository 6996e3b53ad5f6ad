"""Parsing upstream JSON and JSON-Lines files, with errors that name the file and the line.

JSON-Lines files are read one line at a time (LV-Eval's 256k lines are several MB each), never loaded
whole. Blank lines are skipped, as the Hugging Face JSON loader does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

from .errors import DataFormatError, SourceError
from .sources import FileRef


def iter_jsonl(ref: FileRef, only: Collection[int] | None = None) -> Iterator[tuple[int, dict]]:
    """``(line_number, record)`` for every non-blank line (1-based line numbers).

    ``only``: just these line numbers; other lines are not parsed, and reading stops after the last.
    """
    last = max(only, default=0) if only is not None else None
    try:
        with ref.open() as f:
            for line_number, raw in enumerate(f, start=1):
                if last is not None:
                    if line_number > last:
                        break
                    if line_number not in only:
                        continue
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                    raise DataFormatError(
                        f"{ref.label}, line {line_number}: malformed JSON ({exc})"
                    ) from None
                if not isinstance(record, dict):
                    kind = type(record).__name__
                    where = f"{ref.label}, line {line_number}"
                    raise DataFormatError(f"{where}: expected a JSON object, got {kind}")
                yield line_number, record
    except (DataFormatError, SourceError):
        raise
    except OSError as exc:
        raise SourceError(f"cannot read {ref.label}: {exc.__class__.__name__}: {exc}") from None


def read_jsonl(ref: FileRef, project: Callable[[dict], Any] | None = None) -> list:
    """All records of a JSON-Lines file (or ``project(record)`` of each, to keep memory small)."""
    return [project(r) if project else r for _, r in iter_jsonl(ref)]


def read_json(ref: FileRef) -> Any:
    """A whole JSON document."""
    try:
        with ref.open() as f:
            data = f.read()
    except SourceError:
        raise
    except OSError as exc:
        raise SourceError(f"cannot read {ref.label}: {exc.__class__.__name__}: {exc}") from None
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        where = f", line {line}" if line else ""
        raise DataFormatError(f"{ref.label}{where}: malformed JSON ({exc})") from None


def require(record: dict, fields: Sequence[str], where: str) -> None:
    """Raise a :class:`DataFormatError` naming the first of ``fields`` that ``record`` lacks."""
    for name in fields:
        if name not in record:
            raise DataFormatError(f"{where}: the record has no field {name!r} (it has {sorted(record)})")
