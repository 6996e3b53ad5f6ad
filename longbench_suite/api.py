"""The public entry points: :func:`load_dataset`, :func:`get_builder`, :func:`prepare`."""

from __future__ import annotations

import contextlib
import difflib
import errno
import logging
import os
import re
from collections.abc import Iterable, Iterator

import datasets
from datasets.download.download_config import DownloadConfig
from datasets.download.download_manager import DownloadManager
from datasets.exceptions import DatasetGenerationError

from . import datasets_hooks, registry
from .builder import SuiteBuilder
from .errors import (
    DataFormatError,
    OptionError,
    SplitUnavailableError,
    StorageError,
    SuiteError,
    UnknownNameError,
    UnsupportedOptionError,
    local_cause,
)
from .fit.rules import check_max_input_tokens
from .options import DEFAULT_HOLDOUT_FRACTION, OVER_LENGTH, BuildOptions, split_keywords
from .task import SPLITS

logger = logging.getLogger("longbench_suite")

#: the build options ``load_dataset`` passes on to ``datasets.load_dataset`` for a path that is not
#: ours; any other given for such a path is refused
_DATASETS_OWN = ("data_dir", "cache_dir")


def get_builder(
    name: str,
    *,
    benchmark: str | None = None,
    split: str | None = None,
    options: BuildOptions | None = None,
    **keywords,
) -> SuiteBuilder:
    """The builder of one config (``"nq_32k"``, ``"helmet/nq_32k"``), with the user's build options:
    ``options=BuildOptions(...)`` and/or its fields as keywords (a keyword replaces that field of
    ``options``; :class:`~longbench_suite.options.BuildOptions` documents each).

    ``split`` (a split expression, ``"eval"``, ``"dev[:10]"``) is what the caller will read: a task
    that makes each split apart (RULER's, whose ``dev`` screen draws ``eval`` at every length) then
    builds only those splits, in a cache of their own, unless a build of every split is cached already.

    ``demo=True`` builds from the offline sandbox: its sample mirror and, unless ``tokenizer`` /
    ``pretruncation_tokenizer`` are given, its BPE tokenizer, written on first use under the cache
    (``cache_dir``, else the ``datasets`` cache; :func:`longbench_suite.demo.sandbox_options`).

    ``pretruncation_tokenizer`` replaces the tokenizer a task cuts its documents with before rendering
    (HELMET's long-document tasks: ``meta-llama/Llama-2-7b-hf``, whatever ``tokenizer`` is); tasks
    without that step ignore it. ``chat_template`` fits chat-mode rows under a chat template, as HELMET
    fits chat prompts (``"tokenizer"``: the tokenizer's own; a built-in name, a file or Jinja text;
    :mod:`longbench_suite.fit.chat`).
    """
    options = BuildOptions.of(options, **keywords)
    bench, config = registry.resolve(name, benchmark)
    builder_cls = registry.builder_class(bench)
    check_max_input_tokens(options.max_input_tokens)
    _check_cache_dir(options.cache_dir)
    if options.demo:
        from .demo import sandbox_options

        sandbox = sandbox_options(
            options.cache_dir,
            mirror=options.mirror,
            data_dir=options.data_dir,
            tokenizer=options.tokenizer,
            pretruncation_tokenizer=options.pretruncation_tokenizer,
        )
        options = options.replace(**sandbox)
    with _unwrapped_errors(options.cache_dir), _read_only_cache(options.cache_dir):
        builder = builder_cls(config_name=config, options=options)
        made = splits_to_make(builder, split)
        return builder if made is None else builder_cls(config_name=config, options=options, splits=made)


def splits_to_make(builder: SuiteBuilder, split: str | None) -> tuple[str, ...] | None:
    """The splits a build for reading ``split`` makes, where it makes fewer than the config has: a task
    whose splits are made apart (``Task.splits_apart``), with no build of every split in the cache."""
    task, length = builder.config.task, builder.config.length
    if split is None or task is None or not task.splits_apart:
        return None
    has = task.splits(length)
    asked = set(_requested_splits(split))
    if not asked < set(has) or datasets_hooks.is_prepared(builder):
        return None  # every split, an unknown one (check_splits names it), or all already built
    return tuple(s for s in has if s in asked)


def _requested_splits(split: str) -> list[str]:
    """Base split names of a split expression (``"dev[:10]+eval"`` -> ``["dev", "eval"]``)."""
    return [re.sub(r"\[.*\]$", "", part.strip()) for part in split.split("+")]


def check_splits(builder: SuiteBuilder, split: str | None) -> None:
    if split is None:
        return
    task, length = builder.config.task, builder.config.length
    for name in _requested_splits(split):
        if name not in SPLITS:
            raise UnknownNameError(
                f"unknown split {name!r} for {builder.BENCHMARK.name}/{builder.config.name}; "
                f"the splits are {', '.join(SPLITS)}"
            )
        if name not in task.splits(length):
            raise SplitUnavailableError(task.missing_split_reason(name, length))


@contextlib.contextmanager
def _unwrapped_errors(cache_dir: str | None = None) -> Iterator[None]:
    """Surface our own errors instead of datasets' generic wrapper around them, and a full disk or a
    cache without write permission as one line saying so."""
    try:
        yield
    except DatasetGenerationError as exc:
        cause = exc.__cause__
        while cause is not None and not isinstance(cause, SuiteError):
            cause = cause.__cause__
        if cause is not None:
            raise cause from None
        _raise_if_local(exc, cache_dir)
        raise
    except OSError as exc:
        if not isinstance(exc, SuiteError):
            _raise_if_local(exc, cache_dir)
        raise


def _raise_if_local(exc: BaseException, cache_dir: str | None) -> None:
    local = local_cause(exc)
    if local is None:
        return
    where = cache_dir or datasets.config.HF_DATASETS_CACHE
    if local.errno in (errno.ENOSPC, errno.EDQUOT):
        advice = "free some space (or pass another cache_dir / --cache-dir) and run again"
    else:
        advice = (
            "a cache without write permission serves only builds it already holds; pass a writable "
            "cache_dir (--cache-dir), or copy this cache to one"
        )
    path = f" ({local.filename})" if local.filename else ""
    raise StorageError(
        f"cannot write in the cache {where}{path}: {local.strerror or local}; {advice}; "
        "no download was deleted"
    ) from None


def _writable(directory: str) -> bool:
    return os.access(directory, os.W_OK)


@contextlib.contextmanager
def _read_only_cache(cache_dir: str | None) -> Iterator[None]:
    """In a read-only cache, read a finished build without the lock files ``datasets`` would create
    (its builder locks even to load a build); a build that is not there fails to write, in one line."""
    root = cache_dir or datasets.config.HF_DATASETS_CACHE
    if not os.path.isdir(root) or _writable(root):
        yield
        return
    with datasets_hooks.without_file_locks():
        yield


def _check_cache_dir(cache_dir: str | None) -> None:
    if cache_dir and os.path.exists(cache_dir) and not os.path.isdir(cache_dir):
        raise OptionError(f"cache_dir (--cache-dir) {cache_dir} is a file, not a directory")


def check_num_proc(num_proc: int | None) -> int | None:
    """``num_proc`` as ``download_and_prepare`` takes it (``None`` for one process)."""
    if num_proc is None:
        return None
    if isinstance(num_proc, bool) or not isinstance(num_proc, int) or num_proc < 1:
        raise OptionError(f"num_proc must be a positive integer, got {num_proc!r}")
    return num_proc if num_proc > 1 else None


def prepared(builder: SuiteBuilder, split: str | None, num_proc: int | None = None):
    """Build ``builder``'s Arrow files (``num_proc`` processes over the split's shards) and load them."""
    with _unwrapped_errors(builder.cache_root), _read_only_cache(builder.cache_root):
        builder.download_and_prepare(num_proc=check_num_proc(num_proc))
    if split is not None:
        for name in _requested_splits(split):
            if name not in builder.info.splits:
                raise SplitUnavailableError(builder.missing_split_reason(name))
    with _unwrapped_errors(builder.cache_root):
        return builder.as_dataset(split=split)


def streamed(builder: SuiteBuilder, split: str | None):
    try:
        with _unwrapped_errors(builder.cache_root), _read_only_cache(builder.cache_root):
            return builder.as_streaming_dataset(split=split)
    except ValueError as exc:
        if split is not None and "Bad split" in str(exc):
            # The task may have decided its splits from the data: name the split it left out, with
            # what it recorded about the sources.
            available = builder.available_splits or ()
            requested = _requested_splits(split)
            missing = next((name for name in requested if name not in available), requested[0])
            raise SplitUnavailableError(builder.missing_split_reason(missing)) from None
        raise


def load_dataset(
    path: str,
    name: str | None = None,
    split: str | None = None,
    *,
    streaming: bool = False,
    format: str | None = None,
    chat: bool | None = None,
    holdout: str | None = None,
    holdout_fraction: float = DEFAULT_HOLDOUT_FRACTION,
    over_length: str = OVER_LENGTH[0],
    num_proc: int | None = None,
    options: BuildOptions | None = None,
    **kwargs,
):
    """A drop-in for ``datasets.load_dataset`` that also knows the suite's benchmarks.

    ``path`` ``"longbench_suite"`` (or a benchmark name such as ``"helmet"``) builds config ``name``
    with this library; any other path goes to ``datasets.load_dataset`` unchanged. ``split=None``
    gives every split the config has; ``streaming=True`` returns a lazy ``IterableDataset`` and writes
    no Arrow files. The build options are ``options=BuildOptions(...)`` and/or its fields as keywords
    (``tokenizer=``, ``mirror=``, ``data_dir=``, ``cache_dir=``, ``max_input_tokens=``, ...; a keyword
    replaces that field of ``options``; :class:`~longbench_suite.options.BuildOptions`). For any path
    whose rows have this library's columns (an export, a Hub repo):

    - ``holdout="train"`` / ``"valid"`` gives that side of a stable hold-out of ``split="dev"``
      (``holdout_fraction`` of its questions, chosen by a hash of each row's ``query_id``;
      :mod:`longbench_suite.training.holdout`);
    - ``over_length="skip"`` leaves out the rows whose prompt had to be cut to fit the budget
      (``input_truncated``), instead of keeping them cut;
    - ``num_proc=N`` builds a prepared (not streamed) config in N processes, each writing a contiguous
      part of every split's rows (``datasets``' own multiprocessing over the builder's shards); the rows
      are the same as with one process;
    - ``generate={"seed": 7, "rows": 1000, ...}`` sets the options of a generator config (HELMET's
      ``gen_*`` tasks, ``docs/generate.md``);
    - ``format="prompt_completion"``, ``"messages"`` or ``"prompt"`` returns TRL examples instead of rows
      (:mod:`longbench_suite.training`; ``chat`` forces a mode);
    - ``chat_template=`` (HELMET) fits each chat-mode row's user turn under that chat template, as
      HELMET does, so the user turn is HELMET's chat prompt for it (see :func:`get_builder`);
    - ``demo=True`` builds from the offline sandbox's sample data and tokenizer (see :func:`get_builder`).
    """
    build, kwargs = split_keywords(kwargs)
    options = BuildOptions.of(options, **build)
    views = dict(holdout=holdout, holdout_fraction=holdout_fraction, over_length=over_length)
    check_views(split, **views)
    if format is not None or chat is not None:
        from .training.formats import training_format

        loaded = load_dataset(
            path, name, split, streaming=streaming, num_proc=num_proc, options=options, **views, **kwargs
        )
        mode = None
        if path == registry.SUITE or path in registry.benchmark_names():
            bench, config = registry.resolve(name, None if path == registry.SUITE else path)
            mode = registry.benchmark(bench).lookup(config)[0].use_chat_template
        return training_format(loaded, format or "prompt_completion", chat=chat, mode=mode)
    if path != registry.SUITE and path not in registry.benchmark_names():
        given = [k for k in options.given() if k not in _DATASETS_OWN]
        if given:
            close = difflib.get_close_matches(path, [registry.SUITE, *registry.benchmark_names()], n=3)
            if close:  # suite options with a misspelt benchmark: the user meant ours
                raise UnknownNameError(f"unknown benchmark {path!r}; did you mean {', '.join(close)}?")
            raise UnsupportedOptionError(
                f"{', '.join(given)} only apply to longbench_suite configs, not to {path!r}"
            )
        if num_proc is not None:
            kwargs["num_proc"] = num_proc
        own = {k: getattr(options, k) for k in _DATASETS_OWN}
        loaded = datasets.load_dataset(path, name, split=split, streaming=streaming, **own, **kwargs)
        return apply_views(loaded, f"{path}/{name}" if name else path, split, **views)
    if kwargs:
        raise UnsupportedOptionError(
            f"unsupported arguments for longbench_suite configs: {', '.join(sorted(kwargs))}"
        )
    if name is None:
        raise UnknownNameError(
            f"load_dataset({path!r}) needs a config name, e.g. one of: "
            + ", ".join(registry.list_configs(None if path == registry.SUITE else path)[:5])
            + " (see `longbench-suite list`)"
        )
    bench = None if path == registry.SUITE else path
    builder = get_builder(name, benchmark=bench, split=None if streaming else split, options=options)
    check_splits(builder, split)
    check_num_proc(num_proc)
    loaded = streamed(builder, split) if streaming else prepared(builder, split, num_proc)
    where = f"{builder.BENCHMARK.name}/{builder.config.name}"
    return apply_views(loaded, where, split, key=builder.config.task.holdout_key, **views)


def check_views(split: str | None, *, holdout: str | None, holdout_fraction: float, over_length: str) -> None:
    """Refuse view options that cannot apply, before anything is built."""
    from .training.holdout import check_options

    check_options(holdout, holdout_fraction)
    if holdout is not None and split != "dev":
        raise UnknownNameError(f"holdout={holdout!r} splits the dev split: pass split='dev' (got {split!r})")
    if over_length not in OVER_LENGTH:
        raise UnknownNameError(f"over_length must be one of {', '.join(OVER_LENGTH)}, got {over_length!r}")


def apply_views(
    dataset,
    where: str,
    split: str | None,
    *,
    holdout: str | None,
    holdout_fraction: float,
    over_length: str,
    key: str = "query_id",
):
    """``dataset`` without the over-length rows (``over_length="skip"``) and cut to one side of the
    hold-out, saying how many rows it skipped when it can count them."""
    if over_length == "skip":
        dataset = _skip_over_length(dataset, where, split)
    if holdout is not None:
        from .training.holdout import holdout as holdout_side

        columns = dataset.column_names or []
        if key not in columns:
            key = "query_id"
        if key not in columns:
            raise DataFormatError(f"{where}: holdout needs a {key!r} column, which the rows lack")
        dataset = holdout_side(dataset, holdout, holdout_fraction, key)
    return dataset


def _skip_over_length(dataset, where: str, split: str | None):
    if isinstance(dataset, datasets.DatasetDict | datasets.IterableDatasetDict):
        return type(dataset)({name: _skip_over_length(d, where, name) for name, d in dataset.items()})
    if "input_truncated" not in (dataset.column_names or []):
        raise DataFormatError(
            f"{where}: over_length='skip' needs the 'input_truncated' column, which the rows lack"
        )
    kept = dataset.filter(lambda cut: not cut, input_columns=["input_truncated"])
    if isinstance(dataset, datasets.Dataset):
        skipped = len(dataset) - len(kept)
        logger.warning(
            "%s %s: skipped %d of %d rows whose prompt exceeds the input budget (over_length='skip')",
            where,
            split,
            skipped,
            len(dataset),
        )
    return kept


def download_manager(builder: SuiteBuilder) -> DownloadManager:
    """A download manager sharing the builder's download cache (the one ``download_and_prepare`` uses)."""
    cache = datasets_hooks.download_cache(builder)
    config = DownloadConfig(cache_dir=cache, use_etag=False, token=builder.token)
    return DownloadManager(
        dataset_name=builder.dataset_name,
        download_config=config,
        data_dir=builder.config.data_dir,
        base_path=builder.base_path,
    )


def prefetch(builders: Iterable[SuiteBuilder]) -> None:
    """Fetch the sources of many configs at once, so an archive they share is read once.

    Sources are grouped by (benchmark, mirror, data_dir); each group resolves through one resolver,
    which extracts every needed member of an archive in a single pass over it.
    """
    groups: dict[tuple, list[SuiteBuilder]] = {}
    for builder in builders:
        key = (
            builder.BENCHMARK.name,
            builder.config.mirror,
            builder.config.data_dir,
            builder.cache_root,
        )
        groups.setdefault(key, []).append(builder)
    for members in groups.values():
        first = members[0]
        sources = {
            f"{b.config.name}/{name}": source
            for b in members
            for name, source in b.config.task.all_sources(b.config.length, b.build_env()).items()
        }
        first.resolver(download_manager(first)).resolve(sources)


def prepare(
    builders: Iterable[SuiteBuilder | str],
    num_proc: int | None = None,
    *,
    options: BuildOptions | None = None,
    **keywords,
) -> list[SuiteBuilder]:
    """``download_and_prepare`` many configs, fetching their shared sources once first; each config in
    ``num_proc`` processes. A config may be given by name: its builder is :func:`get_builder`'s with
    ``options`` (and the build options as keywords); returns the builders."""
    num_proc = check_num_proc(num_proc)
    options = BuildOptions.of(options, **keywords)
    builders = [get_builder(b, options=options) if isinstance(b, str) else b for b in builders]
    prefetch(builders)
    for builder in builders:
        prepare_one(builder, num_proc)
    return builders


def prepare_one(builder: SuiteBuilder, num_proc: int | None = None) -> None:
    """``download_and_prepare`` one config, its errors one line each."""
    with _unwrapped_errors(builder.cache_root), _read_only_cache(builder.cache_root):
        builder.download_and_prepare(num_proc=num_proc)
