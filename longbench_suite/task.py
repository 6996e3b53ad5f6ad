"""The declarative model every benchmark is written in: a :class:`Benchmark` is a list of
:class:`Task` s; a config is one task at one length.

A task says which source files a config reads (:meth:`Task.sources`), which splits it has, and how
to turn the files into rows (:meth:`Task.generate`). Everything shared — downloads, mirrors, the
tokenizer, caching, features, split plumbing — lives in :mod:`longbench_suite.builder`, so a task is
only the part that genuinely differs between upstream benchmarks.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import datasets

from .sources import FileRef, Source
from .tokenizers import TokenCounter

SPLITS = ("dev", "eval")


@dataclass(frozen=True)
class BuildEnv:
    """What a task needs at generation time besides its files."""

    config_name: str
    length: str
    tokenizer: TokenCounter
    max_input_tokens: int | None = None
    #: the tokenizer a task pre-cuts documents with, independently of ``tokenizer`` (HELMET: Llama-2)
    pretruncation_tokenizer: TokenCounter | None = None
    #: a directory for caches derived from the sources (e.g. cut offsets); ``None``: keep nothing
    cache_root: str | None = None

    def budget(self, default: int | None) -> int | None:
        """The input-token budget: ``max_input_tokens`` when given, else the task's own."""
        return self.max_input_tokens if self.max_input_tokens is not None else default


class Task(ABC):
    """One upstream task. Subclasses are families (RAG, ICL, ...); instances are declarations."""

    name: str
    lengths: tuple[str, ...]
    description: str = ""
    default_tokenizer: str = ""
    #: the tokenizer that cuts documents before rendering, whatever the config's tokenizer (HELMET's
    #: Llama-2 pre-truncation); ``""``: the task has no such step
    default_pretruncation_tokenizer: str = ""
    #: a task's own row schema, for benchmarks whose tasks cannot share one (Ada-LEval's TSort and
    #: BestAnswer type ``answer`` differently); ``None`` uses the benchmark's
    features: datasets.Features | None = None
    #: why a split that upstream cannot supply is missing; ``None`` means both splits exist
    missing_split_reasons: ClassVar[Mapping[str, str]] = {}

    def config_name(self, length: str) -> str:
        return f"{self.name}_{length}"

    def __deepcopy__(self, memo) -> Task:
        # Declarations are immutable; datasets deep-copies configs that carry user options.
        return self

    @abstractmethod
    def max_length(self, length: str) -> int | None:
        """The config's token budget (the ``max_length`` column); ``None`` where there is none."""

    @abstractmethod
    def sources(self, length: str) -> dict[str, Source]:
        """The source files a config reads, by a name the task chooses."""

    @abstractmethod
    def generate(
        self, split: str, length: str, files: Mapping[str, FileRef], env: BuildEnv
    ) -> Iterator[dict]:
        """The rows of one split, in order."""

    def splits(self, length: str, files: Mapping[str, FileRef] | None = None) -> tuple[str, ...]:
        """Splits this config has; ``files`` lets a task decide from the data when it must."""
        return tuple(s for s in SPLITS if s not in self.missing_split_reasons)

    def missing_split_reason(self, split: str, length: str, info: datasets.DatasetInfo | None = None) -> str:
        """Why ``split`` is missing; ``info`` (of a prepared build) lets a task say what the data held."""
        return self.missing_split_reasons.get(split, f"{self.config_name(length)} has no {split!r} split")

    def expected_sizes(self, length: str) -> Mapping[str, int]:
        """Split sizes the specs fix (checked by ``longbench-suite check``); empty where not fixed."""
        return {}

    def info(self, length: str) -> dict[str, Any]:
        """Facts shown by ``longbench-suite info``."""
        return {}


@dataclass
class Benchmark:
    """A benchmark: its tasks, its one row schema, and what its dataset card says."""

    name: str
    tasks: tuple[Task, ...]
    features: datasets.Features
    description: str
    homepage: str
    citation: str
    license: str = ""
    _by_config: dict[str, tuple[Task, str]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for task in self.tasks:
            for length in task.lengths:
                name = task.config_name(length)
                if name in self._by_config:
                    raise ValueError(f"{self.name}: config {name} is declared twice")
                self._by_config[name] = (task, length)
        for schema in [self.features, *(t.features for t in self.tasks if t.features is not None)]:
            missing = set(COMMON_FEATURES) - set(schema)
            if missing:
                raise ValueError(f"{self.name}: a row schema lacks the common columns {sorted(missing)}")

    def features_of(self, task: Task) -> datasets.Features:
        return task.features if task.features is not None else self.features

    @property
    def config_names(self) -> list[str]:
        return list(self._by_config)

    def lookup(self, config_name: str) -> tuple[Task, str]:
        return self._by_config[config_name]


#: Columns every config of every benchmark has (``DESIGN.md`` "Rows").
COMMON_FEATURES = {
    "input": datasets.Value("large_string"),
    "output": datasets.Value("large_string"),
    "answers": datasets.List(datasets.Value("large_string")),
    "query_id": datasets.Value("string"),
    "max_length": datasets.Value("int32"),
    "use_chat_template": datasets.Value("bool"),
    "answer_prefix": datasets.Value("string"),
}


def features(**benchmark_specific: datasets.features.FeatureType) -> datasets.Features:
    """The common columns followed by a benchmark's own."""
    return datasets.Features({**COMMON_FEATURES, **benchmark_specific})
