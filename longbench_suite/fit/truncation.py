"""Token-budget cuts — keep the head, the tail or both ends of a text — as upstream benchmarks do them.

All cuts take a :class:`~longbench_suite.fit.tokenizers.TokenCounter`, so the same code cuts by model
tokens, tiktoken tokens, words or characters. Token counts include the special tokens the tokenizer
adds by default (Llama's BOS), because that is how HELMET and LongBench count.

**Prefix fast path.** Finding where token *n* ends does not need the whole text tokenized: tokens do
not span a line break (for byte-level BPEs, one right after a letter or digit), so the first *n*
tokens of a long-enough prefix that ends at such a break are the first *n* tokens of the text. We
tokenize such a prefix holding ``n + margin`` tokens (growing it if it falls short) and tokenize the
whole text when the prefix would be (nearly) the whole text or no such line break is near. The same
holds for the last *n* tokens and a suffix starting at such a line break.
On a 200k-token document this makes an 8k cut about 90x cheaper than tokenizing the whole text, with
identical output (``perf/truncation.py``; the property tests compare both paths).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..errors import BudgetError
from .tokenizers import Encoding, TokenCounter, is_break

MARGIN = 64
_CHARS_PER_TOKEN_GUESS = 4
_SNAP_REACH = 4096  # how far to look for a line break to cut a window at
_SAMPLE_CHARS = 4096  # sample that sets the first window size
_OVERSHOOT = 1.05  # windows are this much longer than the sample's rate predicts
_WHOLE_FRACTION = 0.8  # a window this close to the whole text costs more than the whole text

@dataclass(frozen=True)
class Window:
    """An encoding of ``text[start:stop]``; ``complete`` means that window is the whole text."""

    encoding: Encoding
    start: int
    stop: int
    complete: bool


def _grow(n_chars: int, needed: int, got: int) -> int:
    """A window size that should hold ``needed`` tokens when ``n_chars`` characters held ``got``.

    Growing in proportion is cheap: re-encoding a longer prefix, an :class:`HFTokenizer` tokenizes
    only the pieces the window gained.
    """
    if got <= 0:
        return n_chars * 2
    return max(n_chars + 1, int(n_chars * needed / got * _OVERSHOOT) + 1)


def _first_guess(text: str, counter: TokenCounter, needed: int, from_end: bool) -> int:
    """Characters likely to hold ``needed`` tokens, from the chars-per-token rate of a small sample."""
    size = min(len(text), _SAMPLE_CHARS, needed * _CHARS_PER_TOKEN_GUESS)
    sample = text[-size:] if from_end else text[:size]
    rate = len(sample) / max(1, counter.count(sample, special=False))
    return int(needed * rate * _OVERSHOOT) + 16


def _whole_window_likely(text: str, counter: TokenCounter, needed: int) -> bool:
    """Whether :func:`head_window` would start by tokenizing all of ``text`` for ``needed`` tokens."""
    return _first_guess(text, counter, needed, from_end=False) >= len(text) * _WHOLE_FRACTION


def _reach(n_chars: int) -> int:
    return max(_SNAP_REACH, n_chars // 4)


def _is_break(text: str, j: int, counter: TokenCounter) -> bool:
    """Whether a window may start at, or end just before, the line break at ``j`` (:func:`is_break`)."""
    return is_break(text, j, counter.splits_at_newlines)


def _break_forward(text: str, start: int, stop: int, counter: TokenCounter) -> int:
    j = text.find("\n", start, stop)
    while j != -1 and not _is_break(text, j, counter):
        j = text.find("\n", j + 1, stop)
    return j


def _break_back(text: str, start: int, stop: int, counter: TokenCounter) -> int:
    j = text.rfind("\n", start, stop)
    while j != -1 and not _is_break(text, j, counter):
        j = text.rfind("\n", start, j)
    return j


def _whole(text: str, counter: TokenCounter) -> Window:
    return Window(counter.encode(text), 0, len(text), complete=True)


def head_window(text: str, counter: TokenCounter, n_tokens: int, margin: int = MARGIN) -> Window:
    """Encode a prefix of ``text`` whose first ``n_tokens`` tokens equal those of the whole text.

    The prefix ends just before a line break no token spans (see :func:`_is_break`), so the tokens
    before it are the text's own. A text with no line
    break near the cut is tokenized whole.
    """
    needed = n_tokens + margin
    n_chars = _first_guess(text, counter, needed, from_end=False)
    while True:
        if n_chars >= len(text) * _WHOLE_FRACTION:
            return _whole(text, counter)
        stop = _break_forward(text, n_chars, n_chars + _reach(n_chars), counter)
        if stop == -1:
            return _whole(text, counter)
        enc = counter.encode(text[:stop])
        if len(enc) - enc.trailing_specials >= needed:
            return Window(enc, 0, stop, complete=False)
        n_chars = _grow(stop, needed, len(enc))


def tail_window(text: str, counter: TokenCounter, n_tokens: int, margin: int = MARGIN) -> Window:
    """Encode a suffix of ``text`` whose last ``n_tokens`` tokens equal those of the whole text.

    The suffix starts at a newline (kept, so the tokenizer's start-of-text handling, such as Llama's
    dummy prefix, touches only that newline); a text with no line break near the cut is tokenized whole.
    """
    needed = n_tokens + margin
    n_chars = _first_guess(text, counter, needed, from_end=True)
    while True:
        if n_chars >= len(text) * _WHOLE_FRACTION:
            return _whole(text, counter)
        wanted = len(text) - n_chars
        start = _break_back(text, max(0, wanted - _reach(n_chars)), wanted + 1, counter)
        if start <= 0:
            return _whole(text, counter)
        enc = counter.encode(text[start:])
        if len(enc) - enc.leading_specials >= needed + 2:  # + the newline and a dummy prefix
            return Window(enc, start, len(text), complete=False)
        n_chars = _grow(len(text) - start, needed, len(enc))


@dataclass(frozen=True)
class HeadCuts:
    """Where the first tokens of a text end, from one tokenization: enough to cut it at many budgets.

    ``ends`` maps a token index to the end offset (in characters) of that token; ``n_tokens`` is the
    exact token count (specials included) when the whole text was tokenized, else ``None`` and the text
    has at least ``at_least`` tokens.
    """

    n_tokens: int | None
    at_least: int
    ends: dict[int, int]

    def exceeds(self, n: int) -> bool:
        """Whether the text has more than ``n`` tokens (``n`` up to the ``count_above`` asked for)."""
        if self.n_tokens is not None:
            return self.n_tokens > n
        if n >= self.at_least:
            raise ValueError(f"these cuts only know the text has at least {self.at_least} tokens, not > {n}")
        return True

    def cut_with_marker(self, text: str, budget: int, marker_tokens: int, marker: str) -> str:
        """HELMET's pre-truncation of ``text`` to ``budget`` tokens (see :func:`keep_head_with_marker`)."""
        if not self.exceeds(budget):
            return text
        return text[: self.ends[budget - marker_tokens]] + marker

    def to_json(self) -> dict:
        return {"n_tokens": self.n_tokens, "at_least": self.at_least, "ends": sorted(self.ends.items())}

    @classmethod
    def from_json(cls, data: dict) -> HeadCuts:
        return cls(data["n_tokens"], data["at_least"], {int(i): int(end) for i, end in data["ends"]})


def head_cuts(
    text: str, counter: TokenCounter, indices: Iterable[int], count_above: int = 0, *, fast: bool = True
) -> HeadCuts:
    """End offsets of the tokens at ``indices`` (specials counted, as HELMET does) from one tokenization.

    Only the prefix holding ``max(max(indices), count_above) + 1`` tokens (plus a margin) is tokenized,
    so :meth:`HeadCuts.exceeds` can answer for any ``n <= count_above``; a text shorter than that is
    tokenized whole and its exact count kept.
    """
    indices = sorted(set(indices))
    needed = max([count_above, *indices]) + 1
    window = head_window(text, counter, needed) if fast else Window(counter.encode(text), 0, len(text), True)
    enc = window.encoding
    ends = {i: enc.offsets[i][1] for i in indices if i < len(enc)}
    if window.complete:
        return HeadCuts(len(enc), len(enc), ends)
    return HeadCuts(None, len(enc), ends)


def keep_head_with_marker(
    text: str, counter: TokenCounter, budget: int, marker: str, *, fast: bool = True
) -> str:
    """HELMET's model-independent pre-truncation (``docs/helmet.md`` §1.4, ``truncate_llama2``).

    If ``text`` has more than ``budget`` tokens (BOS included), keep it up to the end of the token at
    index ``budget - s``, where ``s`` counts the tokens of ``marker`` with BOS, and append ``marker``.
    """
    s = counter.count(marker)
    if budget <= s:
        raise ValueError(f"a budget of {budget} tokens leaves no room for the {s}-token marker")
    cuts = head_cuts(text, counter, [budget - s], count_above=budget, fast=fast)
    return cuts.cut_with_marker(text, budget, s, marker)


#: How many tokens over its budget a :func:`keep_middle` result can count when encoded again. The kept
#: halves are decoded and joined, so the text at the join re-tokenizes differently (a merge across it,
#: a leading space the decoder dropped). A cut inside a multi-byte character decodes to U+FFFD, three
#: bytes that a byte-level BPE may spell as three tokens where one or two bytes stood; with both cuts
#: inside Chinese characters that came to +6 on LongBench's lsht samples. Fuzzing Llama-2 and cl100k
#: saw at most 2; words and characters never exceed (``tests/test_truncation.py``).
MIDDLE_CUT_TOLERANCE = 8


def middle_cut_ends(budget: int, extra_tail: bool = False) -> tuple[int, int]:
    """How many tokens the middle cut keeps from the head and from the tail of an over-budget text.

    LongBench's ``pred.py`` keeps ``int(budget / 2)`` at each end (an odd budget keeps one token less
    than the budget). LongBench v2's keeps ``ids[:budget//2] + ids[-budget//2:]``: Python reads
    ``-budget//2`` as ``(-budget)//2``, so an odd budget keeps one extra token from the tail
    (``extra_tail``), and the two ends add up to the budget.
    """
    head = budget // 2
    return head, budget - head if extra_tail else head


def keep_middle(
    text: str,
    counter: TokenCounter,
    budget: int,
    *,
    fast: bool = True,
    extra_tail: bool = False,
    decode_once: bool = False,
) -> str:
    """LongBench's, LongBench v2's and LV-Eval's middle truncation (``docs/longbench.md`` §6,
    ``docs/longbench-v2.md`` §4).

    If ``text`` has more than ``budget`` tokens (specials included), keep its first and last tokens
    (:func:`middle_cut_ends`, ``extra_tail`` as there) with nothing in between, special tokens skipped.
    By default each end is decoded alone and the two texts are joined (LongBench, LV-Eval);
    ``decode_once`` decodes the kept ids as one sequence (LongBench v2). Word and character counters
    join the original characters. The result can count up to :data:`MIDDLE_CUT_TOLERANCE` tokens more
    than ``budget``, as upstream's.
    """
    head_n, tail_n = middle_cut_ends(budget, extra_tail)

    def joined(head_text: str, head_enc: Encoding, tail_text: str, tail_enc: Encoding) -> str:
        head = (head_text, head_enc, 0, head_n)
        tail = (tail_text, tail_enc, len(tail_enc) - tail_n, len(tail_enc))
        if decode_once:
            return counter.decode_joined([head, tail])
        return counter.decode_span(*head) + counter.decode_span(*tail)

    if not fast:
        enc = counter.encode(text)
        return text if len(enc) <= budget else joined(text, enc, text, enc)
    if _whole_window_likely(text, counter, budget + 1 + MARGIN) and counter.count(text) <= budget:
        return text  # counting needs no offsets: cheaper than the encoding the window would make
    head = head_window(text, counter, budget + 1)
    if head.complete:
        enc = head.encoding
        return text if len(enc) <= budget else joined(text, enc, text, enc)
    tail = tail_window(text, counter, tail_n)
    return joined(text[: head.stop], head.encoding, text[tail.start :], tail.encoding)


def start_of_token_from_end(text: str, counter: TokenCounter, k: int, *, fast: bool = True) -> int:
    """Character position where the ``k``-th token from the end of ``text`` starts.

    Tokens are counted in ``counter.encode(text)`` with specials, as HELMET does (its BOS has the
    empty span at 0). Returns 0 when the text has ``k`` tokens or fewer.
    """
    window = tail_window(text, counter, k) if fast else Window(counter.encode(text), 0, len(text), True)
    enc = window.encoding
    if k >= len(enc):
        return 0
    return window.start + enc.offsets[len(enc) - k][0]


#: How many tokens over its budget HELMET's single cut (``fit_by_cutting_context(once=True)``) can leave a
#: prompt: the context is cut by its own tokenization, and the text after it in the prompt can tokenize
#: differently at the join. Under a ChatML template and Llama-2 that is +1 for most cuts (HELMET's own
#: output, ``tests/upstream/helmet_chat``); none was more.
SINGLE_CUT_TOLERANCE = 4


def fit_by_cutting_context(
    render: Callable[[str], str],
    context: str,
    counter: TokenCounter,
    budget: int,
    *,
    what: str = "prompt",
    fast: bool = True,
    special: bool = True,
    once: bool = False,
) -> tuple[str, str, int]:
    """HELMET's model-side fit (``docs/helmet.md`` §1.4, ``model_utils.tokenize``).

    ``render(context)`` gives the whole prompt. If it has more than ``budget`` tokens, let ``overflow``
    be the excess; the context is cut at the start of its ``overflow``-th token from the end (context
    tokenized alone, BOS included) and the prompt is rendered again. HELMET does this once; when the
    re-rendered prompt still exceeds the budget (a token merge across the cut), this repeats until it
    fits, so the result always fits. Returns ``(prompt, context, n_tokens)``.

    ``special=False`` counts the prompt without adding special tokens: a chat-templated prompt carries
    its own (HELMET tokenizes it with ``add_special_tokens=False``); the context is still cut as
    tokenized with them, as HELMET does. ``once=True`` cuts once, exactly as HELMET: the result can
    then exceed the budget by the few tokens a merge across the cut adds (see :data:`SINGLE_CUT_TOLERANCE`).
    """
    prompt = render(context)
    n = counter.count(prompt, special=special)
    while n > budget:
        if not context:
            raise BudgetError(
                f"{what} has {n} tokens with an empty context; the budget is {budget}, so the parts that "
                "may not be cut (instructions, demonstrations, question) do not fit"
            )
        context = context[: start_of_token_from_end(context, counter, n - budget, fast=fast)]
        prompt = render(context)
        n = counter.count(prompt, special=special)
        if once and context:
            break
    return prompt, context, n
