"""LongBench v2's scorer: pred.py's extract_answer and result.py's accuracies, by hand-computed cases,
the strict mode, the tables and the summary, through the core scorer (``score_task``)."""

from __future__ import annotations

import importlib
import json
import os
import re
import types

import pytest

from longbench_suite import cli
from longbench_suite.errors import DataFormatError, OptionError
from longbench_suite.metrics import scoring, summarize
from longbench_suite.metrics.report import results_table, summary_table
from longbench_suite.predict import predict

v2 = importlib.import_module("longbench_suite.benchmarks.longbench_v2.metrics")


@pytest.mark.parametrize(
    "response, letter",
    [
        ("The correct answer is (B)", "B"),
        ("**The correct answer is (C)**", "C"),  # every '*' is removed first
        ("The correct answer is *(*D*)*.", "D"),
        ("The correct answer is A.", "A"),  # the bare form is the fallback
        ("The correct answer is A, no: The correct answer is (B)", "B"),  # the parenthesised form first
        ("The correct answer is (A) or The correct answer is (C)", "A"),  # its first match
        ("the correct answer is (A)", None),  # case-sensitive
        ("The correct answer is (E)", None),
        ("The correct answer is  (B)", None),  # two spaces match neither form
        ("The correct answer is: (B)", None),
        ("The correct answer is B", "B"),
        ("", None),
    ],
)
def test_extract_answer_is_pred_py_s(response, letter):
    assert v2.extract_answer(response) == letter


def row(answer: str, difficulty: str, length: str, domain: str = "Single-Document QA", i: int = 0) -> dict:
    return {
        "query_id": f"q{i}",
        "answer": answer,
        "difficulty": difficulty,
        "length": length,
        "domain": domain,
        "length_bucket_tokens": {"short": "short", "medium": "medium"}.get(length, "long"),
    }


#: (row, prediction): correct, wrong, missing (empty), unparsed, bare-correct, starred-correct under an
#: odd length label (result.py: long), correct
CASES = [
    (row("A", "easy", "short", i=0), "The correct answer is (A)"),
    (row("B", "easy", "medium", i=1), "The correct answer is (C)"),
    (row("C", "hard", "long", "Code Repository Understanding", i=2), ""),
    (row("D", "hard", "short", i=3), "I think it is D"),
    (row("A", "hard", "medium", i=4), "The correct answer is A"),
    (row("B", "easy", "Long", "Code Repository Understanding", i=5), "**The correct answer is (B)**"),
    (row("D", "hard", "long", i=6), "The correct answer is (D)"),
]


@pytest.fixture
def lb2(monkeypatch):
    """The core scorer with LongBench v2's metrics module, the task lookup aside (the tasks are
    declared in the benchmark's package)."""
    module = types.SimpleNamespace(
        **{name: getattr(v2, name) for name in ("prepare", "GROUP_LEVELS", "SUMMARIES")},
        task_scoring=lambda task, strict=False: v2.accuracy_scoring(strict),
    )
    monkeypatch.setattr(scoring, "metrics_module", lambda name: module)

    def score(cases=CASES, by=(), **options):
        rows, predictions = [r for r, _ in cases], [p for _, p in cases]
        return scoring.score_task(
            "longbench_v2", "0shot", rows, predictions, length="128k", split="eval", by=by, options=options
        )

    return score


def test_result_py_numbers_leave_missing_rows_out_of_every_denominator(lb2):
    result = lb2()
    # present: rows 0,1,3,4,5,6; correct: 0,4,5,6
    assert result.headline == {"accuracy": 66.7}
    assert result.metrics == {
        "accuracy": 66.7,  # 4/6
        "easy": 66.7,  # rows 0,1,5: 2/3
        "hard": 66.7,  # rows 3,4,6 (2 missing): 2/3
        "short": 50.0,  # rows 0,3
        "medium": 50.0,  # rows 1,4
        "long": 100.0,  # rows 5 ("Long" counts as long), 6 (2 missing)
        "missing": 1,
        "unparsed": 1,
    }
    assert result.rows[2]["scores"]["accuracy"] is None
    assert result.rows[3]["scores"] == {
        "accuracy": 0.0,
        "easy": None,
        "hard": 0.0,
        "short": 0.0,
        "medium": None,
        "long": None,
        "missing": 0.0,
        "unparsed": 1.0,
    }


def test_strict_mode_counts_every_row_and_names_its_numbers(lb2):
    result = lb2(strict=True)
    assert result.headline == {"accuracy_strict": 57.1}  # 4/7
    assert result.metrics == {
        "accuracy_strict": 57.1,
        "easy_strict": 66.7,
        "hard_strict": 50.0,  # rows 2,3,4,6: 2/4
        "short_strict": 50.0,
        "medium_strict": 50.0,
        "long_strict": 66.7,  # rows 2,5,6: 2/3
        "missing": 1,
        "unparsed": 1,
    }
    assert "strict" in result.metric


def test_rounding_is_result_py_s_one_decimal_halves_to_even():
    assert v2.percent_1dp([1.0] + [0.0] * 15) == 6.2  # round(6.25, 1): 6.25 is exact, the tie goes to even
    assert v2.percent_1dp([1.0] * 2 + [0.0] * 1) == 66.7
    assert v2.percent_1dp([]) is None


def test_an_empty_bucket_is_none_where_result_py_divides_by_zero(lb2):
    easy_only = [c for c in CASES if c[0]["difficulty"] == "easy"]
    result = lb2(easy_only)
    assert result.metrics["hard"] is None and result.metrics["easy"] == 66.7
    summary = summarize([result], "result")["longbench_v2"]
    assert summary["Hard"] == {"0shot 128k": None} and summary["Overall"] == {"0shot 128k": 66.7}


def test_tables_by_difficulty_length_token_bucket_and_domain(lb2):
    result = lb2(by=list(v2.GROUP_LEVELS))
    assert result.groups["difficulty"]["easy"]["accuracy"] == 66.7
    assert list(result.groups["length"]) == ["short", "medium", "long", "Long"]  # the label as given
    assert result.groups["length"]["long"]["accuracy"] == 100.0  # row 6 (row 2 is missing)
    assert result.groups["length"]["long"]["missing"] == 1
    assert result.groups["length_bucket_tokens"]["long"]["accuracy"] == 100.0
    assert result.groups["domain"]["Code Repository Understanding"] == {
        "accuracy": 100.0,
        "easy": 100.0,
        "hard": None,  # its hard row is missing
        "short": None,
        "medium": None,
        "long": 100.0,
        "missing": 1,
        "unparsed": 0,
    }


def test_a_column_without_values_gives_no_table(lb2):
    cases = [({**r, "length_bucket_tokens": None}, p) for r, p in CASES]  # no_context rows have no bucket
    result = lb2(cases, by=["length_bucket_tokens", "difficulty"])
    assert list(result.groups) == ["difficulty"]


def test_the_summary_is_result_py_s_table_with_configs_for_models(lb2):
    plain, strict = lb2(), lb2(strict=True)
    strict.task = "0shot (strict)"
    summary = summarize([plain, strict], "result")["longbench_v2"]
    assert list(summary) == ["Overall", "Easy", "Hard", "Short", "Medium", "Long", "Missing", "Unparsed"]
    assert summary["Overall"] == {"0shot 128k": 66.7, "0shot (strict) 128k": 57.1}
    assert summary["Long"] == {"0shot 128k": 100.0, "0shot (strict) 128k": 66.7}
    assert summary["Missing"] == {"0shot 128k": 1, "0shot (strict) 128k": 1}
    table = summary_table("result", {"longbench_v2": summarize([plain], "result")["longbench_v2"]})
    assert re.search(r"Missing +0shot 128k +1\n", table)  # counts print as counts


def test_the_results_table_prints_counts_as_counts(lb2):
    table = results_table([lb2()])
    assert re.search(r"accuracy\* +66.70\n", table)
    assert re.search(r"missing +1\n", table) and re.search(r"unparsed +1\n", table)


def test_an_answer_that_is_no_letter_is_one_clear_error(lb2):
    bad = [(row("E", "easy", "short"), "The correct answer is (A)")]
    with pytest.raises(DataFormatError, match=r"row 0 \(query_id 'q0'\): 'answer' must be one of A, B, C, D"):
        lb2(bad)


# -- parity with upstream's own code ------------------------------------------------------------------

UPSTREAM = os.path.join(os.path.dirname(__file__), "upstream", "longbench_v2_result.json")


def _upstream():
    with open(UPSTREAM, encoding="utf-8") as f:
        recorded = json.load(f)
    header, *lines = recorded["result_txt"].split("\n")
    columns = header.split("\t")[1:]
    table = {
        line.split("\t")[0]: dict(zip(columns, map(float, line.split("\t")[1:]), strict=True))
        for line in lines
    }
    return recorded["files"], table


def test_extraction_agrees_with_pred_py_on_every_recorded_response():
    files, _ = _upstream()
    responses = [r for rows in files.values() for r in rows]
    assert {r["pred"] for r in responses} >= {None, "A", "B", "C", "D"}
    for r in responses:
        assert v2.extract_answer(r["response"]) == r["pred"], r["response"]


def test_the_same_predictions_give_result_py_s_numbers(lb2):
    """Every item scored, an item pred.py never wrote (its reply was '') as an empty prediction."""
    files, table = _upstream()
    assert len(table) == 3
    for model, rows in files.items():
        cases = [({**r, "query_id": r["_id"]}, r["response"]) for r in rows]
        assert any(p == "" for _, p in cases) and any(
            r["length"] not in ("short", "medium", "long") for r, _ in cases
        )
        summary = summarize([lb2(cases)], "result")["longbench_v2"]
        ours = {column: summary[column]["0shot 128k"] for column in table[model]}
        assert ours == table[model], model


# -- choosing strict mode -----------------------------------------------------------------------------


def test_strict_goes_to_the_benchmarks_that_take_it_and_is_refused_where_none_does(monkeypatch):
    real = scoring.metrics_module
    monkeypatch.setattr(scoring, "metrics_module", lambda name: v2 if name == "longbench_v2" else real(name))
    assert scoring.scoring_options(["helmet", "longbench_v2"], strict=True) == {
        "helmet": {},
        "longbench_v2": {"strict": True},
    }
    assert scoring.scoring_options(["helmet"], strict=False) == {"helmet": {}}
    with pytest.raises(
        OptionError, match=r"^--strict: the scoring of none of the configs' benchmarks \(helmet, lveval\)"
    ):
        scoring.scoring_options(["helmet", "lveval"], strict=True)


def test_score_strict_on_other_benchmarks_is_one_line_before_anything_is_built(tmp_path, capsys):
    predictions = tmp_path / "p.jsonl"
    predictions.write_text('{"index": 0, "prediction": "x"}\n')
    code = cli.main(
        [
            "score",
            "nq_8k",
            "--predictions",
            str(predictions),
            "--strict",
            "--demo",
            "--cache-dir",
            str(tmp_path / "c"),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(
        "longbench-suite: error: --strict: the scoring of none of the configs' benchmarks (helmet)"
    )
    assert "\n" not in err
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize(
    "score, message",
    [
        (False, "--strict is a scoring option: give it with --score"),
        (True, r"--strict: the scoring of none of the configs' benchmarks \(helmet\)"),
    ],
)
def test_predict_strict_is_refused_before_anything_is_built_without_score_or_a_taker(
    tmp_path, score, message
):
    with pytest.raises(OptionError, match=message):
        predict(
            ["nq_8k"],
            str(tmp_path / "out"),
            model="m",
            endpoint="http://127.0.0.1:9/v1",
            score=score,
            strict=True,
            cache_dir=str(tmp_path / "c"),
        )
    assert not (tmp_path / "out").exists() and not (tmp_path / "c").exists()


def test_compare_keeps_a_strict_run_s_headline_apart_from_a_plain_one():
    from longbench_suite.comparison.runs import Entry, Model
    from longbench_suite.comparison.tables import task_table

    def model(label: str, metric: str, value: float) -> Model:
        result = scoring.ScoreResult(
            "adaleval/tsort_2k", "adaleval", "tsort", "2k", "eval", "m", 4, {metric: value}, {metric: value}
        )
        entry = Entry(result, f"{label}/results.json", 4, 4, False)
        return Model(label, "m", [], None, {"adaleval/tsort_2k": entry})

    table = task_table(
        "adaleval", [model("plain", "accuracy", 50.0), model("strict", "accuracy_strict", 25.0)]
    )
    assert table.rows == ["tsort (accuracy)", "tsort (accuracy_strict)"]
    assert table.cells[("tsort (accuracy)", "plain")]["2k"].value == 50.0
    assert table.cells[("tsort (accuracy_strict)", "strict")]["2k"].value == 25.0
    assert table.cells[("tsort (accuracy)", "strict")]["2k"].value is None
