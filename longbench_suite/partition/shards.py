"""How a split's row plan is cut into the contiguous pieces ``datasets`` streams as shards.

The core plans a split once per process, cuts the plan into :class:`Shards`, and asks the task for
the instances of one piece only; tasks never see the cut.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..source import FileRef

#: shards of a streamed split whose files are all local (a multiple of the usual worker and node counts)
STREAM_SHARDS = 16

T = TypeVar("T")


@dataclass(frozen=True)
class Shards:
    """Which of a split's ``count`` contiguous pieces one generation call yields.

    Piece ``i`` of a plan of ``n`` rows is ``plan[start:stop]`` with the sizes differing by at most
    one, the first pieces the larger (the split ``datasets`` itself uses for contiguous shards), so
    the pieces in order are the plan in order.
    """

    count: int = 1
    indices: tuple[int, ...] = (0,)

    def __post_init__(self) -> None:
        if self.count < 1 or any(not 0 <= i < self.count for i in self.indices):
            raise ValueError(f"bad shard selection {self.indices} of {self.count}")

    @property
    def everything(self) -> bool:
        return set(self.indices) == set(range(self.count))

    def bounds(self, size: int, index: int) -> tuple[int, int]:
        div, mod = divmod(size, self.count)
        start = div * index + min(index, mod)
        return start, start + div + (index < mod)

    def select(self, plan: Sequence[T]) -> Sequence[T]:
        """The items of ``plan`` in the selected pieces, in plan order: one slice of it when the pieces
        are adjacent (so a ``range`` plan, however long, stays a ``range``)."""
        indices = sorted(set(self.indices))
        if indices == list(range(indices[0], indices[-1] + 1)):
            start, stop = self.bounds(len(plan), indices[0])[0], self.bounds(len(plan), indices[-1])[1]
            return plan[start:stop]
        picked: list[T] = []
        for index in indices:
            start, stop = self.bounds(len(plan), index)
            picked.extend(plan[start:stop])
        return picked


def stream_shards(files: Mapping[str, FileRef]) -> int:
    """:data:`STREAM_SHARDS` when every file is local, else 1: each shard re-reads its files, cheap from
    a local copy, a fresh download when streaming them remotely."""
    return 1 if any(f.is_remote for f in files.values()) else STREAM_SHARDS
