"""JSON KV rows: find the value of a UUID key in a JSON object of UUID pairs (``docs/generate.md`` §4).

HELMET's JSON KV files follow "lost in the middle"'s key-value retrieval: random version-4 UUID keys
and values, the gold pair at one of six relative depths, and a few extra pairs as demonstrations.
Here a row's pairs are drawn one by one from the row's generator, so a longer object has the same
first pairs; the object holds as many as fit the budget, found by binary search on exact counts.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import DataFormatError
from .count import PromptCounter
from .niah import NOTHING, Excluded, uuid4_text

#: the gold pair's relative position, by row (HELMET's ``dep6`` files)
DEPTHS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
DEMOS = 2


def random_uuid(rng: random.Random, excluded: Excluded) -> str:
    while (value := uuid4_text(rng.getrandbits(128))) in excluded.strings:
        pass
    return value


def object_lines(pairs: list[tuple[str, str]]) -> tuple[str, ...]:
    """The JSON object, one pair a line: ``{"k": "v",`` ... `` "k": "v"}``."""
    last = len(pairs) - 1
    return tuple(
        ("{" if i == 0 else " ") + f'"{k}": "{v}"' + ("," if i < last else "}")
        for i, (k, v) in enumerate(pairs)
    )


@dataclass(frozen=True)
class KvRow:
    pairs: tuple[tuple[str, str], ...]
    gold: int  # the index of the asked pair
    demos: tuple[tuple[str, str], ...]
    depth: float
    tokens: int
    prompt: str
    suffix: str

    @property
    def key(self) -> str:
        return self.pairs[self.gold][0]

    @property
    def value(self) -> str:
        return self.pairs[self.gold][1]


def gold_index(depth: float, n: int) -> int:
    return min(int(depth * n), n - 1)


def kv_row(
    rng: random.Random,
    depth: float,
    render: Callable[[tuple[str, ...], str, tuple], tuple[str, str, str]],
    counter: PromptCounter,
    limit: int,
    excluded: Excluded = NOTHING,
    where: str = "",
) -> KvRow:
    """The row with the most pairs whose prompt fits ``limit`` tokens.

    ``render(lines, key, demos)`` gives the prompt as ``(head, tail, suffix)`` around the object.
    """
    demos = tuple((random_uuid(rng, excluded), random_uuid(rng, excluded)) for _ in range(DEMOS))
    pairs: list[tuple[str, str]] = []

    def tokens(n: int) -> int:
        while len(pairs) < n:
            pairs.append((random_uuid(rng, excluded), random_uuid(rng, excluded)))
        lines = object_lines(pairs[:n])
        head, tail, _ = render(lines, pairs[gold_index(depth, n)][0], demos)
        return counter.count(head, lines, tail)

    probe = 32
    base = tokens(1)
    per_pair = max((tokens(probe) - base) / (probe - 1), 1.0)
    low, high, best = 1, max(2, int((limit - base) / per_pair * 1.25) + probe), None
    while low <= high:
        mid = (low + high) // 2
        if tokens(mid) <= limit:
            best, low = mid, mid + 1
        else:
            high = mid - 1
    if best is None or best < 2:
        raise DataFormatError(
            f"{where}: not even two key-value pairs fit {limit} tokens (choose a longer length)"
        )
    n = best
    lines = object_lines(pairs[:n])
    gold = gold_index(depth, n)
    head, tail, suffix = render(lines, pairs[gold][0], demos)
    return KvRow(tuple(pairs[:n]), gold, demos, depth, tokens(n), head + "\n".join(lines) + tail, suffix)
