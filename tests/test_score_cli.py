"""`longbench-suite score` and the Python scoring API: predictions files matched to a split's rows,
end to end on HELMET RAG configs built from the fixture mirror."""

from __future__ import annotations

import json
import re
import string

import pytest

from longbench_suite import cli, load_dataset
from longbench_suite.errors import PredictionError, UnknownNameError
from longbench_suite.metrics import align_predictions, score, summarize
from longbench_suite.metrics.scoring import ScoreResult

# -- matching predictions to rows -----------------------------------------------------------------

QIDS = ["a", "b", "b", "c"]  # "b" is repeated, like a RAG question at two depths


def lines(*records):
    return list(enumerate(records, start=1))


def test_predictions_by_index_and_by_unique_query_id():
    got = align_predictions(
        lines(
            {"index": 1, "prediction": "p1"},
            {"query_id": "a", "prediction": "p0"},
            {"index": 2, "query_id": "b", "prediction": "p2"},
            {"query_id": "c", "prediction": "p3"},
        ),
        QIDS,
    )
    assert got == ["p0", "p1", "p2", "p3"]


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ([{"index": 1, "prediction": "x"}], r"3 of 4 rows have no prediction, e\.g\. index 0 \(a\)"),
        (
            [{"index": 0, "prediction": "x"}],
            r"preds\.jsonl: predictions of the first 1 of 4 rows only \(a partial split\); score it with "
            r"--allow-partial",
        ),
        ([{"index": 4, "prediction": "x"}], r"line 1: index 4 is not a row of the split \(it has 4 rows\)"),
        ([{"query_id": "zz", "prediction": "x"}], r"line 1: query_id 'zz' is not in the split"),
        ([{"query_id": "b", "prediction": "x"}], r"line 1: query_id 'b' is ambiguous: 2 rows .*indices 1, 2"),
        (
            [{"index": 0, "prediction": "x"}, {"query_id": "a", "prediction": "y"}],
            r"line 2: row 0 was already predicted on line 1",
        ),
        ([{"index": 1, "query_id": "a", "prediction": "x"}], r"index 1 and query_id 'a' name different rows"),
        ([{"index": True, "prediction": "x"}], r"'index' must be an integer"),
        ([{"index": 0}], r"line 1: has no 'prediction'"),
        ([{"index": 0, "prediction": None}], r"'prediction' must be a string, got NoneType"),
        ([{"prediction": "x"}], r"needs 'index' \(row position\) or 'query_id'"),
    ],
)
def test_every_mismatch_is_an_error(records, message):
    with pytest.raises(PredictionError, match=message):
        align_predictions(lines(*records), QIDS, "preds.jsonl")


def test_a_partial_split_is_its_first_rows_and_is_scored_only_when_allowed():
    first_two = lines({"index": 1, "prediction": "p1"}, {"query_id": "a", "prediction": "p0"})
    assert align_predictions(first_two, QIDS, allow_partial=True) == ["p0", "p1"]
    with pytest.raises(PredictionError, match=r"first 2 of 4 rows only \(a partial split\)"):
        align_predictions(first_two, QIDS)
    # rows left out anywhere but at the end are no partial split: allowed or not, an error
    gap = lines({"index": 0, "prediction": "p0"}, {"index": 2, "prediction": "p2"})
    with pytest.raises(PredictionError, match=r"2 of 4 rows have no prediction, e\.g\. index 1 \(b\)"):
        align_predictions(gap, QIDS, allow_partial=True)


# -- end to end -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(helmet_mirror, tiny_tokenizer, tmp_path_factory):
    """nq_8k's eval split, built once; the CLI runs reuse its cache."""
    cache = str(tmp_path_factory.mktemp("score-cache"))
    opts = ["--mirror", helmet_mirror, "--tokenizer", tiny_tokenizer, "--cache-dir", cache]
    rows = load_dataset(
        "helmet", "nq_8k", split="eval", mirror=helmet_mirror, tokenizer=tiny_tokenizer, cache_dir=cache
    )
    return rows, opts


def _normalize(s):
    """SQuAD normalisation, written from docs/helmet.md §1.6."""
    s = "".join(ch for ch in s.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", s).split())


def _predictions(rows):
    """The first answer for every third row, a wrong one otherwise."""
    return [" " + r["answers"][0] if i % 3 == 0 else " no idea" for i, r in enumerate(rows)]


def _expected_subem(rows, predictions):
    hits = []
    for row, prediction in zip(rows, predictions, strict=True):
        output = "Answer:" + prediction  # completion mode: the prefix is prepended
        parsed = output.split("\n")[0][len("Answer:") :].strip()
        hits.append(
            any(
                _normalize(a) in _normalize(output) or _normalize(a) in _normalize(parsed)
                for a in row["answers"]
            )
        )
    return 100 * sum(hits) / len(hits)


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


@pytest.mark.slow
def test_cli_scores_a_helmet_rag_config(built, tmp_path, capsys):
    rows, opts = built
    predictions = _predictions(rows)
    preds = _write(
        tmp_path / "preds.jsonl", [{"index": i, "prediction": p} for i, p in enumerate(predictions)]
    )
    out = tmp_path / "result.json"
    argv = [
        "score",
        "nq_8k",
        "--predictions",
        preds,
        "--output",
        str(out),
        "--by",
        "depth",
        "--by",
        "category",
    ]
    assert cli.main([*argv, *opts]) == 0
    printed = capsys.readouterr().out
    assert (
        "helmet/nq_8k" in printed and "substring_exact_match*" in printed and "summary by category" in printed
    )
    result = json.loads(out.read_text())
    (config,) = result["results"]
    expected = _expected_subem(rows, predictions)
    assert 0 < expected < 100
    assert config["headline"] == {"substring_exact_match": pytest.approx(expected)}
    assert config["rows"] == config["split_rows"] == len(rows) == 600 and config["partial"] is False
    assert len(config["row_scores"]) == 600 and result["run"] is None  # files, not a predict folder
    depths = config["groups"]["depth"]
    assert sorted(depths) == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
    assert result["summary"]["category"]["helmet"]["8k"]["RAG"] == pytest.approx(expected)
    assert result["summary"]["category"]["helmet"]["8k"]["Ours"] == pytest.approx(expected)


def test_cli_rejects_predictions_that_do_not_match(built, tmp_path, capsys):
    rows, opts = built
    n = len(rows)

    def run(records):
        preds = _write(tmp_path / "p.jsonl", records)
        code = cli.main(["score", "nq_8k", "--predictions", preds, *opts])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1
        return err

    full = [{"index": i, "prediction": "x"} for i in range(n)]
    assert "1 of 600 rows have no prediction" in run(full[1:])
    assert "index 600 is not a row of the split" in run([*full, {"index": n, "prediction": "x"}])
    assert "row 5 was already predicted on line 6" in run([*full, {"index": 5, "prediction": "y"}])
    by_qid = [{"query_id": r["query_id"], "prediction": "x"} for r in rows]
    assert "is ambiguous: 6 rows have it" in run(by_qid)
    assert "not a column of its rows" in run_by(tmp_path, full, opts, "level", capsys)


def run_by(tmp_path, records, opts, by, capsys):
    preds = _write(tmp_path / "p.jsonl", records)
    assert cli.main(["score", "nq_8k", "--predictions", preds, "--by", by, *opts]) == 2
    return capsys.readouterr().err


def test_cli_needs_one_predictions_file_per_config(built):
    _, opts = built
    with pytest.raises(SystemExit, match="2 CONFIG but 1 --predictions"):
        cli.main(["score", "nq_8k", "popqa_8k", "--predictions", "p.jsonl", *opts])


def test_python_api_matches_the_cli_and_takes_strings_or_records(built):
    rows, _ = built
    predictions = _predictions(rows)
    by_strings = score("helmet/nq_8k", rows, predictions)
    records = [{"index": i, "prediction": p} for i, p in reversed(list(enumerate(predictions)))]
    by_records = score("nq_8k", rows, records)
    assert (
        by_strings.headline
        == by_records.headline
        == {"substring_exact_match": pytest.approx(_expected_subem(rows, predictions))}
    )
    assert by_strings.config == "helmet/nq_8k" and by_strings.length == "8k" and by_strings.split == "eval"
    with pytest.raises(PredictionError, match="599 predictions for 600 rows"):
        score("nq_8k", rows, predictions[1:])


def _result(benchmark, task, length, value, name="m"):
    return ScoreResult(
        f"{benchmark}/{task}_{length}", benchmark, task, length, "eval", "m", 1, {name: value}, {name: value}
    )


def test_summaries_by_benchmark():
    got = summarize(
        [_result("lveval", "cmrc_mixup", "16k", 10.0), _result("lveval", "lic_mixup", "16k", 20.0)], "level"
    )
    assert got["lveval"]["per_level"] == {"16k": 15.0}
    with pytest.raises(UnknownNameError, match="lveval has no 'category' summary"):
        summarize([_result("lveval", "cmrc_mixup", "16k", 10.0)], "category")
    with pytest.raises(UnknownNameError, match="adaleval has no 'level' summary"):
        summarize([_result("adaleval", "tsort", "2k", 10.0)], "level")


def test_score_help():
    with pytest.raises(SystemExit) as exc:
        cli.main(["score", "--help"])
    assert exc.value.code == 0


@pytest.mark.slow
def test_streamed_rows_score_like_prepared_ones(built, helmet_mirror, tiny_tokenizer):
    rows, _ = built
    streamed = load_dataset(
        "helmet", "nq_8k", split="eval", streaming=True, mirror=helmet_mirror, tokenizer=tiny_tokenizer
    )
    predictions = _predictions(rows)
    assert score("nq_8k", streamed, predictions).headline == score("nq_8k", rows, predictions).headline


@pytest.mark.slow
def test_summaries_over_a_run_of_several_benchmarks_are_each_ones_own(tmp_path, capsys):
    """`--by category --by level --by depth` over HELMET and LV-Eval configs: category for HELMET, level
    for LV-Eval (each benchmark that has the summary), depth where rows have it; not an error after every
    config was scored."""
    cache = str(tmp_path / "cache")
    files = []
    for config in ("helmet/nq_8k", "lveval/factrecall_en_16k"):
        rows = load_dataset("longbench_suite", config, split="eval", demo=True, cache_dir=cache)
        path = tmp_path / (config.replace("/", "-") + ".jsonl")
        files.append(_write(path, [{"index": i, "prediction": "x"} for i in range(len(rows))]))
    out = tmp_path / "result.json"
    argv = ["score", "nq_8k", "factrecall_en_16k", "--predictions", *files, "--by", "category"]
    argv += ["--by", "level", "--output", str(out), "--demo", "--cache-dir", cache]
    assert cli.main([*argv, "--by", "depth"]) == 0, capsys.readouterr().err
    written = json.loads(out.read_text())
    summary = written["summary"]
    assert list(summary["category"]) == ["helmet"] and list(summary["level"]) == ["lveval"]
    # a row column breaks down the configs that have it (HELMET RAG's depth), not LV-Eval's
    helmet, lveval = written["results"]
    assert sorted(helmet["groups"]["depth"]) == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
    assert lveval["groups"] == {}
    capsys.readouterr()
    assert cli.main([*argv, "--by", "dept"]) == 2  # a column no config has is still an error
    assert "by 'dept': not a column of its rows" in capsys.readouterr().err
    assert "16k" in summary["level"]["lveval"]["per_level"]
    assert "RAG" in summary["category"]["helmet"]["8k"]


def test_summaries_of_a_partial_split_are_marked_partial_where_they_have_a_value():
    """`score --by category` and results.md: an average that may take a partial split says so (its
    configs named under the printed table); an empty cell is not marked."""
    from dataclasses import replace

    from longbench_suite.metrics.report import summary_table
    from longbench_suite.predict.tables import markdown_report

    partial = replace(_result("helmet", "nq", "8k", 50.0, "substring_exact_match"), n_rows=5, split_rows=600)
    whole = _result("lveval", "factrecall_en", "16k", 10.0, "qa_f1_score")
    summary = summarize([partial], "category")
    printed = summary_table("category", summary, [partial, whole])
    assert re.search(r"^helmet +8k +RAG +50\.00 partial$", printed, re.M)
    assert re.search(r"^helmet +8k +Recall +-$", printed, re.M)
    assert printed.endswith("first rows only: helmet/nq_8k partial (5 of 600 rows))")
    by_level = summary_table("level", summarize([whole], "level"), [partial, whole])
    assert "partial" not in by_level
    # LV-Eval's two sections are two tables, each column holding one kind of name
    two = r"^benchmark +level +score\nlveval +16k +10\.00\n\nbenchmark +dataset +score\n"
    assert re.search(two, by_level, re.M)
    assert re.search(r"^lveval +factrecall_en +10\.00$", by_level, re.M)
    markdown = markdown_report([partial, whole], {"category": summary, "level": summarize([whole], "level")})
    assert "| RAG | 50.00 partial |" in markdown and "| Recall | – |" in markdown
    assert "| 16k | 10.00 |" in markdown
