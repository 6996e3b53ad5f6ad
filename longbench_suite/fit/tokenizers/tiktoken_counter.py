"""The counter of a tiktoken encoding (``cl100k_base``, Ada-LEval's unit), and loading one."""

from __future__ import annotations

import os
from collections.abc import Sequence

from ...errors import MissingDependencyError, TokenizerLoadError
from .base import Encoding, TokenCounter


class TiktokenCounter(TokenCounter):
    """A tiktoken encoding; special-token text is encoded as ordinary text (no specials are added)."""

    def __init__(self, encoding) -> None:
        self._enc = encoding
        self.name = encoding.name
        self.identity = "tiktoken:" + encoding.name

    # tiktoken silently replaces lone surrogates, so texts are checked before they are counted.

    def encode(self, text: str, *, special: bool = True) -> Encoding:
        self._refuse_invalid([text])
        ids = self._enc.encode_ordinary(text)
        if not ids:
            return Encoding(ids=[], offsets=[])
        _decoded, starts = self._enc.decode_with_offsets(ids)
        ends = [*starts[1:], len(text)]
        return Encoding(ids=ids, offsets=list(zip(starts, ends, strict=True)))

    def count(self, text: str, *, special: bool = True) -> int:
        self._refuse_invalid([text])
        return len(self._enc.encode_ordinary(text))

    def count_batch(self, texts: Sequence[str], *, special: bool = True) -> list[int]:
        self._refuse_invalid(texts)
        return [
            len(ids) for ids in self._enc.encode_ordinary_batch(list(texts), num_threads=os.cpu_count() or 1)
        ]

    def decode_span(self, text: str, encoding: Encoding, start: int, stop: int) -> str:
        return self._enc.decode(list(encoding.ids[start:stop]))

    def decode_joined(self, spans: Sequence[tuple[str, Encoding, int, int]]) -> str:
        return self._enc.decode([i for _text, enc, start, stop in spans for i in enc.ids[start:stop]])

    def __getstate__(self):
        return {"name": self.name}

    def __setstate__(self, state):
        self.__init__(tiktoken_encoding(state["name"]))


def _tiktoken():
    try:
        import tiktoken
    except ImportError:
        raise MissingDependencyError(
            "tiktoken encodings (such as cl100k_base, Ada-LEval's default tokenizer) need the tiktoken "
            "package: pip install tiktoken"
        ) from None
    return tiktoken


def tiktoken_encoding(name: str):
    tiktoken = _tiktoken()
    try:
        return tiktoken.get_encoding(name)
    except Exception as exc:  # network failures surface as many different types
        raise TokenizerLoadError(
            f"cannot load tiktoken encoding {name!r}: {exc.__class__.__name__}: {exc}. tiktoken downloads "
            "the encoding on first use; offline, point TIKTOKEN_CACHE_DIR at a folder holding its cached "
            "file, pass another tokenizer with --tokenizer (tokenizer=), or build from the offline sample "
            "data with --demo (demo=True)"
        ) from None


def tiktoken_names() -> set[str]:
    return set(_tiktoken().list_encoding_names())
