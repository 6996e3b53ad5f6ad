"""Tokenizing a long text in pieces and joining the pieces' tokens: where pieces start
(:func:`piece_starts`, cut only at line breaks :func:`is_break` accepts), and the joined
:class:`~.base.Encoding` read lazily from each piece's encoding."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from .base import Encoding

#: The end of a text cut in pieces where every line break starts one (see :func:`piece_starts`).
TAIL_CHARS = 1024


def is_break(text: str, j: int, splits_at_newlines: bool) -> bool:
    """Whether the line break at ``j`` separates tokens in every context: the tokens of ``text[:j]``
    are the first tokens of ``text``, and those of ``text[j:]`` its last ones (up to start-of-text
    handling, which touches only that line break).

    Tokenizers with no token containing a line break (Llama, word and character counters) never merge
    across one. Byte-level BPEs (cl100k) merge runs of whitespace into line-break tokens and glue
    breaks to preceding punctuation, so for them only a break right after a letter or digit starts a
    new piece in every context.
    """
    if not 0 < j < len(text) - 1 or text[j] != "\n":
        return False
    return splits_at_newlines or text[j - 1].isalnum()


def piece_starts(
    text: str, size: int, splits_at_newlines: bool, not_after: tuple[str, ...] = ()
) -> list[int]:
    """``[0, j1, j2, ...]``: where the pieces of ``text`` start.

    Each later piece starts at a line break :func:`is_break` accepts that does not follow one of
    ``not_after``. Pieces hold at least ``size`` characters, found scanning from the start, so texts
    sharing a beginning share their pieces there; in the last :data:`TAIL_CHARS` characters of a text
    that is cut at all, every such line break starts a piece, so the few lines that end a prompt (its
    question) are pieces of their own and the text before them is shared by prompts that differ only
    there.
    """

    def accepted(j: int) -> bool:
        return is_break(text, j, splits_at_newlines) and not (not_after and text.endswith(not_after, 0, j))

    starts = [0]
    limit = len(text) - size
    j = size
    while j < limit:
        j = text.find("\n", j, limit)
        if j == -1:
            break
        if accepted(j):
            starts.append(j)
            j += size
        else:
            j += 1
    if len(starts) > 1:
        j = max(starts[-1] + size, len(text) - TAIL_CHARS)
        while (j := text.find("\n", j)) != -1:
            if accepted(j):
                starts.append(j)
            j += 1
    return starts


@dataclass(frozen=True)
class Part:
    """Tokens ``lo:hi`` of a ``tokenizers.Encoding`` of a piece starting at character ``shift``."""

    encoding: object
    lo: int
    hi: int
    shift: int


class _JoinedView(Sequence):
    """The ids, offsets or special-token mask of joined pieces, read from each piece on first use."""

    def __init__(self, parts: list[Part], field: str) -> None:
        self._parts, self._field = parts, field
        self._ends = list(itertools.accumulate(p.hi - p.lo for p in parts))
        self._cache: dict[int, list] = {}

    def _values(self, k: int) -> list:
        if k not in self._cache:
            part = self._parts[k]
            values = getattr(part.encoding, self._field)[part.lo : part.hi]
            if self._field == "offsets" and part.shift:
                values = [(a + part.shift, b + part.shift) for a, b in values]
            self._cache[k] = values
        return self._cache[k]

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            out: list = []
            k = bisect.bisect_right(self._ends, start)
            while start < stop and k < len(self._parts):
                base = self._ends[k - 1] if k else 0
                out.extend(self._values(k)[start - base : min(stop, self._ends[k]) - base])
                start = self._ends[k]
                k += 1
            return out
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        k = bisect.bisect_right(self._ends, index)
        return self._values(k)[index - (self._ends[k - 1] if k else 0)]

    def __iter__(self):
        for k in range(len(self._parts)):
            yield from self._values(k)


def _leading(mask: Sequence[int]) -> int:
    n = 0
    while n < len(mask) and mask[n]:
        n += 1
    return n


def _trailing(mask: Sequence[int], lead: int) -> int:
    n = 0
    while n < len(mask) - lead and mask[len(mask) - 1 - n]:
        n += 1
    return n


def trailing_added(encoding) -> int:
    """Special tokens the post-processor appended (they go after the last piece)."""
    return _trailing(encoding.special_tokens_mask, 0)


def one_piece(enc) -> Encoding:
    mask = enc.special_tokens_mask
    lead = _leading(mask)
    return Encoding(
        ids=enc.ids, offsets=enc.offsets, leading_specials=lead, trailing_specials=_trailing(mask, lead)
    )


def join_parts(parts: list[Part]) -> Encoding:
    mask = _JoinedView(parts, "special_tokens_mask")
    lead = _leading(mask)
    return Encoding(
        ids=_JoinedView(parts, "ids"),
        offsets=_JoinedView(parts, "offsets"),
        leading_specials=lead,
        trailing_specials=_trailing(mask, lead),
    )
