"""The scripts in examples/ run offline (``--demo``: sample data and the demo tokenizer), each on a
sample config of every benchmark it claims to support."""

from __future__ import annotations

import json
import os
import runpy

import datasets
import pytest

from longbench_suite import load_dataset
from longbench_suite.demo import offline_options
from tests.support.fake_openai import FakeOpenAI

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")

#: one small sample config per benchmark
SAMPLE = {
    "helmet": "helmet/json_kv_8k",
    "longbench": "longbench/qasper_4k",
    "lveval": "lveval/factrecall_en_16k",
    "adaleval": "adaleval/tsort_2k",
}
EVERY = tuple(SAMPLE)
#: the benchmarks each example claims (its docstring and arguments): any config, or HELMET's own mixture
CLAIMS = {
    "build_and_inspect.py": EVERY,
    "push_to_hub.py": EVERY,
    "score.py": EVERY,
    "predict.py": EVERY,
    "stream_into_sft.py": EVERY,
    "train_with_rewards.py": ("helmet",),
}


def _main(name: str):
    return runpy.run_path(os.path.join(EXAMPLES, name), run_name="example")["main"]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("examples-cache"))


def _eval_rows(config: str, cache: str) -> datasets.Dataset:
    return load_dataset("longbench_suite", config, split="eval", **offline_options(cache))


def test_every_example_runs_in_ci():
    scripts = {name for name in os.listdir(EXAMPLES) if name.endswith(".py")}
    assert scripts == set(CLAIMS), "add a new example to CLAIMS and give it a test below"


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", CLAIMS["build_and_inspect.py"])
def test_build_and_inspect(benchmark, cache, capsys):
    config = SAMPLE[benchmark]
    _main("build_and_inspect.py")([config, "--demo", "--cache-dir", cache])
    out = capsys.readouterr().out
    rows = _eval_rows(config, cache).num_rows
    assert any(line.split()[:3] == [config, "eval", str(rows)] for line in out.splitlines())
    assert "the completion is " in out


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", CLAIMS["push_to_hub.py"])
def test_push_dry_run_writes_the_repo_folder(benchmark, cache, tmp_path, capsys):
    config = SAMPLE[benchmark]
    name = config.split("/")[1]
    folder = tmp_path / "repo"
    argv = [config, "--repo-id", f"me/{benchmark}", "--dry-run", "--demo", "--output", str(folder)]
    _main("push_to_hub.py")([*argv, "--cache-dir", cache])
    assert "dry run: " in capsys.readouterr().out
    exported = datasets.load_dataset(str(folder), name, split="eval")
    assert exported["query_id"] == _eval_rows(config, cache)["query_id"]
    assert f"`{name}`" in (folder / "README.md").read_text()  # the card names its config


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", CLAIMS["score.py"])
def test_score_writes_indexed_predictions_and_scores_them_offline(benchmark, cache, tmp_path, capfd):
    config = SAMPLE[benchmark]
    predictions = tmp_path / "preds.jsonl"
    argv = [config, "--demo", "--baseline", "first-word", "--predictions", str(predictions)]
    _main("score.py")([*argv, "--cache-dir", cache])  # the scorer subprocess must succeed offline
    lines = [json.loads(line) for line in predictions.read_text().splitlines()]
    rows = _eval_rows(config, cache)
    assert [line["index"] for line in lines] == list(range(rows.num_rows))
    first_words = [(row.get("question") or row["input"]).split()[0] for row in rows]
    assert [line["prediction"] for line in lines] == first_words
    out = capfd.readouterr().out
    assert any(line.split()[:3] == [config, "eval", str(rows.num_rows)] for line in out.splitlines())


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", CLAIMS["predict.py"])
def test_predict_against_a_loopback_server(benchmark, cache, tmp_path, capsys):
    config = SAMPLE[benchmark]
    with FakeOpenAI(lambda prompt: "a fixed answer") as server:
        argv = [config, "--endpoint", server.url, "--model", "fake", "--demo", "--output", str(tmp_path)]
        run = _main("predict.py")([*argv, "--cache-dir", cache])
    rows = _eval_rows(config, cache).num_rows
    assert len(server.requests) == rows
    assert [result.config for result in run.results] == [config]
    assert config in capsys.readouterr().out


#: dev where the sandbox has one; LV-Eval publishes none, and Ada-LEval's sample files hold only the
#: evaluated prefix, so those train on eval (as the example's docstring says)
SFT_ARGS = {
    "helmet": ["helmet/popqa_8k", "--max-input-tokens", "600"],
    "longbench": ["longbench/qasper_4k"],  # 3 dev rows: one step at the default accumulation
    "lveval": [SAMPLE["lveval"], "--split", "eval", "--max-input-tokens", "600"],
    "adaleval": [SAMPLE["adaleval"], "--split", "eval"],
}


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", CLAIMS["stream_into_sft.py"])
def test_stream_into_sft_with_a_tiny_model(benchmark, cache, tmp_path):
    argv = [*SFT_ARGS[benchmark], "--demo", "--tiny", "--max-steps", "1"]
    trainer = _main("stream_into_sft.py")([*argv, "--cache-dir", cache, "--output-dir", str(tmp_path / "o")])
    assert trainer.state.global_step == 1


@pytest.mark.slow
def test_stream_into_sft_refuses_a_split_shorter_than_one_step(cache, tmp_path):
    argv = ["longbench/qasper_4k", "--demo", "--tiny", "--grad-accum", "4", "--cache-dir", cache]
    with pytest.raises(SystemExit) as refused:
        _main("stream_into_sft.py")([*argv, "--output-dir", str(tmp_path / "o")])
    message = str(refused.value.code)
    assert "\n" not in message
    assert message.startswith("longbench/qasper_4k/dev has 3 rows, fewer than one optimizer step of 4")
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", CLAIMS["train_with_rewards.py"])
def test_train_with_rewards_mixes_holds_out_and_runs_grpo(benchmark, cache, tmp_path, capsys):
    argv = ["--demo", "--tiny", "--max-steps", "1", "--cache-dir", cache, "--output-dir", str(tmp_path / "o")]
    trainer = _main("train_with_rewards.py")(argv)
    assert trainer.state.global_step == 1
    out = capsys.readouterr().out
    assert "first 40 rows by source:" in out and "helmet/json_kv_8k" in out
    assert "held-out NQ questions, never in the training stream" in out
