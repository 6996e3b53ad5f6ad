"""A build's cache identity covers every file that can change a row: the core's and the benchmark
folder's, code and data files alike (``docs/architecture.md`` §5)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import longbench_suite
from longbench_suite import builder, get_builder

PACKAGE = Path(longbench_suite.__file__).resolve().parent


@pytest.fixture
def package_copy(tmp_path) -> Path:
    copy = tmp_path / "longbench_suite"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _hash(copy: Path, bench: str) -> str:
    builder.code_hash.cache_clear()
    return builder.code_hash(str(copy / "benchmarks" / bench), str(copy))


@pytest.mark.parametrize(
    ("edited", "bench"),
    [
        ("benchmarks/longbench/tasks.json", "longbench"),  # max_new_tokens, chat mode: data, not code
        ("benchmarks/longbench/metrics.py", "longbench"),
        ("benchmarks/helmet/judge_prompts.json", "helmet"),
        ("benchmarks/helmet/card.md", "helmet"),
        ("row.py", "lveval"),  # the core
        ("metrics/base.py", "adaleval"),
    ],
)
def test_editing_any_file_of_the_core_or_the_benchmark_changes_the_hash(package_copy, edited, bench):
    before = _hash(package_copy, bench)
    assert _hash(package_copy, bench) == before  # stable
    with open(package_copy / edited, "a", encoding="utf-8") as f:
        f.write("\n")
    assert _hash(package_copy, bench) != before


def test_another_benchmarks_files_do_not_change_the_hash(package_copy):
    before = _hash(package_copy, "lveval")
    with open(package_copy / "benchmarks" / "longbench" / "tasks.json", "a", encoding="utf-8") as f:
        f.write("\n")
    assert _hash(package_copy, "lveval") == before


def test_an_edited_task_file_gets_a_new_cache_entry(
    package_copy, monkeypatch, demo_mirror, tiny_tokenizer, tmp_path
):
    real = builder.code_hash.__wrapped__

    def hash_of_the_copy(benchmark_dir: str, core_dir: str = "") -> str:
        return real(str(package_copy / "benchmarks" / Path(benchmark_dir).name), str(package_copy))

    monkeypatch.setattr(builder, "code_hash", hash_of_the_copy)
    options = dict(mirror=demo_mirror, tokenizer=tiny_tokenizer, cache_dir=str(tmp_path / "cache"))
    first = get_builder("longbench/qasper_4k", **options)
    first.download_and_prepare()
    assert get_builder("longbench/qasper_4k", **options).cache_dir == first.cache_dir  # reused
    tasks = package_copy / "benchmarks" / "longbench" / "tasks.json"
    tasks.write_text(
        tasks.read_text(encoding="utf-8").replace('"max_new_tokens": 128', '"max_new_tokens": 129')
    )
    edited = get_builder("longbench/qasper_4k", **options)
    assert edited.cache_dir != first.cache_dir  # the old build is not served for the edited task table


@pytest.mark.parametrize("where", ["mirror", "data_dir"])
def test_an_edited_local_source_file_rebuilds(where, demo_mirror, cl100k, tmp_path):
    """A local mirror or ``data_dir`` file is keyed by size and mtime, as ``datasets`` keys local data
    files: restoring a half-written file rebuilds, instead of serving the half-built rows again."""
    from longbench_suite import load_dataset
    from longbench_suite.benchmarks.adaleval.common import BASE_URL
    from longbench_suite.source import mirrored
    from longbench_suite.source.samples import RECORDS_NAME

    mirror = tmp_path / "mirror"
    shutil.copytree(demo_mirror, mirror)
    # As a user's mirror of Ada-LEval: no record count is known (the samples' declaration would
    # refuse the half-written file as short, before the cache identity is ever at stake)
    (mirror / RECORDS_NAME).unlink()
    source = Path(mirrored(f"{BASE_URL}/stackselect_1k.json", str(mirror)))
    option = {"mirror": str(mirror)} if where == "mirror" else {"data_dir": str(source.parent)}
    good = source.read_bytes()
    records = json.loads(good)
    source.write_text(json.dumps(records[: len(records) // 2]))  # a half-written file
    cache = str(tmp_path / "cache")
    half = load_dataset("adaleval", "bestanswer_1k", split="eval", cache_dir=cache, **option)
    source.write_bytes(good)
    again = load_dataset("adaleval", "bestanswer_1k", split="eval", cache_dir=cache, **option)
    assert (
        len(half)
        < len(again)
        == len(
            load_dataset(
                "adaleval", "bestanswer_1k", split="eval", cache_dir=str(tmp_path / "fresh"), **option
            )
        )
    )
