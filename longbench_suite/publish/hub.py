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
error. Exporting into a directory merges: the configs already there stay; a re-exported config's files
are written aside and moved into place, and only the files an export recorded in ``MANIFEST`` are
ever deleted (a file of the user's in a config's folder stays; one that would be overwritten, or read
as rows, is an error).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from huggingface_hub import HfApi

from .. import api, registry
from .._version import __version__
from ..errors import OptionError, SuiteError, UnknownNameError
from ..task import SPLITS
from ..training.holdout import holdout
from . import card as cards
from .stats import SplitStats

#: what an export wrote into its folder, by config: all an export ever deletes there
MANIFEST = ".longbench_suite_export.json"
#: the splits an export with a hold-out adds: the two sides of ``dev``
HOLDOUT_SPLITS = ("train", "validation")

DEFAULT_MAX_SHARD_SIZE = "500MB"
#: rows per Parquet row group: a 128k-token prompt is ~0.5 MB, and streaming reads a group at a time
ROW_GROUP_ROWS = 64


@dataclass
class ExportResult:
    """What an export (or push) wrote, relative to ``directory``."""

    directory: str
    benchmark: str
    configs: list[str]
    files: list[str] = field(default_factory=list)
    stats: list[SplitStats] = field(default_factory=list)


def _shard_count(dataset, max_shard_size: int | str) -> int:
    from datasets.utils.py_utils import convert_file_size_to_int

    return int(dataset.data.nbytes / convert_file_size_to_int(max_shard_size)) + 1


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


def _write_config(
    directory: str, builder, splits, max_shard_size, owned: Iterable[str] = ()
) -> tuple[dict, object, cards.ConfigCounts, list[str]]:
    """Write one config's Parquet shards and token counts (aside, then moved into place; ``owned``:
    the files an earlier export wrote there); returns its YAML entry, info, counts and files."""
    import datasets

    config = builder.config.name
    staging = os.path.join(directory, f".{config}.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    try:
        data_files, split_infos, counts, rows = [], [], {}, {}
        download_size = 0
        for split in (*SPLITS, *HOLDOUT_SPLITS):
            if split not in splits:
                continue
            dataset = splits[split]
            shards = _shard_count(dataset, max_shard_size)
            for index in range(shards):
                path = os.path.join(staging, f"{split}-{index:05d}-of-{shards:05d}.parquet")
                dataset.shard(shards, index, contiguous=True).to_parquet(path, batch_size=ROW_GROUP_ROWS)
                download_size += os.path.getsize(path)
            data_files.append({"split": split, "path": f"{config}/{split}-*"})
            split_infos.append(
                datasets.SplitInfo(name=split, num_bytes=dataset.data.nbytes, num_examples=len(dataset))
            )
            counts[split] = dataset["input_tokens"]
            rows[split] = len(dataset)
        # The rows carry their token counts under the build's tokenizer; a build that loaded none (LV-Eval
        # without max_input_tokens) has none to report, and none is loaded for the card.
        counted_splits = {s: c for s, c in counts.items() if None not in c}
        tokenizer = builder._tokenizer
        counted = cards.ConfigCounts(
            config,
            tokenizer_label(tokenizer.name) if tokenizer else "none",
            tokenizer.identity if tokenizer else "-",
            counted_splits,
            builder.config.max_input_tokens,
            rows=rows,
        )
        counted.write(os.path.join(staging, cards.TOKEN_COUNTS))
        placed = _place(staging, os.path.join(directory, config), set(owned))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    info = datasets.DatasetInfo(
        features=next(iter(splits.values())).features,
        splits=datasets.SplitDict({s.name: s for s in split_infos}),
        download_size=download_size,
        dataset_size=sum(s.num_bytes for s in split_infos),
    )
    return {"data_files": data_files}, info, counted, placed


def _read_manifest(directory: str) -> dict[str, list[str]]:
    """What earlier exports wrote into ``directory``, by config (:data:`MANIFEST`)."""
    path = os.path.join(directory, MANIFEST)
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _write_manifest(directory: str, manifest: dict[str, list[str]]) -> None:
    path = os.path.join(directory, MANIFEST)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    os.replace(path + ".tmp", path)


def _data_file(name: str) -> bool:
    """A file the card's ``data_files`` patterns (``<config>/<split>-*``) would read as rows."""
    return any(name.startswith(f"{split}-") for split in (*SPLITS, *HOLDOUT_SPLITS))


def _place(staging: str, final: str, owned: set[str]) -> list[str]:
    """Move a config's new files from ``staging`` into ``final``; delete only the files an earlier
    export wrote there (``owned``), never another file, and refuse to overwrite one or to leave one
    that loaders would read as rows."""
    new = sorted(os.listdir(staging))
    if not os.path.exists(final):
        os.replace(staging, final)
        return new
    if not os.path.isdir(final):
        raise SuiteError(f"{final} is a file, not an exported config's folder; move it away")
    strangers = [f for f in sorted(set(os.listdir(final)) - owned) if f in new or _data_file(f)]
    if strangers:
        fate = "overwritten" if strangers[0] in new else "read as rows of the config"
        raise SuiteError(
            f"{os.path.join(final, strangers[0])} was not written by an export (not in {MANIFEST}) and would "
            f"be {fate}; move it away or export into another folder"
        )
    for name in new:
        os.replace(os.path.join(staging, name), os.path.join(final, name))
    for name in owned - set(new):
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(final, name))
    return new


def export(
    configs: Sequence[str],
    output_dir: str,
    *,
    tokenizer=None,
    mirror: str | None = None,
    data_dir: str | None = None,
    cache_dir: str | None = None,
    max_input_tokens: int | None = None,
    pretruncation_tokenizer=None,
    max_shard_size: int | str = DEFAULT_MAX_SHARD_SIZE,
    histogram: bool = True,
    repo_id: str | None = None,
    holdout_fraction: float | None = None,
    num_proc: int | None = None,
) -> ExportResult:
    """Build ``configs`` (of one benchmark) and write them into ``output_dir`` in the Hub layout.

    Build options are :func:`longbench_suite.load_dataset`'s. ``max_shard_size`` caps each Parquet
    file's uncompressed size; ``histogram=False`` skips the PNG (no matplotlib needed); ``repo_id``
    names the repo in the card's usage example. ``holdout_fraction`` also writes the two sides of the
    stable hold-out of ``dev`` (:mod:`longbench_suite.training.holdout`) as the splits ``train`` and
    ``validation``. ``num_proc`` builds each config in that many processes (the same rows).
    """
    benchmark, names = _resolve(configs)
    api.check_num_proc(num_proc)
    if os.path.exists(output_dir) and not os.path.isdir(output_dir):
        raise OptionError(f"export --output {output_dir} is a file; name a folder")
    os.makedirs(output_dir, exist_ok=True)
    existing = cards.card_benchmark(output_dir)
    if existing not in (None, benchmark):
        raise SuiteError(
            f"{output_dir} holds configs of {existing!r}; export {benchmark!r} configs into another "
            "directory (one directory or Hub repo per benchmark)"
        )
    if histogram:
        cards.require_matplotlib()
    options = dict(
        tokenizer=tokenizer,
        mirror=mirror,
        data_dir=data_dir,
        cache_dir=cache_dir,
        max_input_tokens=max_input_tokens,
        pretruncation_tokenizer=pretruncation_tokenizer,
    )
    builders = [api.get_builder(f"{benchmark}/{name}", **options) for name in names]
    api.prepare(builders, num_proc=num_proc)
    result = ExportResult(os.path.abspath(output_dir), benchmark, names)
    configs_yaml, infos = {}, {}
    for builder in builders:
        splits = api.prepared(builder, None)
        if holdout_fraction is not None and "dev" in splits:
            splits = dict(splits)
            key = builder.config.task.holdout_key
            for side, name in zip(("train", "valid"), HOLDOUT_SPLITS, strict=True):
                splits[name] = holdout(splits["dev"], side, holdout_fraction, key)
        name = builder.config.name
        manifest = _read_manifest(output_dir)
        entry, info, counted, placed = _write_config(
            output_dir, builder, splits, max_shard_size, manifest.get(name, ())
        )
        _write_manifest(output_dir, {**manifest, name: placed})
        configs_yaml[name], infos[name] = entry, info
        result.stats += counted.stats()
        result.files += [f"{name}/{f}" for f in placed]
    order = registry.benchmark(benchmark).config_names
    result.files += cards.write_card(
        output_dir, benchmark, order, configs_yaml, infos, histogram=histogram, repo=repo_id
    )
    return result


def _fetch_card_files(hub, repo_id: str, revision: str | None, folder: str, scratch: str) -> None:
    """Copy the repo's card and token counts into ``folder``, so the new card keeps every config."""
    os.makedirs(folder, exist_ok=True)
    fetched: dict[str, list[str]] = {}
    for path in hub.list_repo_files(repo_id, repo_type="dataset", revision=revision):
        parts = path.split("/")
        if path == cards.README or (len(parts) == 2 and parts[1] == cards.TOKEN_COUNTS):
            local = hub.hf_hub_download(
                repo_id, path, repo_type="dataset", revision=revision, cache_dir=scratch
            )
            target = os.path.join(folder, *parts)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(local, target)
            if len(parts) == 2:
                fetched.setdefault(parts[0], []).append(parts[1])
    # What push fetched, an export may replace: the manifest says these files are an export's.
    manifest = _read_manifest(folder)
    for config, names in fetched.items():
        manifest[config] = sorted({*manifest.get(config, ()), *names})
    if fetched:
        _write_manifest(folder, manifest)


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
    **options,
) -> ExportResult:
    """Export ``configs`` and upload them to the Hub dataset repo ``repo_id`` in one commit.

    The repo (and branch ``revision``) is created when missing. Its card and token counts are fetched
    first, so configs already in the repo stay listed; the pushed configs' old files are deleted in the
    same commit. ``token`` defaults to ``HF_TOKEN`` / the saved login and is only handed to
    ``huggingface_hub``. ``dry_run`` exports (into ``output_dir`` or a temporary directory) without
    contacting the Hub; ``output_dir`` keeps the uploaded folder. Other options are :func:`export`'s.
    """
    with tempfile.TemporaryDirectory(prefix="longbench-suite-push-") as scratch:
        folder = output_dir or os.path.join(scratch, "repo")
        if dry_run:
            return export(configs, folder, repo_id=repo_id, **options)
        _resolve(configs)  # fail on bad names before touching the Hub
        hub = HfApi(token=token)
        hub.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        if revision:
            hub.create_branch(repo_id, repo_type="dataset", branch=revision, exist_ok=True)
        _fetch_card_files(hub, repo_id, revision, folder, os.path.join(scratch, "hub-cache"))
        result = export(configs, folder, repo_id=repo_id, **options)
        hub.upload_folder(
            repo_id=repo_id,
            repo_type="dataset",
            folder_path=folder,
            revision=revision,
            commit_message=commit_message
            or f"Add {', '.join(result.configs)} ({result.benchmark}, longbench-suite {__version__})",
            delete_patterns=[f"{config}/*" for config in result.configs],
            ignore_patterns=[MANIFEST],
        )
        return result
