"""Ada-LEval's extractors, accuracy and baselines (docs/adaleval.md §6, §7), on rows built by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from longbench_suite.benchmarks.adaleval.metrics import (
    extract_bestanswer,
    extract_bestanswer_strict,
    extract_tsort,
    tsort_correct,
)
from longbench_suite.errors import DataFormatError
from longbench_suite.metrics import score_task


@pytest.mark.parametrize(
    ("prediction", "n", "official", "strict"),
    [
        ("A12", 12, "A12", "A12"),  # A12 wins over the A1 inside it
        ("A1", 12, "A1", "A1"),
        ("A4 is better than A7", 7, "A7", "A4"),  # official: the largest mentioned
        ("Answer: A2.", 4, "A2", "A2"),
        ("the third one: 3", 4, "A3", "???"),  # bare numbers only in the official extractor
        ("I pick 2 or 13", 13, "A13", "???"),
        ("answer 5", 4, "???", "???"),
        ("A12", 5, "A1", "???"),  # "A1" is a substring; strict sees A12, out of range
        ("", 3, "???", "???"),
        ("a2", 3, "A2", "???"),  # case-sensitive designations; "2" is a bare number
    ],
)
def test_bestanswer_extractors(prediction, n, official, strict):
    assert extract_bestanswer(prediction, n) == official
    assert extract_bestanswer_strict(prediction, n) == strict


@pytest.mark.parametrize(
    ("prediction", "extracted"),
    [
        ("Answer: [4, 1, 3, 2]", [4, 1, 3, 2]),
        ("Answer: [4, 1, 3, 2]\nAnswer: [1, 2, 3, 4]", [4, 1, 3, 2]),  # up to the next "Answer:"
        ("[2, 1, 4, 3]", [2, 1, 4, 3]),
        ("The order is 4 1 3 2", [4, 1, 3, 2]),  # the one permutation that is a subsequence
        ("4 1 3 2 or maybe 1 2 3 4", [0, 0, 0, 0]),  # several -> always wrong
        ("answer: [4,1,3,2]", [4, 1, 3, 2]),  # lowercase is not split on; subsequence of it all
        ("Answer: 4", 4),
        ("no digits", [0, 0, 0, 0]),
    ],
)
def test_tsort_extractor(prediction, extracted):
    assert extract_tsort(prediction) == extracted


def test_tsort_comparison_pairs_values_as_python_iterates_them():
    gold = [4, 1, 3, 2]
    assert tsort_correct([4, 1, 3, 2], gold)
    assert tsort_correct([4, 1], gold)  # a matching prefix counts, as upstream
    assert tsort_correct([], gold)
    assert tsort_correct({}, gold) and tsort_correct("", gold)  # nothing to compare
    assert not tsort_correct([4, 1, 2, 3], gold)
    assert not tsort_correct([4, 2], gold)
    assert not tsort_correct("4132", gold)  # characters are not part numbers
    assert not tsort_correct({"4": 1}, gold)  # nor are keys
    for value in (4132, None, True, 1.5):  # upstream crashes; the library scores them wrong
        assert not tsort_correct(value, gold)


UPSTREAM_TSORT = Path(__file__).parent / "upstream" / "adaleval_tsort_verdicts.json"


def test_tsort_scores_equal_ada_levals_own_verdicts_wherever_it_returns_one():
    recorded = json.loads(UPSTREAM_TSORT.read_text(encoding="utf-8"))
    assert recorded["ada_leval_commit"].startswith("2154258")
    verdicts = {"100.0": 100.0, "0.0": 0.0}
    crashes = 0
    for case in recorded["cases"]:
        row = {"answer": case["answer"], "query_id": "q"}
        ours = score_task("adaleval", "tsort", [row], [case["prediction"]]).headline["accuracy"]
        if str(case["upstream"]).startswith("crash"):
            crashes += 1
            assert ours == 0.0, case  # the documented deviation
        else:
            assert ours == verdicts[str(case["upstream"])], case
    assert crashes and crashes < len(recorded["cases"])


def ba_row(answer, n):
    return {"answer": answer, "num_choices": n, "query_id": "q", "in_api_subset": True}


def test_bestanswer_accuracy_and_random_guess():
    rows = [ba_row("A12", 12), ba_row("A1", 2), ba_row("A3", 4), ba_row("A2", 5)]
    outputs = ["A12", "A1 and A2 are both fine", "A3", "A4 is wrong, A2 is right"]
    result = score_task("adaleval", "bestanswer", rows, outputs)
    assert result.headline == {"accuracy": 50.0}  # rows 1 and 3: official picks the larger mention
    assert result.metrics["accuracy_strict"] == 75.0
    assert result.metrics["random_guess"] == pytest.approx(100 * (1 / 12 + 1 / 2 + 1 / 4 + 1 / 5) / 4)


def tsort_row(answer):
    return {"answer": answer, "query_id": "q", "in_api_subset": True}


def test_tsort_accuracy_and_random_guess():
    rows = [tsort_row([4, 1, 3, 2]), tsort_row("[1, 2, 3, 4]"), tsort_row([2, 1, 4, 3])]
    result = score_task("adaleval", "tsort", rows, ["Answer: [4, 1, 3, 2]", "1 2 3 4", "Answer: 2"])
    assert result.headline == {"accuracy": pytest.approx(200 / 3)}
    assert result.metrics["random_guess"] == pytest.approx(100 / 24)
    with pytest.raises(DataFormatError, match=r"row 0 .*'answer'"):
        score_task("adaleval", "tsort", [tsort_row("not json")], ["x"])
