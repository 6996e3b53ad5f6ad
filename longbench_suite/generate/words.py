"""RULER's key words: ``adjective-noun`` pairs from the ``wonderwords`` word lists, sorted and unique.

RULER materialises all ~6.2 million pairs, sorted (``docs/generate.md`` §2); a draw is
``random.choice`` over that list. :class:`KeyWords` gives the same list by index without building it:
pairs are grouped by adjective, and adjectives whose groups interleave in sort order (``flipped`` and
``flipped-out``, ``ad hoc``) are merged into one group that is sorted when first used.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable
from importlib import resources

from ..errors import MissingDependencyError


def _word_list(name: str) -> list[str]:
    try:
        text = resources.files("wonderwords.assets").joinpath(name).read_text(encoding="utf-8")
    except ModuleNotFoundError:
        raise MissingDependencyError(
            "RULER's generators draw words from the 'wonderwords' word lists, as RULER does, "
            "a dependency of longbench-suite that is missing here: pip install wonderwords"
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
        # per group: "adjective-" (its words are that and each noun) or None (a merged, sorted group)
        self._prefixes = [g[0] + "-" if len(g) == 1 else None for g in self._groups]

    def __len__(self) -> int:
        return self._starts[-1]

    def __getitem__(self, index: int) -> str:
        if not 0 <= index < self._starts[-1]:
            raise IndexError(index)
        return self.picker()(index)

    def picker(self) -> Callable[[int], str]:
        """``self[index]`` for an index known to be in range, as one plain function call (a needle
        haystack looks up thousands of words per sample)."""
        starts, prefixes, nouns, groups = self._starts, self._prefixes, self._nouns, self._groups
        find, merged = bisect.bisect_right, self._merged

        def pick(index: int) -> str:
            k = find(starts, index) - 1
            prefix = prefixes[k]
            if prefix is None:
                return merged(groups[k])[index - starts[k]]
            return prefix + nouns[index - starts[k]]

        return pick

    @functools.lru_cache(maxsize=64)  # noqa: B019 (one KeyWords per process)
    def _merged(self, group: tuple[str, ...]) -> list[str]:
        return sorted({f"{a}-{n}" for a in group for n in self._nouns})


@functools.cache
def key_words() -> KeyWords:
    """RULER's key-word list (``wonderwords`` adjective and noun lists)."""
    return KeyWords(_word_list("adjectivelist.txt"), _word_list("nounlist.txt"))


@functools.cache
def common_words() -> tuple[str, ...]:
    """RULER's common-words extraction pool: the ``wonderwords`` noun, adjective and verb lists,
    de-duplicated and sorted (before the per-seed shuffle)."""
    lists = ("nounlist.txt", "adjectivelist.txt", "verblist.txt")
    return tuple(sorted({word for name in lists for word in _word_list(name)}))
