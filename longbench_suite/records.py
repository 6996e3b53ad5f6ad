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


def iter_jsonl(ref: FileRef) -> Iterator[tuple[int, dict]]:
    """``(line_number, record)`` for every non-blank line (1-based line numbers)."""
    try:
        with ref.open() as f:
            for line_number, raw in enumerate(f, start=1):
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


def _parquet_paths(schema) -> list[str]:
    return [schema.column(i).path for i in range(len(schema))]


def iter_parquet(
    ref: FileRef, columns: Sequence[str] | None = None, batch_size: int = 256
) -> Iterator[tuple[int, dict]]:
    """``(row_number, record)`` for every row of a Parquet file (0-based), reading ``columns`` only.

    Columns may name struct fields with dots (``"document.text"``); the record then keeps the nesting
    (``{"document": {"text": ...}}``). A missing column is an error naming the file and the column.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with ref.open() as f:
            parquet = pq.ParquetFile(f)
            paths = _parquet_paths(parquet.schema)
            for column in columns or ():
                if not any(p == column or p.startswith(column + ".") for p in paths):
                    top = sorted({p.split(".")[0] for p in paths})
                    raise DataFormatError(
                        f"{ref.label}: the Parquet file has no column {column!r} (it has {top})"
                    )
            row = 0
            selected = list(columns) if columns else None
            for batch in parquet.iter_batches(batch_size=batch_size, columns=selected):
                for record in batch.to_pylist():
                    yield row, record
                    row += 1
    except (DataFormatError, SourceError):
        raise
    except (pa.ArrowException, OSError) as exc:
        raise SourceError(f"cannot read {ref.label} as Parquet: {exc.__class__.__name__}: {exc}") from None


_JSON_WS = " \t\n\r"
_CHUNK_CHARS = 1 << 22


class _JsonStream:
    """A growing text buffer over a binary file, for parsing one JSON value at a time."""

    def __init__(self, f, label: str) -> None:
        import codecs

        self._f, self.label = f, label
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf, self.pos, self.eof = "", 0, False

    def more(self) -> bool:
        if self.eof:
            return False
        data = self._f.read(_CHUNK_CHARS)
        if not data:
            self.eof = True
            self.buf += self._decoder.decode(b"", final=True)
            return False
        self.buf = self.buf[self.pos :] + self._decoder.decode(data)
        self.pos = 0
        return True

    def skip_ws(self) -> str:
        """The next non-blank character (reading more as needed), or ``""`` at the end."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _JSON_WS:
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def expect(self, chars: str) -> str:
        c = self.skip_ws()
        if not c or c not in chars:
            found = repr(c) if c else "the end of the file"
            raise DataFormatError(f"{self.label}: malformed JSON object (expected {chars!r}, found {found})")
        self.pos += 1
        return c

    def value(self):
        """The JSON value at the cursor; one that ends the buffer is re-read once more text arrives."""
        decoder = json.JSONDecoder()
        self.skip_ws()
        while True:
            try:
                value, end = decoder.raw_decode(self.buf, self.pos)
                if end < len(self.buf) or self.eof:
                    self.pos = end
                    return value
            except json.JSONDecodeError as exc:
                if self.eof:
                    raise DataFormatError(f"{self.label}: malformed JSON ({exc})") from None
            self.more()


def iter_json_object(ref: FileRef, keys: Collection[str] | None = None) -> Iterator[tuple[str, Any]]:
    """``(key, value)`` of a top-level JSON object, in file order, without loading the whole document.

    Made for multi-GB objects such as Multi-LexSum's ``sources.json``: only one value is in memory at a
    time, and with ``keys`` only the wanted values are yielded (the others are parsed and dropped).
    """
    try:
        with ref.open() as f:
            stream = _JsonStream(f, ref.label)
            stream.expect("{")
            if stream.skip_ws() == "}":
                return
            while True:
                key = stream.value()
                if not isinstance(key, str):
                    raise DataFormatError(f"{ref.label}: malformed JSON object (a key is not a string)")
                stream.expect(":")
                value = stream.value()
                if keys is None or key in keys:
                    yield key, value
                if stream.expect(",}") == "}":
                    return
    except (DataFormatError, SourceError):
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"cannot read {ref.label}: {exc.__class__.__name__}: {exc}") from None
