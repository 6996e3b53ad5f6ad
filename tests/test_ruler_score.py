"""RULER scored through ``longbench-suite score`` (issue 33 item 5): the per-task and per-length
tables and the score-vs-length picture, with lengths ordered by the tokens they stand for, whether
RULER lists them (4k, 8k) or they are built on request (3000, 6k)."""

from __future__ import annotations

import json
import sys

import pytest

from longbench_suite import cli, load_dataset
from longbench_suite.errors import MissingDependencyError
from longbench_suite.metrics.scoring import ScoreResult
from longbench_suite.predict.tables import by_length, length_order, markdown_report

#: given out of order, listed and unlisted lengths mixed; shortest first is 3000, 4k, 6k, 8k
CONFIGS = [f"ruler/niah_single_1_{length}" for length in ("8k", "3000", "4k", "6k")]
BY_TOKENS = ["3000", "4k", "6k", "8k"]
PNG = b"\x89PNG\r\n\x1a\n"


def _result(length: str, value: float, task: str = "niah_single_1") -> ScoreResult:
    metric = {"string_match_all": value}
    return ScoreResult(f"ruler/{task}_{length}", "ruler", task, length, "eval", "m", 1, metric, metric)


def test_lengths_are_ordered_by_their_token_count_not_listed_ones_first():
    results = [_result(length, 50.0) for length in ("4k", "128k", "48k", "3000")]
    assert length_order("ruler", [r.length for r in results]) == ["3000", "4k", "48k", "128k"]
    columns, rows = by_length(results)
    assert columns == ["3000", "4k", "48k", "128k"] and list(rows) == ["niah_single_1"]
    assert "| task | 3000 | 4k | 48k | 128k |" in markdown_report(results, {})


def test_lengths_that_stand_for_no_token_count_keep_their_declared_order():
    # LV-Eval's levels count words; an unknown name comes last, in the order given
    assert length_order("lveval", ["256k", "odd", "16k", "64k"]) == ["16k", "64k", "256k", "odd"]


@pytest.fixture(scope="module")
def ruler_predictions(tiny_tokenizer, tmp_path_factory):
    """Per config a predictions file right on its first rows (a different number per length, so each
    length has its own score) and empty on the rest, with the build options that made the rows."""
    folder = tmp_path_factory.mktemp("ruler-score")
    cache = str(folder / "cache")
    opts = ["--tokenizer", tiny_tokenizer, "--cache-dir", cache]
    files, expected = [], {}
    for right, config in zip((40, 10, 20, 30), CONFIGS, strict=True):
        name = config.split("/")[1]
        rows = load_dataset("ruler", name, split="eval", tokenizer=tiny_tokenizer, cache_dir=cache)
        lines = [
            {"index": i, "prediction": " ".join(row["answers"]) if i < right else ""}
            for i, row in enumerate(rows)
        ]
        path = folder / f"{name}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        files.append(str(path))
        expected[name.rsplit("_", 1)[1]] = round(right / len(rows) * 100, 2)
    return files, opts, expected


def test_score_draws_the_picture_and_orders_the_length_tables(ruler_predictions, tmp_path, capsys):
    files, opts, expected = ruler_predictions
    picture, output = tmp_path / "scores.png", tmp_path / "results.json"
    argv = ["score", *CONFIGS, "--predictions", *files, "--by", "length"]
    assert cli.main([*argv, "--plot", str(picture), "--output", str(output), *opts]) == 0
    printed = capsys.readouterr().out
    assert picture.read_bytes()[:8] == PNG and f"wrote {picture}" in printed
    result = json.loads(output.read_text())
    scores = {r["length"]: r["headline"]["string_match_all"] for r in result["results"]}
    assert scores == expected and len(set(scores.values())) == 4
    per_length = result["summary"]["length"]["ruler"]["per_length"]
    assert list(per_length) == BY_TOKENS and per_length == expected  # one task: its score at each length
    lines = printed[printed.index("summary by length") :].splitlines()
    shown = [line.split()[1] for line in lines if line.startswith("ruler ") and line.split()[1] in expected]
    assert shown == BY_TOKENS


def test_score_without_matplotlib_is_one_line_before_any_build(
    ruler_predictions, tmp_path, monkeypatch, capsys
):
    files, _, _ = ruler_predictions
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    picture, cache = tmp_path / "scores.png", tmp_path / "cache"
    argv = ["score", *CONFIGS, "--predictions", *files, "--plot", str(picture), "--cache-dir", str(cache)]
    assert cli.main(argv) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "score-vs-length picture needs matplotlib" in line and "without --plot" in line
    assert not picture.exists() and not cache.exists()  # refused before anything was built


def test_predict_score_without_matplotlib_is_refused_before_any_request(tmp_path, monkeypatch):
    from longbench_suite.predict import predict

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingDependencyError, match=r"longbench-suite\[cards\].*--no-plot"):
        predict(CONFIGS[:1], str(tmp_path / "out"), model="m", endpoint="http://127.0.0.1:9", score=True)
    assert not (tmp_path / "out").exists()
