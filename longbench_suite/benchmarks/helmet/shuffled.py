"""Tasks whose ``eval`` is the head of HELMET's ``shuffle(seed=42)`` order: ALCE, JSON KV, RULER."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from longbench_suite.instance import Instance, Plan
from longbench_suite.partition import sampling
from longbench_suite.source import FileRef
from longbench_suite.task import BuildEnv

from .common import HelmetTask


@dataclass(frozen=True)
class RowKey:
    """What the partition needs to know of one source row."""

    query_id: str
    question: str


@dataclass(frozen=True, eq=False, kw_only=True)
class ShuffledTask(HelmetTask):
    """A task whose ``eval`` is the head of HELMET's ``shuffle(seed=42)`` order (``docs/helmet-derived.md``).

    ``eval`` is the first ``eval_size`` rows of that order, in that order. ``dev`` is every other row,
    in file order, except rows that share a query id or a question with ``eval``. The file is read
    twice: once for the plan, once to build the split's instances (up to its last one). The rows ``dev``
    leaves out are those the task's :attr:`leakage` rule drops. Subclasses
    say how to read and identify rows (:meth:`records`, :meth:`key`) and how to build one
    (:meth:`build`).
    """

    eval_size: int = 100

    def records(self, files: Mapping[str, FileRef]) -> Iterator[tuple[str, dict]]:
        """``(where, record)`` for every source row, in file order."""
        raise NotImplementedError

    def key(self, record: dict, where: str) -> RowKey:
        raise NotImplementedError

    def prepare(self, files: Mapping[str, FileRef], n_rows: int) -> object:
        """State shared by every row of a build (e.g. demonstrations drawn row by row)."""
        return None

    def build(self, record: dict, where: str, index: int, length: str, state: object) -> Instance:
        raise NotImplementedError

    def partition(self, keys: Sequence[RowKey]) -> tuple[list[int], list[int], list[dict[str, str]]]:
        """``(eval row indices in HELMET's order, dev row indices in file order, the dropped dev
        candidates' leakage keys)``."""
        order = sampling.hf_shuffle_order(len(keys), sampling.HELMET_SEED)[: self.eval_size]
        in_eval = set(order)
        candidates = [i for i in range(len(keys)) if i not in in_eval]
        dev, dropped = self.leakage.split(
            [self.leakage_row(keys[i].query_id, keys[i].question) for i in order],
            candidates,
            lambda i: self.leakage_row(keys[i].query_id, keys[i].question),
        )
        return order, dev, dropped

    def plan(self, split: str, length: str, files: Mapping[str, FileRef], env: BuildEnv) -> Plan:
        """The split's source row indices in row order, sharing the state every row uses."""
        keys = [self.key(record, where) for where, record in self.records(files)]
        eval_order, dev, dropped = self.partition(keys)
        shared = self.prepare(files, len(keys))
        return Plan(dev, shared, dropped) if split == "dev" else Plan(eval_order, shared)

    def instances(self, split, length, files, plan, items, env) -> Iterator[Instance]:
        wanted = set(items)
        # Rows are built in file order and yielded in plan order: dev (file order) holds none back.
        held: dict[int, Instance] = {}
        position = 0
        for index, (where, record) in enumerate(self.records(files)):
            if position == len(items):
                break
            if index in wanted:
                held[index] = self.build(record, where, index, length, plan.shared)
            while position < len(items) and items[position] in held:
                yield held.pop(items[position])
                position += 1
