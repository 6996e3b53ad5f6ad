"""What HELMET's long-document tasks share: the two-stage truncation and the instance-to-row flow.

Long-document QA (NarrativeQA, InfiniteBench QA/MC) and summarization (InfiniteBench Sum, Multi-LexSum)
cut each document twice (``docs/helmet.md`` §1.4):

1. **Pre-truncation**, model-independent: with the Llama-2 tokenizer (the config's
   ``pretruncation_tokenizer``), a document longer than ``T = L - offset`` tokens keeps its characters up
   to the end of token ``T - s`` and gets the marker ``" ... [the rest of the text is omitted]"``
   (``s`` = the marker's token count, BOS included). Documents below the task's minimum length are
   dropped first, counted with the same tokenizer.
2. **The fit** of the whole prompt to ``L - max_new_tokens`` tokens of the config's tokenizer, cutting
   only the context, from its end (the task's :class:`~longbench_suite.fit.rules.CutContextTail`).

One tokenization per document serves every length and the length filter: :class:`Pretruncation` finds
the end offsets of token ``T - s`` at all five ``T`` at once, and keeps them on disk (a
:class:`~longbench_suite.memo.Memo`), so the five configs of a task tokenize each document once.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from longbench_suite.errors import DataFormatError, SuiteError
from longbench_suite.fit.truncation import HeadCuts, head_cuts
from longbench_suite.instance import Instance, Plan
from longbench_suite.memo import Codec, Memo
from longbench_suite.partition import sampling
from longbench_suite.partition.leakage import LeakageRule
from longbench_suite.records import iter_jsonl, require
from longbench_suite.source import FileRef
from longbench_suite.task import BuildEnv

from .common import DEFAULT_TOKENIZER, HelmetTask
from .lengths import LENGTHS

MARKER = " ... [the rest of the text is omitted]"

#: a question is about its own document: the same words asked about another book ask something else
PAIR_ONLY = LeakageRule(("query_id",), reason="the same question about another document asks something else")

T = TypeVar("T")

#: parses of a task's source files, shared by the lengths and splits one process builds (only the last
#: parse per task is kept: a long-document source holds whole books)
_READS: dict[str, Memo] = {}


def read_once(what: str, refs: Sequence[FileRef], depends: Hashable, read: Callable[[], T]) -> T:
    """``read()``, or the result of the previous call for ``what`` when it read the same files with the
    same ``depends``: the five lengths of a task built in one process (and a config's two splits) parse
    their sources once. The result is shared, so callers must not change it."""
    memo = _READS.setdefault(what, Memo(f"read:{what}", entries=1))
    return memo.get(depends, list(refs), read)


@dataclass(frozen=True)
class Document:
    """One document-grounded example before pre-truncation: the whole document and the template fields."""

    query_id: str
    document: str
    fields: Mapping[str, str]  # every template field except ``context``
    answers: list[str]
    output: str
    question: str
    metadata: Mapping[str, object] = field(default_factory=dict)
    #: the task's id of ``document`` (rows sharing a document share it); see :meth:`Pretruncation.cuts`
    document_key: Hashable | None = None


@dataclass(frozen=True, eq=False, kw_only=True)
class LongDocTask(HelmetTask):
    """A HELMET task over long documents, pre-truncated to ``T = L - truncation_offset`` Llama-2 tokens."""

    helmet_prefix: str = ""  # HELMET's dataset name is f"{helmet_prefix}_{T}"
    category: str = "LongQA"
    truncation_offset: int = 0
    min_tokens: int = 65536  # documents with fewer pre-truncation tokens are dropped
    eval_size: int = 100
    default_pretruncation_tokenizer: str = DEFAULT_TOKENIZER
    leakage: LeakageRule = PAIR_ONLY

    def pretruncation_budget(self, length: str) -> int:
        return LENGTHS[length].tokens - self.truncation_offset

    def dataset_name(self, length: str) -> str:
        return f"{self.helmet_prefix}_{self.pretruncation_budget(length)}"

    def facts(self, length: str) -> dict:
        return {
            **super().facts(length),
            "pre-truncation": f"{self.pretruncation_budget(length)} tokens of the pre-truncation tokenizer",
            "minimum document": f"{self.min_tokens} tokens",
        }

    @abstractmethod
    def documents(
        self, split: str, files: Mapping[str, FileRef], pretruncation: Pretruncation
    ) -> tuple[Iterator[Document], Sequence[Mapping[str, str]]]:
        """The documents of ``split`` in order (``pretruncation.is_long`` is the length filter), and the
        leakage keys of the candidates the task's :attr:`leakage` rule dropped from it."""

    def plan(self, split: str, length: str, files: Mapping[str, FileRef], env: BuildEnv) -> Plan:
        """The split's documents, sharing the pre-truncation that filtered them (holding their cuts).

        Documents share their text with the parsed sources, so listing them costs little more than
        the length filter every build of the split pays before its first row anyway.
        """
        pretruncation = Pretruncation(self, env)
        documents, dropped = self.documents(split, files, pretruncation)
        return Plan(list(documents), pretruncation, dropped)

    def instances(self, split, length, files, plan, items, env) -> Iterator[Instance]:
        pretruncation = plan.shared
        for document in items:
            yield Instance(
                query_id=document.query_id,
                fields={
                    **document.fields,
                    "context": pretruncation.cut(document.document, length, document.document_key),
                },
                output=document.output,
                answers=document.answers,
                columns=self.columns(length, question=document.question, metadata=document.metadata),
            )


#: head-cut offsets of documents, kept on disk: the five configs of a task, often built in five
#: processes, tokenize each document once
_CUTS: Memo[HeadCuts] = Memo("head-cuts", entries=4096, codec=Codec(HeadCuts.to_json, HeadCuts.from_json))


class Pretruncation:
    """HELMET's pre-truncation of one task's documents at all its lengths, one tokenization each."""

    def __init__(self, task: LongDocTask, env: BuildEnv) -> None:
        if env.pretruncation_tokenizer is None:
            raise SuiteError(f"{env.config_name}: the build has no pre-truncation tokenizer")
        self.counter = env.pretruncation_tokenizer
        self.marker_tokens = self.counter.count(MARKER)
        self.budgets = {length: task.pretruncation_budget(length) for length in task.lengths}
        self.min_tokens = task.min_tokens
        self._indices = [budget - self.marker_tokens for budget in self.budgets.values()]
        self._count_above = max(self.min_tokens - 1, *self.budgets.values())
        self._cache_root = env.cache_root
        self._by_key: dict[Hashable, HeadCuts] = {}

    def cuts(self, document: str, key: Hashable | None = None) -> HeadCuts:
        """The document's cut offsets; ``key`` (a task's id of the document) skips hashing the whole
        text again when many rows share one document."""
        if key is not None and key in self._by_key:
            return self._by_key[key]
        indices = sorted(set(self._indices))
        cuts = _CUTS.get(
            (self.counter.identity, tuple(indices), self._count_above),
            [document],
            lambda: head_cuts(document, self.counter, indices, self._count_above),
            cache_root=self._cache_root,
        )
        if key is not None:
            self._by_key[key] = cuts
        return cuts

    def is_long(self, document: str, key: Hashable | None = None) -> bool:
        """Whether ``document`` has at least ``min_tokens`` tokens (BOS included)."""
        return self.cuts(document, key).exceeds(self.min_tokens - 1)

    def cut(self, document: str, length: str, key: Hashable | None = None) -> str:
        return self.cuts(document, key).cut_with_marker(
            document, self.budgets[length], self.marker_tokens, MARKER
        )


def demo_block(items: list[str], opening: str, closing: str) -> str:
    """HELMET's demonstration block: ``opening + "\\n\\n".join(items) + closing``."""
    return opening + "\n\n".join(items) + closing


def example_seeded_picks(pool_size: int, example_id: str, shots: int) -> list[int]:
    """``train.shuffle(seed=(sha256(id) + 42) % 2**31).select(range(shots))``: HELMET's PR #44 demos.

    HELMET ≤ Apr 2025 shuffled without a seed (``docs/helmet.md`` §1.5); PR #44 reuses the ICL seed formula
    with the example's id.
    """
    if pool_size < shots:
        raise DataFormatError(f"the demonstration pool has {pool_size} rows; {shots} are needed")
    return sampling.hf_shuffle_order(pool_size, sampling.helmet_icl_seed(example_id))[:shots]


def read_keypoints(ref: FileRef, field: str) -> dict[str, list[str]]:
    """The judge's key points in HELMET's archive, by ``str(id)``."""
    points = {}
    for line, record in iter_jsonl(ref):
        require(record, ["id", field], f"{ref.label}, line {line}")
        points[str(record["id"])] = record[field]
    return points
