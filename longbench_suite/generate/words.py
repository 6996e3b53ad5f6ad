"""RULER's key words: ``adjective-noun`` pairs from the ``wonderwords`` word lists, sorted and unique.

RULER materialises all ~6.2 million pairs, sorted (``docs/generate.md`` §2); a draw is
``random.choice`` over that list. :class:`KeyWords` gives the same list by index without building it:
pairs are grouped by adjective, and adjectives whose groups interleave in sort order (``flipped`` and
``flipped-out``, ``ad hoc``) are merged into one group that is sorted when first used.
"""

from __future__ import annotations

import bisect
import functools
from importlib import resources

from ..errors import MissingDependencyError


def _word_list(name: str) -> list[str]:
    try:
        text = resources.files("wonderwords.assets").joinpath(name).read_text(encoding="utf-8")
    except ModuleNotFoundError:
        raise MissingDependencyError(
            "the NIAH generators draw key words from the 'wonderwords' word lists, as RULER does: "
            "pip install 'longbench-suite[generate]'"
        ) from None
    return [line.rstrip() for line in text.splitlines(keepends=True)]


class KeyWords:
    """``sorted(set(f"{a}-{n}" for a in adjectives for n in nouns))``, indexable, never built whole."""

    def __init__(self, adjectives: list[str], nouns: list[str]) -> None:
        self._nouns = sorted(set(nouns))
        spans = sorted((a + "-" + self._nouns[0], a + "-" + self._nouns[-1], a) for a in set(adjectives))
        groups: list[list[str]] = []
        end = ""
        for start, stop, adjective in spans:
            if groups and start <= end:
                groups[-1].append(adjective)
                end = max(end, stop)
            else:
                groups.append([adjective])
                end = stop
        self._groups = [tuple(g) for g in groups]
        sizes = [len(self._nouns) if len(g) == 1 else len(self._merged(g)) for g in self._groups]
        self._starts = [0]
        for size in sizes:
            self._starts.append(self._starts[-1] + size)

    def __len__(self) -> int:
        return self._starts[-1]

    def __getitem__(self, index: int) -> str:
        if not 0 <= index < self._starts[-1]:
            raise IndexError(index)
        k = bisect.bisect_right(self._starts, index) - 1
        group, offset = self._groups[k], index - self._starts[k]
        if len(group) == 1:
            return f"{group[0]}-{self._nouns[offset]}"
        return self._merged(group)[offset]

    @functools.lru_cache(maxsize=64)  # noqa: B019 (one KeyWords per process)
    def _merged(self, group: tuple[str, ...]) -> list[str]:
        return sorted({f"{a}-{n}" for a in group for n in self._nouns})


@functools.cache
def key_words() -> KeyWords:
    """RULER's key-word list (``wonderwords`` adjective and noun lists)."""
    return KeyWords(_word_list("adjectivelist.txt"), _word_list("nounlist.txt"))
