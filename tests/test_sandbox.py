"""The demo's offline sandbox: every task of every benchmark builds from it, its manifest stands in for
the pinned digests only in the mirror the sample writer made, and its errors stay one short line."""

from __future__ import annotations

import json
import os
import shutil
import time

import pytest

from longbench_suite import cli, get_builder, load_dataset, registry
from longbench_suite.benchmarks.lveval.common import ARCHIVE_SHA256, archive
from longbench_suite.demo import offline_options, write_sandbox
from longbench_suite.errors import (
    DataFormatError,
    SourceError,
    SourceUnavailableError,
    SuiteError,
    UnknownNameError,
)
from longbench_suite.source import mirrored
from longbench_suite.source.manifest import MANIFEST_NAME, read_manifest
from tests.specs import all_specs, spec


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> dict:
    return offline_options(str(tmp_path_factory.mktemp("sandbox")))


@pytest.mark.slow
def test_every_task_of_every_benchmark_builds_offline_from_the_sandbox(sandbox):
    built, started = [], time.perf_counter()
    # every task with listed configs; the gen_* generators make their own rows (tests/test_generate.py)
    listed = {b: [t for t in registry.benchmark(b).tasks if t.lengths] for b in registry.benchmark_names()}
    assert {b: [t.name for t in tasks] for b, tasks in listed.items()} == {
        b: expected.listed_tasks for b, expected in all_specs().items()
    }
    for bench, tasks in listed.items():
        unbuildable = getattr(registry.samples(bench), "UNBUILDABLE_IN_SANDBOX", {})
        for task in tasks:
            length = task.lengths[0]
            if task.name in unbuildable:  # one clear line, never a short split
                with pytest.raises(SuiteError, match=unbuildable[task.name]):
                    load_dataset(bench, task.config_name(length), **sandbox)
                built.append(f"{bench}/{task.name}")
                continue
            splits = load_dataset(bench, task.config_name(length), **sandbox)
            # dev where the data has one (Ada-LEval's small settings have none)
            assert "eval" in splits and set(splits) <= set(task.splits(length)), f"{bench}/{task.name}"
            assert all(len(rows) > 0 for rows in splits.values()), f"{bench}/{task.name}"
            built.append(f"{bench}/{task.name}")
    assert len(built) == sum(len(tasks) for tasks in listed.values())
    print(f"built {len(built)} tasks in {time.perf_counter() - started:.1f} s")


def test_the_manifest_declares_what_the_writer_wrote_and_is_kept_while_intact(sandbox):
    manifest = read_manifest(sandbox["mirror"])
    assert manifest is not None and manifest.scale == "DEMO"
    zip_path = mirrored(archive("cmrc_mixup").url, sandbox["mirror"])
    declared = manifest.declared(zip_path)
    assert declared["size"] == os.path.getsize(zip_path)
    assert declared["sha256"] != ARCHIVE_SHA256["cmrc_mixup"]  # a sample can never match upstream's
    before = os.stat(manifest.path).st_mtime_ns
    again = write_sandbox(sandbox["mirror"])
    assert again == manifest and os.stat(manifest.path).st_mtime_ns == before


def test_pinned_digests_still_hold_outside_the_sample_mirror(sandbox, tmp_path):
    """The same sample zip, in a mirror without the writer's manifest, fails upstream's digest."""
    source = mirrored(archive("cmrc_mixup").url, sandbox["mirror"])
    bare = str(tmp_path / "bare")
    os.makedirs(os.path.dirname(mirrored(archive("cmrc_mixup").url, bare)))
    shutil.copy(source, mirrored(archive("cmrc_mixup").url, bare))
    options = {**sandbox, "mirror": bare, "cache_dir": str(tmp_path / "cache")}
    with pytest.raises(SourceError, match=f"sha256 mismatch .* expected {ARCHIVE_SHA256['cmrc_mixup']}"):
        load_dataset("lveval", "cmrc_mixup_16k", **options)


def test_a_changed_sample_file_fails_the_manifest_digest(sandbox, tmp_path):
    copy = str(tmp_path / "copy")
    target = mirrored(archive("cmrc_mixup").url, copy)
    os.makedirs(os.path.dirname(target))
    shutil.copy(os.path.join(sandbox["mirror"], MANIFEST_NAME), copy)
    with open(mirrored(archive("cmrc_mixup").url, sandbox["mirror"]), "rb") as handle:
        data = handle.read()
    with open(target, "wb") as handle:
        handle.write(data[:-1] + bytes([data[-1] ^ 1]))
    options = {**sandbox, "mirror": copy, "cache_dir": str(tmp_path / "cache")}
    with pytest.raises(SourceError, match=r"sha256 mismatch .*its sample manifest .* declares"):
        load_dataset("lveval", "cmrc_mixup_16k", **options)


def test_an_empty_split_over_many_files_is_one_short_line(sandbox, tmp_path):
    # Counted in words, no NarrativeQA sample document reaches HELMET's 131072-token minimum.
    options = {**sandbox, "pretruncation_tokenizer": "words", "cache_dir": str(tmp_path / "cache")}
    with pytest.raises(DataFormatError) as caught:
        load_dataset("helmet", "narrativeqa_8k", split="eval", **options)
    message = str(caught.value)
    assert "split came out empty" in message and "more) hold no rows" in message
    assert "\n" not in message and len(message) < 400


def _check_args(options: dict, mirror: str) -> list[str]:
    tokenizer = options["tokenizer"]
    return ["--mirror", mirror, "--tokenizer", tokenizer, "--pretruncation-tokenizer", tokenizer]


@pytest.mark.slow
def test_the_readme_check_passes_on_the_sandbox_against_the_declared_sizes(sandbox, tmp_path, capsys):
    args = _check_args(sandbox, sandbox["mirror"])
    assert cli.main(["check", "helmet/nq", "lveval", *args, "--cache-dir", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    checked = len(spec("helmet").tasks["nq"]) + len(spec("lveval").configs)
    assert f"check: OK — {checked} configs" in out
    # the declared sizes are what is checked: a manifest declaring another size fails the same build
    copy = str(tmp_path / "copy")
    shutil.copytree(sandbox["mirror"], copy)
    with open(os.path.join(copy, MANIFEST_NAME), encoding="utf-8") as handle:
        document = json.load(handle)
    document["sizes"]["helmet/nq_8k"]["eval"] += 1
    with open(os.path.join(copy, MANIFEST_NAME), "w", encoding="utf-8") as handle:
        json.dump(document, handle)
    args = _check_args(sandbox, copy)
    assert cli.main(["check", "helmet/nq_8k", *args, "--cache-dir", str(tmp_path / "b")]) == 1
    assert "[sizes] helmet/nq_8k eval: 600 rows; the samples declare 601" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["helmet/nq", "nq"])
def test_a_task_name_without_length_suggests_its_configs(name, capsys):
    with pytest.raises(
        UnknownNameError, match=r"is a task, not a config: add a length, one of helmet/nq_8k, "
    ):
        get_builder(name)
    with pytest.raises(UnknownNameError, match=r"helmet/nq_128k$"):
        load_dataset("longbench_suite", name)
    assert cli.main(["info", name]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "helmet/nq_16k" in err


def test_missing_data_says_how_to_build_without_the_network(tmp_path):
    with pytest.raises(SourceUnavailableError) as caught:  # HF_HUB_OFFLINE=1: the Hub refuses at once
        load_dataset("lveval", "cmrc_mixup_16k", cache_dir=str(tmp_path), tokenizer="chars")
    assert "--mirror" in str(caught.value) and "--data-dir" in str(caught.value)


@pytest.mark.slow
def test_the_demo_says_what_it_does_with_labelled_bars(tmp_path, capfd):
    import logging

    logger = logging.getLogger("longbench_suite")
    handlers, level = list(logger.handlers), logger.level
    logger.handlers[:] = []  # as in a fresh process: the CLI installs its own handler on this stderr
    try:
        assert cli.main(["demo", "--cache-dir", str(tmp_path)]) == 0
    finally:
        logger.handlers[:], logger.level = handlers, level
    err = capfd.readouterr().err
    generated = {b: getattr(registry.samples(b), "DEMO_GENERATED", {}) for b in registry.benchmark_names()}
    configs = [
        f"{b}/{c}"
        for b in registry.benchmark_names()
        for c in registry.samples(b).DEMO_CONFIGS
        if c not in generated[b]
    ]
    configs += [
        f"{b}/{c}"
        for b in registry.benchmark_names()
        for c in getattr(registry.samples(b), "DEMO_GENERATED", {})
    ]
    lines = [line for line in err.splitlines() if "] building " in line]
    assert [line.split("building ")[1].split()[0] for line in lines] == configs
    assert "Writing sample sources" in err and "Creating parquet" not in err
    for bar in err.replace("\r", "\n").splitlines():
        if "%|" in bar or "examples/s" in bar:  # every bar has a label before its count
            assert bar.split(":")[0].strip(), bar
