"""Step 2 of the flow: parsing upstream JSON, JSON-Lines and Parquet files; errors name the file and line.

JSON-Lines files are read one line at a time (LV-Eval's 256k lines are several MB each), never loaded
whole. Blank lines are skipped, as the Hugging Face JSON loader does. Files holding one JSON array of
records (Ada-LEval's, up to hundreds of MB) are parsed one element at a time by
:func:`iter_json_records`.

JSON may spell a lone UTF-16 surrogate (``"\\ud800"``); Python parses it, but no tokenizer and no
Arrow file can hold it, so such a record is refused here, naming the file, the line and the field.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

from ..errors import DataFormatError, InvalidTextError, ShortSourceError, SourceError, first_lone_surrogate
from ..source import FileRef
from .count import check_count

# A surrogate can only reach a parsed record through a \uD800-\uDFFF escape; only then is it looked for.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_TEXT = re.compile(r"\\u[dD][89a-fA-F]")


def _lone_surrogate(value: Any, path: str) -> tuple[str, str, int] | None:
    """``(what, text, index)`` for the first string (value or key) holding a lone surrogate, if any."""
    if isinstance(value, str):
        at = first_lone_surrogate(value)
        return None if at is None else (f"field {path.lstrip('.') or '(the value)'!r}", value, at)
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if isinstance(key, str):
            at = first_lone_surrogate(key)
            if at is not None:
                return f"a key of {path.lstrip('.') or 'the record'!r}", key, at
        found = _lone_surrogate(item, f"{path}.{key}" if isinstance(key, str) else f"{path}[{key}]")
        if found:
            return found
    return None


def refuse_lone_surrogates(record: Any, where: str) -> None:
    """Raise :class:`InvalidTextError` naming the field of ``record`` that holds a lone surrogate."""
    found = _lone_surrogate(record, "")
    if found:
        what, text, at = found
        raise InvalidTextError(
            f"{where}: {what} holds a lone surrogate {text[at]!r} at character {at} (invalid Unicode, "
            "which no tokenizer or Arrow file can hold)"
        )


def iter_jsonl(ref: FileRef, only: Collection[int] | None = None) -> Iterator[tuple[int, dict]]:
    """``(line_number, record)`` for every non-blank line (1-based line numbers).

    ``only``: just these line numbers; other lines are not parsed, and reading stops after the last.
    """
    last = max(only, default=0) if only is not None else None
    found = 0
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
                where = f"{ref.label}, line {line_number}"
                if not isinstance(record, dict):
                    raise DataFormatError(f"{where}: expected a JSON object, got {type(record).__name__}")
                if _SURROGATE_ESCAPE.search(raw):
                    refuse_lone_surrogates(record, where)
                found += 1
                yield line_number, record
        if only is None:
            check_count(ref, found)
    except (DataFormatError, SourceError):
        raise
    except OSError as exc:
        raise SourceError(f"cannot read {ref.label}: {exc.__class__.__name__}: {exc}") from None


def jsonl_line_numbers(ref: FileRef) -> list[int]:
    """The numbers of the non-blank lines of a JSON-Lines file (its rows), found without parsing them."""
    try:
        with ref.open() as f:
            numbers = [number for number, raw in enumerate(f, start=1) if raw.strip()]
    except OSError as exc:
        raise SourceError(f"cannot read {ref.label}: {exc.__class__.__name__}: {exc}") from None
    check_count(ref, len(numbers))
    return numbers


def _whole(ref: FileRef) -> bytes:
    try:
        with ref.open() as f:
            return f.read()
    except SourceError:
        raise
    except OSError as exc:
        raise SourceError(f"cannot read {ref.label}: {exc.__class__.__name__}: {exc}") from None


def read_lines(ref: FileRef) -> list[tuple[int, bytes]]:
    """``(line_number, line)`` for every non-blank line of a text file (1-based, the line end removed).

    A file that declares its record count is judged by the count alone (a cut inside a line leaves
    fewer records), so an upstream file without a final line end still reads; a file with no known
    count that does not end at a line end was cut inside its last line, an error.
    """
    data = _whole(ref)
    if data and not data.endswith(b"\n") and getattr(ref, "records", None) is None:
        last = data.count(b"\n") + 1
        raise ShortSourceError(
            f"{ref.label}: the file ends inside line {last} (no line end): it was cut short"
        )
    lines = [(number, line) for number, line in enumerate(data.split(b"\n"), start=1) if line.strip()]
    check_count(ref, len(lines))
    return lines


def read_jsonl(ref: FileRef, project: Callable[[dict], Any] | None = None) -> list:
    """All records of a JSON-Lines file (or ``project(record)`` of each, to keep memory small)."""
    return [project(r) if project else r for _, r in iter_jsonl(ref)]


def read_json(ref: FileRef) -> Any:
    """A whole JSON document."""
    data = _whole(ref)
    try:
        document = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        where = f", line {line}" if line else ""
        raise DataFormatError(f"{ref.label}{where}: malformed JSON ({exc})") from None
    if _SURROGATE_ESCAPE.search(data):
        refuse_lone_surrogates(document, ref.label)
    return document


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
            check_count(ref, row)
    except (DataFormatError, SourceError):
        raise
    except (pa.ArrowException, OSError) as exc:
        raise SourceError(f"cannot read {ref.label} as Parquet: {exc.__class__.__name__}: {exc}") from None


_WHITESPACE = " \t\n\r"
_DECODER = json.JSONDecoder()


class _JsonReader:
    """A text buffer over a binary stream that grows only while the value at its head is incomplete."""

    def __init__(self, stream, label: str, chunk_bytes: int) -> None:
        self.stream, self.label, self.chunk_bytes = stream, label, chunk_bytes
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf, self.pos, self.start, self.eof, self.lines_dropped = "", 0, 0, False, 0

    def fill(self) -> bool:
        """Read more text (at least as much as is buffered, so big elements cost amortised O(n))."""
        if self.eof:
            return False
        if self.pos > (1 << 16) and self.pos * 2 > len(self.buf):
            self.lines_dropped += self.buf.count("\n", 0, self.pos)
            self.buf, self.pos = self.buf[self.pos :], 0
        data = self.stream.read(max(self.chunk_bytes, len(self.buf) - self.pos))
        self.eof = not data
        try:
            self.buf += self.decoder.decode(data, final=self.eof)
        except UnicodeDecodeError as exc:
            raise self.error(f"not valid UTF-8 ({exc.reason})") from None
        return True

    def peek(self) -> str:
        """The next non-whitespace character ('' at the end of the file)."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _WHITESPACE:
                self.pos += 1
            if self.pos < len(self.buf) or not self.fill():
                return self.buf[self.pos : self.pos + 1]

    def value(self):
        """The JSON value at the (non-whitespace) head of the buffer."""
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self.fill():
                    continue
                # Every complete array ends with ']': a file that does not was cut short.
                cut = (
                    ""
                    if self.buf.rstrip().endswith("]")
                    else "; the file ends inside the JSON array (truncated?)"
                )
                raise self.error(f"malformed JSON ({exc.msg}){cut}", at=exc.pos) from None
            if end == len(self.buf) and self.fill():  # a number or literal may go on in the next chunk
                continue
            self.start, self.pos = self.pos, end  # where the value began (fill() may have moved the buffer)
            return value

    def where(self, at: int | None = None) -> str:
        line = self.lines_dropped + self.buf.count("\n", 0, self.pos if at is None else at) + 1
        return f"{self.label}, line {line}"

    def error(self, message: str, at: int | None = None) -> DataFormatError:
        return DataFormatError(f"{self.where(at)}: {message}")


def iter_json_records(ref: FileRef, chunk_bytes: int = 1 << 20) -> Iterator[tuple[int, dict]]:
    """``(index, record)`` for every element of a file holding one JSON array of objects (0-based).

    The array is parsed incrementally, one element at a time, so a file is never held whole; a
    consumer that stops early reads only the elements it took. Errors name the file and the line.
    """
    try:
        with ref.open() as stream:
            reader = _JsonReader(stream, ref.label, chunk_bytes)
            if reader.peek() != "[":
                raise reader.error("expected a JSON array of records")
            reader.pos += 1
            index = 0
            if reader.peek() == "]":
                reader.pos += 1
            else:
                while True:
                    record = reader.value()
                    if not isinstance(record, dict):
                        kind = type(record).__name__
                        raise reader.error(f"element {index}: expected a JSON object, got {kind}")
                    if _SURROGATE_ESCAPE_TEXT.search(reader.buf, reader.start, reader.pos):
                        refuse_lone_surrogates(record, f"{reader.where(reader.start)}, element {index}")
                    yield index, record
                    index += 1
                    separator = reader.peek()
                    reader.pos += 1
                    if separator == "]":
                        break
                    if not separator:
                        raise reader.error("the file ends inside the JSON array (truncated?)")
                    if separator != ",":
                        raise reader.error(f"expected ',' or ']' after element {index - 1}")
                    reader.peek()
            if reader.peek():
                raise reader.error("unexpected content after the JSON array")
            check_count(ref, index)
    except (DataFormatError, SourceError):
        raise
    except OSError as exc:
        raise SourceError(f"cannot read {ref.label}: {exc.__class__.__name__}: {exc}") from None


def iter_json_object(
    ref: FileRef, keys: Collection[str] | None = None, chunk_bytes: int = 1 << 22
) -> Iterator[tuple[str, Any]]:
    """``(key, value)`` of a top-level JSON object, in file order, without loading the whole document.

    Made for multi-GB objects such as Multi-LexSum's ``sources.json``: only one value is in memory at a
    time, and with ``keys`` only the wanted values are yielded (the others are parsed and dropped).
    """
    try:
        with ref.open() as stream:
            reader = _JsonReader(stream, ref.label, chunk_bytes)
            if reader.peek() != "{":
                raise reader.error("expected a JSON object")
            reader.pos += 1
            if reader.peek() == "}":
                reader.pos += 1
            else:
                yield from _object_items(reader, keys)
            if reader.peek():
                raise reader.error("unexpected content after the JSON object")
    except (DataFormatError, SourceError):
        raise
    except OSError as exc:
        raise SourceError(f"cannot read {ref.label}: {exc.__class__.__name__}: {exc}") from None


def _object_items(reader: _JsonReader, keys: Collection[str] | None) -> Iterator[tuple[str, Any]]:
    """The members of the object whose ``{`` the reader has just passed, up to and past its ``}``."""
    while True:
        key = reader.value()
        if not isinstance(key, str):
            raise reader.error("malformed JSON object (a key is not a string)")
        if reader.peek() != ":":
            raise reader.error(f"expected ':' after the key {key!r}")
        reader.pos += 1
        reader.peek()
        value = reader.value()
        if keys is None or key in keys:
            yield key, value
        separator = reader.peek()
        reader.pos += 1
        if separator == "}":
            return
        if separator != ",":
            raise reader.error(f"malformed JSON object (expected ',' or '}}' after {key!r})")
        reader.peek()
