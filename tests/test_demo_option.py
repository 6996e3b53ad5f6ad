"""``demo=True`` / ``--demo``: the sandbox's mirror and tokenizer, written on first use under the cache the
user set, on every command and in the Python API; sources that contradict it are refused in one line."""

from __future__ import annotations

import os

import datasets
import pytest

from longbench_suite import cli, get_builder, load_dataset
from longbench_suite.demo import demo_root, offline_options
from longbench_suite.errors import OptionError, TokenizerLoadError

COMMANDS_WITH_BUILDS = ("build", "info", "score", "export", "push", "predict", "check")


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("demo-cache"))


def test_every_command_that_builds_takes_demo():
    commands = cli._parser()._subparsers._group_actions[0].choices
    for name in COMMANDS_WITH_BUILDS:
        flags = {flag for action in commands[name]._actions for flag in action.option_strings}
        assert "--demo" in flags, name


def test_demo_is_the_sandbox_under_the_given_cache(cache):
    builder = get_builder("helmet/nq_8k", demo=True, cache_dir=cache)
    sandbox = offline_options(cache)
    assert builder.config.mirror == sandbox["mirror"]
    assert sandbox["mirror"].startswith(os.path.join(cache, "longbench_suite", "demo"))
    assert os.path.isfile(os.path.join(sandbox["mirror"], "longbench-suite-samples.json"))
    spelled = dict(mirror=sandbox["mirror"], tokenizer=sandbox["tokenizer"])
    explicit = get_builder("helmet/nq_8k", cache_dir=cache, **spelled)
    assert builder.tokenizer.identity == explicit.tokenizer.identity
    # HELMET's long-document tasks cut documents first with the sandbox's tokenizer too
    longdoc = get_builder("helmet/narrativeqa_8k", demo=True, cache_dir=cache)
    assert longdoc.pretruncation_tokenizer.identity == explicit.tokenizer.identity


def test_demo_without_cache_dir_goes_under_the_datasets_cache():
    """HF_HOME (set by tests/conftest.py) decides the datasets cache, and so where the sandbox goes
    (tests/test_setup.py runs the demo with a fresh HF_HOME)."""
    datasets_cache = str(datasets.config.HF_DATASETS_CACHE)
    assert datasets_cache.startswith(os.environ["HF_HOME"])
    assert demo_root(None) == os.path.join(datasets_cache, "longbench_suite", "demo")


def test_load_dataset_with_demo_gives_the_rows_of_the_spelled_out_options(cache):
    rows = load_dataset("longbench", "qasper_4k", split="eval", demo=True, cache_dir=cache)
    spelled = load_dataset("longbench", "qasper_4k", split="eval", **offline_options(cache))
    assert rows.to_list() == spelled.to_list() and len(rows) > 0


def test_a_given_tokenizer_wins_and_other_sources_are_refused(cache, tmp_path):
    builder = get_builder("helmet/nq_8k", demo=True, cache_dir=cache, tokenizer="words")
    assert builder.tokenizer.identity == "words"
    with pytest.raises(OptionError, match=r"leave out mirror= \(--mirror\)$"):
        get_builder("helmet/nq_8k", demo=True, cache_dir=cache, mirror=str(tmp_path))
    with pytest.raises(OptionError, match=r"data_dir= \(--data-dir\)"):
        load_dataset("helmet", "nq_8k", demo=True, cache_dir=cache, data_dir=str(tmp_path))
    with pytest.raises(TypeError, match="demo only apply to longbench_suite configs"):
        load_dataset("json", data_files=str(tmp_path / "x.json"), demo=True)


def test_the_sandbox_mirror_alone_points_at_demo(cache, monkeypatch):
    """``LONGBENCH_SUITE_MIRROR`` at the sandbox still asks for the default (gated) tokenizer; the error
    says that --demo brings the sandbox's."""
    monkeypatch.setenv("LONGBENCH_SUITE_MIRROR", offline_options(cache)["mirror"])
    with pytest.raises(TokenizerLoadError, match=r"holds sample data: --demo, demo=True") as raised:
        get_builder("helmet/nq_8k", cache_dir=cache)
    assert "\n" not in str(raised.value)


def test_cli_build_and_info_with_demo(cache, capsys):
    build = ["build", "lveval/factrecall_en_16k", "--demo", "--cache-dir", cache, "--split", "eval"]
    assert cli.main(build) == 0
    out = capsys.readouterr().out
    assert out.startswith("lveval/factrecall_en_16k\teval\t4 rows\t")
    assert cli.main(["info", "nq_8k", "--demo", "--cache-dir", cache]) == 0
    out = capsys.readouterr().out
    assert f"the sandbox's sample mirror {offline_options(cache)['mirror']}" in out
    assert "downloads:" not in out
    assert cli.main(["build", "nq_8k", "--demo", "--cache-dir", cache, "--data-dir", cache]) == 2
    assert capsys.readouterr().err.strip().endswith("leave out data_dir= (--data-dir)")


def test_cli_check_and_push_dry_run_with_demo(cache, capsys):
    config = ["lveval/factrecall_en_16k", "--demo", "--cache-dir", cache]
    assert cli.main(["check", *config]) == 0
    assert "lveval/factrecall_en_16k" in capsys.readouterr().out
    assert cli.main(["push", *config, "--repo-id", "org/name", "--dry-run", "--no-histogram"]) == 0
    assert "dry run: would upload to" in capsys.readouterr().out


def test_a_source_that_cannot_be_downloaded_names_demo_too(tmp_path, monkeypatch, capsys):
    """Offline without a mirror, a source's one line names the ways to build anyway, the sandbox
    among them (LV-Eval without --max-input-tokens loads no tokenizer: the source is what fails)."""
    monkeypatch.delenv("LONGBENCH_SUITE_MIRROR", raising=False)
    argv = ["build", "lveval/factrecall_en_16k", "--cache-dir", str(tmp_path)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("longbench-suite: error: cannot download https://huggingface.co/datasets/Infinigence/")
    assert err.endswith("(data_dir=), or build from the offline sample data with --demo (demo=True)")
