"""The counters of text units rather than model tokens: whitespace words and Unicode characters
(the units of LongBench's and LV-Eval's ``length``)."""

from __future__ import annotations

import re

from .base import Encoding, TokenCounter

_WORD = re.compile(r"\S+")


class WordCounter(TokenCounter):
    """Whitespace-separated words, exactly ``str.split()``."""

    name = identity = "words"
    splits_at_newlines = True

    def encode(self, text: str, *, special: bool = True) -> Encoding:
        self._refuse_invalid([text])
        spans = [m.span() for m in _WORD.finditer(text)]
        return Encoding(ids=list(range(len(spans))), offsets=spans)

    def count(self, text: str, *, special: bool = True) -> int:
        self._refuse_invalid([text])
        return len(text.split())


class CharCounter(TokenCounter):
    """Unicode code points (the unit of upstream Chinese lengths)."""

    name = identity = "chars"
    splits_at_newlines = True

    def encode(self, text: str, *, special: bool = True) -> Encoding:
        self._refuse_invalid([text])
        return Encoding(ids=[ord(c) for c in text], offsets=[(i, i + 1) for i in range(len(text))])

    def count(self, text: str, *, special: bool = True) -> int:
        self._refuse_invalid([text])
        return len(text)
