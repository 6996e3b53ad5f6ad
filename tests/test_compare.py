"""`longbench-suite compare`: runs predicted and scored on the loopback fake server, for every
benchmark, put side by side.

The run record (``results.json``'s ``"run"``, ``run.json``) and the ``partial`` marks of results entries
are written by ``predict`` on another branch; until they land here, the tests that need them add those
keys to the real files the fake-server runs produced (``with_record``, ``mark_partial``), in the shape
agreed for ``predict``'s run record; ``compare`` works without them (README: "Comparing models")."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import sys

import pytest

from longbench_suite import cli
from longbench_suite.comparison import build, compare
from longbench_suite.errors import DataFormatError, MissingDependencyError, OptionError, StorageError
from tests.specs import spec
from tests.support.fake_openai import FakeOpenAI

pytest.importorskip("openai")
pytest.importorskip("matplotlib")

CONFIGS = [
    "helmet/json_kv_8k",
    "helmet/json_kv_16k",
    "helmet/nq_8k",
    "helmet/nq_16k",
    "helmet/infbench_sum_8k",  # its GPT-4o judge is not given: not computed
    "longbench/samsum_4k",
    "longbench/qasper_4k",
    "longbench/qasper_e_8k",
    "longbench/hotpotqa_e_8k",
    "lveval/factrecall_en_16k",
    "lveval/factrecall_en_32k",
    "adaleval/tsort_2k",
    "adaleval/bestanswer_1k",
]
LEFT_OUT = "helmet/nq_16k"  # the config the "fewer" run does not predict


def _predict(server: FakeOpenAI, configs, out: str, options: dict, model: str) -> None:
    argv = ["predict", *configs, "--endpoint", server.url, "--model", model, "--output", out]
    argv += ["--score", "--no-progress", "--no-plot", "--mirror", options["mirror"]]
    argv += ["--tokenizer", options["tokenizer"], "--pretruncation-tokenizer", options["tokenizer"]]
    argv += ["--cache-dir", options["cache_dir"]]
    assert cli.main(argv) == 0


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three scored runs: a model answering every row right ("good"), one answering about two in three
    ("half"), and the same "half" model without one HELMET config ("fewer")."""
    from longbench_suite import load_dataset
    from longbench_suite.demo import offline_options
    from longbench_suite.training.formats import user_turn

    root = tmp_path_factory.mktemp("compare")
    options = offline_options(str(root / "cache"))
    answers = {}
    for config in CONFIGS:
        for row in load_dataset("longbench_suite", config, split="eval", **options):
            answers[user_turn(row) if row["use_chat_template"] else row["input"]] = row["output"]

    def half(prompt: str) -> str:
        right = int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 3
        return answers[prompt] if right else "I do not know"

    out = {name: str(root / name) for name in ("good", "half", "fewer")}
    with FakeOpenAI(answers.__getitem__) as server:
        _predict(server, CONFIGS, out["good"], options, "good")
    with FakeOpenAI(half) as server:
        _predict(server, CONFIGS, out["half"], options, "half")
        _predict(server, [c for c in CONFIGS if c != LEFT_OUT], out["fewer"], options, "fewer")
    out["tokenizer"] = options["tokenizer"]
    return out


def results_of(run: str) -> dict:
    with open(os.path.join(run, "results.json"), encoding="utf-8") as f:
        return json.load(f)


def rewritten(run: str, target, change) -> str:
    """A copy of ``run``'s results.json with ``change(payload)`` applied, in the directory ``target``."""
    payload = results_of(run)
    change(payload)
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, "results.json"), "w", encoding="utf-8") as f:
        json.dump(payload, f)
    return str(target)


def record(model: str, tokenizer: str, **build) -> dict:
    """A run record as ``predict`` writes it (docs: the contract in the module docstring)."""
    options = {"tokenizer": tokenizer, "chat_template": None, "max_input_tokens": None, **build}
    return {
        "format": 1,
        "model": model,
        "backend": "openai",
        "endpoint": "http://127.0.0.1:8000/v1",
        "split": "eval",
        "limit": None,
        "build": options,
    }


def without_record(payload: dict) -> None:
    """A results.json as written before runs were recorded (and with no run.json beside it)."""
    payload.pop("run", None)


def with_record(record_: dict):
    def change(payload: dict) -> None:
        payload["run"] = record_

    return change


TASKS = "Headline score by task and length"
CATEGORIES = "Average by category and length"
BUCKETS_AT_8K = "Average by category and length_bucket, configs at 8k"


def cells(comparison, benchmark: str, title: str, row: str, model: str) -> dict:
    (bench,) = [b for b in comparison.benchmarks if b.benchmark == benchmark]
    (table,) = [t for t in bench.tables if t.title == title and (row, model) in t.cells]
    return table.cells[(row, model)]


# -- every benchmark, two models ----------------------------------------------------------------------


@pytest.mark.slow
def test_two_runs_give_every_benchmarks_tables_and_averages_as_the_runs_reported_them(runs, tmp_path):
    out = tmp_path / "cmp"
    assert cli.main(["compare", runs["good"], runs["half"], "--output", str(out)]) == 0
    comparison = build([runs["good"], runs["half"]])
    assert [b.benchmark for b in comparison.benchmarks] == ["helmet", "longbench", "lveval", "adaleval"]
    for name in ("good", "half"):
        reported = results_of(runs[name])
        # each task cell is the run's own headline score
        for entry in reported["results"]:
            benchmark = entry["benchmark"]
            task_cells = cells(comparison, benchmark, TASKS, entry["task"], name)
            assert task_cells[entry["length"]].value == next(iter(entry["headline"].values()))
        # each average is the benchmark's own summary, as predict --score reported it
        helmet = reported["summary"]["category"]["helmet"]
        for length in ("8k", "16k"):
            for category in ("Recall", "RAG", "Ours"):
                cell = cells(comparison, "helmet", CATEGORIES, category, name)[length]
                assert cell.value == helmet[length][category]
                assert (cell.covers, cell.of) == ((2, 2) if category == "Ours" else (1, 1))
        longbench = reported["summary"]["category"]["longbench"]
        cell = cells(comparison, "longbench", CATEGORIES, "LongBench-E / en / Avg", name)
        assert cell["8k"].value == longbench["LongBench-E 8k"]["en"]["Avg"] and cell["8k"].covers == 2
        lveval = reported["summary"]["level"]["lveval"]
        per_level = cells(comparison, "lveval", "Average by level and length", "all tasks", name)
        assert {k: c.value for k, c in per_level.items()} == lveval["per_level"]
        overall = cells(comparison, "lveval", "Average by dataset, over all lengths", "factrecall_en", name)
        assert overall["all"].value == lveval["per_dataset"]["factrecall_en"]
        markdown = (out / "compare.md").read_text()
        assert "Average by dataset, over all lengths:\n\n| dataset | model | all |" in markdown
        assert "| all tasks | good |" in markdown and "per_level" not in markdown
    # a score a missing judge left out is missing with that reason, in no average
    summ = cells(comparison, "helmet", TASKS, "infbench_sum", "half")["8k"]
    assert summ.value is None and summ.reason.startswith("not computed (needs an LLM judge")
    (categories,) = [t for t in comparison.benchmarks[0].tables if t.title == CATEGORIES]
    assert categories.rows == ["Recall", "RAG", "Ours"]
    # LongBench-E's buckets: the category averages over each bucket's scores
    good = cells(comparison, "longbench", BUCKETS_AT_8K, "LongBench-E / en / Avg", "good")
    assert {k: c.value for k, c in good.items()} == {"0-4k": 100.0, "4-8k": 100.0, "8k+": 100.0}
    half = cells(comparison, "longbench", BUCKETS_AT_8K, "LongBench-E / en / Avg", "half")
    buckets = [
        e["groups"]["length_bucket"] for e in results_of(runs["half"])["results"] if e["task"].endswith("_e")
    ]
    for key in ("0-4k", "4-8k", "8k+"):
        assert half[key].value == pytest.approx(sum(next(iter(b[key].values())) for b in buckets) / 2)
    # the files: Markdown per benchmark, CSV one line per cell, JSON the same cells, a PNG
    markdown = (out / "compare.md").read_text()
    for heading in ("## helmet (eval)", "## longbench (eval)", "## lveval (eval)", "## adaleval (eval)"):
        assert heading in markdown
    assert "| category | model | 8k | 16k |" in markdown
    ours = results_of(runs["half"])["summary"]["category"]["helmet"]
    assert f"|  | half | {ours['8k']['Ours']:.2f} (2/2) | {ours['16k']['Ours']:.2f} (2/2) |" in markdown
    with open(out / "compare.csv", encoding="utf-8") as f:
        lines = list(csv.DictReader(f))
    tsort = [
        x for x in lines if x["benchmark"] == "adaleval" and x["row"] == "tsort" and x["model"] == "half"
    ]
    assert [(x["column"], float(x["value"])) for x in tsort] == [
        ("2k", cells(comparison, "adaleval", TASKS, "tsort", "half")["2k"].value)
    ]
    payload = json.loads((out / "compare.json").read_text())
    assert [m["label"] for m in payload["models"]] == ["good", "half"]
    assert (out / "compare.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_the_same_runs_give_byte_identical_files(runs, tmp_path):
    for name in ("a", "b"):
        compare([runs["good"], runs["half"]], str(tmp_path / name))
    for file in ("compare.md", "compare.json", "compare.csv", "compare.png"):
        assert (tmp_path / "a" / file).read_bytes() == (tmp_path / "b" / file).read_bytes(), file



@pytest.mark.slow
def test_a_comparison_without_a_picture_leaves_no_earlier_picture_beside_its_tables(runs, tmp_path):
    """The README's second command into the folder of the first: the old picture (of other names) is
    not left beside the new tables; a failed write leaves every file of before."""
    import errno

    from longbench_suite.comparison import plot as drawing

    compare([runs["good"], runs["half"]], str(tmp_path))
    before = {f: (tmp_path / f).read_bytes() for f in sorted(os.listdir(tmp_path))}
    assert len(before) == 4

    def disk_full(*args):
        raise OSError(errno.ENOSPC, "No space left on device")

    patch = pytest.MonkeyPatch()
    patch.setattr(drawing, "plot", disk_full)
    named = r"^cannot write .*compare\.md, .*compare\.png: OSError: \[Errno 28\]"
    try:
        with pytest.raises(StorageError, match=named):
            compare([runs["good"], runs["half"]], str(tmp_path), names=["A", "B"])
    finally:
        patch.undo()
    assert {f: (tmp_path / f).read_bytes() for f in sorted(os.listdir(tmp_path))} == before
    compare([runs["good"], runs["half"]], str(tmp_path), names=["A", "B"], plot=False)
    assert sorted(os.listdir(tmp_path)) == ["compare.csv", "compare.json", "compare.md"]
    assert "| A |" in (tmp_path / "compare.md").read_text()


# -- missing cells ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_config_one_run_did_not_predict_is_missing_and_left_out_of_its_averages(runs, tmp_path):
    comparison = compare([runs["good"], runs["fewer"]], str(tmp_path))
    task = cells(comparison, "helmet", TASKS, "nq", "fewer")
    assert task["16k"].value is None and task["16k"].reason == "not predicted"
    assert task["8k"].value is not None
    rag = cells(comparison, "helmet", CATEGORIES, "RAG", "fewer")["16k"]
    assert rag.value is None and rag.reason == "nq_16k not predicted" and (rag.covers, rag.of) == (0, 1)
    ours = cells(comparison, "helmet", CATEGORIES, "Ours", "fewer")["16k"]
    # the average over what the run has, as the run itself reported it, saying it covers 1 of 2
    assert ours.value == results_of(runs["fewer"])["summary"]["category"]["helmet"]["16k"]["Ours"]
    assert (ours.covers, ours.of, ours.configs) == (1, 2, ("helmet/json_kv_16k",))
    markdown = (tmp_path / "compare.md").read_text()
    assert "– (not predicted)" in markdown and f"{ours.value:.2f} (1/2)" in markdown
    assert "- fewer — not predicted: nq_16k; infbench_sum_8k not computed (needs an LLM judge" in markdown
    assert " 0.00 (1/2)" not in markdown


def mark_partial(config: str, rows: int):
    """Mark one entry as scored on ``rows`` of its split's rows (the contract's keys)."""

    def change(payload: dict) -> None:
        for entry in payload["results"]:
            split_rows = entry["n_rows"]
            entry.update(rows=split_rows, split_rows=split_rows, partial=False)
            if entry["config"] == config:
                entry.update(rows=rows, partial=True)

    return change


@pytest.mark.slow
def test_a_partial_split_is_missing_with_its_row_counts_and_never_averaged(runs, tmp_path):
    partial = rewritten(runs["half"], tmp_path / "half", mark_partial(LEFT_OUT, 2))
    comparison = compare([runs["good"], partial], str(tmp_path / "cmp"))
    split_rows = next(e["n_rows"] for e in results_of(runs["half"])["results"] if e["config"] == LEFT_OUT)
    task = cells(comparison, "helmet", TASKS, "nq", "half")["16k"]
    assert task.value is None and task.reason == f"partial (2 of {split_rows} rows)"
    ours = cells(comparison, "helmet", CATEGORIES, "Ours", "half")["16k"]
    # the same model without that config reported exactly this average
    assert ours.value == results_of(runs["fewer"])["summary"]["category"]["helmet"]["16k"]["Ours"]
    assert (ours.covers, ours.of) == (1, 2)
    rag = cells(comparison, "helmet", CATEGORIES, "RAG", "half")["16k"]
    assert rag.value is None and rag.reason == f"nq_16k partial (2 of {split_rows} rows)"
    assert f"– (partial (2 of {split_rows} rows))" in (tmp_path / "cmp" / "compare.md").read_text()



@pytest.mark.slow
def test_a_smoke_run_is_partial_not_built_otherwise(runs, tmp_path):
    """--limit says how many rows were predicted, not how they were built: its partial splits are noted
    per model, and no note says the rows were built with other options."""

    def smoke(payload: dict) -> None:
        mark_partial(LEFT_OUT, 2)(payload)
        payload["run"]["limit"] = 2

    comparison = build([runs["good"], rewritten(runs["half"], tmp_path / "half", smoke)])
    notes = [n for b in comparison.benchmarks for n in b.notes]
    assert any("nq_16k partial (2 of" in n for n in notes), notes
    assert not any("built with different options" in n for n in notes), notes


# -- naming models from their run records ------------------------------------------------------------------


@pytest.mark.slow
def test_one_model_under_two_tokenizers_is_two_flagged_rows_never_averaged(runs, tmp_path):
    one = rewritten(runs["good"], tmp_path / "one", with_record(record("org/model", "tok-a")))
    two = rewritten(runs["half"], tmp_path / "two", with_record(record("org/model", "tok-b")))
    comparison = compare([one, two], str(tmp_path / "cmp"))
    assert [m.label for m in comparison.models] == [
        "org/model [tokenizer=tok-a]",
        "org/model [tokenizer=tok-b]",
    ]
    assert any(
        "'org/model' was run with different options (tokenizer: tok-a | tok-b)" in n for n in comparison.notes
    )
    for label, run in zip([m.label for m in comparison.models], ("good", "half"), strict=True):
        ours = cells(comparison, "helmet", CATEGORIES, "Ours", label)["8k"]
        assert ours.value == results_of(runs[run])["summary"]["category"]["helmet"]["8k"]["Ours"]
    markdown = (tmp_path / "cmp" / "compare.md").read_text()
    assert (
        "| org/model [tokenizer=tok-a] | run record | org/model | http://127.0.0.1:8000/v1 | tok-a |"
        in markdown
    )
    helmet = comparison.benchmarks[0]
    assert (
        "The rows were built with different options (tokenizer: org/model [tokenizer=tok-a]=tok-a, "
        "org/model [tokenizer=tok-b]=tok-b)" in helmet.notes[-1]
    )


@pytest.mark.slow
def test_one_model_split_over_two_directories_is_one_row(runs, tmp_path):
    same = record("org/model", "tok-a", cache_dir="/somewhere")

    def only(benchmarks, cache_dir):
        def change(payload):
            payload["results"] = [e for e in payload["results"] if e["benchmark"] in benchmarks]
            payload["run"] = {**same, "build": {**same["build"], "cache_dir": cache_dir}}

        return change

    first = rewritten(runs["good"], tmp_path / "helmet", only({"helmet"}, "/a"))
    rest = rewritten(runs["good"], tmp_path / "rest", only({"longbench", "lveval", "adaleval"}, "/b"))
    comparison = build([first, rest])
    (model,) = comparison.models
    assert model.label == "org/model" and sorted(model.entries) == sorted(CONFIGS)
    with pytest.raises(OptionError, match=r"helmet/json_kv_8k is in both .* under different --name values"):
        build([first, first])


@pytest.mark.slow
def test_the_record_beside_a_results_file_names_the_model_and_name_overrides_it(runs, tmp_path):
    target = tmp_path / "local"
    rewritten(runs["good"], target, without_record)
    local = record("/models/checkpoint-500", "tok-a")
    (target / "run.json").write_text(json.dumps({**local, "backend": "transformers", "endpoint": None}))
    comparison = build([str(target), runs["half"]])
    assert [m.label for m in comparison.models] == ["checkpoint-500", "half"]
    assert comparison.models[0].runs[0].named_by == "run record"
    renamed = build([str(target), runs["half"]], names=["step 500", "baseline"])
    assert [m.label for m in renamed.models] == ["step 500", "baseline"]
    # a results file given by its path (as `score --output` writes one), without a record, is named
    # after the file
    scored = tmp_path / "scored-by-hand.json"
    payload = results_of(runs["half"])
    without_record(payload)
    scored.write_text(json.dumps(payload))
    assert [m.label for m in build([runs["good"], str(scored)]).models] == ["good", "scored-by-hand"]


def test_lengths_are_ordered_shortest_first_across_a_benchmarks_tasks():
    from longbench_suite.predict.tables import length_order

    # Ada-LEval's BestAnswer has 6k and 12k, which TSort (declared first) does not
    adaleval = spec("adaleval")
    assert "6k" not in adaleval.tasks["tsort"] and "6k" in adaleval.tasks["bestanswer"]
    shuffled = list(reversed(adaleval.lengths))
    assert length_order("adaleval", shuffled) == sorted(adaleval.lengths, key=lambda length: int(length[:-1]))
    longbench = list(spec("longbench").lengths)
    assert length_order("longbench", reversed(longbench))[-1] == "full"  # no token count: after the others
    levels = list(spec("lveval").lengths)
    assert length_order("lveval", reversed(levels)) == levels  # levels, as declared


def test_the_python_function_is_the_packages():
    import longbench_suite
    from longbench_suite import comparison

    assert longbench_suite.compare is comparison.compare


# -- bad input ---------------------------------------------------------------------------------------------


def test_bad_runs_are_one_line_naming_what_is_wrong(tmp_path, capsys):
    assert cli.main(["compare", str(tmp_path), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path} holds no results.json" in err
    (tmp_path / "results.json").write_text("{not json")
    with pytest.raises(DataFormatError, match=r"results.json is not valid JSON"):
        build([str(tmp_path)])
    (tmp_path / "p.jsonl").write_bytes(b'{"prediction": "\xff"}\n')  # another file, not UTF-8 text
    with pytest.raises(DataFormatError, match=r"p.jsonl is not valid JSON: 'utf-8' codec can't decode"):
        build([str(tmp_path / "p.jsonl")])
    (tmp_path / "results.json").write_text(json.dumps({"results": [{"config": "helmet/nq_8k"}]}))
    with pytest.raises(DataFormatError, match=r"results.json, results\[0\]: no 'benchmark' field"):
        build([str(tmp_path)])
    with pytest.raises(OptionError, match="2 --name for 1 runs"):
        build([str(tmp_path)], names=["a", "b"])
    assert cli.main(["compare", str(tmp_path / "nowhere"), "--output", str(tmp_path / "out")]) == 2
    assert "nowhere: no such run directory or results file" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_an_output_that_is_a_file_is_refused_and_left_alone(runs, tmp_path):
    target = tmp_path / "taken"
    target.write_text("mine")
    with pytest.raises(OptionError, match=r"--output .*taken is a file"):
        compare([runs["good"]], str(target))
    assert target.read_text() == "mine"


def test_without_matplotlib_the_picture_is_one_line_naming_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingDependencyError, match=r"longbench-suite\[cards\].*--no-plot"):
        compare([str(tmp_path)], str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


# -- results.md (issue 28): LV-Eval's level summary ------------------------------------------------------


def test_lveval_levels_and_datasets_get_tables_of_their_own():
    from longbench_suite.metrics import ScoreResult, summarize
    from longbench_suite.predict.tables import markdown_report

    results = [
        ScoreResult(
            f"lveval/{task}_{length}", "lveval", task, length, "eval", "m", 1, {"m": score}, {"m": score}
        )
        for task, length, score in [
            ("factrecall_en", "16k", 50.0),
            ("factrecall_en", "32k", 30.0),
            ("loogle_SD_mixup", "16k", 70.0),
        ]
    ]
    text = markdown_report(results, {"level": summarize(results, "level")})
    assert (
        "Summary by level:\n\n| level | score |\n|---|---|\n| 16k | 60.00 |\n| 32k | 30.00 |\n\n| dataset |"
        in text
    )
    assert "| dataset | score |\n|---|---|\n| loogle_SD_mixup | 70.00 |\n| factrecall_en | 40.00 |" in text


@pytest.mark.slow
def test_unrecorded_runs_of_one_directory_name_are_told_apart_by_where_they_are(runs, tmp_path):
    first = rewritten(runs["good"], tmp_path / "a" / "run", without_record)
    second = rewritten(runs["half"], tmp_path / "b" / "run", without_record)
    comparison = build([first, second])
    assert [m.label for m in comparison.models] == [f"run [from {first}]", f"run [from {second}]"]
    assert "'run' names runs that recorded no options" in comparison.notes[0]


@pytest.mark.slow
def test_the_readme_example_is_what_compare_writes(runs):
    from longbench_suite.comparison.report import markdown_table

    comparison = build([runs["good"], runs["fewer"]], names=["model-a", "model-b"])
    (table,) = [t for t in comparison.benchmarks[0].tables if t.title == CATEGORIES]
    readme = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")
    with open(readme, encoding="utf-8") as f:
        assert markdown_table(table) in f.read()


@pytest.mark.slow
def test_a_run_without_a_record_is_named_after_its_directory_and_said_so(runs, tmp_path):
    old = rewritten(runs["good"], tmp_path / "before-records", without_record)
    comparison = build([old, runs["half"]])
    assert [m.label for m in comparison.models] == ["before-records", "half"]
    assert comparison.models[0].runs[0].named_by == "directory name"
    assert any(
        "has no run record" in n and "'before-records' after its directory" in n for n in comparison.notes
    )
