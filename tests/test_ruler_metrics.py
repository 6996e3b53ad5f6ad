"""RULER's metrics against RULER's own ``evaluate.py`` (``tests/upstream/ruler/eval/``: its numbers for
seeded prediction files, recorded by running it unchanged; see the README there)."""

from __future__ import annotations

import json

import pytest

from longbench_suite import registry
from longbench_suite.benchmarks.ruler import metrics
from longbench_suite.errors import DataFormatError, UnknownNameError
from longbench_suite.metrics.scoring import score_task, summarize
from tests.upstream.ruler.cases import TASKS
from tests.upstream.ruler.record_eval import EVAL, load_predictions

RULER_SCORES = json.loads((EVAL / "scores.json").read_text(encoding="utf-8"))
PREDICTIONS = load_predictions()
FILES = [(folder, task) for folder in RULER_SCORES for task in RULER_SCORES[folder]]


@pytest.fixture
def ruler_registered(monkeypatch):
    """The framework finds this metrics module under ``ruler`` (registered by the benchmark itself
    once it is merged; set here so the metrics can be scored through the framework on their own)."""
    monkeypatch.setitem(registry.BENCHMARKS, "ruler", "longbench_suite.benchmarks.ruler")


def test_the_recorded_files_cover_every_task_and_the_edge_cases():
    assert sorted(RULER_SCORES) == sorted(PREDICTIONS) and len(RULER_SCORES) == 3
    for folder in ("4096", "131072"):
        assert list(RULER_SCORES[folder]) == list(TASKS) == list(PREDICTIONS[folder])
    rows = [row for tasks in PREDICTIONS.values() for rows in tasks.values() for row in rows]
    preds = [row["pred"] for row in rows]
    assert any(metrics.postprocess_pred(p) == "" for p in preds)  # nulls
    assert any(p != p.strip() and metrics.postprocess_pred(p) for p in preds)
    assert any("\x00" in p or "\x01" in p for p in preds)
    scores = [v["score"] for tasks in RULER_SCORES.values() for v in tasks.values()]
    assert any(0 < s < 100 and s != round(s, 1) for s in scores)  # rounding to 2 decimals matters
    # RULER's sum / n * 100, not 100 * sum / n (54.375, rounded half to even: 54.38)
    assert RULER_SCORES["order"]["niah_multivalue"]["score"] == 54.37


@pytest.mark.parametrize(("folder", "task"), FILES, ids=[f"{f}-{t}" for f, t in FILES])
def test_task_scores_are_rulers(folder, task, ruler_registered):
    rows = PREDICTIONS[folder][task]
    result = score_task(
        "ruler",
        task,
        [{"answers": row["outputs"], "query_id": str(row["index"])} for row in rows],
        [row["pred"] for row in rows],
        length=folder,
    )
    ruler = RULER_SCORES[folder][task]
    name = metrics.TASK_METRICS[task]
    assert result.headline == {name: ruler["score"]}
    assert result.metric == name
    nulls = sum(metrics.postprocess_pred(row["pred"]) == "" for row in rows)
    assert f"{nulls}/{len(rows)}" == ruler["nulls"]


def test_list_level_functions_match_the_row_path():
    for folder, task in FILES:
        rows = PREDICTIONS[folder][task]
        preds = [metrics.postprocess_pred(row["pred"]) for row in rows]
        refs = [row["outputs"] for row in rows]
        function = getattr(metrics, metrics.TASK_METRICS[task])
        assert function(preds, refs) == RULER_SCORES[folder][task]["score"]


def lm_eval_string_match_part(preds, refs):
    """lm-evaluation-harness's ``string_match_part`` (tasks/ruler/common_utils.py, 2025-03): the share
    of the references matched, not whether any is."""
    return max([sum(r.lower() in preds[0].lower() for r in refs[0]) / len(refs[0])]) / len(preds)


def test_a_question_with_several_gold_spans_scores_1_not_partial_credit():
    refs = ["Denver Broncos", "Denver Broncos", "the Broncos"]  # SQuAD keeps every annotator's span
    prediction = "Denver Broncos"
    assert metrics.string_match_part([prediction], [refs]) == 100.0
    assert round(lm_eval_string_match_part([prediction], [refs]) * 100, 2) == 66.67
    assert metrics.string_match_all([prediction], [refs]) == 66.67


def test_rulers_recorded_qa_numbers_are_any_match_not_share():
    """In the recorded files, RULER's own QA scores differ from the share-of-references scoring."""
    differ = 0
    for folder in ("4096", "131072"):
        for task in ("qa_1", "qa_2"):
            rows = PREDICTIONS[folder][task]
            preds = [metrics.postprocess_pred(row["pred"]) for row in rows]
            share = metrics.string_match_all(preds, [row["outputs"] for row in rows])
            differ += share != RULER_SCORES[folder][task]["score"]
    assert differ >= 1


def test_postprocess_pred():
    assert metrics.postprocess_pred("  a\x00b\tc \n") == "a\nb\nc"
    assert metrics.postprocess_pred("\x1f\x1c") == ""  # str.strip treats these as space
    assert metrics.postprocess_pred(" \x00 ") == ""
    assert metrics.postprocess_pred("\x0012\x0534") == "12\n34"


def test_case_insensitive_containment():
    assert metrics.match_all("THE ANSWER: ÉTÉ, abc", ["été", "ABC", "xyz", "abc"]) == 0.75
    assert metrics.match_part("nothing here", ["x", "y"]) == 0.0


def test_bad_rows_and_names():
    scoring = metrics.task_scoring("qa_1")
    with pytest.raises(DataFormatError, match="'answers'"):
        scoring.row("x", {"answers": []})
    with pytest.raises(DataFormatError, match="'answers'"):
        metrics.task_scoring("vt").row("x", {"answers": "VAR"})
    with pytest.raises(DataFormatError, match="'answers'"):
        scoring.row("x", {"answers": ["a", None]})
    with pytest.raises(DataFormatError, match="'answers'"):
        scoring.row("x", {"input": "x"})
    with pytest.raises(UnknownNameError, match="qa_3"):
        metrics.task_scoring("qa_3")


def test_length_summary(ruler_registered):
    results = []
    folders = ("4096", "131072")
    for folder in folders:
        for task in ("niah_single_1", "qa_1", "cwe"):
            rows = PREDICTIONS[folder][task]
            results.append(
                score_task(
                    "ruler",
                    task,
                    [{"answers": row["outputs"]} for row in rows],
                    [row["pred"] for row in rows],
                    length=folder,
                )
            )
    summary = summarize(results, "length")["ruler"]
    for folder in folders:
        expected = [RULER_SCORES[folder][t]["score"] for t in ("niah_single_1", "qa_1", "cwe")]
        assert summary["per_length"][folder] == pytest.approx(sum(expected) / 3)
    assert summary["per_task"]["qa_1"] == pytest.approx(
        sum(RULER_SCORES[f]["qa_1"]["score"] for f in folders) / len(folders)
    )
    assert list(summary["per_length"]) == list(folders)
