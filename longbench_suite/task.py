"""The declarative model every benchmark is written in: a :class:`Benchmark` is a list of
:class:`Task` s; a config is one task at one length.

A task is a declaration — its prompt, fit rule, metric, category, chat mode, generation length, the
sources a config reads — plus the two things that genuinely differ between upstream benchmarks: which
rows a split has (:meth:`Task.plan`) and how one planned item becomes an
:class:`~longbench_suite.instance.Instance` (:meth:`Task.instances`). The core
(:mod:`longbench_suite.builder`) does the rest: sources, sharding, rendering, fitting and the row.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar

import datasets

from .decoding import GREEDY, Generation
from .errors import OptionError
from .fit.chat import ChatTemplate
from .fit.rules import Fit, InputBudget
from .fit.tokenizers import TokenCounter
from .instance import Instance, Plan
from .partition.leakage import DEFAULT_RULE, EvalReference, LeakageRule
from .render import PromptTemplate
from .row import COMMON_FEATURES
from .source import FileRef, Source

SPLITS = ("dev", "eval")


@dataclass(frozen=True)
class BuildEnv:
    """What a task needs at generation time besides its files."""

    config_name: str
    length: str
    tokenizer: TokenCounter | None  # None only when the build needs no tokenizer
    max_input_tokens: int | None = None
    #: the tokenizer a task pre-cuts documents with, independently of ``tokenizer`` (HELMET: Llama-2)
    pretruncation_tokenizer: TokenCounter | None = None
    #: a directory for results derived from the sources (see :mod:`longbench_suite.memo`); ``None``: none
    cache_root: str | None = None
    #: the user's generator options (seed, rows, ...) for tasks that generate their rows
    generate: Mapping[str, Any] | None = None
    #: the chat template chat-mode user turns are fitted under (``chat_template=``); ``None``: none
    chat_template: ChatTemplate | None = None
    #: where the sources come from: the mirror, ``data_dir`` and the size and mtime of the local files
    #: a config reads (a result derived from the sources and kept across builds is keyed by it)
    source_identity: str = "-"


@dataclass(frozen=True, kw_only=True, eq=False)
class Task(ABC):
    """One upstream task. Subclasses are families (RAG, ICL, ...); instances are declarations.

    Every declaration field is declared here, once. A benchmark's base class adds only its own fields
    and may redeclare one of these to give it the benchmark's default (HELMET's ``fit``, LV-Eval's
    ``use_chat_template``). A field without a default must be given where the task is declared: a
    task that leaves one out (or sets it to ``None``) cannot be created, so its module fails to import.
    """

    name: str
    #: the lengths the task has configs at; ``()`` for a generator, which accepts any (:meth:`accepts_length`)
    lengths: tuple[str, ...]
    description: str = ""
    #: the prompt
    template: PromptTemplate
    #: how the prompt meets its token budget (:mod:`longbench_suite.fit.rules`)
    fit: Fit
    #: the name of the task's scoring in its benchmark's ``metrics`` module
    metric: str
    #: the group the benchmark reports the task in (one of its :attr:`Benchmark.categories`)
    category: str
    #: the scorer keeps only a prediction's first line (LongBench's few-shot tasks)
    first_line: bool = False
    #: upstream's chat (``True``) or completion (``False``) mode
    use_chat_template: bool
    #: upstream's generation length
    max_new_tokens: int
    #: upstream's stop strings and decoding (default greedy, no stop strings)
    generation: Generation = GREEDY
    #: the tokenizer a config is fitted with unless the user names one
    default_tokenizer: str = ""
    #: the tokenizer that cuts documents before rendering, whatever the config's tokenizer (HELMET's
    #: Llama-2 pre-truncation); ``""``: the task has no such step
    default_pretruncation_tokenizer: str = ""
    #: what a ``dev`` row may never share with an ``eval`` row: the one rule the builder follows and
    #: ``longbench-suite check`` verifies
    leakage: LeakageRule = DEFAULT_RULE
    #: the benchmark this task belongs to (set when the benchmark is declared)
    benchmark_name: str = field(default="", init=False, repr=False)

    #: a task's own row schema, for benchmarks whose tasks cannot share one (Ada-LEval's TSort and
    #: BestAnswer type ``answer`` differently); ``None`` uses the benchmark's
    features: ClassVar[datasets.Features | None] = None
    #: why a split that upstream cannot supply is missing; ``None`` means both splits exist
    missing_split_reasons: ClassVar[Mapping[str, str]] = {}
    #: columns that may never be empty (``""``, whitespace only, or ``[]``) in any row
    nonempty_columns: ClassVar[tuple[str, ...]] = ("input", "output", "answers")
    #: columns :meth:`leakage_keys` reads besides :attr:`leakage`'s (those the row schema has)
    leakage_columns: ClassVar[tuple[str, ...]] = ("query_id", "question")
    #: the column a stable hold-out of ``dev`` splits on: rows sharing it go to the same side
    holdout_key: ClassVar[str] = "query_id"
    #: whether a split can be cut into stream shards (its plan lists its rows before reading them)
    shardable: ClassVar[bool] = True
    #: whether each split is made without the other (no shared partition of the same records): a
    #: prepared load of one split then builds that split alone (``docs/architecture.md`` §1)
    splits_apart: ClassVar[bool] = False
    #: columns that hold the ``input``'s token count when the config's tokenizer has the given identity
    #: (``None`` under any other tokenizer)
    token_count_columns: ClassVar[Mapping[str, str]] = {}

    def __post_init__(self) -> None:
        unset = [name for name in DECLARED if getattr(self, name) is None]
        if unset:
            raise TypeError(f"{type(self).__name__} {self.name!r} declares {', '.join(unset)} as None")

    def config_name(self, length: str) -> str:
        return f"{self.name}_{length}"

    def accepts_length(self, length: str) -> bool:
        """Whether ``length`` names a config besides the declared :attr:`lengths` (a generator task
        builds any length: ``6k``, ``48k``, ``1m``)."""
        return False

    def length_refusal(self, length: str) -> str | None:
        """Why ``length`` is not a length of this task, where a shorter or longer one would be (a task
        taking any token count above a minimum says which); ``None``: no better reason than unknown."""
        return None

    def check_generate(self, options: Mapping[str, Any] | None, length: str | None = None) -> None:
        """Refuse generator options (the ``generate`` argument) a task does not take, or a config
        ``length`` it generates but will not (a generator's limits), before any work."""
        if options:
            raise OptionError(f"{self.name} reads its rows from upstream files; it takes no generate options")

    def __deepcopy__(self, memo) -> Task:
        # Declarations are immutable; datasets deep-copies configs that carry user options.
        return self

    # -- lengths and budgets ------------------------------------------------------------------------

    @abstractmethod
    def max_length(self, length: str) -> int | None:
        """The config's length in tokens: what its name stands for (``nq_32k``: 32768; Ada-LEval's
        ``tsort_8k``: 8000), the ``max_length`` column. ``None`` where the name is not a token count
        (LV-Eval's levels count words; LongBench's ``full``). What ``input`` was fitted to is the
        ``input_budget`` column (:meth:`budget_rule`)."""

    def window(self, length: str) -> int:
        """The config's context window in tokens (what :class:`~longbench_suite.fit.rules.CutContextTail`
        fits prompt and generation into)."""
        raise NotImplementedError(f"{self.name} declares no context window")

    def budget_rule(self, length: str, max_input_tokens: int | None) -> InputBudget | None:
        """The token budget every ``input`` of the config fits (``None`` where nothing is cut), from the
        task's :attr:`fit` (``longbench-suite check`` verifies every row against it)."""
        return self.fit.budget(self, length, max_input_tokens)

    def uses_tokenizer(self, max_input_tokens: int | None, length: str) -> bool:
        """Whether building ``length`` needs the tokenizer: to fit, or to fill a token-count column. A
        task that cuts nothing there (LongBench's untruncated ``full``) loads (or fetches) none."""
        return bool(self.token_count_columns) or self.fit.needs_tokenizer(self, length, max_input_tokens)

    # -- sources and splits -------------------------------------------------------------------------

    @abstractmethod
    def sources(self, length: str) -> dict[str, Source]:
        """The source files a config reads, by a name the task chooses."""

    def sources_to_read(self, length: str, env: BuildEnv) -> dict[str, Source]:
        """The :meth:`sources` this build reads: all of them, unless its options (``env.generate``) or a
        result already cached make some unnecessary (a generator's screen against ``eval``)."""
        return self.sources(length)

    #: what :meth:`dev_sources` are read for, in a few words (shown when they cannot be had)
    dev_sources_purpose = "to keep dev apart from eval"

    def dev_sources(self, length: str) -> dict[str, Source]:
        """Sources only a ``dev`` split needs, fetched only when :meth:`splits` offers ``dev``.

        A task whose ``dev`` must avoid what the other lengths evaluate (Ada-LEval: a question or book in
        another setting's ``eval``) names those files here; :meth:`splits` is then asked again with them
        among its files, and may withdraw ``dev``. Where they cannot be had (not in the mirror or
        ``data_dir``, offline), the build has no ``dev``; ``eval`` never reads them.
        """
        return {}

    def split_sources(self, length: str) -> Mapping[str, Mapping[str, Source]]:
        """Sources only one split reads, by split: ``{"eval": {"keypoints": Member(...)}}``.

        Streaming a split never fetches (nor scans an archive for) another split's own sources; a
        prepared build, which writes every split, resolves them all up front.
        """
        return {}

    def all_sources(self, length: str, env: BuildEnv | None = None) -> dict[str, Source]:
        """Every source any split of ``length`` may read (:meth:`sources` and :meth:`split_sources`);
        given a build's ``env``, only those that build reads (:meth:`sources_to_read`)."""
        found = dict(self.sources(length) if env is None else self.sources_to_read(length, env))
        for own in self.split_sources(length).values():
            found.update(own)
        return found

    def splits(self, length: str, files: Mapping[str, FileRef] | None = None) -> tuple[str, ...]:
        """Splits this config has; ``files`` lets a task decide from the data when it must."""
        return tuple(s for s in SPLITS if s not in self.missing_split_reasons)

    def missing_split_reason(self, split: str, length: str, info: datasets.DatasetInfo | None = None) -> str:
        """Why ``split`` is missing; ``info`` (of a prepared build) lets a task say what the data held."""
        return self.missing_split_reasons.get(split, f"{self.config_name(length)} has no {split!r} split")

    def source_facts(self, length: str, files: Mapping[str, FileRef]) -> Mapping[str, Mapping[str, Any]]:
        """Facts about the source files, by source name (e.g. ``{"data": {"num_rows": 1000}}``).

        The builder records them in the dataset info next to the files' checksums
        (``info.download_checksums[url]``), for hosts that publish neither checksums nor sizes.
        """
        return {}

    def expected_sizes(self, length: str) -> Mapping[str, int]:
        """Split sizes the specs fix (checked by ``longbench-suite check``); empty where not fixed.

        A ``dev`` size counts the candidates before the :attr:`leakage` rule: ``check`` expects it minus
        the drops the build reports (:attr:`~longbench_suite.instance.Plan.dropped`)."""
        return {}

    # -- rows ---------------------------------------------------------------------------------------

    @abstractmethod
    def plan(self, split: str, length: str, files: Mapping[str, FileRef], env: BuildEnv) -> Plan:
        """What rows ``split`` has, in order (see :class:`~longbench_suite.instance.Plan`).

        The core computes it once per process and split, and shares it between the shards it yields.
        """

    @abstractmethod
    def instances(
        self,
        split: str,
        length: str,
        files: Mapping[str, FileRef],
        plan: Plan,
        items: Sequence[Any] | None,
        env: BuildEnv,
    ) -> Iterator[Instance]:
        """One instance per item of ``items`` (a piece of ``plan.items``), in their order; ``items`` is
        ``None`` for a plan without items, and then every row of the split is built."""

    # -- checks and reports -------------------------------------------------------------------------

    def leakage_keys(self, row: Mapping[str, Any]) -> dict[str, str]:
        """What a ``dev`` row and an ``eval`` row of this task may never share, at any lengths, by kind.

        ``row`` holds the :attr:`leakage_columns` the schema has. The default: the keys of the task's
        :attr:`leakage` rule (the ``query_id`` and the normalised question unless it declares others).
        A task whose rows are tied by something else (a book, a document) adds it.
        """
        return self.leakage.keys(row)

    def leakage_references(
        self, reference: Task, length: str, generate: Mapping[str, Any] | None, chat: bool
    ) -> tuple[EvalReference, ...]:
        """The ``eval`` configs of ``reference`` (the task :attr:`leakage` names) this task's ``dev`` rows
        at ``length`` may share no key with, for a build with ``generate`` options and (``chat``) a chat
        template. The default: every length ``reference`` has, with neither (HELMET's ``gen_*`` tasks)."""
        return tuple(EvalReference(n) for n in reference.lengths)

    def info(self, length: str) -> dict[str, Any]:
        """Facts shown by ``longbench-suite info``: the declaration, then the task's own."""
        budget = self.budget_rule(length, None)
        return {
            "category": self.category,
            "metric": self.metric,
            "max new tokens": self.max_new_tokens,
            "generation": self.generation.describe(),
            "mode": "chat (user turn)" if self.use_chat_template else "completion",
            "input budget": f"{budget.tokens} tokens ({budget.rule})" if budget else "not cut",
            **self.facts(length),
        }

    def facts(self, length: str) -> dict[str, Any]:
        """A task's own facts for ``info`` (upstream names, per-length parameters)."""
        return {}

    def card_columns(self) -> dict[str, str]:
        """A task's own columns in its benchmark card's task table (the same at every length)."""
        return {}

    def unbounded(self, options: Mapping[str, Any] | None) -> bool:
        """Whether ``options`` (``generate=``) ask for rows without end, which only streaming can give."""
        return False

    def generated_facts(
        self,
        length: str,
        options: Mapping[str, Any] | None,
        *,
        chat_template: str | None = None,
        sources_read: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """How a generated config's rows were made, for the card of an export that holds it (generator,
        seed, rows, what ``eval`` rows they avoid, the files read); empty for a task read from upstream
        files. ``chat_template`` is the identity of the build's chat template (``chat_template=``), if
        any; ``sources_read`` the source files the build downloaded and verified, by URL (its recorded
        ``download_checksums``: a fallback that served is under its own URL)."""
        return {}


#: the declaration fields every task must give (those :class:`Task` has no default for)
DECLARED = tuple(
    f.name for f in fields(Task) if f.init and f.default is MISSING and f.default_factory is MISSING
)


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
    #: columns filled from a task's declaration fields, by column (``{"max_new_tokens": "max_new_tokens"}``)
    declared_columns: Mapping[str, str] = field(default_factory=dict)
    #: the order in which the benchmark reports its task categories
    categories: tuple[str, ...] = ()
    #: rows per Arrow write batch when a config is prepared; ``None`` keeps the builder's default.
    #: Benchmarks with multi-MB rows (LV-Eval's 256k level) set it lower to keep memory flat.
    writer_batch_size: int | None = None
    #: the heading and introduction of an export card's section on the configs whose tasks state
    #: :meth:`Task.generated_facts` (Markdown); empty: a generic one
    generated_card: str = ""
    _by_config: dict[str, tuple[Task, str]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for task in self.tasks:
            if self.categories and task.category not in self.categories:
                raise ValueError(
                    f"{self.name}/{task.name}: category {task.category!r} is not one of {self.categories}"
                )
            object.__setattr__(task, "benchmark_name", self.name)
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
        found = self._by_config.get(config_name)
        if found is not None:
            return found
        for task in self.tasks:
            prefix = task.name + "_"
            if config_name.startswith(prefix) and task.accepts_length(config_name[len(prefix) :]):
                return task, config_name[len(prefix) :]
        raise KeyError(config_name)

    def has_config(self, config_name: str) -> bool:
        """A declared config, or a task's config at any length it accepts."""
        try:
            self.lookup(config_name)
        except KeyError:
            return False
        return True

    def task(self, name: str) -> Task:
        for task in self.tasks:
            if task.name == name:
                return task
        raise KeyError(name)
