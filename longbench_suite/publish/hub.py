"""Publishing built configs: a Parquet folder in the Hub layout (:func:`export`) and a Hub dataset
repo (:func:`push`).

The layout is the one ``push_to_hub(config_name=...)`` writes, so plain ``datasets.load_dataset(DIR or
"org/name", "nq_32k", split="dev")`` (streaming too) works without this library::

    DIR/README.md                               card: YAML configs + dataset_info, statistics
    DIR/<benchmark>_input_tokens.png            token-length histogram, linked from the card
    DIR/<config>/<split>-00000-of-0000N.parquet one file per shard (max_shard_size, like push_to_hub)
    DIR/<config>/token_counts.json              input tokens per row, for the card's statistics

One directory (Hub repo) holds the configs of one benchmark: its card is that benchmark's card, and
config names are only unique within a benchmark. Exporting configs of another benchmark into it is an
error. Exporting into a directory merges: the configs already there stay, re-exported ones are
replaced whole. The directory changes only once everything is written (:mod:`.staging`): a failed
export leaves it as it was, or absent.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from huggingface_hub import HfApi

from .. import api, registry
from .._version import __version__
from ..errors import OptionError, SourceUnavailableError, SuiteError, UnknownNameError, describe
from ..options import BuildOptions, split_keywords
from ..source import MIRROR_ENV
from ..source.manifest import read_manifest
from ..task import SPLITS
from ..training.holdout import check_options as check_holdout_options
from ..training.holdout import holdout
from . import card as cards
from . import remote, staging
from .stats import SplitStats

#: the splits an export with a hold-out adds: the two sides of ``dev``
HOLDOUT_SPLITS = ("train", "validation")

DEFAULT_MAX_SHARD_SIZE = "500MB"
#: rows per Parquet row group at most: a 128k-token prompt is ~0.5 MB, and streaming reads a group at a time
ROW_GROUP_ROWS = 64
#: uncompressed bytes per Parquet row group at most: ``datasets``' own target (``config.MAX_ROW_GROUP_SIZE``,
#: 100 MB, "the dataset viewer expectations"), well under the Hub viewer's refusal of row groups over
#: 300,000,000 bytes (286.1 MiB); 64 rows of 1M-token prompts, ~4 MB each, would be ~256 MB of prompt.
ROW_GROUP_BYTES = "100MB"


@dataclass
class ExportResult:
    """What an export (or push) wrote, relative to ``directory``."""

    directory: str
    benchmark: str
    configs: list[str]
    files: list[str] = field(default_factory=list)
    stats: list[SplitStats] = field(default_factory=list)
    #: the size in bytes of each of ``files``
    sizes: dict[str, int] = field(default_factory=dict)


@dataclass
class PushResult(ExportResult):
    """What a push uploaded (or, in a dry run, would upload) and where."""

    url: str = ""
    commit_message: str = ""
    #: what the commit deletes: every repo file matching one that the commit does not upload
    delete_patterns: list[str] = field(default_factory=list)
    #: the repo files the commit deleted; ``None`` in a dry run, which does not list the repo
    deletions: list[str] | None = None


def _shard_count(dataset, max_shard_size: int | str) -> int:
    """Shards of at most ``max_shard_size`` bytes each, but never more shards than rows (each holds one
    row at least; one shard for an empty split)."""
    from datasets.utils.py_utils import convert_file_size_to_int

    by_size = int(dataset.data.nbytes / convert_file_size_to_int(max_shard_size)) + 1
    return max(1, min(by_size, len(dataset)))


def rows_per_row_group(dataset, max_bytes: int | str | None = None, max_rows: int | None = None) -> int:
    """The most rows per row group (at most ``max_rows``, default ``ROW_GROUP_ROWS``) for which every
    group ``to_parquet`` writes of ``dataset`` (rows ``[0, n)``, ``[n, 2n)``, ...) holds at most
    ``max_bytes`` (default ``ROW_GROUP_BYTES``) of Arrow data; 1 when a single row is larger (a row is
    never split)."""
    from datasets.utils.py_utils import convert_file_size_to_int

    cap = convert_file_size_to_int(ROW_GROUP_BYTES if max_bytes is None else max_bytes)
    table = dataset.with_format("arrow")
    rows = max(1, min(ROW_GROUP_ROWS if max_rows is None else max_rows, len(dataset)))
    while rows > 1:
        largest = max(table[start : start + rows].nbytes for start in range(0, len(dataset), rows))
        if largest <= cap:
            break
        rows = max(1, min(rows - 1, rows * cap // largest))
    return rows


def write_parquet(dataset, path: str) -> None:
    """``dataset`` as one Parquet file (``Dataset.to_parquet``) in row groups capped by rows and bytes
    (:func:`rows_per_row_group`), so the Hub's viewer can read any of them."""
    dataset.to_parquet(path, batch_size=rows_per_row_group(dataset))


def check_max_shard_size(max_shard_size: int | str) -> None:
    """Refuse a shard size ``datasets`` cannot read (``"500MB"``, ``"1GiB"``, a number of bytes) or
    that is not positive, before anything is built."""
    from datasets.utils.py_utils import convert_file_size_to_int

    try:
        size = convert_file_size_to_int(max_shard_size)
    except (TypeError, ValueError):
        size = None
    if isinstance(max_shard_size, bool) or not isinstance(size, int) or size < 1:
        raise OptionError(
            f"max_shard_size (--max-shard-size) must be a size such as 500MB or 1GiB, got {max_shard_size!r}"
        )


def tokenizer_label(name: str) -> str:
    """A tokenizer's name fit for a public card: a local path shows only its last components."""
    if os.path.isabs(name) or os.path.exists(name):
        parts = os.path.normpath(name).split(os.sep)
        return "/".join(parts[-2:]) if parts[-1] == "tokenizer.json" else parts[-1]
    return name


def _resolve(configs: Iterable[str]) -> tuple[str, list[str]]:
    names = list(dict.fromkeys(configs))
    if not names:
        raise UnknownNameError("name at least one config to export")
    resolved = [registry.resolve(name) for name in names]
    benchmarks = sorted({bench for bench, _ in resolved})
    if len(benchmarks) > 1:
        raise SuiteError(
            f"the configs belong to {', '.join(benchmarks)}; one export directory (Hub repo) holds one "
            "benchmark, so export each benchmark's configs into its own"
        )
    return benchmarks[0], list(dict.fromkeys(config for _, config in resolved))


def _sample_scale(builder) -> str | None:
    """The scale of the sample data ``builder`` reads, when its mirror is a sample mirror (a manifest)."""
    mirror = builder.config.mirror if builder.config.mirror is not None else os.environ.get(MIRROR_ENV)
    manifest = None if builder.config.data_dir else read_manifest(mirror)
    return manifest.scale if manifest is not None else None


def _write_config(directory: str, builder, splits, max_shard_size) -> tuple[dict, object, cards.ConfigCounts]:
    """Write one config's Parquet shards and token counts into ``directory/<config>`` (a fresh folder of
    the export's staging folder); returns its YAML entry, info and counts."""
    import datasets

    config = builder.config.name
    folder = os.path.join(directory, config)
    os.makedirs(folder)
    data_files, split_infos, counts, rows = [], [], {}, {}
    download_size = 0
    for split in (*SPLITS, *HOLDOUT_SPLITS):
        if split not in splits:
            continue
        dataset = splits[split]
        shards = _shard_count(dataset, max_shard_size)
        for index in range(shards):
            path = os.path.join(folder, f"{split}-{index:05d}-of-{shards:05d}.parquet")
            write_parquet(dataset.shard(shards, index, contiguous=True), path)
            download_size += os.path.getsize(path)
        data_files.append({"split": split, "path": f"{config}/{split}-*"})
        split_infos.append(
            datasets.SplitInfo(name=split, num_bytes=dataset.data.nbytes, num_examples=len(dataset))
        )
        counts[split] = dataset["input_tokens"]
        rows[split] = len(dataset)
    # The rows carry their token counts under the build's tokenizer; a build that loaded none (LV-Eval
    # without max_input_tokens) has none to report, and none is loaded for the card: its statistics
    # give the rows only, and say why.
    counted_splits = {s: c for s, c in counts.items() if None not in c}
    tokenizer = builder.loaded_tokenizer
    counted = cards.ConfigCounts(
        config,
        tokenizer_label(tokenizer.name) if tokenizer else "none",
        tokenizer.identity if tokenizer else "-",
        counted_splits,
        builder.config.max_input_tokens,
        rows=rows,
        chat_template=builder.chat_template.identity if builder.chat_template else None,
        generated=builder.config.task.generated_facts(
            builder.config.length,
            builder.config.generate,
            chat_template=builder.chat_template.identity if builder.chat_template else None,
            sources_read=builder.info.download_checksums,
        ),
        sample_scale=_sample_scale(builder),
    )
    counted.write(os.path.join(folder, cards.TOKEN_COUNTS))
    info = datasets.DatasetInfo(
        features=next(iter(splits.values())).features,
        splits=datasets.SplitDict({s.name: s for s in split_infos}),
        download_size=download_size,
        dataset_size=sum(s.num_bytes for s in split_infos),
    )
    return {"data_files": data_files}, info, counted


#: the files an export writes into a config's folder (the folder is replaced whole on re-export)
_EXPORT_FILE = re.compile(
    rf"({'|'.join((*SPLITS, *HOLDOUT_SPLITS))})-\d{{5}}-of-\d{{5}}\.parquet|{re.escape(cards.TOKEN_COUNTS)}"
)


def _refuse_foreign_files(output_dir: str, configs: Sequence[str]) -> None:
    """A config folder about to be replaced may hold only what an export writes: never drop a user's file."""
    for config in configs:
        folder = os.path.join(output_dir, config)
        names = []
        for root, _dirs, files in os.walk(folder):
            names += [os.path.relpath(os.path.join(root, name), folder) for name in files]
        _refuse_foreign_names(folder, names)


def _refuse_foreign_names(folder: str, names: Sequence[str]) -> None:
    """``names`` (relative to ``folder``) must all be files an export writes into a config folder."""
    for name in sorted(names):
        if not _EXPORT_FILE.fullmatch(name):
            raise OptionError(
                f"export would replace {folder} whole, and {folder}/{name} is not a file an export "
                "writes; move it out of the folder first"
            )


def export(
    configs: Sequence[str],
    output_dir: str,
    *,
    options: BuildOptions | None = None,
    max_shard_size: int | str = DEFAULT_MAX_SHARD_SIZE,
    histogram: bool = True,
    repo_id: str | None = None,
    holdout_fraction: float | None = None,
    num_proc: int | None = None,
    engine: str = "local",
    address: str | None = None,
    **build_options,
) -> ExportResult:
    """Build ``configs`` (of one benchmark) and write them into ``output_dir`` in the Hub layout.

    The build options are ``options=BuildOptions(...)`` and/or its fields as keywords (a keyword
    replaces that field), as for :func:`longbench_suite.get_builder`. ``output_dir`` is a local folder
    or any fsspec URL (``s3://``, ``gs://``, ``hf://``; :mod:`.remote`). ``max_shard_size`` caps each Parquet
    file's uncompressed size; ``histogram=False`` skips the PNG (no matplotlib needed); ``repo_id``
    names the repo in the card's usage example. ``holdout_fraction`` also writes the two sides of the
    stable hold-out of ``dev`` (:mod:`longbench_suite.training.holdout`) as the splits ``train`` and
    ``validation``. ``num_proc`` builds each config in that many processes (the same rows).
    ``engine="ray"`` builds every shard of every config as a task on the Ray cluster at ``address``
    (default: the one this process is connected to, else ``ray.init``'s choice;
    :mod:`longbench_suite.distributed`),
    and writes the same files.
    """
    return _export(
        configs,
        output_dir,
        max_shard_size=max_shard_size,
        histogram=histogram,
        repo_id=repo_id,
        holdout_fraction=holdout_fraction,
        num_proc=num_proc,
        engine=engine,
        address=address,
        options=BuildOptions.of(options, **build_options),
    )


def _export(
    configs: Sequence[str],
    output_dir: str,
    *,
    max_shard_size: int | str = DEFAULT_MAX_SHARD_SIZE,
    histogram: bool = True,
    repo_id: str | None = None,
    holdout_fraction: float | None = None,
    num_proc: int | None = None,
    engine: str = "local",
    address: str | None = None,
    hub_card: str | None = None,
    before_move: Callable[[str, ExportResult], None] | None = None,
    options: BuildOptions,
) -> ExportResult:
    """:func:`export`, and for :func:`push`: ``hub_card``, a folder holding the repo's card and token
    counts, is merged into the export; ``before_move(stage, result)`` runs on the complete staging
    folder, so the output folder changes only if it returns (a failed upload leaves it as it was).
    ``options`` are the build options."""
    from .. import distributed

    benchmark, names = _resolve(configs)
    api.check_num_proc(num_proc)
    check_max_shard_size(max_shard_size)
    if holdout_fraction is not None:
        check_holdout_options(None, holdout_fraction)
    distributed.check_engine(engine, address, num_proc)
    target = remote.remote_target(output_dir)
    if target is not None:
        with remote.staged_upload(*target, output_dir, names, _refuse_foreign_names) as folder:
            result = _export(
                configs,
                folder,
                max_shard_size=max_shard_size,
                histogram=histogram,
                repo_id=repo_id,
                holdout_fraction=holdout_fraction,
                num_proc=num_proc,
                engine=engine,
                address=address,
                hub_card=hub_card,
                before_move=before_move,
                options=options,
            )
        result.directory = output_dir
        return result
    output_dir = remote.local_path(output_dir)
    if os.path.exists(output_dir) and not os.path.isdir(output_dir):
        raise OptionError(f"export --output {output_dir} is a file; name a folder")
    staging.check_writable(output_dir, "export --output")
    existing = cards.card_benchmark(output_dir) if os.path.isdir(output_dir) else None
    if existing not in (None, benchmark):
        raise SuiteError(
            f"{output_dir} holds configs of {existing!r}; export {benchmark!r} configs into another "
            "directory (one directory or Hub repo per benchmark)"
        )
    if histogram:
        cards.require_matplotlib()
    qualified = [f"{benchmark}/{name}" for name in names]
    if engine == "ray":
        distributed.prepare(qualified, options, address=address)
    builders = [api.get_builder(name, options=options) for name in qualified]
    api.prepare(builders, num_proc=num_proc)
    result = ExportResult(os.path.abspath(output_dir), benchmark, names)
    configs_yaml, infos = {}, {}
    _refuse_foreign_files(output_dir, names)
    with staging.staged(output_dir, leave_out=tuple(names)) as stage:
        if hub_card is not None:
            _take_hub_counts(hub_card, stage, names)
        for builder in builders:
            splits = api.prepared(builder, None)
            if holdout_fraction is not None and "dev" in splits:
                splits = dict(splits)
                key = builder.config.task.holdout_key
                for side, name in zip(("train", "valid"), HOLDOUT_SPLITS, strict=True):
                    splits[name] = holdout(splits["dev"], side, holdout_fraction, key)
            entry, info, counted = _write_config(stage, builder, splits, max_shard_size)
            name = builder.config.name
            configs_yaml[name], infos[name] = entry, info
            result.stats += counted.stats()
            result.files += sorted(f"{name}/{f}" for f in os.listdir(os.path.join(stage, name)))
        order = registry.benchmark(benchmark).config_names
        hub_readme = os.path.join(hub_card, cards.README) if hub_card is not None else None
        result.files += cards.write_card(
            stage,
            benchmark,
            order,
            configs_yaml,
            infos,
            histogram=histogram,
            repo=repo_id,
            keep_from=[hub_readme] if hub_readme and os.path.isfile(hub_readme) else [],
        )
        result.sizes = {f: os.path.getsize(os.path.join(stage, *f.split("/"))) for f in result.files}
        if before_move is not None:
            before_move(stage, result)
    return result


def _take_hub_counts(hub_card: str, stage: str, exported: Sequence[str]) -> None:
    """Put the repo's token counts of configs this push does not export into the staging folder, so
    the card's statistics keep them; a config folder of the output folder keeps its own (its files
    are uploaded with it)."""
    for config in sorted(os.listdir(hub_card)):
        counts = os.path.join(hub_card, config, cards.TOKEN_COUNTS)
        target = os.path.join(stage, config, cards.TOKEN_COUNTS)
        if config in exported or not os.path.isfile(counts) or os.path.exists(target):
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(counts, target)


def _fetch_card_files(hub, repo_id: str, revision: str | None, folder: str, scratch: str) -> list[str]:
    """Copy the repo's card and token counts into ``folder``, so the new card keeps every config;
    returns the repo's files."""
    os.makedirs(folder, exist_ok=True)
    listed = list(hub.list_repo_files(repo_id, repo_type="dataset", revision=revision))
    for path in listed:
        parts = path.split("/")
        if path == cards.README or (len(parts) == 2 and parts[1] == cards.TOKEN_COUNTS):
            local = hub.hf_hub_download(
                repo_id, path, repo_type="dataset", revision=revision, cache_dir=scratch
            )
            target = os.path.join(folder, *parts)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(local, target)
    return listed


def check_repo_id(repo_id: str) -> None:
    """Refuse a repo id the Hub would refuse, by ``huggingface_hub``'s own rules, before any build."""
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        raise OptionError(f"repo id {repo_id!r} (--repo-id) is not a Hub repo id: {exc}") from None


def repo_url(repo_id: str) -> str:
    """The repo's page on the Hub this process talks to (``HF_ENDPOINT``, else huggingface.co)."""
    from huggingface_hub import constants

    return f"{constants.ENDPOINT.rstrip('/')}/datasets/{repo_id}"


def push(
    configs: Sequence[str],
    repo_id: str,
    *,
    private: bool | None = None,
    revision: str | None = None,
    token: str | None = None,
    commit_message: str | None = None,
    dry_run: bool = False,
    output_dir: str | None = None,
    options: BuildOptions | None = None,
    **export_options,
) -> PushResult:
    """Export ``configs`` and upload them to the Hub dataset repo ``repo_id`` in one commit.

    The repo (and branch ``revision``) is created when missing. Its card and token counts are fetched
    first, so configs already in the repo stay listed; the pushed configs' old files are deleted in the
    same commit (``delete_patterns``: every file under ``<config>/`` that the commit does not upload).
    ``token`` defaults to ``HF_TOKEN`` / the saved login and is only handed to ``huggingface_hub``.
    ``dry_run`` checks the repo id and exports (into ``output_dir`` or a temporary directory) without
    contacting the Hub, so the files it lists are those of the pushed configs and a card of those
    alone, and the deletions are the patterns (the repo's files are not listed); ``output_dir`` keeps
    the uploaded folder. Other options are :func:`export`'s (the build options: ``options=`` and/or its
    fields as keywords).
    """
    build, export_options = split_keywords(export_options)
    options = BuildOptions.of(options, **build)
    check_repo_id(repo_id)
    benchmark, names = _resolve(configs)  # fail on bad names before touching the Hub
    message = commit_message or f"Add {', '.join(names)} ({benchmark}, longbench-suite {__version__})"
    patterns = [f"{config}/*" for config in names]
    with tempfile.TemporaryDirectory(prefix="longbench-suite-push-") as scratch:
        folder = output_dir or os.path.join(scratch, "repo")
        if dry_run:
            result = export(configs, folder, repo_id=repo_id, options=options, **export_options)
            return PushResult(
                **vars(result), url=repo_url(repo_id), commit_message=message, delete_patterns=patterns
            )
        hub = HfApi(token=token)
        hub_card = os.path.join(scratch, "hub-card")
        with _naming_the_hub(token):
            hub.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
            if revision:
                hub.create_branch(repo_id, repo_type="dataset", branch=revision, exist_ok=True)
            # The repo's card files go to the scratch folder, never into the output folder: the export
            # merges them into its staging folder, which replaces the output folder once uploaded.
            listed = _fetch_card_files(hub, repo_id, revision, hub_card, os.path.join(scratch, "hub-cache"))
        _check_hub_card(hub_card, repo_id, benchmark)
        deletions: list[str] = []

        def upload(stage: str, result: ExportResult) -> None:
            _uploads(result, stage)
            deletions.extend(
                f for f in listed if f not in result.sizes and any(fnmatch.fnmatch(f, p) for p in patterns)
            )
            with _naming_the_hub(token):
                hub.upload_folder(
                    repo_id=repo_id,
                    repo_type="dataset",
                    folder_path=stage,
                    revision=revision,
                    commit_message=message,
                    allow_patterns=list(result.sizes),  # what the export wrote: never a user's own file
                    delete_patterns=patterns,
                )

        result = _export(
            configs,
            folder,
            repo_id=repo_id,
            hub_card=hub_card,
            before_move=upload,
            options=options,
            **export_options,
        )
        return PushResult(
            **vars(result),
            url=repo_url(repo_id),
            commit_message=message,
            delete_patterns=patterns,
            deletions=deletions,
        )


@contextlib.contextmanager
def _naming_the_hub(token: str | None) -> Iterator[None]:
    """A connection that fails (refused, reset, timed out, no name resolution) is one line naming the Hub
    it went to; the Hub's own replies (401, 404, …) pass unchanged."""
    from huggingface_hub import constants

    try:
        yield
    except Exception as exc:
        # by the names huggingface_hub's HTTP clients give them: httpx's (and its successor's)
        # TransportError, requests' ConnectionError and Timeout, and the built-in ones
        failed = {c.__name__ for c in type(exc).__mro__} & {
            "TransportError", "ConnectionError", "Timeout", "TimeoutError"
        }
        if not failed or isinstance(exc, SuiteError):
            raise
        endpoint = constants.ENDPOINT.rstrip("/")
        text = describe(exc).replace(token, "***") if token else describe(exc)
        raise SourceUnavailableError(f"cannot reach the Hub at {endpoint} (HF_ENDPOINT): {text}") from None


def _check_hub_card(hub_card: str, repo_id: str, benchmark: str) -> None:
    """The repo's card, where it has one, must be a longbench-suite card of the same benchmark."""
    try:
        existing = cards.card_benchmark(hub_card)
    except SuiteError:
        raise SuiteError(
            f"the README.md of {repo_id} was not written by longbench-suite; push into another repo"
        ) from None
    if existing not in (None, benchmark):
        raise SuiteError(
            f"{repo_id} holds configs of {existing!r}; push {benchmark!r} configs into another repo "
            "(one Hub repo per benchmark)"
        )


def _uploads(result: ExportResult, folder: str) -> None:
    """Narrow ``result``'s ``files``/``sizes`` to what ``upload_folder`` sends from ``folder``: the files
    the export wrote (not a user's own file in the output folder, nor the repo's other configs' token
    counts, already on the Hub) but those ``huggingface_hub`` never commits."""
    from huggingface_hub.utils import DEFAULT_IGNORE_PATTERNS, filter_repo_objects

    kept = filter_repo_objects(list(result.files), ignore_patterns=DEFAULT_IGNORE_PATTERNS)
    sizes = {f: os.path.getsize(os.path.join(folder, *f.split("/"))) for f in sorted(kept)}
    result.files, result.sizes = list(sizes), sizes
