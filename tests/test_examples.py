"""The scripts in examples/ run offline (``--demo``: sample data and the demo tokenizer)."""

from __future__ import annotations

import json
import os
import runpy

import datasets
import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def _main(name: str):
    return runpy.run_path(os.path.join(EXAMPLES, name), run_name="example")["main"]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("examples-cache"))


@pytest.mark.slow
def test_build_and_inspect(cache, capsys):
    _main("build_and_inspect.py")(["nq_8k", "--demo", "--cache-dir", cache])
    out = capsys.readouterr().out
    assert "nq_8k   eval    600" in out and "the completion is ' " in out


@pytest.mark.slow
def test_push_dry_run_writes_the_repo_folder(cache, tmp_path, capsys):
    folder = tmp_path / "repo"
    argv = ["nq_8k", "--repo-id", "me/helmet", "--dry-run", "--demo", "--output", str(folder)]
    _main("push_to_hub.py")([*argv, "--cache-dir", cache])
    assert "dry run: 5 files" in capsys.readouterr().out
    assert datasets.load_dataset(str(folder), "nq_8k", split="eval").num_rows == 600
    assert 'load_dataset("me/helmet", "nq_8k", split="dev")' in (folder / "README.md").read_text()


@pytest.mark.slow
def test_score_writes_indexed_predictions_and_scores_them_offline(cache, tmp_path, capfd):
    predictions = tmp_path / "preds.jsonl"
    argv = ["nq_8k", "--demo", "--baseline", "first-word", "--predictions", str(predictions)]
    _main("score.py")([*argv, "--cache-dir", cache])  # the scorer subprocess must succeed offline
    lines = [json.loads(line) for line in predictions.read_text().splitlines()]
    assert [line["index"] for line in lines] == list(range(600))
    assert {line["prediction"] for line in lines} == {"who"}
    out = capfd.readouterr().out
    assert "nq_8k" in out and "substring_exact_match" in out


@pytest.mark.slow
def test_stream_into_sft_with_a_tiny_model(cache, tmp_path):
    argv = ["popqa_8k", "--demo", "--tiny", "--max-steps", "1", "--max-input-tokens", "600"]
    trainer = _main("stream_into_sft.py")([*argv, "--cache-dir", cache, "--output-dir", str(tmp_path / "o")])
    assert trainer.state.global_step == 1


@pytest.mark.slow
def test_train_with_rewards_mixes_holds_out_and_runs_grpo(cache, tmp_path, capsys):
    argv = ["--demo", "--tiny", "--max-steps", "1", "--cache-dir", cache, "--output-dir", str(tmp_path / "o")]
    trainer = _main("train_with_rewards.py")(argv)
    assert trainer.state.global_step == 1
    out = capsys.readouterr().out
    assert "first 40 rows by source:" in out and "helmet/json_kv_8k" in out
    assert "held-out NQ questions, never in the training stream" in out
