"""The one ``datasets.GeneratorBasedBuilder`` every benchmark uses.

:func:`builder_class` turns a :class:`~longbench_suite.task.Benchmark` into a builder class whose
``BUILDER_CONFIGS`` are its ``<task>_<length>`` configs. A builder instance's config carries the user's
:class:`~longbench_suite.options.BuildOptions`; its config id adds the options that change rows
(:meth:`~longbench_suite.options.BuildOptions.config_identity`), and its cache ``hash`` is made of the
library version, every file of the core and of the benchmark's folder (:func:`code_hash`), and the
loaded tokenizers' and chat template's identities, so no edit and no tokenizer change ever reuses a
stale build. What it reaches of ``datasets``' internals besides its own overrides is in
:mod:`longbench_suite.datasets_hooks`. ``_generate_examples`` is the
loop every task goes through: plan, shard, instances, fit, row, token counts.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import json
import logging
import os
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

import datasets
import pyarrow as pa
from datasets.download.streaming_download_manager import StreamingDownloadManager

from . import datasets_hooks
from ._version import __version__
from .compat import Key
from .errors import (
    DataFormatError,
    MissingDependencyError,
    OptionError,
    SourceError,
    SourceNotProvidedError,
    SourceUnavailableError,
    TokenizerLoadError,
    local_cause,
)
from .fit.chat import ChatTemplate, load_chat_template
from .fit.rules import check_max_input_tokens
from .fit.tokenizers import TokenCounter, load_tokenizer
from .instance import Plan
from .memo import Memo
from .options import NAMES as OPTION_NAMES
from .options import BuildOptions, mirror_identity
from .partition.shards import Shards, stream_shards
from .row import CHAT_TEMPLATE_COLUMN, make_row
from .source import FileRef, RemoteFile, SourceResolver, forget, local_identity
from .source.ledger import Ledger
from .source.manifest import MANIFEST_NAME
from .task import Benchmark, BuildEnv, Task

_PACKAGE_DIR = Path(__file__).resolve().parent
logger = logging.getLogger(__name__)


def unavailable_key(split: str) -> str:
    """Where a build records, beside its sources' checksums, that ``split`` was left out and why."""
    return f"longbench_suite:{split}-unavailable"


class SuiteConfig(datasets.BuilderConfig):
    """A ``<task>_<length>`` config plus the build options (:class:`~longbench_suite.options.BuildOptions`)
    its rows are built with."""

    def __init__(
        self,
        *,
        task: Task | None = None,
        length: str | None = None,
        options: BuildOptions | None = None,
        splits: tuple[str, ...] | None = None,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.task = task
        self.length = length
        self.options = options if options is not None else BuildOptions()
        #: the splits this build makes, where it makes fewer than the config has (``Task.splits_apart``)
        self.splits = splits
        check_max_input_tokens(self.options.max_input_tokens)

    @property
    def mirror(self) -> str | None:
        return self.options.mirror

    @property
    def max_input_tokens(self) -> int | None:
        return self.options.max_input_tokens

    @property
    def generate(self) -> Mapping | None:
        return self.options.generate

    def __eq__(self, other) -> bool:
        # datasets compares a config with its registered namesake when the config id is the name alone:
        # options outside the config id (tokenizers, cache_dir, demo) enter the builder's hash instead
        if not isinstance(other, SuiteConfig):
            return NotImplemented
        mine = {k: v for k, v in vars(self).items() if k != "options"}
        theirs = {k: v for k, v in vars(other).items() if k != "options"}
        return mine == theirs and self.options.config_identity() == other.options.config_identity()

    def create_config_id(self, config_kwargs: dict, custom_features=None) -> str:
        # The tokenizer's identity goes into the builder hash; what else changes the rows (or where
        # they come from) is hashed here, so no path or URL — nor any credential in it — shows in
        # the cache path.
        options = self.options.config_identity()
        only = f"-only-{'+'.join(self.splits)}" if self.splits else ""
        if not options:
            return self.name + only
        digest = hashlib.sha256(repr(sorted(options.items())).encode("utf-8")).hexdigest()[:12]
        return f"{self.name}-{digest}{only}"


def package_files(root: Path, skip: Path | None = None) -> list[Path]:
    """Every file under ``root`` (code and data alike) but compiled caches and the ``skip`` subtree."""
    files = []
    for path in root.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo"):
            continue
        if skip is not None and path.is_relative_to(skip):
            continue
        files.append(path)
    return sorted(files)


@functools.cache
def code_hash(benchmark_dir: str, core_dir: str = str(_PACKAGE_DIR)) -> str:
    """A digest of every file that can change a row: the library's core (every file of the package
    outside ``benchmarks/<name>/``) and one benchmark's folder, data files included."""
    core, benchmark = Path(core_dir), Path(benchmark_dir)
    h = hashlib.sha256(__version__.encode("utf-8"))
    skip_others = [d for d in (core / "benchmarks").iterdir() if d.is_dir() and d.name != "__pycache__"]
    core_files = [f for f in package_files(core) if not any(f.is_relative_to(d) for d in skip_others)]
    for root, files in ((core, core_files), (benchmark, package_files(benchmark))):
        for path in files:
            h.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
            h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()[:16]


class SuiteBuilder(datasets.GeneratorBasedBuilder):
    """Builds one config of one benchmark; subclasses set ``BENCHMARK`` (see :func:`builder_class`)."""

    BENCHMARK: Benchmark
    BUILDER_CONFIG_CLASS = SuiteConfig
    VERSION = datasets.Version(__version__)
    # Long-context rows are large (a 128k-token prompt is ~0.5 MB); keep Arrow write batches small.
    DEFAULT_WRITER_BATCH_SIZE = 64
    #: the splits the last split generation offered (set once the sources are resolved; a task may
    #: decide them from the data)
    available_splits: tuple[str, ...] | None = None
    #: the streaming download manager of the last split generation (it resolves a split's own sources)
    _dl_manager = None
    #: the resolver of the last split generation (its unpinned downloads go into the ledger)
    _resolver: SourceResolver | None = None
    #: set by another engine (:mod:`longbench_suite.distributed`) that built the rows: ``(split, shard)``
    #: to that shard's finished rows, which ``_generate_examples`` then yields instead of building them
    rows_from: Callable[[str, int], list[dict]] | None = None

    def __init__(self, *args, options: BuildOptions | None = None, **kwargs) -> None:
        """``options`` (or its fields as keywords: :meth:`BuildOptions.of`) are the user's; the config
        carries them with the mirror as its cache identity names it and ``data_dir`` absolute."""
        options = BuildOptions.of(options, **{k: kwargs.pop(k) for k in OPTION_NAMES if k in kwargs})
        data_dir = os.path.abspath(options.data_dir) if options.data_dir else None
        options = options.replace(mirror=mirror_identity(options.mirror), data_dir=data_dir)
        kwargs.update(options=options, data_dir=options.data_dir, cache_dir=options.cache_dir)
        config_name = kwargs.get("config_name")
        task, length = self.BENCHMARK.lookup(config_name) if config_name else (None, None)
        if task is not None:
            task.check_generate(options.generate, length)
        given = options.tokenizer
        spec = given if given is not None else (task.default_tokenizer if task else None)
        needed = task is None or given is not None or options.chat_template is not None
        needed = needed or task.uses_tokenizer(options.max_input_tokens, length)
        self._tokenizer_spec = spec
        self._chat_template = self._load_chat_template(options.chat_template, task, spec)
        try:
            self._tokenizer = load_tokenizer(spec) if spec and needed else None
            self._pretruncation = _pretruncation_tokenizer(task, options.pretruncation_tokenizer)
        except TokenizerLoadError as exc:
            raise _sandbox_hint(exc, options.mirror) from None
        kwargs.setdefault("dataset_name", f"longbench_suite_{self.BENCHMARK.name}")
        #: the split plans this builder computed, shared by the shards one process yields
        self._plans: Memo[Plan] = Memo("plans", entries=2)
        local = _local_sources_identity(task, length, options)
        self._source_identity = f"mirror:{options.mirror}|data_dir:{options.data_dir}|local:{local}"
        if kwargs.get("hash") is None:
            identity = self._tokenizer.identity if self._tokenizer else "-"
            if self._pretruncation is not None:
                identity += f"|pretruncation:{self._pretruncation.identity}"
            if self._chat_template is not None:
                identity += f"|chat:{self._chat_template.identity}"
            package_dir = os.path.dirname(__import__(type(self).__module__, fromlist=["_"]).__file__)
            identity += f"|local:{local}"
            kwargs["hash"] = hashlib.sha256(f"{code_hash(package_dir)}|{identity}".encode()).hexdigest()[:16]
        super().__init__(*args, **kwargs)

    def _load_chat_template(self, spec, task: Task | None, tokenizer_spec) -> ChatTemplate | None:
        """The chat template chat-mode rows are fitted under (``chat_template=``), or ``None``."""
        if spec is None:
            return None
        where = f"{self.BENCHMARK.name}/{task.name}" if task else self.BENCHMARK.name
        if CHAT_TEMPLATE_COLUMN not in self.BENCHMARK.features or (task and not task.fit.fits_chat_templates):
            raise OptionError(
                f"chat_template= does not apply to {where}: its prompts are not fitted under a chat "
                "template (HELMET's are)"
            )
        return load_chat_template(spec, tokenizer_spec)

    @property
    def chat_template(self) -> ChatTemplate | None:
        """The chat template this build fits chat-mode rows under (``None``: none)."""
        return self._chat_template

    # -- datasets hooks -----------------------------------------------------------------------

    def _create_builder_config(self, config_name=None, custom_features=None, **config_kwargs):
        # A generator task's config at a length it accepts but does not list is made on the fly.
        # (``config_kwargs`` also passes on datasets' own ``config_id`` where the version has one.)
        if isinstance(config_name, str) and config_name not in self.builder_configs:
            task, length = self.BENCHMARK.lookup(config_name)
            config_kwargs.update(name=config_name, task=task, length=length, description=task.description)
            config_name = None
        return super()._create_builder_config(config_name, custom_features, **config_kwargs)

    def _info(self) -> datasets.DatasetInfo:
        bench = self.BENCHMARK
        return datasets.DatasetInfo(
            description=bench.description,
            features=bench.features_of(self.config.task) if self.config.task else bench.features,
            homepage=bench.homepage,
            citation=bench.citation,
            license=bench.license,
        )

    @property
    def task(self) -> Task:
        return self.config.task

    @property
    def tokenizer(self) -> TokenCounter:
        """The config's tokenizer; loaded on first use when the build itself did not need it."""
        if self._tokenizer is None and self._tokenizer_spec:
            self._tokenizer = load_tokenizer(self._tokenizer_spec)
        return self._tokenizer

    @property
    def loaded_tokenizer(self) -> TokenCounter | None:
        """The tokenizer this build counts with; ``None`` where the build needs none (then
        :attr:`tokenizer` loads the config's on first use)."""
        return self._tokenizer

    @property
    def pretruncation_tokenizer(self) -> TokenCounter | None:
        return self._pretruncation

    @property
    def options(self) -> BuildOptions:
        """The build options this builder was made with (the mirror as its cache identity names it)."""
        return self.config.options

    @property
    def cache_root(self) -> str:
        """The cache directory the build's files go under (``cache_dir``, else the ``datasets`` cache)."""
        return datasets_hooks.cache_root(self)

    def source_cache_root(self) -> str:
        return os.path.join(self.cache_root, "longbench_suite", "sources")

    def resolver(self, dl_manager) -> SourceResolver:
        return SourceResolver(
            dl_manager,
            cache_root=self.source_cache_root(),
            mirror=self.config.mirror,
            data_dir=self.config.data_dir,
            streaming=isinstance(dl_manager, StreamingDownloadManager),
        )

    def _split_generators(self, dl_manager):
        task, length = self.config.task, self.config.length
        resolver = self.resolver(dl_manager)
        sources = task.sources_to_read(length, self.build_env())
        files = resolver.resolve(sources)
        with forgotten_on_bad_data(files.values()):
            facts = task.source_facts(length, files)
            self.available_splits = self._made_splits(task.splits(length, files))
        dev_sources = task.dev_sources(length) if "dev" in self.available_splits else {}
        purpose = task.dev_sources_purpose
        dev_files = self._split_files(resolver, "dev", dev_sources, purpose) if dev_sources else None
        if dev_files is not None:
            files = {**files, **dev_files}
            with forgotten_on_bad_data(files.values()):
                self.available_splits = self._made_splits(task.splits(length, files))
        self._resolver = resolver
        num_shards = stream_shards(files) if task.shardable else 1
        streaming = isinstance(dl_manager, StreamingDownloadManager)
        own_sources = task.split_sources(length)
        own_files = {}
        for split in self.available_splits if not streaming else ():
            if own_sources.get(split):
                found = self._split_files(resolver, split, own_sources[split], f"only {split} rows need them")
                if found is not None:
                    own_files[split] = found
        # Streaming resolves a split's own sources when that split is read (see _generate_examples).
        self._dl_manager = dl_manager if streaming else None
        recorded = dict(resolver.checksums)
        for name, source_facts in facts.items():
            source = sources[name]
            key = source.url if isinstance(source, RemoteFile) else f"{source.archive.url}#{source.path}"
            recorded[key] = {**recorded.get(key, {}), **source_facts}
        if recorded:
            self.info.download_checksums = {**(self.info.download_checksums or {}), **recorded}
        self._recorded = dict(self.info.download_checksums or {})
        # A list in gen_kwargs is what datasets cuts into shards (streaming, DataLoader workers,
        # split_dataset_by_node); each piece is a contiguous part of the split's row plan.
        return [
            datasets.SplitGenerator(
                name=split,
                gen_kwargs={
                    "split": split,
                    "files": {**files, **own_files.get(split, {})},
                    "shards": list(range(num_shards)),
                    "num_shards": num_shards,
                    "pending": dict(own_sources.get(split, {})) if streaming else {},
                },
            )
            for split in self.available_splits
        ]

    def _made_splits(self, splits: tuple[str, ...]) -> tuple[str, ...]:
        """The config's ``splits`` this build makes (those asked for, where it makes fewer)."""
        made = self.config.splits
        return splits if made is None else tuple(s for s in splits if s in made)

    def _prepare_split(self, split_generator, *args, num_proc: int | None = None, **kwargs):
        """``datasets``' split preparation; with several processes, the split's plan is made first, here.

        ``datasets`` forks its workers for the split after this point, so each worker finds the plan
        this process made (:data:`_PLANS_FOR_WORKERS`) instead of reading and partitioning the sources
        again; a worker started another way (spawn) makes it itself.
        """
        if not num_proc or num_proc <= 1 or not self.config.task.shardable:
            return super()._prepare_split(split_generator, *args, num_proc=num_proc, **kwargs)
        gen = split_generator.gen_kwargs
        task, files = self.config.task, gen["files"]
        with forgotten_on_bad_data(files.values()):
            _PLANS_FOR_WORKERS.get(
                self._plan_key(gen["split"]),
                list(files.values()),
                lambda: task.plan(gen["split"], self.config.length, files, self.build_env()),
            )
        try:
            return super()._prepare_split(split_generator, *args, num_proc=num_proc, **kwargs)
        finally:
            _PLANS_FOR_WORKERS.clear()

    def _plan_key(self, split: str) -> tuple:
        return (type(self).__module__, self.config_id, self.hash, split)

    def _download_and_prepare(self, dl_manager, verification_mode, **prepare_split_kwargs):
        if self.config.task.unbounded(self.config.generate):
            raise OptionError(
                f"{self.BENCHMARK.name}/{self.config.name}: rows=None generates without end, which only a "
                "stream can hold; pass streaming=True, or a number of rows (generate={'rows': N})"
            )
        super()._download_and_prepare(dl_manager, verification_mode, **prepare_split_kwargs)
        # Every split was written: the unpinned downloads it read are what later copies must match.
        if self._resolver is not None:
            Ledger(self.source_cache_root()).record(self._resolver.unpinned)

    def _save_info(self):
        # datasets before 5.0 replaces download_checksums with its download manager's records once the
        # splits are written: what this build recorded of its sources goes back in before it is saved.
        recorded = getattr(self, "_recorded", None)
        if recorded:
            self.info.download_checksums = {**(self.info.download_checksums or {}), **recorded}
        super()._save_info()

    def _split_files(self, resolver: SourceResolver, split: str, sources: dict, purpose: str) -> dict | None:
        """The sources only ``split`` reads, or ``None`` where they cannot be had: then the build has no
        ``split`` (the other split never needs them), and the reason is kept for
        :meth:`missing_split_reason`."""
        where = f"{self.BENCHMARK.name}/{self.config.name}"
        try:
            found = resolver.resolve(sources)
        except SourceNotProvidedError as exc:  # not a passing failure: a download that failed still fails
            self.available_splits = tuple(s for s in self.available_splits if s != split)
            others = " and ".join(repr(s) for s in self.available_splits) or "no other split"
            reason = (
                f"{where} has no {split!r} split in this build: {split} also reads "
                f"{', '.join(s.label for s in sources.values())} ({purpose}), and {exc}. {others} does not "
                "need them; once they can be had, rebuild with download_mode='force_redownload'"
            )
            logger.warning(reason)
            self.info.download_checksums = {
                **(self.info.download_checksums or {}),
                unavailable_key(split): {"reason": reason},
            }
            return None
        logger.info("%s: %s also reads %s", where, split, ", ".join(ref.label for ref in found.values()))
        return found

    def missing_split_reason(self, split: str) -> str:
        """Why this build has no ``split``: sources of its own it could not read, else the task's reason."""
        recorded = (self.info.download_checksums or {}).get(unavailable_key(split))
        if recorded:
            return recorded["reason"]
        return self.config.task.missing_split_reason(split, self.config.length, self.info)

    def _generate_examples(self, split, files, shards=(0,), num_shards=1, pending=None):
        """The rows of the selected shards of ``split``: plan, cut, instances, fit, row (the loop every
        task goes through). ``pending``: the split's own sources, still to resolve (streaming)."""
        if self.rows_from is not None:
            count = 0
            for shard in shards:
                for row in self.rows_from(split, shard):
                    yield Key(min(shards), count), row
                    count += 1
            return
        task, length = self.config.task, self.config.length
        if pending:
            files = {**files, **self.resolver(self._dl_manager).resolve(pending)}
        where = f"{self.BENCHMARK.name}/{self.config.name}"
        env = self.build_env()
        selection = Shards(num_shards, tuple(shards))
        with forgotten_on_bad_data(files.values()):
            plan = self._plan(task, split, files, env, shared=not selection.everything)
            if plan.items is None and 0 not in selection.indices:
                return  # a split without a plan is one shard: the first yields it whole
            if plan.items is not None and not plan.items:
                raise DataFormatError(
                    f"{where}: the {split!r} split came out empty; the sources ({_labels(files)}) hold "
                    "no rows for it"
                )
            items = None if plan.items is None else selection.select(plan.items)
            budget = task.budget_rule(length, env.max_input_tokens)
            schema = self.info.features
            count = 0
            instances = task.instances(split, length, files, plan, items, env)
            for row in self._rows(task, instances, env, budget, schema):
                yield Key(min(shards), count), row
                count += 1
            if items is not None and count != len(items):
                raise RuntimeError(f"{where}: the task built {count} instances for {len(items)} planned rows")
            if items is None and count == 0:
                raise DataFormatError(
                    f"{where}: the {split!r} split came out empty; the sources ({_labels(files)}) hold no "
                    "rows for it"
                )

    def build_env(self) -> BuildEnv:
        return BuildEnv(
            config_name=self.config.name,
            length=self.config.length,
            tokenizer=self._tokenizer,
            max_input_tokens=self.config.max_input_tokens,
            pretruncation_tokenizer=self._pretruncation,
            cache_root=self.source_cache_root(),
            generate=self.config.generate,
            chat_template=self._chat_template,
            source_identity=self._source_identity,
        )

    def split_plan(self, split: str, dl_manager) -> Plan:
        """The plan of ``split`` again, from the sources ``split`` reads (``longbench-suite check`` reads
        the drops of the task's leakage rule from it)."""
        task, length = self.config.task, self.config.length
        resolver = self.resolver(dl_manager)
        own = task.split_sources(length).get(split, {})
        files = resolver.resolve({**task.sources_to_read(length, self.build_env()), **own})
        if split == "dev" and task.dev_sources(length):
            files.update(resolver.resolve(task.dev_sources(length)))
        with forgotten_on_bad_data(files.values()):
            return task.plan(split, length, files, self.build_env())

    def _plan(self, task: Task, split: str, files, env: BuildEnv, shared: bool) -> Plan:
        """The split's plan; computed once per process when shards of it are yielded one by one."""
        if not shared:
            return task.plan(split, env.length, files, env)
        inherited = _PLANS_FOR_WORKERS.peek(self._plan_key(split), list(files.values()))
        if inherited is not None:
            return inherited
        return self._plans.get(split, list(files.values()), lambda: task.plan(split, env.length, files, env))

    def _rows(self, task: Task, instances, env: BuildEnv, budget, schema) -> Iterator[dict]:
        """Each instance fitted and made a row, with its token counts under the config's tokenizer.

        Counts the fit did not already make are computed one call per batch of rows; a batch closes
        at :data:`COUNT_BATCH` rows or :data:`COUNT_CHARS` characters of input, so rows of megabytes
        are not held back.
        """
        pending: list[tuple[dict, int | None]] = []
        size = 0
        for instance in instances:
            fitted = task.fit.apply(
                task.template,
                instance.fields,
                env.tokenizer,
                budget,
                what=f"{env.config_name} ({instance.query_id})",
                chat=env.chat_template if task.use_chat_template else None,
            )
            row = make_row(
                task,
                instance,
                prompt=fitted.prompt,
                answer_prefix=fitted.answer_prefix,
                max_length=task.max_length(env.length),
                input_budget=budget.tokens if budget else None,
                input_truncated=fitted.truncated,
                chat_template=fitted.chat_template,
                schema=schema,
                declared_columns=self.BENCHMARK.declared_columns,
            )
            pending.append((row, fitted.tokens))
            size += len(fitted.prompt)
            if env.tokenizer is None or len(pending) >= COUNT_BATCH or size >= COUNT_CHARS:
                yield from self._counted(task, pending, env.tokenizer)
                pending, size = [], 0
        yield from self._counted(task, pending, env.tokenizer)

    @staticmethod
    def _counted(task: Task, rows: list[tuple[dict, int | None]], counter: TokenCounter | None) -> list[dict]:
        """The rows with ``input_tokens`` (special tokens included, as budgets count them),
        ``output_tokens`` (the target alone) and the task's token-count columns filled in."""
        if not rows:
            return []
        if counter is None:
            return [row for row, _ in rows]
        missing = [row["input"] for row, tokens in rows if tokens is None]
        counted = iter(counter.count_batch(missing) if missing else [])
        outputs = counter.count_batch([row["output"] for row, _ in rows], special=False)
        done = []
        for (row, tokens), output_tokens in zip(rows, outputs, strict=True):
            row["input_tokens"] = tokens if tokens is not None else next(counted)
            row["output_tokens"] = output_tokens
            for column, identity in task.token_count_columns.items():
                row[column] = row["input_tokens"] if counter.identity == identity else None
            done.append(row)
        return done


#: rows, and characters of input, whose token counts are computed in one call
COUNT_BATCH = 32
COUNT_CHARS = 4_000_000


#: the plan of the split being prepared in several processes, made before its workers are forked
_PLANS_FOR_WORKERS: Memo[Plan] = Memo("plans-for-workers", entries=1)


def _pretruncation_tokenizer(task: Task | None, spec) -> TokenCounter | None:
    """The pre-truncation tokenizer of a task that has that step (``None`` for every other task)."""
    if task is None or not task.default_pretruncation_tokenizer:
        return None
    spec = spec if spec is not None else task.default_pretruncation_tokenizer
    try:
        return load_tokenizer(spec)
    except TokenizerLoadError as exc:
        raise TokenizerLoadError(
            f"{exc} — this is the pre-truncation tokenizer of {task.name}; pass "
            "pretruncation_tokenizer=PATH (--pretruncation-tokenizer) to use a local copy"
        ) from None


def _sandbox_hint(exc: TokenizerLoadError, mirror: str | None) -> TokenizerLoadError:
    """``exc``, saying so when the mirror is the sandbox's (say from ``$LONGBENCH_SUITE_MIRROR``), whose
    tokenizer ``--demo`` would use."""
    if not mirror or not os.path.isfile(os.path.join(mirror, MANIFEST_NAME)):
        return exc
    return TokenizerLoadError(
        f"{exc} (the mirror {mirror} holds sample data: --demo, demo=True, counts it with its sandbox's "
        "tokenizer)"
    )


def _labels(files: Mapping[str, FileRef], shown: int = 2) -> str:
    """The files a message names: the first few, then how many more (a task may read dozens of shards)."""
    labels = list(dict.fromkeys(f.label for f in files.values()))
    more = f" and {len(labels) - shown} more" if len(labels) > shown else ""
    return ", ".join(labels[:shown]) + more


def _local_sources_identity(task: Task | None, length: str | None, options: BuildOptions) -> str:
    """Size and mtime of the local files (``data_dir``, a mirror directory) a config reads, so that an
    edited file rebuilds; ``-`` where it reads none (downloads are keyed by the download cache)."""
    if task is None or not (options.data_dir or options.mirror):
        return "-"
    sources = {**task.sources(length), **task.dev_sources(length)}
    for split, split_sources in task.split_sources(length).items():
        sources.update({f"{split}/{name}": source for name, source in split_sources.items()})
    try:
        resolver = SourceResolver(None, cache_root="", mirror=options.mirror, data_dir=options.data_dir)
    except SourceError:  # a missing mirror or data_dir: the build will say so
        return "-"
    return local_identity(resolver.local_files(sources))


#: failures that come from the bytes read: what the parsers raise, and the decoders' and archive
#: readers' own errors where they reach the build unconverted
BAD_CONTENT: tuple[type[BaseException], ...] = (
    DataFormatError,  # malformed or mistyped records, a lone surrogate, a short source, an empty split
    SourceError,  # a corrupt or truncated archive, a missing member, a checksum that differs
    UnicodeDecodeError,
    json.JSONDecodeError,
    pa.ArrowInvalid,
    zipfile.BadZipFile,
    tarfile.TarError,
    zlib.error,
    gzip.BadGzipFile,
    EOFError,
)


@contextlib.contextmanager
def forgotten_on_bad_data(files: Iterable[FileRef]) -> Iterator[None]:
    """When reading the files fails on their bytes (malformed records, a corrupt archive, a missing
    member, a split that comes out empty or short), delete the downloads and member copies they came
    from, so the next build fetches them again instead of trusting them (a mirror may be fixed in
    between). Any other failure — a bug in the code, a local cause, a file that cannot be had — says
    nothing against the bytes, and the downloads stay."""
    try:
        yield
    except Exception as exc:
        if _bad_content(exc):
            forget(files)
        raise


def _bad_content(exc: Exception) -> bool:
    """A failure caused by the bytes read, not by a file that cannot be had, a missing package, a
    tokenizer or option, a full disk or a missing permission."""
    not_content = (SourceUnavailableError, MissingDependencyError, TokenizerLoadError, OptionError)
    if isinstance(exc, not_content) or local_cause(exc) is not None:
        return False
    return isinstance(exc, BAD_CONTENT)


def builder_class(benchmark: Benchmark, module: str) -> type[SuiteBuilder]:
    """The builder class of a benchmark, with one ``BuilderConfig`` per ``<task>_<length>``.

    ``module`` is the benchmark package's ``__name__``: ``datasets`` names the builder after it, and
    its source files go into the cache hash.
    """
    configs = []
    for task in benchmark.tasks:
        for length in task.lengths:
            configs.append(
                SuiteConfig(
                    name=task.config_name(length),
                    version=datasets.Version(__version__),
                    description=task.description,
                    task=task,
                    length=length,
                )
            )
    attributes = {"BENCHMARK": benchmark, "BUILDER_CONFIGS": configs, "__module__": module}
    if benchmark.writer_batch_size is not None:
        attributes["DEFAULT_WRITER_BATCH_SIZE"] = benchmark.writer_batch_size
    return type(f"{benchmark.name.capitalize()}Builder", (SuiteBuilder,), attributes)
