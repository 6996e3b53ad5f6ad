"""Cuts to the first or last ``n`` tokens of a text, through the windows of
:mod:`longbench_suite.fit.truncation` (``fast``) or a full tokenization: the tests hold the windows to
the full tokenization with them. No build cuts this way, so they live here."""

from __future__ import annotations

from longbench_suite.fit.tokenizers import TokenCounter
from longbench_suite.fit.truncation import Window, head_window, tail_window


def keep_head(text: str, counter: TokenCounter, n_tokens: int, *, fast: bool = True) -> str:
    """The shortest prefix of ``text`` that holds its first ``n_tokens`` tokens (specials included)."""
    window = (
        head_window(text, counter, n_tokens) if fast else Window(counter.encode(text), 0, len(text), True)
    )
    enc = window.encoding
    if window.complete and len(enc) <= n_tokens:
        return text
    if n_tokens <= enc.leading_specials:
        return ""
    return text[: enc.offsets[n_tokens - 1][1]]


def keep_tail(text: str, counter: TokenCounter, n_tokens: int, *, fast: bool = True) -> str:
    """The shortest suffix of ``text`` that holds its last ``n_tokens`` tokens (specials excluded)."""
    if n_tokens <= 0:
        return ""
    window = (
        tail_window(text, counter, n_tokens) if fast else Window(counter.encode(text), 0, len(text), True)
    )
    enc = window.encoding
    body = len(enc) - enc.leading_specials - enc.trailing_specials
    if window.complete and body <= n_tokens:
        return text
    index = len(enc) - enc.trailing_specials - n_tokens
    return text[window.start + enc.offsets[index][0] :]
