"""Step 4 of the flow: an instance is one example before rendering.

A task turns each planned item into an :class:`Instance`: the template's fields (``context`` being
the one part a fit may cut), the gold side (``output``, ``answers``), its ``query_id`` and the
benchmark's own columns. The core renders and fits it (:mod:`.fit`) and makes the row (:mod:`.row`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Plan:
    """What rows a split has, before any is built.

    ``items`` are the split's rows in order, as whatever a task needs to build one (a line number, a
    parsed example); they must be cheap to hold, since the core cuts them into shards and asks for
    one piece at a time. ``shared`` is state every row of the split uses (a demonstration pool). A
    task that cannot plan without reading everything its rows hold leaves ``items`` as ``None``: its
    split is then one shard, built in a single pass. ``dropped`` holds the leakage keys of the
    candidates the task's :class:`~longbench_suite.partition.leakage.LeakageRule` removed from the
    split (``longbench-suite check`` verifies each drop and the split's size with them).
    """

    items: Sequence[Any] | None
    shared: Any = None
    dropped: Sequence[Mapping[str, str]] = ()


@dataclass(frozen=True)
class Instance:
    """One example before rendering."""

    query_id: str
    #: the template's fields; ``fields["context"]`` is what a fit may cut
    fields: Mapping[str, Any]
    output: str
    answers: Sequence[str]
    #: the benchmark's own columns (``question``, ``depth``, ``metadata``, ...)
    columns: Mapping[str, Any] = field(default_factory=dict)
