"""RULER's needle-in-a-haystack procedure, drawn as RULER draws it (``docs/generate.md`` §2).

:func:`draw` makes one sample from a ``random.Random`` with the same calls, in the same order, as
RULER's ``scripts/data/synthetic/niah.py`` makes on its global generator, so a stream seeded like
RULER's gives RULER's samples. Sizing the haystack (how many noise sentences, needles or essay words)
is :mod:`.search`'s job.
"""

from __future__ import annotations

import bisect
import hashlib
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy

from .words import key_words

NEEDLE = "One of the special magic {type_needle_v} for {key} is: {value}."
NOISE = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
HAYSTACKS = ("noise", "needle", "essay")
KINDS = ("words", "numbers", "uuids")
#: where essay needles may go, in percent of the essay's sentences (40 points from 0 to 100, rounded)
DEPTHS = tuple(round(100 * i / 39) for i in range(40))
#: essay sizes whose sentences are kept (a search visits ~20, rows then use one or a few)
MAX_ESSAY_SIZES = 64
#: sentences before the end of the shorter text that are split again rather than reused (Punkt's break
#: decisions look one word to either side; the margin is more than they need)
RESPLIT_SENTENCES = 3


@dataclass(frozen=True)
class NiahSettings:
    """One NIAH variant: RULER's ``type_haystack``, ``type_needle_k/v`` and ``num_needle_k/v/q``."""

    haystack: str
    key_kind: str = "words"
    value_kind: str = "numbers"
    keys: int = 1
    values: int = 1
    queries: int = 1

    def __post_init__(self) -> None:
        if self.haystack not in HAYSTACKS:
            raise ValueError(f"haystack must be one of {HAYSTACKS}, not {self.haystack!r}")
        if self.key_kind not in KINDS or self.value_kind not in KINDS:
            raise ValueError(f"needle keys and values must be one of {KINDS}")
        # RULER raises num_needle_k to num_needle_q
        object.__setattr__(self, "keys", max(self.keys, self.queries))

    @property
    def single(self) -> bool:
        """One value asked for: RULER words the prompt in the singular."""
        return self.queries * self.values == 1

    @property
    def type_needle_v(self) -> str:
        return self.value_kind[:-1] if self.single else self.value_kind


#: RULER's NIAH variants (its ``synthetic.yaml``); HELMET evaluates ``niah_multikey_2``, ``niah_multikey_3``
#: and ``niah_multivalue``
VARIANTS = {
    "niah_single_1": NiahSettings("noise"),
    "niah_single_2": NiahSettings("essay"),
    "niah_single_3": NiahSettings("essay", value_kind="uuids"),
    "niah_multikey_1": NiahSettings("essay", keys=4),
    "niah_multikey_2": NiahSettings("needle"),
    "niah_multikey_3": NiahSettings("needle", key_kind="uuids", value_kind="uuids"),
    "niah_multivalue": NiahSettings("essay", values=4),
    "niah_multiquery": NiahSettings("essay", queries=4),
}


@dataclass(frozen=True)
class Sample:
    """One drawn sample: the haystack with its needles, and the question."""

    #: the context as lines (noise and needle haystacks: one sentence or needle each; essay: one line)
    lines: tuple[str, ...]
    keys: tuple[str, ...]  # every needle key, in drawing order
    values: tuple[tuple[str, ...], ...]  # the values of each key
    queries: tuple[str, ...]  # the keys asked for
    answers: tuple[str, ...]  # their values, in order

    @property
    def context(self) -> str:
        return "\n".join(self.lines)

    @property
    def query(self) -> str:
        """The keys asked for as RULER words them: ``a``; ``a, b, and c``."""
        if len(self.queries) == 1:
            return self.queries[0]
        return ", ".join(self.queries[:-1]) + ", and " + self.queries[-1]


def uuid4_text(bits: int) -> str:
    """``str(uuid.UUID(int=bits, version=4))``: the variant and version bits set, in 8-4-4-4-12 hex."""
    bits = (bits & ~(0xC000 << 48) | 0x8000 << 48) & ~(0xF000 << 64) | 4 << 76
    h = f"{bits:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def uuid_run(rng: random.Random, count: int, excluded: frozenset[str] = frozenset()) -> list[str] | None:
    """``count`` UUIDs drawn one after the other as :func:`drawer` draws them, in one call: CPython's
    ``getrandbits(128 * count)`` is the same generator outputs as ``count`` calls of
    ``getrandbits(128)``, lowest bits first. ``None``, nothing drawn, when one is in ``excluded`` (the
    caller then draws one by one, redrawing it) or ``rng`` is not a plain ``random.Random``."""
    if type(rng) is not random.Random or count <= 0:
        return None
    state = rng.getstate()
    raw = rng.getrandbits(128 * count).to_bytes(16 * count, "little")
    # each UUID's 16 bytes, most significant first, with uuid4_text's version and variant bits
    big = numpy.frombuffer(raw, dtype=numpy.uint8).reshape(count, 16)[:, ::-1].copy()
    big[:, 6] = (big[:, 6] & 0x0F) | 0x40
    big[:, 8] = (big[:, 8] & 0x3F) | 0x80
    h = big.tobytes().hex()
    uuids = [
        f"{h[i : i + 8]}-{h[i + 8 : i + 12]}-{h[i + 12 : i + 16]}-{h[i + 16 : i + 20]}-{h[i + 20 : i + 32]}"
        for i in range(0, 32 * count, 32)
    ]
    if excluded and not excluded.isdisjoint(uuids):
        rng.setstate(state)
        return None
    return uuids


def drawer(rng: random.Random, kind: str, excluded: frozenset[str] = frozenset()) -> Callable[[], str]:
    """A function giving ``rng``'s next key or value of ``kind``, skipping ``excluded`` ones.

    The draws are RULER's: ``randint(10**6, 10**7 - 1)``, ``choice(words)``, ``getrandbits(128)``.
    ``randint`` and ``choice`` reduce to CPython's ``_randbelow(n)``: ``getrandbits(n.bit_length())``
    until below ``n``; that loop is made here directly, consuming the same bits without the layers of
    calls around it (a 128k-token needle haystack draws ~10,000 of them per sample).
    """
    getrandbits = rng.getrandbits
    if kind == "uuids":

        def one() -> str:
            return uuid4_text(getrandbits(128))

    elif kind == "numbers":
        low, n = 10**6, 9 * 10**6
        k = n.bit_length()

        def one() -> str:
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            return str(low + r)

    elif kind == "words":
        words = key_words()
        n, pick = len(words), words.picker()
        k = n.bit_length()

        def one() -> str:
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            return pick(r)

    else:
        raise ValueError(f"needle keys and values must be one of {KINDS}, not {kind!r}")
    if not excluded:
        return one

    def allowed() -> str:
        while (value := one()) in excluded:
            pass
        return value

    return allowed


class Excluded:
    """Keys and values a draw must never produce (those of evaluation rows); empty: draw freely."""

    def __init__(self, strings: Sequence[str] = ()) -> None:
        self.strings = frozenset(strings)

    def draw(self, rng: random.Random, kind: str) -> str:
        return drawer(rng, kind, self.strings)()


NOTHING = Excluded()


def draw(
    settings: NiahSettings,
    rng: random.Random,
    size: int,
    shuffle_seed: int,
    essay: Essay | None = None,
    excluded: Excluded = NOTHING,
) -> Sample:
    """One sample whose haystack has ``size`` units (sentences, needles or essay words).

    ``shuffle_seed`` seeds the fresh generator that orders the needles (RULER: its ``--random_seed``).
    """
    new_key = drawer(rng, settings.key_kind, excluded.strings)
    new_value = drawer(rng, settings.value_kind, excluded.strings)
    before, middle = NEEDLE.split("{key}")
    before = before.format(type_needle_v=settings.value_kind)
    middle, after = middle.split("{value}")
    keys, values, needles = [], [], []
    for _ in range(settings.keys):
        key = new_key()
        keys.append(key)
        drawn = []
        for _ in range(settings.values):
            drawn.append(new_value())
            needles.append(before + key + middle + drawn[-1] + after)
        values.append(tuple(drawn))
    random.Random(shuffle_seed).shuffle(needles)

    if settings.haystack == "essay":
        if essay is None:
            raise ValueError("the essay haystack needs an essay")
        lines = (essay.with_needles(size, needles, rng),)
    else:
        if settings.haystack == "noise":
            sentences = [NOISE] * size
        else:
            # a key, then its value, needle by needle
            both = None
            if settings.key_kind == settings.value_kind == "uuids":
                both = uuid_run(rng, 2 * size, excluded.strings)
            if both is not None:
                pairs = zip(both[::2], both[1::2], strict=True)
                sentences = [before + key + middle + value + after for key, value in pairs]
            else:
                sentences = [before + new_key() + middle + new_value() + after for _ in range(size)]
        at = sorted(rng.sample(range(size), len(needles)), reverse=True)
        for index, needle in zip(at, needles, strict=False):
            sentences.insert(index, needle)
        lines = tuple(sentences)

    asked = rng.sample(range(settings.keys), settings.queries)
    return Sample(
        lines=lines,
        keys=tuple(keys),
        values=tuple(values),
        queries=tuple(keys[i] for i in asked),
        answers=tuple(v for i in asked for v in values[i]),
    )


def essay_digest(text: str) -> str:
    """What names an essay text (its cached sentences, an export card's account of it): the first 16 hex
    digits of the sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class Essay:
    """An essay haystack: the text's words, cut into sentences where needles go (RULER's rule).

    Every row of a file is drawn at one size (or a few, after retries), so the sentences of the first
    ``size`` words are cut once per size and kept. NLTK's Punkt is the slow part of an essay draw, and a
    search visits ~20 sizes of one text: each size is split from the sentences already known (below).
    """

    def __init__(self, text: str, sentence_spans: Callable[[str], list[tuple[int, int]]]) -> None:
        # RULER's rule: runs of whitespace become one space, then the text is split at spaces
        self.words = re.sub(r"\s+", " ", text).split(" ")
        self.digest = essay_digest(text)
        self._spans_of = sentence_spans
        self._sentences: dict[int, tuple[str, ...]] = {}
        self._known_size = 0
        self._known_spans: list[tuple[int, int]] = []
        self._known_starts: list[int] = []

    def text(self, size: int) -> str:
        """The essay's first ``size`` words (repeated past its end), joined and stripped as RULER does."""
        if size <= len(self.words):
            return " ".join(self.words[:size]).strip()
        repeats = -(-size // len(self.words))
        return " ".join((self.words * repeats)[:size]).strip()

    def sentences(self, size: int) -> tuple[str, ...]:
        """The sentences of the essay's first ``size`` words (repeated past its end)."""
        if size not in self._sentences:
            if len(self._sentences) >= MAX_ESSAY_SIZES:
                self._sentences.clear()
            text = self.text(size)
            spans = self._spans(text)
            if size > self._known_size:
                self._known_size, self._known_spans = size, spans
                self._known_starts = [start for start, _ in spans]
            self._sentences[size] = tuple(text[start:end] for start, end in spans)
        return self._sentences[size]

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """Punkt's sentence spans of ``text``, a prefix or an extension of the longest text split so far.

        Punkt decides each break from the words beside it, so the two texts agree on every sentence
        except near the end of the shorter one: the known sentences up to ``RESPLIT_SENTENCES`` before
        that end are kept and only the rest is split again.
        """
        inside = bisect.bisect_left(self._known_starts, len(text))
        kept = max(inside - RESPLIT_SENTENCES, 0)
        resplit_from = self._known_spans[kept][0] if kept else 0
        tail = self._spans_of(text[resplit_from:])
        return self._known_spans[:kept] + [(resplit_from + a, resplit_from + b) for a, b in tail]

    def with_needles(self, size: int, needles: list[str], rng: random.Random) -> str:
        sentences = self.sentences(size)
        cuts = sorted(int(len(sentences) * (d / 100)) for d in rng.sample(DEPTHS, len(needles)))
        bounds = [0, *cuts, len(sentences)]
        parts = []
        for i in range(1, len(bounds)):
            parts.append(" ".join(sentences[bounds[i - 1] : bounds[i]]))
            if i - 1 < len(needles):
                parts.append(needles[i - 1])
        return " ".join(parts)
