"""The probes run once when a ``tokenizer.json`` is loaded: whether no token holds a line break, and
how many tokens a piece starting at a line break gets (``None``: pieces never join exactly)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Probed:
    """What the load-time probes found for the ``tokenizer.json`` of sha256 ``digest``: whether no token
    holds a line break, the tokens a piece's start adds (``None``: never cut), and the fastokens version
    whose ids were found identical (``None``: none)."""

    digest: str
    splits_at_newlines: bool
    piece_overhead: int | None
    fastokens: str | None = None


_PROBE_HEADS = ("a", "The end", "x1", "中文")
_PROBE_HEADS_ANY = ("a ", "a.", "a\n", " ")  # also cut before when no token holds a line break
_PROBE_TAILS = (
    "x",
    " x",
    "  two words",
    "\nx",
    "\n\ny",
    "\t1",
    ". Done",
    "é",
    "。中文",
    "<s>",
    " <s> x",
    "</s>",
    "1234",
    " ",
    "\u2581x",
    "😀 🇫🇷",
    "{context}",
)


def piece_overhead(tokenizer, splits_at_newlines: bool) -> int | None:
    """How many tokens start-of-text handling adds to a piece starting at a line break, or ``None``
    when pieces do not join exactly (probed on short texts; then texts are never cut).

    For each probe, the tokens of ``head + "\n" + tail`` must be those of ``head`` followed by those
    of ``"\n" + tail`` minus the same number of leading tokens, offsets included.
    """
    if tokenizer.truncation is not None or tokenizer.padding is not None:
        return None
    heads = _PROBE_HEADS + (_PROBE_HEADS_ANY if splits_at_newlines else ())
    overhead = None
    for head in heads:
        prefix = tokenizer.encode(head, add_special_tokens=False)
        for tail in _PROBE_TAILS:
            whole = tokenizer.encode(head + "\n" + tail, add_special_tokens=False)
            piece = tokenizer.encode("\n" + tail, add_special_tokens=False)
            n = len(prefix)
            extra = len(piece) - (len(whole) - n)
            if overhead is None:
                overhead = extra
            shifted = [(a + len(head), b + len(head)) for a, b in piece.offsets[extra:]]
            if (
                extra != overhead
                or extra < 0
                or whole.ids[:n] != prefix.ids
                or whole.offsets[:n] != prefix.offsets
                or whole.ids[n:] != piece.ids[extra:]
                or whole.offsets[n:] != shifted
            ):
                return None
    return overhead


def no_token_spans_newlines(tokenizer) -> bool:
    """No vocabulary entry holds a line break together with anything else.

    A line break is then its own (byte) token, and BPE merges never cross one. Byte-level
    vocabularies spell the line-break byte ``Ċ``; SentencePiece byte fallback spells it ``<0x0A>``.
    """
    for token in tokenizer.get_vocab(with_added_tokens=True):
        if ("\n" in token or "Ċ" in token) and token not in ("\n", "Ċ"):
            return False
    return True
