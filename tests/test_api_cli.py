"""The public API (load_dataset, options, errors, caches) and the command line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import datasets
import pytest

from longbench_suite import cli, get_builder, load_dataset
from longbench_suite.errors import OptionError, SourceError, SplitUnavailableError, UnknownNameError
from longbench_suite.fit.tokenizers import load_tokenizer


def _opts(helmet_mirror, tiny_tokenizer, tmp_path):
    return dict(mirror=helmet_mirror, tokenizer=tiny_tokenizer, cache_dir=str(tmp_path / "cache"))


@pytest.mark.slow
def test_split_none_gives_both_splits_and_slicing_works(helmet_mirror, tiny_tokenizer, tmp_path):
    both = load_dataset("longbench_suite", "nq_16k", **_opts(helmet_mirror, tiny_tokenizer, tmp_path))
    assert set(both) == {"dev", "eval"}
    head = load_dataset(
        "helmet", "nq_16k", split="eval[:5]", **_opts(helmet_mirror, tiny_tokenizer, tmp_path)
    )
    assert head.to_list() == both["eval"].select(range(5)).to_list()


def test_bad_names_and_splits(helmet_mirror, tiny_tokenizer, tmp_path):
    opts = _opts(helmet_mirror, tiny_tokenizer, tmp_path)
    with pytest.raises(UnknownNameError, match=r"unknown split 'train'.*dev, eval"):
        load_dataset("longbench_suite", "nq_8k", split="train", **opts)
    with pytest.raises(UnknownNameError, match=r"did you mean nq_8k"):
        load_dataset("longbench_suite", "nq_9k", split="dev", **opts)
    with pytest.raises(UnknownNameError, match=r"needs a config name"):
        load_dataset("longbench_suite", **opts)
    with pytest.raises(TypeError, match=r"only apply to longbench_suite configs"):
        load_dataset(str(tmp_path), "x", tokenizer="words")
    for bad in (0, 1, -5, 2.5, True, "100"):  # upstream's middle cut keeps everything at 1 (x[-0:])
        with pytest.raises(OptionError, match=r"max_input_tokens must be an integer of at least 2"):
            get_builder("nq_8k", max_input_tokens=bad)
    with pytest.raises(OptionError, match=r"max_input_tokens .* got 1$"):
        load_dataset("longbench_suite", "qasper_4k", split="eval", max_input_tokens=1, **opts)
    assert not (tmp_path / "cache" / "longbench_suite_helmet").exists()


def test_missing_split_message_comes_from_the_task(monkeypatch):
    builder = get_builder("nq_8k", tokenizer="words")
    task = builder.config.task
    monkeypatch.setattr(
        type(task), "missing_split_reasons", {"dev": "upstream publishes evaluation data only"}
    )
    from longbench_suite.api import check_splits

    with pytest.raises(SplitUnavailableError, match=r"evaluation data only"):
        check_splits(builder, "dev")


def test_other_paths_go_to_datasets_unchanged(tmp_path):
    repo = tmp_path / "repo"
    (repo / "cfg").mkdir(parents=True)
    datasets.Dataset.from_dict({"a": [1, 2]}).to_parquet(str(repo / "cfg" / "dev-00000-of-00001.parquet"))
    (repo / "README.md").write_text(
        "---\nconfigs:\n- config_name: cfg\n  data_files:\n  - split: dev\n    path: cfg/dev-*\n---\n"
    )
    ours = load_dataset(str(repo), "cfg", split="dev", cache_dir=str(tmp_path / "c"))
    theirs = datasets.load_dataset(str(repo), "cfg", split="dev", cache_dir=str(tmp_path / "c2"))
    assert ours.to_list() == theirs.to_list() == [{"a": 1}, {"a": 2}]


def test_max_input_tokens_caps_every_input(helmet_mirror, tiny_tokenizer, tmp_path):
    rows = load_dataset(
        "helmet",
        "popqa_8k",
        split="eval",
        max_input_tokens=600,
        **_opts(helmet_mirror, tiny_tokenizer, tmp_path),
    )
    counter = load_tokenizer(tiny_tokenizer)
    assert max(counter.count_batch(list(rows["input"]))) <= 600
    assert all(r.endswith("\nAnswer:") for r in rows["input"])


@pytest.mark.slow
def test_failed_build_leaves_no_cache_and_rerun_succeeds(helmet_mirror, tiny_tokenizer, tmp_path):
    data_dir = tmp_path / "mine"
    kilt = data_dir / "data" / "kilt"
    kilt.mkdir(parents=True)
    import tarfile

    with tarfile.open(
        os.path.join(helmet_mirror, "huggingface.co/datasets/princeton-nlp/HELMET/resolve/main/data.tar.gz")
    ) as tar:
        tar.extract("data/kilt/nq-dev-multikilt_1000_k50_dep6.jsonl", path=str(data_dir), filter="data")
    cache = tmp_path / "cache"
    with pytest.raises(SourceError, match=r"nq-train-multikilt_1000_k3_dep6.jsonl"):
        load_dataset(
            "helmet",
            "nq_8k",
            split="eval",
            data_dir=str(data_dir),
            tokenizer=tiny_tokenizer,
            cache_dir=str(cache),
        )
    built = [d for d, _, files in os.walk(cache) if any(f.endswith(".arrow") for f in files)]
    assert built == []
    with tarfile.open(
        os.path.join(helmet_mirror, "huggingface.co/datasets/princeton-nlp/HELMET/resolve/main/data.tar.gz")
    ) as tar:
        tar.extract("data/kilt/nq-train-multikilt_1000_k3_dep6.jsonl", path=str(data_dir), filter="data")
    fixed = load_dataset(
        "helmet",
        "nq_8k",
        split="eval",
        data_dir=str(data_dir),
        tokenizer=tiny_tokenizer,
        cache_dir=str(cache),
    )
    clean = load_dataset(
        "helmet",
        "nq_8k",
        split="eval",
        mirror=helmet_mirror,
        tokenizer=tiny_tokenizer,
        cache_dir=str(tmp_path / "clean"),
    )
    assert fixed.to_list() == clean.to_list()


def test_malformed_json_line_names_file_and_line(tmp_path, tiny_tokenizer):
    kilt = tmp_path / "data" / "kilt"
    kilt.mkdir(parents=True)
    good = json.dumps({"question": "q?", "answers": ["a"], "ctxs": [{"title": "t", "text": "x"}]})
    (kilt / "nq-dev-multikilt_1000_k50_dep6.jsonl").write_text(good + "\n" + good + "\n{broken\n")
    (kilt / "nq-train-multikilt_1000_k3_dep6.jsonl").write_text(good + "\n")
    from longbench_suite.errors import DataFormatError

    with pytest.raises(
        DataFormatError, match=r"nq-dev-multikilt_1000_k50_dep6.jsonl in .*, line 3: malformed JSON"
    ):
        load_dataset(
            "helmet",
            "nq_8k",
            split="eval",
            data_dir=str(tmp_path),
            tokenizer=tiny_tokenizer,
            cache_dir=str(tmp_path / "c"),
        )


def test_cli_list_info_and_errors(capsys):
    assert cli.main(["list", "helmet"]) == 0
    listed = capsys.readouterr().out.split()
    assert "helmet/nq_8k" in listed and "helmet/hotpotqa_128k" in listed
    assert cli.main(["info", "nq_32k"]) == 0
    info = capsys.readouterr().out
    assert "data/kilt/nq-dev-multikilt_1000_k220_dep6.jsonl" in info and "max_length 32768" in info
    assert cli.main(["info", "nq_33k"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown config 'nq_33k'" in err
    assert cli.main(["list", "nope"]) == 2
    assert "unknown benchmark 'nope'" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_output_into_a_closed_pipe_exits_quietly():
    """`longbench-suite list | head`: the reader leaves early; no traceback, SIGPIPE's exit status."""
    command = [sys.executable, "-m", "longbench_suite.cli", "list"]
    listing = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    listing.stdout.close()  # before a line is written: every write meets a broken pipe
    errors = listing.stderr.read().decode()
    assert listing.wait() == cli.EXIT_BROKEN_PIPE
    assert errors == ""


def test_cli_build_writes_jsonl_and_parquet(helmet_mirror, tiny_tokenizer, tmp_path, capsys):
    common = ["--mirror", helmet_mirror, "--tokenizer", tiny_tokenizer, "--cache-dir", str(tmp_path / "c")]
    out_jsonl, out_parquet = tmp_path / "dev.jsonl", tmp_path / "dev.parquet"
    dev = ["build", "helmet/hotpotqa_8k", "--split", "dev"]
    assert cli.main([*dev, "--output", str(out_jsonl), *common]) == 0
    assert cli.main([*dev, "--output", str(out_parquet), *common]) == 0
    rows = [json.loads(line) for line in out_jsonl.read_text(encoding="utf-8").splitlines()]
    assert rows == datasets.Dataset.from_parquet(str(out_parquet)).to_list()
    assert len(rows) == 887 and rows[0]["input"].endswith("\nAnswer:")
    assert cli.main(["build", "nq_8k", "popqa_8k", "--stats", *common]) == 0
    table = capsys.readouterr().out
    for config in ("helmet/nq_8k", "helmet/popqa_8k"):
        for split in ("dev", "eval"):
            assert re.search(rf"^{config}\s+{split}\s+\d+\s+\d+", table, re.M), (config, split, table)


def test_help_everywhere():
    commands = ("list", "info", "build", "check", "demo")
    for argv in (["--help"], *([command, "--help"] for command in commands)):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        assert exc.value.code == 0


@pytest.mark.slow
def test_demo_runs_offline_on_a_fresh_cache(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "longbench_suite.cli", "demo", "--cache-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    for config in ("helmet/nq_8k", "helmet/popqa_16k", "helmet/hotpotqa_32k"):
        assert f"{config}" in result.stdout
    # the generated configs the demo shows: 5 rows each, of the dev split
    for config in ("helmet/gen_niah_multikey_2_2k", "helmet/gen_json_kv_2k"):
        assert re.search(rf"{config}\s+dev\s+5\s", result.stdout), result.stdout
    assert os.path.isfile(
        tmp_path
        / "longbench_suite"
        / "demo"
        / "mirror"
        / "huggingface.co"
        / "datasets"
        / "princeton-nlp"
        / "HELMET"
        / "resolve"
        / "main"
        / "data.tar.gz"
    )


def test_version_flag_prints_the_package_version(capsys):
    from longbench_suite._version import __version__

    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"longbench-suite {__version__}"


def test_the_library_imports_without_transformers():
    code = (
        "import sys; sys.modules['transformers'] = None\n"
        "import longbench_suite, longbench_suite.cli, longbench_suite.api, longbench_suite.metrics\n"
        "from longbench_suite.fit.tokenizers import load_tokenizer; load_tokenizer('words')\n"
        "print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
