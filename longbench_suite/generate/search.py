"""How big a haystack fits: RULER's search, and the rows drawn at that size (``docs/generate.md`` §3).

RULER sizes the haystack once per file: it draws a sample of ``incremental`` units to estimate tokens
per unit, then binary-searches the largest size whose prompt plus the generation fits the length,
drawing a new sample at every step. Each row is then drawn at that size, ``incremental`` units smaller
after every draw that does not fit. Every draw uses the one random stream, so reproducing RULER's
rows means making the same draws in the same order: :class:`Sizer` does, counting each candidate
exactly with :class:`~.count.PromptCounter` instead of tokenizing it whole.
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
    ) -> None:
        self.settings, self.render, self.counter = settings, render, counter
        self.limit, self.max_length, self.shuffle_seed = limit, max_length, shuffle_seed
        self.essay, self.excluded, self.where = essay, excluded, where

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
        return Drawn(sample, prompt, self.counter.count(prompt.head, prompt.lines, prompt.tail, fresh=fresh))

    def search(self, rng: random.Random) -> int:
        """The haystack size rows start from: RULER's estimate, then its binary search."""
        step = self.step
        plain = self.draw(rng, step).tokens - self.counter.specials
        estimate = int((self.max_length / (plain / step)) * 3)
        low, high, best = step, max(estimate, 2 * step), None
        while low <= high:
            mid = (low + high) // 2
            if self.draw(rng, mid).tokens <= self.limit:
                best, low = mid, mid + 1
            else:
                high = mid - 1
        return best if best is not None else step

    def row(self, rng: random.Random, size: int) -> Drawn:
        """A row drawn at ``size``, ``step`` smaller after each draw that does not fit."""
        for _ in range(MAX_RETRIES):
            drawn = self.draw(rng, size)
            if drawn.tokens <= self.limit:
                return drawn
            if size > self.step:
                size -= self.step
        raise DataFormatError(
            f"{self.where}: no haystack fits {self.limit} tokens; the prompt alone is "
            f"{drawn.tokens} tokens at {size} haystack units (choose a longer length)"
        )
