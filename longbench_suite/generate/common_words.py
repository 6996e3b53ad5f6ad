"""RULER's common-words extraction (``cwe``), drawn and sized as RULER's
``scripts/data/synthetic/common_words_extraction.py`` (commit c3f5e3b) draws and sizes it.

A prompt is one or more few-shot examples and then the question, each the task template around a
numbered list ``"1. w1 2. w2 ..."``. A list is ``num_words`` words sampled from the pool, its first
``num_cw`` repeated ``freq_cw`` times and the rest ``freq_ucw`` times, shuffled by a generator
*freshly* seeded with the base seed, so every list of one length is put in the same order. An
example is 40 words at 10/3 repetitions; below 4096 tokens it is 20 words at 3/1 and the question's
list is at 6/1. The pool is the ``wonderwords`` nouns, adjectives and verbs (unique, sorted, then
shuffled with the seed); a list longer than it is sampled from RULER's ``english_words.json``
instead (the values of that JSON object, in file order), which only very long prompts reach.

Sizing, as RULER: a 4096-word prompt estimates tokens per word, a binary search from 10 to twice
the estimated word count finds the largest list that fits, and each row is drawn at that size,
10 words smaller after each draw that does not fit. Every draw is made on the one generator seeded
with the base seed, in RULER's order, so the rows are RULER's.

Counting: a list splits into tokens at each ``" "`` before an entry's number and before its word
(true of Llama's SentencePiece and of the tiktoken and byte-level BPE pre-tokenizers), so a
prompt's count is the head's, plus each number's and word's, plus the last word's joined with
what follows it. Those are counted once and remembered; a draw then costs a sum instead of a
tokenization. The first prompt drawn from each pool is also counted whole; if the sums ever
disagree with the tokenizer, every prompt is counted whole from then on.
"""

from __future__ import annotations

import functools
import operator
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import DataFormatError, OptionError, ShortSourceError
from ..fit.tokenizers import TiktokenCounter, TokenCounter
from .ruler_records import cut_at_prefix, ruler_record
from .words import common_words

#: RULER's ``constants.py`` entry for ``common_words_extraction``; ``prepare.py`` passes the script the
#: template followed by the answer prefix (model template ``base``)
TEMPLATE = (
    "Below is a numbered list of words. In these words, some appear more often than others. "
    "Memorize the ones that appear most often.\n{context}\nQuestion: What are the 10 most common words "
    "in the above list?"
)
ANSWER_PREFIX = " Answer: The top 10 words that appear most often in the list are:"
TOKENS_TO_GENERATE = 120
#: RULER's script defaults for the task arguments ``synthetic.yaml`` gives (or leaves out)
DEFAULT_ARGS = {"freq_cw": 30, "freq_ucw": 3, "num_cw": 10, "num_fewshot": 1}
#: RULER's ``incremental``: the search's lowest size and a row's step down after a miss
STEP = 10
#: the list length of the prompt RULER estimates tokens per word with
ESTIMATE_WORDS = 4096
#: below this ``max_seq_length`` RULER uses the small example and repetitions
SMALL_BELOW = 4096
#: draws of one row before giving up (RULER would retry forever)
MAX_RETRIES = 1000
#: list orders remembered (a search visits ~15 lengths, rows then use one or two)
MAX_ORDERS = 32
_CONTEXT = "\x00context\x00"


@dataclass(frozen=True)
class Settings:
    """RULER's ``--freq_cw --freq_ucw --num_cw --num_fewshot`` and the length's branch."""

    freq_cw: int
    freq_ucw: int
    num_cw: int
    num_fewshot: int
    small: bool

    @classmethod
    def of(cls, task_args: Mapping[str, Any], max_seq_length: int) -> Settings:
        unknown = set(task_args) - set(DEFAULT_ARGS)
        if unknown:
            raise OptionError(
                f"cwe: unknown task argument(s) {sorted(unknown)}; known: {sorted(DEFAULT_ARGS)}"
            )
        values = {**DEFAULT_ARGS, **task_args}
        if not all(isinstance(v, int) and v >= 0 for v in values.values()) or min(
            values["num_cw"], values["freq_cw"]
        ) < 1:
            raise OptionError(
                f"cwe: task arguments must be counts (num_cw and freq_cw at least 1), not {values}"
            )
        return cls(**values, small=max_seq_length < SMALL_BELOW)

    @property
    def example(self) -> tuple[int, int, int]:
        """An example's words, common and uncommon repetitions."""
        return (20, 3, 1) if self.small else (40, 10, 3)

    @property
    def repeats(self) -> tuple[int, int]:
        """The question list's common and uncommon repetitions."""
        return (6, 1) if self.small else (self.freq_cw, self.freq_ucw)


@dataclass(frozen=True)
class Listing:
    """One drawn list: the sampled words (the first ``num_cw`` are the answer) and their repetitions."""

    words: list
    num_cw: int
    common_repeats: int
    uncommon_repeats: int
    pool: str  # "wonderwords" or "english_words"

    @property
    def common(self) -> list:
        return self.words[: self.num_cw]

    @property
    def length(self) -> int:
        """Entries in the list."""
        common = len(self.common)
        return common * self.common_repeats + (len(self.words) - common) * self.uncommon_repeats

    def entry(self, position: int) -> Any:
        """``entries[position]`` without building the list."""
        common = len(self.common)
        repeated = common * self.common_repeats
        if position < repeated:
            return self.words[position % common]
        return self.words[common + (position - repeated) % (len(self.words) - common)]

    @property
    def entries(self) -> list:
        """The words as listed before the shuffle."""
        common, uncommon = self.words[: self.num_cw], self.words[self.num_cw :]
        return common * self.common_repeats + uncommon * self.uncommon_repeats


@dataclass(frozen=True)
class Draw:
    shots: tuple[Listing, ...]
    main: Listing


#: RULER's English words, or a function reading them (called only when a list needs them)
EnglishWords = Sequence[str] | Callable[[], Sequence[str]] | None


class Pool:
    """The words lists are sampled from: the seed-shuffled ``wonderwords`` pool, then RULER's English
    words for a list longer than it."""

    def __init__(self, seed: int, english_words: EnglishWords) -> None:
        self.words = list(common_words())
        random.Random(seed).shuffle(self.words)
        self._english = english_words
        self.english: list | None = None

    def sample(self, rng: random.Random, size: int) -> tuple[list, str]:
        if size <= len(self.words):
            return rng.sample(self.words, size), "wonderwords"
        if self.english is None and self._english is not None:
            self.english = list(self._english() if callable(self._english) else self._english)
        if self.english is None:
            raise OptionError(
                f"cwe: a list of {size} words is longer than the wonderwords pool ({len(self.words)}); "
                "RULER then samples its json/english_words.json, which was not given (english_words=)"
            )
        if size > len(self.english):
            raise ShortSourceError(
                f"cwe: a list of {size} words is longer than the english_words given "
                f"({len(self.english)} words); RULER's english_words.json fails the same way"
            )
        return rng.sample(self.english, size), "english_words"


class Orders:
    """The order RULER's fresh ``Random(seed).shuffle`` puts a list of each length in."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._orders: dict[int, tuple[list[int], Callable[[Sequence], Any]]] = {}

    def _order(self, length: int) -> tuple[list[int], Callable[[Sequence], Any]]:
        known = self._orders.get(length)
        if known is None:
            if len(self._orders) >= MAX_ORDERS:
                self._orders.clear()
            order = list(range(length))
            random.Random(self.seed).shuffle(order)
            known = self._orders[length] = (order, operator.itemgetter(*order))
        return known

    def last(self, length: int) -> int:
        """The position the shuffle puts last: its first draw, ``randbelow(length)`` (CPython's
        ``shuffle`` swaps the last item with that one first and never touches it again)."""
        if length < 2:
            return 0
        bits, getrandbits = length.bit_length(), random.Random(self.seed).getrandbits
        position = getrandbits(bits)
        while position >= length:
            position = getrandbits(bits)
        return position

    def shuffle(self, items: Sequence) -> Sequence:
        if len(items) < 2:
            return items
        return self._order(len(items))[1](items)


class Numbering:
    """Lists as RULER writes them: ``"1. w1 2. w2 ..."``."""

    def __init__(self) -> None:
        self._prefixes: list[str] = []  # "1. ", " 2. ", " 3. " ...

    def __call__(self, entries: Sequence) -> str:
        length, prefixes = len(entries), self._prefixes
        if len(prefixes) < length:
            first = len(prefixes) + 1
            prefixes += [f"{i}. " if i == 1 else f" {i}. " for i in range(first, max(length, 2 * first) + 1)]
        parts = [""] * (2 * length)
        parts[0::2] = prefixes[:length]
        parts[1::2] = entries
        try:
            return "".join(parts)
        except TypeError:  # english_words values that are not strings, written as f"{word}" writes them
            parts[1::2] = map(str, entries)
            return "".join(parts)


class EntryCounts:
    """Token counts of a list's parts in context, each counted once (see the module docstring).

    The count of ``" " + word`` is measured after ``"1."``, of ``" n."`` after ``"1. x"``, and of a
    last word with the text that follows it likewise, so the tokenizer's start-of-text handling
    cancels out.
    """

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        if isinstance(counter, TiktokenCounter):
            # tiktoken's batch call spends more on a thread-pool task per text than on a short text
            self._count_many = lambda texts: [counter.count(t, special=False) for t in texts]
        else:
            self._count_many = functools.partial(counter.count_batch, special=False)
        self._number_anchor = "1. x"
        self._word_anchor_tokens = self._count("1.")
        self._number_anchor_tokens = self._count(self._number_anchor)
        self._words: dict[Any, int] = {}
        self._ends: dict[tuple[Any, str], int] = {}
        self._texts: dict[str, int] = {}
        self._numbered = [0, 0]  # [L]: tokens of " 2." ... " L." together

    def _count(self, text: str) -> int:
        return self.counter.count(text, special=False)

    def word(self, word: Any) -> int:
        """Tokens of ``" " + word`` in a list."""
        return self.words([word])

    def words(self, words: Sequence) -> int:
        """Tokens of ``" " + word`` for each of ``words``, summed."""
        known = self._words
        try:
            return sum(map(known.__getitem__, words))
        except KeyError:
            missing = list({w for w in words if w not in known})
            texts = [f"1. {w}" for w in missing]
            for word, n in zip(missing, self._count_many(texts), strict=True):
                known[word] = n - self._word_anchor_tokens
            return sum(map(known.__getitem__, words))

    def end(self, word: Any, after: str) -> int:
        key = (word, after)
        if key not in self._ends:
            self._ends[key] = self._count(f"1. {word}{after}") - self._word_anchor_tokens
        return self._ends[key]

    def text(self, text: str) -> int:
        if text not in self._texts:
            self._texts[text] = self._count(text)
        return self._texts[text]

    def numbered(self, length: int) -> int:
        sums = self._numbered
        if len(sums) <= length:
            first = len(sums)
            texts = [f"{self._number_anchor} {i}." for i in range(first, max(length, 2 * first) + 1)]
            for n in self._count_many(texts):
                sums.append(sums[-1] + n - self._number_anchor_tokens)
        return sums[length]

    def listing(self, listing: Listing, last: Any, after: str) -> int:
        """Tokens of a list after its leading ``"1."`` and of ``after``, ``last`` its last word."""
        words, cut = listing.words, listing.num_cw
        common, uncommon = self.words(words[:cut]), self.words(words[cut:])
        return (
            self.numbered(listing.length)
            + common * listing.common_repeats
            + uncommon * listing.uncommon_repeats
            - self.word(last)
            + self.end(last, after)
        )


#: the entry counts of the counters used lately, by identity (a build makes one file per length)
_COUNTS: dict[str, EntryCounts] = {}
MAX_COUNTERS = 4


def entry_counts(counter: TokenCounter) -> EntryCounts:
    """The :class:`EntryCounts` of ``counter``, shared by every file it sizes in this process."""
    known = _COUNTS.get(counter.identity)
    if known is None:
        if len(_COUNTS) >= MAX_COUNTERS:
            _COUNTS.clear()
        known = _COUNTS[counter.identity] = EntryCounts(counter)
    return known


class CommonWords:
    """RULER's ``generate_input_output`` and its counting, for one file (seed, template, length)."""

    def __init__(
        self,
        settings: Settings,
        counter: TokenCounter,
        template: str,
        seed: int,
        english_words: EnglishWords,
    ) -> None:
        self.settings = settings
        filled = template.format(num_cw=settings.num_cw, context=_CONTEXT, query="")
        if filled.count(_CONTEXT) != 1:
            raise OptionError("cwe: the template must hold {context} exactly once")
        self.head, self.tail = filled.split(_CONTEXT)
        self.pool = Pool(seed, english_words)
        self.orders = Orders(seed)
        self.numbering = Numbering()
        self.counts = entry_counts(counter)
        self.counter = counter
        self.checked: set[str] = set()  # pools whose first prompt was counted whole and agreed
        self.summing = True  # False once a sum disagreed: count every prompt whole

    def _listing(self, rng: random.Random, size: int, common: int, uncommon: int) -> Listing:
        words, pool = self.pool.sample(rng, size)
        return Listing(words, self.settings.num_cw, common, uncommon, pool)

    def draw(self, rng: random.Random, size: int) -> Draw:
        """RULER's draws for a prompt whose question lists ``size`` words."""
        shot_shape = self.settings.example
        shots = tuple(self._listing(rng, *shot_shape) for _ in range(self.settings.num_fewshot))
        return Draw(shots, self._listing(rng, size, *self.settings.repeats))

    def shuffled(self, listing: Listing) -> Sequence:
        return self.orders.shuffle(listing.entries)

    def text(self, draw: Draw) -> str:
        """The prompt, as RULER writes it before splitting off the answer prefix."""
        shots = [
            self.head + self.numbering(self.shuffled(shot)) + self.tail + " " + self.numbering(shot.common)
            for shot in draw.shots
        ]
        return "\n".join(shots) + "\n" + self.head + self.numbering(self.shuffled(draw.main)) + self.tail

    def _summed(self, draw: Draw) -> int:
        counts, head = self.counts, self.head
        total = counts.text(head + "1." if draw.shots else "\n" + head + "1.")
        for shot in draw.shots:
            last = shot.entry(self.orders.last(shot.length))
            total += counts.listing(shot, last, self.tail + " 1.")
            answers = Listing(shot.common, len(shot.common), 1, 1, shot.pool)
            total += counts.listing(answers, shot.common[-1], "\n" + head + "1.")
        main = draw.main
        last = main.entry(self.orders.last(main.length))
        return total + counts.listing(main, last, self.tail)

    def tokens(self, draw: Draw) -> int:
        """The prompt's tokens without special tokens (RULER's ``len(tokenize(input))``)."""
        if not self.summing:
            return self.counter.count(self.text(draw), special=False)
        summed = self._summed(draw)
        pools = {draw.main.pool, *(s.pool for s in draw.shots)} - self.checked
        if pools:
            whole = self.counter.count(self.text(draw), special=False)
            if whole != summed:
                self.summing = False
                return whole
            self.checked |= pools
        return summed


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
    english_words: EnglishWords = None,
    excluded: frozenset[str] = frozenset(),
) -> Iterator[dict]:
    """RULER's ``cwe`` records for one file, as its ``common_words_extraction.py`` writes them.

    ``template`` is what ``prepare.py`` passes (the task template followed by the answer prefix);
    ``english_words`` the values of RULER's ``json/english_words.json`` (or a function returning
    them, called only if needed), needed only by a list longer than the wonderwords pool.
    ``pre_samples`` is unused (RULER passes it to QA only). ``num_samples=None`` yields without
    end. With ``excluded``, a row whose answer (:func:`screen_strings`) is excluded is drawn and
    dropped, and the next draw is made in its place.
    """
    del pre_samples
    settings = Settings.of(task_args, max_seq_length)
    words = CommonWords(settings, counter, template, seed, english_words)
    rng = random.Random(seed)
    num_words = _search(words, rng, max_seq_length, tokens_to_generate)
    index = 0
    while num_samples is None or index < num_samples:
        draw, length = _row(words, rng, num_words, max_seq_length, tokens_to_generate)
        if excluded and _answer_key(draw.main.common) in excluded:
            continue
        yield ruler_record(index, *cut_at_prefix(words.text(draw), answer_prefix), draw.main.common, length)
        index += 1


def _search(words: CommonWords, rng: random.Random, max_seq_length: int, tokens_to_generate: int) -> int:
    """RULER's estimate and binary search: the largest list whose prompt fits."""
    per_word = words.tokens(words.draw(rng, ESTIMATE_WORDS)) / ESTIMATE_WORDS
    estimated = int(max_seq_length // per_word) * 2
    low, high, best = STEP, max(estimated, 2 * STEP), None
    while low <= high:
        mid = (low + high) // 2
        if words.tokens(words.draw(rng, mid)) + tokens_to_generate <= max_seq_length:
            best, low = mid, mid + 1
        else:
            high = mid - 1
    return STEP if best is None else best


def _row(
    words: CommonWords, rng: random.Random, size: int, max_seq_length: int, tokens_to_generate: int
) -> tuple[Draw, int]:
    """A row drawn at ``size``, :data:`STEP` words smaller after each draw that does not fit."""
    for _ in range(MAX_RETRIES):
        draw = words.draw(rng, size)
        length = words.tokens(draw) + tokens_to_generate
        if length <= max_seq_length:
            return draw, length
        if size > STEP:
            size -= STEP
    raise DataFormatError(
        f"cwe: no list fits {max_seq_length} tokens with {tokens_to_generate} to generate; the prompt is "
        f"{length - tokens_to_generate} tokens at {size} words (choose a longer length)"
    )


def _answer_key(common: Sequence) -> str:
    return "\n".join(sorted(map(str, common)))


def screen_strings(record: Mapping[str, Any]) -> set[str]:
    """What a fresh row must not repeat of an evaluation record: its answer, the set of common words
    (one string). Single words are shared by design: 500 rows draw 5,000 common words from a pool of
    8,166 (~3,700 distinct)."""
    return {_answer_key(record["outputs"])}
