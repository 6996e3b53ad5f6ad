"""Exact token counts of generated prompts, each by the cheapest exact route.

A generated prompt is ``head + "\\n".join(lines) + tail``. Successive candidates of a noise haystack
or a JSON KV object share most of their lines: under a tokenizer where a line break never joins two
tokens (Llama's SentencePiece BPE; ``HFTokenizer.newline_overhead``) the count is then the sum of the
counts of the lines, each distinct line tokenized once and remembered.

A needle haystack's lines are *fresh*: every one holds a new key and value and never comes again, and
an essay haystack is one long line with the needles at new places. Remembering them only costs, so
such a prompt is counted whole, in one call, when the tokenizer has a fast exact backend
(``fastokens`` with ids probed identical, ~17 M tokens per CPU-second; tiktoken). Without one, its
lines are counted one by one in a ``tokenizers`` batch (short texts are much faster there than BPE
over one huge word) and forgotten. Tokenizers without the line rule (tiktoken glues a break to the
punctuation before it) always count the whole prompt, except under the tiktoken encodings whose
pre-tokenizing pattern is known (:data:`PIECE_BREAK_ENCODINGS`): there no piece runs from a line
break into a letter or digit after it, so a prompt whose lines all start with one is counted as the
sum of ``line + "\n"`` counts, remembered like Llama's.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Sequence

from ..fit.tokenizers import HFTokenizer, TiktokenCounter, TokenCounter

#: distinct lines remembered before the memory is cleared (a noise haystack has ~3; a JSON KV object
#: one per pair, ~20k per 1M tokens)
MAX_LINES = 1 << 16
#: lines longer than this are never remembered (an essay haystack is one line of the whole essay)
MAX_LINE_CHARS = 4096
#: tiktoken encodings whose pattern never makes a piece of a line break and the letter or digit after
#: it (their letter runs take no ``\r\n`` before them), and makes the same piece of the whitespace that
#: ends ``line + "\n"`` alone or followed by the next line (cl100k's ``\s++$`` and ``\s*[\r\n]``,
#: o200k's ``\s*[\r\n]+``). GPT-2's pattern (r50k, p50k) is left out: there ``" \n"`` before a letter is
#: two pieces but one at the end of a text.
PIECE_BREAK_ENCODINGS = frozenset({"cl100k_base", "o200k_base", "o200k_harmony"})


class PromptCounter:
    """Counts ``head + "\\n".join(lines) + tail`` exactly, special tokens included."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.specials = counter.count("x") - counter.count("x", special=False)
        self._overhead = counter.newline_overhead if isinstance(counter, HFTokenizer) else None
        #: counting a whole text is the fastest exact route for text never seen before
        self.fast_whole = isinstance(counter, TiktokenCounter) or (
            isinstance(counter, HFTokenizer) and counter.counting_backend == "fastokens"
        )
        self._piece_breaks = isinstance(counter, TiktokenCounter) and counter.name in PIECE_BREAK_ENCODINGS
        self._lines: dict[str, int] = {}

    def count(self, head: str, lines: Sequence[str], tail: str, *, fresh: bool = False) -> int:
        """The prompt's tokens; ``fresh``: its lines are new draws that will not come again."""
        # tiktoken: every line starts a piece when it starts with a letter or digit (so does the first)
        starts = not head or head[-1] == "\n"
        if self._piece_breaks and not (fresh and self.fast_whole) and lines and starts:
            repeats = Counter(lines[:-1])
            if all(line[:1].isalnum() and len(line) <= MAX_LINE_CHARS for line in (*repeats, lines[-1])):
                texts = [head, lines[-1] + tail, *(line + "\n" for line in repeats)]
                first, last, *each = self._counts(texts, remember=True)
                return self.specials + first + last + sum(map(operator.mul, repeats.values(), each))
        if fresh and self.fast_whole:
            return self.counter.count_fresh(head + "\n".join(lines) + tail)
        if not self._line_rule(head, lines, tail):
            return self.counter.count(head + "\n".join(lines) + tail)
        texts = [head[:-1], "\n" + lines[0]] if head else [lines[0]]
        counts = self._counts([*texts, *("\n" + line for line in lines[1:]), tail], remember=not fresh)
        return self.specials + sum(counts) - self._overhead * (len(counts) - 1)

    def count_and_prefix(self, head: str, lines: Sequence[str], tail: str, at: int) -> tuple[int, int | None]:
        """A fresh prompt's tokens (as :meth:`count`) and, without special tokens, those of its first
        ``at`` characters, or ``None`` for those where no rule gives them from the same counting.

        With a fast exact backend the prompt is counted in two calls split at the start of the line
        holding character ``at``, and that line's first part once more: under Llama's line rule
        ``count(a + "\n" + b) == count(a) + count("\n" + b) - overhead``, under the tiktoken encodings of
        :data:`PIECE_BREAK_ENCODINGS` ``count(a + "\n" + b) == count(a + "\n") + count(b)`` when ``b``
        starts with a letter or digit. RULER's answer position costs a line instead of half a prompt.
        Under those encodings the split is rather at the last space before ``at`` that follows a
        non-space character (:func:`_space_break`), a word instead of a line.
        """
        text = head + "\n".join(lines) + tail
        cut = _space_break(text, at) if self._piece_breaks else 0
        if cut:  # nearer ``at`` than a line's start in a long line (an essay haystack is one line)
            fresh = self.counter.count_fresh
            left = fresh(text[:cut], special=False)
            right, part = fresh(text[cut:], special=False), fresh(text[cut:at], special=False)
            return self.specials + left + right, left + part
        start = text.rfind("\n", 0, at) + 1  # the start of the line holding ``at``
        line_end = text.find("\n", start)
        within = len(head) <= start and (line_end == -1 or line_end <= len(text) - len(tail))
        if not (self.fast_whole and within and 1 < start < at):
            return self.count(head, lines, tail, fresh=True), None
        fresh = self.counter.count_fresh
        if self._overhead is not None and self.counter.splits_at_newlines:
            left = fresh(text[: start - 1], special=False)
            right, part = fresh(text[start - 1 :], special=False), fresh(text[start - 1 : at], special=False)
            return self.specials + left + right - self._overhead, left + part - self._overhead
        if self._piece_breaks and text[start].isalnum():
            left = fresh(text[:start], special=False)
            right, part = fresh(text[start:], special=False), fresh(text[start:at], special=False)
            return self.specials + left + right, left + part
        return self.count(head, lines, tail, fresh=True), None

    def count_remembered_prefix(self, head: str, lines: Sequence[str], tail: str, at: int) -> int | None:
        """Without special tokens, the tokens of the first ``at`` characters of a prompt of repeated
        lines (a noise haystack), summed from remembered line counts under the tiktoken encodings of
        :data:`PIECE_BREAK_ENCODINGS`; ``None`` where ``at`` is outside the lines or another tokenizer
        counts (the caller counts the prefix itself)."""
        offset = at - len(head)
        if not self._piece_breaks or offset <= 0:
            return None
        for number, line in enumerate(lines):
            if offset <= len(line):
                return self.count(head, (*lines[:number], line[:offset]), "") - self.specials
            offset -= len(line) + 1
        return None

    def _line_rule(self, head: str, lines: Sequence[str], tail: str) -> bool:
        # the context at the start or after a line break, a line break after it, and no long line; the
        # first part is not empty (the rule takes its start-of-text tokens from it)
        return (
            self._overhead is not None
            and bool(lines)
            and tail.startswith("\n")
            and (not head or head.endswith("\n"))
            and bool(head[:-1] if head else lines[0])
            and all(len(line) <= MAX_LINE_CHARS for line in lines)
        )

    def _counts(self, texts: list[str], remember: bool) -> list[int]:
        known = self._lines
        missing = list({t for t in texts if t not in known})
        if not missing:
            return [known[t] for t in texts]
        new = dict(zip(missing, self._count_new(missing), strict=True))
        counts = [new[t] if t in new else known[t] for t in texts]  # before the memory may be cleared
        if remember:
            if len(known) + len(new) > MAX_LINES:
                known.clear()
            known.update(new)
        return counts

    def _count_new(self, texts: list[str]) -> list[int]:
        if isinstance(self.counter, TiktokenCounter):  # one by one: its batch starts threads per call
            return [self.counter.count(text, special=False) for text in texts]
        if self.fast_whole:
            return self.counter.count_batch(texts, special=False)
        # short texts: the tokenizer itself, without the piece cutting and caching long texts get
        return [len(e) for e in self.counter.backend.encode_batch_fast(texts, add_special_tokens=False)]


def _space_break(text: str, at: int) -> int:
    """The last position before ``at`` holding a space after a non-space character (0: none). No piece
    of the :data:`PIECE_BREAK_ENCODINGS` patterns holds a space after another character (a space only
    starts a piece or is part of a run of whitespace), and none looks behind, so
    ``count(text) == count(text[:cut]) + count(text[cut:])`` and the same for ``text[:at]``."""
    cut = text.rfind(" ", 0, at)
    while cut > 0 and text[cut - 1].isspace():
        cut = text.rfind(" ", 0, cut)
    return max(cut, 0)
