"""What a generated config may ask for: its length by name, and the bounds checked before any work
(``docs/generate.md`` §1), shared by every benchmark with generated configs (HELMET's ``gen_*``, RULER)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

from ..errors import DataFormatError, OptionError, SourceError, first_lone_surrogate

_LENGTH = re.compile(r"(\d+)([km]?)")
_UNITS = {"": 1, "k": 1024, "m": 1024 * 1024}
#: the longest generated config, in tokens (16m): past any model's context (the longest announced is
#: 10M). A row is built, tokenized and stored whole, ~40 bytes of memory per token at its peak (0.41-0.49
#: GB of RSS for one 8m row, Llama-2), so a much longer length would exhaust memory mid-build
MAX_LENGTH = 16 * 1024 * 1024
#: the most rows one config generates (ten million; ``None`` streams without end). A prepared split
#: stores every row: at the shortest HELMET length, 8k, this many are ~300 GB of Arrow files
MAX_ROWS = 10_000_000
#: the largest essay file (64 MiB). It is held in memory as its words (about ten times its size),
#: and 64 MiB is over ten million words, more than the longest config reads (an essay repeats)
MAX_ESSAY_BYTES = 64 * 1024 * 1024


def parse_length(length: str) -> int | None:
    """Tokens of a length name: ``6000``, ``48k`` (49152), ``1m`` (1048576); ``None`` if not one."""
    match = _LENGTH.fullmatch(length)
    return int(match.group(1)) * _UNITS[match.group(2)] if match else None


@dataclass(frozen=True, eq=False, repr=False)
class TokenCountLengths:
    """A generated task's lengths are token counts: a config exists at any count past the task's
    generation length (``max_new_tokens``), and that count is its window and ``max_length``. (A field-less
    dataclass, so it mixes into the frozen ``Task`` dataclasses.)"""

    def accepts_length(self, length: str) -> bool:
        tokens = parse_length(length)
        return tokens is not None and tokens > self.max_new_tokens

    def length_refusal(self, length: str) -> str | None:
        tokens = parse_length(length)
        if tokens is None or tokens > self.max_new_tokens:
            return None
        return (
            f"{self.name} takes any length above its {self.max_new_tokens} tokens to generate "
            f"({self.name}_{self.max_new_tokens + 1} at the least, and its prompt must fit beside them)"
        )

    def window(self, length: str) -> int:
        return parse_length(length)

    def max_length(self, length: str) -> int:
        return parse_length(length)


def check_length(config: str, length: str | None) -> None:
    """Refuse a length over :data:`MAX_LENGTH` before any work (it would exhaust memory mid-build)."""
    tokens = parse_length(length) if length else None
    if tokens is not None and tokens > MAX_LENGTH:
        raise OptionError(
            f"{config}: a generated config is at most {MAX_LENGTH:,} tokens (16m), got "
            f"{tokens:,} (a row is built, tokenized and stored whole; docs/generate.md §1)"
        )


def check_rows(rows: object, where: str) -> None:
    """Refuse a ``rows`` option that is not a positive integer up to :data:`MAX_ROWS` or ``None``."""
    if rows is not None and (type(rows) is not int or rows <= 0):
        raise OptionError(f"{where}: generate rows must be a positive integer or None, got {rows!r}")
    if rows is not None and rows > MAX_ROWS:
        raise OptionError(
            f"{where}: generate rows is at most {MAX_ROWS:,} (a prepared split stores every row), got "
            f"{rows:,}; stream without end with rows=None and streaming=True"
        )


def essay_text(data: bytes, where: str, as_json: bool) -> str:
    """The essay text of a file's bytes: RULER's ``{"text": ...}`` JSON (``as_json``) or plain text;
    refused in one line naming ``where`` when not UTF-8, holding a NUL byte or lone surrogate, or blank."""
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataFormatError(
            f"{where}: not UTF-8 text (byte {exc.start} is 0x{data[exc.start]:02x}); pass a text or JSON file"
        ) from None
    if as_json:
        try:
            text = json.loads(raw)["text"]
        except (ValueError, KeyError, TypeError):
            raise DataFormatError(f"{where}: expected a JSON object with a string 'text'") from None
        if not isinstance(text, str):
            raise DataFormatError(f"{where}: 'text' must be a string")
    else:
        text = raw
    if "\x00" in text:
        raise DataFormatError(f"{where}: holds a NUL character at {text.index(chr(0))}; pass a text file")
    if (at := first_lone_surrogate(text)) is not None:
        raise DataFormatError(f"{where}: 'text' holds a lone surrogate at character {at}")
    if not text.strip():
        raise DataFormatError(f"{where}: holds no text (an essay haystack is made of its words)")
    return text


def read_essay(path: str) -> str:
    """The essay text of a file the user names (``generate={"essay": PATH}``): RULER's ``{"text": ...}``
    JSON, or a plain-text file; refused in one line naming the file when it is over
    :data:`MAX_ESSAY_BYTES` or its content is no essay (:func:`essay_text`)."""
    where = f"essay haystack {path}"
    try:
        size = os.path.getsize(path)
        if size > MAX_ESSAY_BYTES:
            raise OptionError(
                f"generate essay: {path} is {size:,} bytes; an essay is at most {MAX_ESSAY_BYTES:,} bytes "
                "(it is held in memory as its words)"
            )
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise SourceError(f"{where}: {exc.strerror}") from None
    return essay_text(data, where, path.endswith(".json"))
