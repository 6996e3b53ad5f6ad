"""RULER's frequent-words extraction (``fwe``), drawn as RULER's
``scripts/data/synthetic/freq_words_extraction.py`` draws it (``docs/generate.md`` §7).

Each row draws a vocabulary of random lowercase "coded" words (``vocab_size`` distinct ones, sorted,
then put in one fixed order), makes its first word ``...`` (noise), and writes word ``k`` (from 1)
``int(num_words * k**-alpha / zeta(alpha))`` times, in one fixed shuffled order; the answer is words
2-4. ``num_words`` is grown once per file by ``budget // 32`` until the text reaches the budget, less
one step, and shrunk per row while a row does not fit.

Both orders come from a *fresh* ``random.Random(seed)``, so they depend only on the vocabulary size
and the number of words: the shuffled positions of the word ranks are computed once per
``num_words`` and each row only maps its own words onto them. Under tiktoken's known encodings a
space before a letter or dot always starts a piece, so a text is counted as the counts of its
distinct words times their frequencies instead of tokenizing it whole.
"""

from __future__ import annotations

import random
import string
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from ..errors import DataFormatError, MissingDependencyError, OptionError
from ..fit.tokenizers import TiktokenCounter, TokenCounter
from .count import PIECE_BREAK_ENCODINGS

#: RULER's ``constants.py`` entry for ``freq_words_extraction`` (the ``base`` model template adds nothing)
TEMPLATE = (
    "Read the following coded text and track the frequency of each coded word. Find the three most "
    "frequently appeared coded words. {context}\nQuestion: Do not provide any explanation. Please ignore "
    "the dots '....'. What are the three most frequently appeared words in the above coded text?"
)
ANSWER_PREFIX = " Answer: According to the coded text above, the three most frequently appeared words are:"
TOKENS_TO_GENERATE = 50
#: ``scipy.special.zeta(alpha)`` (Riemann zeta) for RULER's alpha, so the counts need no SciPy
#: (``tests/test_generate_vt_fwe.py`` checks it against SciPy where SciPy is installed)
ZETA = {2.0: 1.6449340668482264}
NOISE_WORD = "..."
#: draws at one size before giving up (RULER would shrink ``num_words`` below zero and loop)
MAX_RETRIES = 1000
_MARK = "\x00context\x00"
#: shuffled rank sequences kept (a file uses one ``num_words``, or a few after a row shrinks)
MAX_ORDERS = 8


def zeta(alpha: float) -> float:
    """RULER's ``scipy.special.zeta(alpha)``: the constant for alpha 2.0, SciPy for any other."""
    if alpha in ZETA:
        return ZETA[alpha]
    try:
        from scipy.special import zeta as scipy_zeta
    except ImportError:
        raise MissingDependencyError(
            f"fwe with alpha={alpha} needs SciPy for RULER's zeta function (pip install scipy); "
            "RULER's alpha, 2.0, needs nothing"
        ) from None
    return float(scipy_zeta(alpha))


class Settings:
    """RULER's ``alpha``, ``coded_wordlen`` and ``vocab_size`` (``-1``: the budget // 50)."""

    def __init__(self, task_args: Mapping[str, Any]) -> None:
        unknown = set(task_args) - {"alpha", "coded_wordlen", "vocab_size"}
        if unknown:
            raise OptionError(f"fwe: unknown task argument(s) {sorted(unknown)}")
        self.alpha = float(task_args.get("alpha", 2.0))
        self.word_length = int(task_args.get("coded_wordlen", 6))
        self.vocab_size = int(task_args.get("vocab_size", -1))
        if self.alpha <= 1 or self.word_length < 1:
            raise OptionError("fwe: alpha must be above 1 and coded_wordlen at least 1")


@lru_cache(maxsize=MAX_ORDERS)
def rank_order(
    vocab_size: int, num_words: int, alpha: float, seed: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each rank's count, and the ranks of the text's words in order: RULER's counts
    ``(num_words * k**-alpha / zeta(alpha)).astype(int)`` (NumPy, as RULER computes them), its words
    listed rank by rank and shuffled by a fresh ``random.Random(seed)``."""
    k = np.arange(1, vocab_size + 1)
    counts = tuple(int(c) for c in (num_words * (k**-alpha) / zeta(alpha)).astype(int))
    ranks = [rank for rank, count in enumerate(counts) for _ in range(count)]
    random.Random(seed).shuffle(ranks)
    return counts, tuple(ranks)


@lru_cache(maxsize=4)
def vocab_order(vocab_size: int, seed: int) -> tuple[int, ...]:
    """Where each sorted word goes: RULER shuffles the sorted vocabulary with a fresh ``Random(seed)``."""
    order = list(range(vocab_size))
    random.Random(seed).shuffle(order)
    return tuple(order)


class Rows:
    """RULER's ``generate_input_output`` and ``sys_kwext`` on one ``random.Random``."""

    def __init__(
        self, settings: Settings, counter: TokenCounter, template: str, budget: int, seed: int
    ) -> None:
        self.settings, self.counter, self.budget, self.seed = settings, counter, budget, seed
        self.vocab_size = budget // 50 if settings.vocab_size == -1 else settings.vocab_size
        if self.vocab_size < 4:
            raise OptionError(f"fwe: a vocabulary of {self.vocab_size} words has no three answers")
        self.head, self.tail = template.format(context=_MARK, query="").split(_MARK)
        self.step = budget // 32
        self.rng = random.Random(seed)
        self.by_pieces = (
            isinstance(counter, TiktokenCounter)
            and counter.name in PIECE_BREAK_ENCODINGS
            and self.head.endswith(" ")
            and not self.head[-2:-1].isspace()
        )
        self._fixed = counter.count(self.head[:-1], special=False) if self.by_pieces else 0

    def vocabulary(self) -> list[str]:
        """One row's words: ``choices`` of ``coded_wordlen`` letters each, redrawn until distinct."""
        size, length, choices = self.vocab_size, self.settings.word_length, self.rng.choices
        letters = string.ascii_lowercase
        words = ["".join(choices(letters, k=length)) for _ in range(size)]
        distinct = set(words)
        while len(distinct) < size:
            word = "".join(choices(letters, k=length))
            words.append(word)
            distinct.add(word)
        ordered = sorted(distinct)
        vocab = [ordered[i] for i in vocab_order(size, self.seed)]
        vocab[0] = NOISE_WORD  # the most frequent word is noise
        return vocab

    def tokens(self, vocab: list[str], num_words: int) -> int:
        """The tokens of the prompt of ``vocab`` at ``num_words`` (without special tokens)."""
        counts, ranks = rank_order(self.vocab_size, num_words, self.settings.alpha, self.seed)
        if not self.by_pieces or not ranks:
            return self.counter.count(self.text(vocab, num_words), special=False)
        used = [rank for rank, count in enumerate(counts) if count]
        last = ranks[-1]
        each = self.counter.count_batch(
            [*(" " + vocab[rank] for rank in used), " " + vocab[last] + self.tail], special=False
        )
        total = self._fixed + sum(counts[rank] * n for rank, n in zip(used, each, strict=False))
        return total - each[used.index(last)] + each[-1]

    def text(self, vocab: list[str], num_words: int) -> str:
        _, ranks = rank_order(self.vocab_size, num_words, self.settings.alpha, self.seed)
        return self.head + " ".join([vocab[rank] for rank in ranks]) + self.tail

    def initial_words(self) -> int:
        """RULER's first call: from ``budget // coded_wordlen`` words, grow by a step until the text
        reaches the budget, then one step back."""
        vocab = self.vocabulary()
        num_words = self.budget // self.settings.word_length
        for _ in range(MAX_RETRIES * 100):
            if self.tokens(vocab, num_words) >= self.budget:
                return num_words - self.step
            num_words += self.step
        raise DataFormatError(f"fwe: the text never reaches {self.budget} tokens")

    def row(self, num_words: int) -> tuple[list[str], int, int]:
        """One row's vocabulary, its number of words (shrunk by a step while it does not fit) and tokens."""
        vocab = self.vocabulary()
        for _ in range(MAX_RETRIES):
            tokens = self.tokens(vocab, num_words)
            if tokens <= self.budget:
                return vocab, num_words, tokens
            num_words -= self.step
        raise DataFormatError(
            f"fwe: no text fits {self.budget} tokens; {tokens} tokens at {num_words} words "
            "(choose a longer length)"
        )


def ruler_rows(
    task_args: Mapping[str, Any],
    counter: TokenCounter,
    *,
    max_seq_length: int,
    tokens_to_generate: int,
    template: str,
    answer_prefix: str,
    num_samples: int | None,
    seed: int = 42,
    pre_samples: int = 0,
    excluded: frozenset[str] = frozenset(),
) -> Iterator[dict]:
    """The records RULER's ``freq_words_extraction.py`` writes, key for key (``num_samples=None``:
    without end).

    ``template`` is what ``prepare.py`` passes (the model template around :data:`TEMPLATE`, the answer
    prefix appended); ``answer_prefix`` is RULER's (:data:`ANSWER_PREFIX`). ``pre_samples`` is accepted
    for the family interface; fwe does not read it. A row whose answer words are in ``excluded`` is
    skipped (its vocabulary is drawn, so later rows stay RULER's).
    """
    del pre_samples
    settings = Settings(task_args)
    budget = max_seq_length - tokens_to_generate
    rows = Rows(settings, counter, template, budget, seed)
    num_words = rows.initial_words()
    cut, number = answer_prefix[:10], 0
    while num_samples is None or number < num_samples:
        vocab, used, tokens = rows.row(num_words)
        answers = vocab[1:4]
        if not excluded.isdisjoint(answers):
            continue
        text = rows.text(vocab, used)
        split = text.rfind(cut)
        length = tokens + tokens_to_generate
        yield {
            "index": number,
            "input": text[:split],
            "outputs": answers,
            "length": length,
            "length_w_model_temp": length,
            "answer_prefix": text[split:],
        }
        number += 1


def screen_strings(record: Mapping[str, Any]) -> set[str]:
    """What a fresh row may never share with this eval record: its three coded answer words."""
    return set(record["outputs"])
