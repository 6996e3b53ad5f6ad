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

import itertools
import json
import operator
import random
import re
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..errors import DataFormatError, MissingDependencyError, OptionError
from ..fit.tokenizers import HFTokenizer, TiktokenCounter, TokenCounter
from .count import PIECE_BREAK_ENCODINGS
from .ruler_records import cut_at_prefix, ruler_record

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


_LLAMA_NORMALIZER = [
    {"type": "Prepend", "prepend": "\u2581"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
]


def word_prefix(counter: TokenCounter) -> str | None:
    """How a coded text's words can be counted one by one, exactly, or ``None``: never.

    - tiktoken's known encodings (:data:`~.count.PIECE_BREAK_ENCODINGS`): a space before a letter or a
      dot always starts a pre-tokenizer piece, so the text's count is its pieces' (``" " + word``);
    - a ``tokenizer.json`` with Llama's SentencePiece layout (the normalizer prepends ``▁`` and turns
      spaces into ``▁``, no pre-tokenizer, BPE without dropout) whose vocabulary has no token with a
      ``▁`` after another character: no merge can join a word to the ``▁`` that starts the next, so BPE
      over the text is BPE over each ``▁word`` alone, which is how ``word`` alone is normalized.
    """
    if isinstance(counter, TiktokenCounter):
        return " " if counter.name in PIECE_BREAK_ENCODINGS else None
    if isinstance(counter, HFTokenizer):
        if counter.identity not in _WORDS_ALONE:
            _WORDS_ALONE[counter.identity] = _llama_words_alone(counter.backend)
        return "" if _WORDS_ALONE[counter.identity] else None
    return None


_WORDS_ALONE: dict[str, bool] = {}


def _llama_words_alone(tokenizer) -> bool:
    spec = json.loads(tokenizer.to_str())
    normalizer, model = spec.get("normalizer") or {}, spec.get("model") or {}
    if (
        normalizer.get("normalizers") != _LLAMA_NORMALIZER
        or spec.get("pre_tokenizer") is not None
        or model.get("type") != "BPE"
        or model.get("dropout")
        or any(t.get("lstrip") or t.get("rstrip") for t in spec.get("added_tokens", []))
    ):
        return False
    return not any(
        "\u2581" in token[1:] and re.search("[^\u2581]\u2581", token) for token in model.get("vocab", {})
    )


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


@dataclass(frozen=True)
class Order:
    """The text's words at one ``num_words``: each rank's count, the ranks in text order, and the parts
    the text is joined from (a run of noise words is one part)."""

    counts: tuple[int, ...]
    ranks: tuple[int, ...]
    used: tuple[int, ...]  # the ranks that appear
    #: each part: a rank (``< vocab_size``), or ``vocab_size + n - 1`` for a run of ``n`` noise words
    parts: tuple[int, ...]
    runs: tuple[str, ...]  # the runs of 1, 2, ... noise words

    def words(self, vocab: list[str]) -> tuple[str, ...]:
        """The text's parts for ``vocab`` (joined by spaces: the context), in one C call."""
        extended = [*vocab, *self.runs]
        if len(self.parts) == 1:
            return (extended[self.parts[0]],)
        return operator.itemgetter(*self.parts)(extended) if self.parts else ()


@lru_cache(maxsize=MAX_ORDERS)
def rank_order(vocab_size: int, num_words: int, alpha: float, seed: int) -> Order:
    """RULER's counts ``(num_words * k**-alpha / zeta(alpha)).astype(int)`` (NumPy, as RULER computes
    them), its words listed rank by rank and shuffled by a fresh ``random.Random(seed)``."""
    k = np.arange(1, vocab_size + 1)
    counts = tuple(int(c) for c in (num_words * (k**-alpha) / zeta(alpha)).astype(int))
    ranks = [rank for rank, count in enumerate(counts) for _ in range(count)]
    random.Random(seed).shuffle(ranks)
    parts, run = [], 0
    for rank in ranks:
        if rank == 0:
            run += 1
            continue
        if run:
            parts.append(vocab_size + run - 1)
            run = 0
        parts.append(rank)
    if run:
        parts.append(vocab_size + run - 1)
    longest = max((p - vocab_size + 1 for p in parts if p >= vocab_size), default=0)
    runs = tuple(" ".join([NOISE_WORD] * n) for n in range(1, longest + 1))
    used = tuple(rank for rank, count in enumerate(counts) if count)
    return Order(counts, tuple(ranks), used, tuple(parts), runs)


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
        if self.vocab_size < 4 and settings.vocab_size == -1:
            raise OptionError(
                f"fwe: an input budget of {budget} tokens (the length minus tokens_to_generate) gives "
                f"RULER's vocabulary of budget // 50 = {self.vocab_size} words, too few for three answers; "
                "choose a longer length (a budget of at least 200 tokens)"
            )
        if self.vocab_size < 4:
            raise OptionError(f"fwe: a vocabulary of {self.vocab_size} words has no three answers")
        self.head, self.tail = template.format(context=_MARK, query="").split(_MARK)
        self.step = budget // 32
        if self.step < 1:  # RULER's sizing would never move
            raise OptionError(f"fwe: a budget of {budget} tokens is too short for RULER's sizing steps")
        self.rng = random.Random(seed)
        #: how a word is counted alone (``" " + word`` or ``word``), or ``None``: the text is counted whole
        alone = self.head.endswith(" ") and self.head[-2:-1].strip()  # the first word's space is its own
        self.word_prefix = word_prefix(counter) if alone else None
        self._fixed = counter.count(self.head[:-1], special=False) if self.word_prefix is not None else 0
        self._built: tuple[list[str] | None, int, str] = (None, 0, "")
        self._known: tuple[list[str] | None, dict[int, int]] = (None, {})  # the words' counts alone

    def vocabulary(self) -> list[str]:
        """One row's words: ``choices`` of ``coded_wordlen`` letters each, redrawn until distinct."""
        size, length = self.vocab_size, self.settings.word_length
        draws = size * length
        letters, n, draw = string.ascii_lowercase, float(len(string.ascii_lowercase)), self.rng.random
        # ``choices(letters, k=length)`` is ``letters[floor(random() * 26.0)]`` per letter: made here
        # directly, the same draws in the same order
        floats = np.fromiter(itertools.starmap(draw, itertools.repeat((), draws)), float, draws)
        picks = (floats * n).astype(np.uint8) + ord("a")
        drawn = picks.tobytes().decode("ascii")
        distinct = {drawn[i : i + length] for i in range(0, draws, length)}
        while len(distinct) < size:
            distinct.add("".join([letters[int(draw() * n)] for _ in range(length)]))
        ordered = sorted(distinct)
        vocab = [ordered[i] for i in vocab_order(size, self.seed)]
        vocab[0] = NOISE_WORD  # the most frequent word is noise
        return vocab

    def tokens(self, vocab: list[str], num_words: int) -> int:
        """The tokens of the prompt of ``vocab`` at ``num_words`` (without special tokens)."""
        order = rank_order(self.vocab_size, num_words, self.settings.alpha, self.seed)
        counts, ranks = order.counts, order.ranks
        if self.word_prefix is None or not ranks:
            text = self.text(vocab, num_words)
            self._built = (vocab, num_words, text)  # the row's text, if this count is its last
            return self.counter.count(text, special=False)
        if self._known[0] is not vocab:  # a row's shrunk texts hold the same words, fewer times
            self._known = (vocab, {})
        known = self._known[1]
        last, prefix = ranks[-1], self.word_prefix
        missing = [rank for rank in order.used if rank not in known]
        texts = [*(prefix + vocab[rank] for rank in missing), prefix + vocab[last] + self.tail]
        if isinstance(self.counter, TiktokenCounter):  # one by one: its batch starts threads per call
            each = [self.counter.count(text, special=False) for text in texts]
        else:
            each = self.counter.count_batch(texts, special=False)
        known.update(zip(missing, each[:-1], strict=True))
        total = self._fixed + sum(counts[rank] * known[rank] for rank in order.used)
        return total - known[last] + each[-1]

    def text(self, vocab: list[str], num_words: int) -> str:
        """The prompt of ``vocab`` at ``num_words`` (the one just counted, if it was built to count it)."""
        if self._built[0] is vocab and self._built[1] == num_words:
            return self._built[2]
        order = rank_order(self.vocab_size, num_words, self.settings.alpha, self.seed)
        return self.head + " ".join(order.words(vocab)) + self.tail

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
    number = 0
    while num_samples is None or number < num_samples:
        vocab, used, tokens = rows.row(num_words)
        answers = vocab[1:4]
        if not excluded.isdisjoint(answers):
            continue
        text = rows.text(vocab, used)
        yield ruler_record(number, *cut_at_prefix(text, answer_prefix), answers, tokens + tokens_to_generate)
        number += 1


def screen_strings(record: Mapping[str, Any]) -> set[str]:
    """What a fresh row may never share with this eval record: its three coded answer words."""
    return set(record["outputs"])
