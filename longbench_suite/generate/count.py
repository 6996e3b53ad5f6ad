"""Exact token counts of generated prompts without tokenizing the whole haystack again.

A generated prompt is ``head + "\\n".join(lines) + tail``, and successive candidates (a haystack grown
or shrunk by a few sentences, the next row) share most of their lines. Under a tokenizer where a line
break never joins two tokens (Llama's SentencePiece BPE; ``HFTokenizer.newline_overhead``), the count
is the sum of the counts of the lines, each tokenized once and remembered. Other tokenizers (tiktoken's
byte-level BPE glues a break to the punctuation before it) count the whole text, which tiktoken does fast.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..fit.tokenizers import HFTokenizer, TokenCounter

#: distinct lines remembered before the memory is cleared (a 1M-token needle haystack has ~60k)
MAX_LINES = 1 << 20


class PromptCounter:
    """Counts ``head + "\\n".join(lines) + tail`` exactly, special tokens included."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.specials = counter.count("x") - counter.count("x", special=False)
        overhead = counter.newline_overhead if isinstance(counter, HFTokenizer) else None
        self._overhead = overhead
        self._lines: dict[str, int] = {}

    def count(self, head: str, lines: Sequence[str], tail: str) -> int:
        # the fast rule needs the context at the start or after a line break, and a line break after it
        fast = self._overhead is not None and lines and tail.startswith("\n")
        if not fast or (head and not head.endswith("\n")):
            return self.counter.count(head + "\n".join(lines) + tail)
        texts = [head[:-1], "\n" + lines[0]] if head else [lines[0]]
        counts = self._counts([*texts, *("\n" + line for line in lines[1:]), tail])
        return self.specials + sum(counts) - self._overhead * (len(counts) - 1)

    def _counts(self, texts: list[str]) -> list[int]:
        known = self._lines
        missing = list({t for t in texts if t not in known})
        if missing:
            if len(known) + len(missing) > MAX_LINES:
                known.clear()
            # lines are short: the tokenizer itself, without the piece cutting and caching long texts get
            encodings = self.counter.backend.encode_batch_fast(missing, add_special_tokens=False)
            known.update(zip(missing, (len(e) for e in encodings), strict=True))
        return [known[t] for t in texts]
