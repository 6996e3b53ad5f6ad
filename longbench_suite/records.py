"""Parsing upstream JSON and JSON-Lines files, with errors that name the file and the line.

JSON-Lines files are read one line at a time (LV-Eval's 256k lines are several MB each), never loaded
whole. Blank lines are skipped, as the Hugging Face JSON loader does. Files holding one JSON list of
records (HELMET's ALCE files, about 1 GB each) are read one element at a time too.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator, Sequence
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


_SPACE = re.compile(r"[ \t\n\r]*")
_CHUNK_CHARS = 1 << 20
# How close to the end of the buffer a parse error may be and still mean "the element goes on".
_CUT_REACH = 8


def iter_json_array(ref: FileRef, *, chunk_chars: int = _CHUNK_CHARS) -> Iterator[tuple[int, dict]]:
    """``(record_number, record)`` for every element of a file holding one JSON list of objects.

    Elements are parsed one at a time from a buffer that grows only as far as the element being read,
    so memory stays at the size of the largest element. Record numbers are 1-based; errors name the
    file, the line and the record.
    """
    try:
        with ref.open() as raw:
            yield from _JsonArrayReader(ref.label, io.TextIOWrapper(raw, encoding="utf-8"), chunk_chars)
    except (DataFormatError, SourceError):
        raise
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"{ref.label}: not UTF-8 text ({exc})") from None
    except OSError as exc:
        raise SourceError(f"cannot read {ref.label}: {exc.__class__.__name__}: {exc}") from None


class _JsonArrayReader:
    """The elements of a JSON list read from a text stream (see :func:`iter_json_array`)."""

    def __init__(self, label: str, text: io.TextIOBase, chunk_chars: int) -> None:
        self.label, self.text, self.chunk_chars = label, text, chunk_chars
        self.buf, self.pos, self.lines_before, self.eof = "", 0, 0, False
        self.decoder = json.JSONDecoder()

    def _fill(self) -> None:
        """Drop what was consumed and read at least as much again as is left."""
        self.lines_before += self.buf.count("\n", 0, self.pos)
        rest = self.buf[self.pos :]
        chunk = self.text.read(max(self.chunk_chars, len(rest)))
        self.eof = not chunk
        self.buf, self.pos = rest + chunk, 0

    def _skip_space(self) -> None:
        while True:
            self.pos = _SPACE.match(self.buf, self.pos).end()
            if self.pos < len(self.buf) or self.eof:
                return
            self._fill()

    def _fail(self, what: str, at: int, record: int) -> DataFormatError:
        line = self.lines_before + self.buf.count("\n", 0, at) + 1
        return DataFormatError(f"{self.label}, line {line} (record {record}): {what}")

    def _next_char(self) -> str:
        self._skip_space()
        return self.buf[self.pos] if self.pos < len(self.buf) else ""

    def __iter__(self) -> Iterator[tuple[int, dict]]:
        if self._next_char() != "[":
            found = "an empty file" if not self.buf else f"{self.buf[self.pos : self.pos + 20]!r}"
            raise self._fail(f"expected a JSON list of records, found {found}", self.pos, 1)
        self.pos += 1
        number = 0
        if self._next_char() == "]":
            self.pos += 1
        else:
            while True:
                number += 1
                yield number, self._element(number)
                after = self._next_char()
                self.pos += 1
                if after == "]":
                    break
                if after != ",":
                    what = "the list ends before it is closed" if not after else "expected ',' or ']'"
                    raise self._fail(what, self.pos - 1, number)
                self._skip_space()
        if self._next_char():
            raise self._fail("extra data after the list", self.pos, number)

    def _element(self, number: int) -> dict:
        while True:
            try:
                record, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                cut = exc.msg.startswith("Unterminated string") or exc.pos >= len(self.buf) - _CUT_REACH
                if cut and not self.eof:
                    self._fill()
                    continue
                raise self._fail(f"malformed JSON ({exc.msg})", exc.pos, number) from None
            if not isinstance(record, dict):
                raise self._fail(f"expected a JSON object, got {type(record).__name__}", self.pos, number)
            self.pos = end
            return record
