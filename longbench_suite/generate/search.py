"""How big a haystack fits: RULER's search, and the rows drawn at that size (``docs/generate.md`` §3).

RULER sizes the haystack once per file: it draws a sample of ``incremental`` units to estimate tokens
per unit, then binary-searches the largest size whose prompt plus the generation fits the length,
drawing a new sample at every step. Each row is then drawn at that size, ``incremental`` units smaller
after every draw that does not fit. Every draw uses the one random stream, so reproducing RULER's
rows means making the same draws in the same order: :class:`Sizer` does, counting each candidate
exactly with :class:`~.count.PromptCounter` instead of tokenizing it whole.

That is RULER's recipe. A row of the default recipe is *filled* instead (:meth:`Sizer.fill`): each
draw is a new sample whose count varies around the size's mean (a needle line's key and value differ
in length), so a row is redrawn at the size its miss points to until its prompt is within
:data:`FILL_SHARE` of the limit.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import DataFormatError
from .count import PromptCounter
from .niah import NOTHING, Essay, Excluded, NiahSettings, Sample, draw

#: draws at the smallest size before giving up (RULER would retry forever)
MAX_RETRIES = 1000
#: a filled row's prompt is within this share of the limit
FILL_SHARE = 0.015
#: draws a filled row may take; then the fullest draw that fits is kept
MAX_FILL_DRAWS = 24


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt as ``head + "\\n".join(lines) + tail``."""

    head: str
    lines: tuple[str, ...]
    tail: str

    @property
    def text(self) -> str:
        return self.head + "\n".join(self.lines) + self.tail


@dataclass(frozen=True)
class Drawn:
    sample: Sample
    prompt: Prompt
    tokens: int  # the prompt's tokens, special tokens included
    #: where the answer starts in the prompt's text and the tokens before it (no special tokens), when
    #: the sizer was asked (``answer_at``) and counting gave them
    answer_at: int | None = None
    answer_tokens: int | None = None


class Sizer:
    """Draws samples and sizes their haystack to a token limit, as RULER does.

    ``limit`` is the most tokens (special tokens included) a prompt may have; ``max_length`` is the
    config's length, which RULER's first estimate and step size use.
    """

    def __init__(
        self,
        settings: NiahSettings,
        render: Callable[[Sample], Prompt],
        counter: PromptCounter,
        limit: int,
        max_length: int,
        shuffle_seed: int,
        essay: Essay | None = None,
        excluded: Excluded = NOTHING,
        where: str = "",
        answer_at: Callable[[Sample, str], int] | None = None,
    ) -> None:
        # ``answer_at(sample, text)``: where a drawn prompt's answer starts (its tokens before it are
        # counted with the prompt's when a rule allows; a needle haystack's prompts are fresh)
        self.answer_at = answer_at
        self.settings, self.render, self.counter = settings, render, counter
        self.limit, self.max_length, self.shuffle_seed = limit, max_length, shuffle_seed
        self.essay, self.excluded, self.where = essay, excluded, where
        #: tokens per haystack unit, and the largest size the search found with its count
        self.unit_tokens: float | None = None
        self.found: tuple[int, int] | None = None

    @property
    def step(self) -> int:
        """RULER's ``incremental``: 500 essay words, 25 sentences (5 below 4096 tokens)."""
        if self.settings.haystack == "essay":
            return 500
        return 5 if self.max_length < 4096 else 25

    def draw(self, rng: random.Random, size: int) -> Drawn:
        sample = draw(self.settings, rng, size, self.shuffle_seed, self.essay, self.excluded)
        prompt = self.render(sample)
        # noise lines repeat; needle lines and the essay's needle places are new at every draw
        fresh = self.settings.haystack != "noise"
        parts = (prompt.head, prompt.lines, prompt.tail)
        at = self.answer_at(sample, prompt.text) if self.answer_at is not None else 0
        if fresh and at > 0:
            tokens, before = self.counter.count_and_prefix(*parts, at)
            return Drawn(sample, prompt, tokens, at, before)
        tokens = self.counter.count(*parts, fresh=fresh)
        if at > 0:
            return Drawn(sample, prompt, tokens, at, self.counter.count_remembered_prefix(*parts, at))
        return Drawn(sample, prompt, tokens)

    def search(self, rng: random.Random) -> int:
        """The haystack size rows start from: RULER's estimate, then its binary search."""
        step = self.step
        first = self.draw(rng, step).tokens
        plain = first - self.counter.specials
        estimate = int((self.max_length / (plain / step)) * 3)
        low, high, best = step, max(estimate, 2 * step), None
        while low <= high:
            mid = (low + high) // 2
            tokens = self.draw(rng, mid).tokens
            if tokens <= self.limit:
                best, low = mid, mid + 1
                self.found = (mid, tokens)
            else:
                high = mid - 1
        if best is not None and best > step:
            self.unit_tokens = max((self.found[1] - first) / (best - step), 1e-3)
        else:
            self.unit_tokens = max(plain / step, 1e-3)
        return best if best is not None else step

    def start(self) -> int:
        """The size a filled row is first drawn at: the searched size, moved by the searched draw's miss
        of the middle of the fill window (the search keeps the largest size one noisy draw fitted at)."""
        if self.unit_tokens is None:
            raise RuntimeError("Sizer.start() needs a search first")
        if self.found is None:  # nothing fitted: fill() draws the smallest haystack and says so
            return self.smallest
        size, tokens = self.found
        return max(self.smallest, size + round((self._aim - tokens) / self.unit_tokens))

    @property
    def smallest(self) -> int:
        """The smallest haystack: one essay word, or room for every needle among the lines."""
        return 1 if self.settings.haystack == "essay" else self.settings.keys * self.settings.values

    @property
    def _window(self) -> float:
        """How far below the limit a filled row may end."""
        return self.limit * FILL_SHARE

    @property
    def _aim(self) -> float:
        return self.limit - self._window / 2

    def fill(self, rng: random.Random, size: int) -> Drawn:
        """A row whose prompt fits the limit and is within :data:`FILL_SHARE` of it.

        The first draw is at ``size``; after a draw outside the window the next is at the size its miss
        points to (``unit_tokens`` per unit; one unit at least). After :data:`MAX_FILL_DRAWS` the
        fullest draw that fits is kept (a unit bigger than the window can make the window unreachable).
        """
        if self.unit_tokens is None:
            raise RuntimeError("Sizer.fill() needs a search first")
        floor, best, drawn = self.limit - self._window, None, None
        for _ in range(MAX_FILL_DRAWS):
            drawn = self.draw(rng, size)
            if drawn.tokens <= self.limit:
                if drawn.tokens >= floor:
                    return drawn
                if best is None or drawn.tokens > best.tokens:
                    best = drawn
            move = round((self._aim - drawn.tokens) / self.unit_tokens)
            move = move or (1 if drawn.tokens < floor else -1)
            if size == self.smallest and move < 0:
                break
            size = max(self.smallest, size + move)
        if best is not None:
            return best
        raise self._nothing_fits(drawn, size)

    def row(self, rng: random.Random, size: int) -> Drawn:
        """A row drawn at ``size``, ``step`` smaller after each draw that does not fit."""
        for _ in range(MAX_RETRIES):
            drawn = self.draw(rng, size)
            if drawn.tokens <= self.limit:
                return drawn
            if size > self.step:
                size -= self.step
        raise self._nothing_fits(drawn, size)

    def _nothing_fits(self, drawn: Drawn, size: int) -> DataFormatError:
        return DataFormatError(
            f"{self.where}: no haystack fits {self.limit} tokens; the prompt alone is "
            f"{drawn.tokens} tokens at {size} haystack units (choose a longer length)"
        )
