"""Determinism: the same inputs give byte-identical Parquet, streamed or prepared, wherever it is built.

For every registered benchmark, its demo configs are built from the sample mirror twice — other cache
directory, other working directory, and once in another process with another ``PYTHONHASHSEED`` (so
no set or dict order of strings can leak into row order) — and the Parquet bytes of every split must
be equal; streamed rows must equal prepared rows.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from longbench_suite import load_dataset, registry

BENCHMARKS = registry.benchmark_names()


def _demo_configs(bench: str) -> tuple[str, ...]:
    return registry.samples(bench).DEMO_CONFIGS


def _parquet(bench: str, config: str, out_dir, **options) -> dict[str, bytes]:
    built = load_dataset(bench, config, **options)
    files = {}
    for split, dataset in built.items():
        path = os.path.join(str(out_dir), f"{bench}-{config}-{split}.parquet")
        dataset.to_parquet(path)
        with open(path, "rb") as f:
            files[split] = f.read()
    return files


# Builds every demo config in a fresh process and writes each split's Parquet export.
CHILD = textwrap.dedent(
    """
    import importlib, os, sys
    from longbench_suite import load_dataset, registry

    mirror, tokenizer, cache, out = sys.argv[1:]
    for bench in registry.benchmark_names():
        samples = registry.samples(bench)
        for config in samples.DEMO_CONFIGS:
            for split, dataset in load_dataset(
                bench, config, mirror=mirror, tokenizer=tokenizer, pretruncation_tokenizer=tokenizer,
                cache_dir=cache,
            ).items():
                dataset.to_parquet(os.path.join(out, f"{bench}-{config}-{split}.parquet"))
    """
)


@pytest.fixture(scope="module")
def other_process_exports(demo_mirror, tiny_tokenizer, cl100k, tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("exports-other-process")
    cache = tmp_path_factory.mktemp("cache-other-process")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    result = subprocess.run(
        [sys.executable, "-c", CHILD, demo_mirror, tiny_tokenizer, str(cache), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return str(out)


@pytest.mark.parametrize("bench", BENCHMARKS)
@pytest.mark.slow
def test_builds_are_byte_identical_across_caches_directories_and_processes(
    bench, demo_mirror, tiny_tokenizer, other_process_exports, tmp_path, monkeypatch
):
    (tmp_path / "here").mkdir()
    (tmp_path / "there").mkdir()
    for config in _demo_configs(bench):
        options = dict(mirror=demo_mirror, tokenizer=tiny_tokenizer, pretruncation_tokenizer=tiny_tokenizer)
        monkeypatch.chdir(tmp_path / "here")
        first = _parquet(bench, config, tmp_path, cache_dir=str(tmp_path / "a"), **options)
        monkeypatch.chdir(tmp_path / "there")
        second = _parquet(bench, config, tmp_path / "there", cache_dir="relative-cache", **options)
        assert first == second, config
        for split, data in first.items():
            with open(os.path.join(other_process_exports, f"{bench}-{config}-{split}.parquet"), "rb") as f:
                assert f.read() == data, f"{config} {split} differs when built in another process"


@pytest.mark.parametrize("bench", BENCHMARKS)
@pytest.mark.slow
def test_streamed_rows_equal_prepared_rows(bench, demo_mirror, tiny_tokenizer, tmp_path):
    for config in _demo_configs(bench):
        options = dict(
            mirror=demo_mirror,
            tokenizer=tiny_tokenizer,
            pretruncation_tokenizer=tiny_tokenizer,
            cache_dir=str(tmp_path / "c"),
        )
        prepared = load_dataset(bench, config, **options)
        for split, dataset in prepared.items():
            streamed = load_dataset(bench, config, split=split, streaming=True, **options)
            assert list(streamed) == dataset.to_list(), (config, split)


def _lveval_mirror(root, question: str) -> None:
    from longbench_suite.benchmarks.lveval import common, samples
    from longbench_suite.samplefiles import jsonl_bytes, write_to_mirror, zip_bytes

    task = registry.benchmark("lveval").lookup("factrecall_en_16k")[0]
    members = samples.archive_members(task)
    record = {**samples.level_records(task, "16k")[0], "input": question}
    members["factrecall_en/factrecall_en_16k.jsonl"] = jsonl_bytes([record])
    write_to_mirror(str(root), common.archive("factrecall_en").url, zip_bytes(members))


def test_a_relative_or_environment_mirror_never_reuses_another_mirrors_build(tmp_path, monkeypatch):
    for place, question in (("one", "Who is in the first mirror?"), ("two", "Who is in the second mirror?")):
        _lveval_mirror(tmp_path / place / "m", question)
    cache = str(tmp_path / "cache")

    def question_built(**options) -> str:
        return load_dataset("lveval", "factrecall_en_16k", split="eval", cache_dir=cache, **options)[0][
            "question"
        ]

    monkeypatch.chdir(tmp_path / "one")
    assert question_built(mirror="m") == "Who is in the first mirror?"
    monkeypatch.chdir(tmp_path / "two")  # the same relative path, another mirror
    assert question_built(mirror="m") == "Who is in the second mirror?"
    monkeypatch.setenv("LONGBENCH_SUITE_MIRROR", str(tmp_path / "one" / "m"))
    assert question_built() == "Who is in the first mirror?"
    monkeypatch.setenv("LONGBENCH_SUITE_MIRROR", str(tmp_path / "two" / "m"))
    assert question_built() == "Who is in the second mirror?"
    # The same mirror, named relatively or absolutely, is one build.
    assert question_built(mirror="m") == question_built(mirror=str(tmp_path / "two" / "m"))
    builds = {d for d, _, files in os.walk(cache) if "dataset_info.json" in files}
    assert len(builds) == 2
