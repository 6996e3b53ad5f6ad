"""``longbench-suite check``: passes on every benchmark's sample data, fails on deliberately broken builds.

The samples pass at the scale where their split sizes are the specs' (``samples.FULL``); the broken
builds each break one promise — a dev question that is an eval question in other letters, inputs
over budget, sizes the spec does not give, an empty gold answer — and the report must name it.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from longbench_suite import cli, get_builder, registry
from longbench_suite.benchmarks.adaleval import samples as ada_samples
from longbench_suite.benchmarks.lveval.common import archive as lveval_archive
from longbench_suite.check import LeakageKeys, check, check_sizes, expand_targets, is_empty
from longbench_suite.errors import SuiteError, UnknownNameError
from longbench_suite.fit.rules import CutContextTail, InputBudget
from longbench_suite.partition.leakage import normalise_question
from longbench_suite.samplefiles import json_bytes, write_to_mirror, zip_bytes
from longbench_suite.source import mirrored
from tests.specs import spec
from tests.support.archive_edits import read_members, replace_line


def test_question_normalisation():
    same = ["Who wrote 'Emma'?", "who wrote emma", "WHO  WROTE\n«EMMA»", "Ｗｈｏ wrote Emma？"]
    assert {normalise_question(q) for q in same} == {"who wrote emma"}
    assert normalise_question("2+2") != normalise_question("2-2")  # '+' is a symbol, '-' punctuation
    assert normalise_question("谁写了《爱玛》？") == "谁写了 爱玛"
    assert normalise_question(" \t") == ""


def test_leakage_is_found_across_lengths_by_every_key_kind():
    keys = LeakageKeys()
    keys.add({"query_id": "q1", "question": "who"}, "dev", "nq_8k")
    keys.add({"query_id": "q2", "question": "what"}, "dev", "nq_8k")
    keys.add({"query_id": "q1", "question": "who else"}, "eval", "nq_32k")
    keys.add({"query_id": "q3", "question": "what"}, "eval", "nq_8k")
    found = keys.violations("helmet/nq")
    assert [str(v) for v in found] == [
        "[leakage] helmet/nq: 1 query_id values are in both dev and eval: 'q1' (dev nq_8k; eval nq_32k)",
        "[leakage] helmet/nq: 1 question values are in both dev and eval: 'what' (dev nq_8k; eval nq_8k)",
    ]
    clean = LeakageKeys()
    clean.add({"query_id": "q1"}, "dev", "nq_8k")
    clean.add({"query_id": "q2"}, "eval", "nq_8k")
    assert clean.violations("helmet/nq") == []


def test_sizes_and_emptiness():
    assert check_sizes("b/c", {"dev": 3, "eval": 2}, {"dev": 3, "eval": 2}) == []
    found = [str(v) for v in check_sizes("b/c", {"dev": 3, "eval": 2}, {"eval": 5})]
    assert found == [
        "[sizes] b/c dev: missing; the spec fixes 3 rows",
        "[sizes] b/c eval: 5 rows; the spec fixes 2",
    ]
    assert all(is_empty(v) for v in ("", " \n", None, [], [""], ["", " "]))
    assert not any(is_empty(v) for v in ("a", ["", "a"], [4, 1, 3, 2], 0))


def test_budget_rules_of_the_merged_benchmarks():
    helmet = registry.benchmark("helmet").lookup("nq_32k")[0]
    assert helmet.budget_rule("32k", None) == InputBudget(32768 - 20, "max_length − max_new_tokens")
    assert helmet.budget_rule("32k", 1000) == InputBudget(1000, "max_input_tokens")
    lveval = registry.benchmark("lveval").lookup("factrecall_en_16k")[0]
    assert lveval.budget_rule("16k", None) is None
    assert lveval.budget_rule("16k", 500).tolerance > 0  # LV-Eval's middle cut decodes and re-encodes
    ada = registry.benchmark("adaleval").lookup("tsort_2k")[0]
    assert ada.budget_rule("2k", None) is None
    assert ada.leakage_keys({"query_id": "tsort-7_0", "book_id": "7"}) == {
        "query_id": "tsort-7_0",
        "book_id": "7",
    }
    with pytest.raises(SuiteError, match=r"adaleval/tsort_2k: Ada-LEval prompts are never cut"):
        ada.budget_rule("2k", 100)
    longbench = registry.benchmark("longbench").lookup("qasper_4k")[0]
    assert longbench.budget_rule("4k", None) == InputBudget(3500, "model2maxlen, middle cut", tolerance=8)
    assert longbench.budget_rule("full", None) is None
    assert longbench.budget_rule("full", 900) == InputBudget(900, "max_input_tokens, middle cut", tolerance=8)


def test_targets_expand_to_benchmarks_tasks_and_configs():
    assert expand_targets(["lveval"]) == registry.list_configs("lveval")
    assert expand_targets(["helmet/nq", "nq_8k"]) == [
        f"helmet/nq_{n}" for n in spec("helmet").tasks["nq"]
    ]
    assert expand_targets(["tsort_2k", "adaleval/tsort_2k"]) == ["adaleval/tsort_2k"]
    assert expand_targets([]) == registry.list_configs()
    with pytest.raises(UnknownNameError, match=r"unknown config 'nq_9k'.*did you mean"):
        expand_targets(["nq_9k"])


# -- every benchmark's samples pass -------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_options(helmet_rag_build, tiny_tokenizer, tmp_path_factory):
    """Build options for each benchmark's samples at the scale where their sizes are the specs'."""

    def options(bench: str) -> dict:
        if bench == "helmet":  # the full-scale build test_helmet_rag checks: shared, not built twice
            return {**helmet_rag_build["options"], "pretruncation_tokenizer": tiny_tokenizer}
        samples = registry.samples(bench)
        assert hasattr(samples, "FULL"), f"{bench}/samples.py needs FULL: the scale of the specs' sizes"
        mirror = str(tmp_path_factory.mktemp(f"{bench}-full"))
        samples.write_samples(mirror, samples.FULL)
        return {
            "mirror": mirror,
            "tokenizer": tiny_tokenizer,
            "pretruncation_tokenizer": tiny_tokenizer,
            "cache_dir": str(tmp_path_factory.mktemp("c")),
        }

    return options


#: Tasks whose full-scale samples are too costly to build at every length in a unit test (many-shot ICL
#: prompts reach 128k tokens per row): checked at their demo length only.
ONE_LENGTH = {"helmet": {"trec_coarse", "multi_lexsum"}}


def _sample_targets(bench: str) -> list[str]:
    """Every length of each task the benchmark's demo shows (the demo length only for costly ones)."""
    samples = registry.samples(bench)
    targets = set()
    for config in samples.DEMO_CONFIGS:
        task = registry.benchmark(bench).lookup(config)[0].name
        targets.add(f"{bench}/{config}" if task in ONE_LENGTH.get(bench, ()) else f"{bench}/{task}")
    return sorted(targets)


#: What check finds in a benchmark's samples that its builder does not guarantee yet, by violation kind.
#: Reported to the lead; the test fails on any other violation, and when this one is gone.
KNOWN: dict[str, tuple[str, str]] = {}


@pytest.mark.parametrize("bench", registry.benchmark_names())
@pytest.mark.slow
def test_check_passes_on_every_benchmarks_samples(bench, sample_options, capsys):
    options = sample_options(bench)
    argv = [
        "check",
        *_sample_targets(bench),
        "--tokenizer",
        options["tokenizer"],
        "--pretruncation-tokenizer",
        options["pretruncation_tokenizer"],
        "--mirror",
        options["mirror"],
    ]
    code = cli.main([*argv, "--cache-dir", options["cache_dir"]])
    report = capsys.readouterr().out
    configs = expand_targets(_sample_targets(bench))
    for config in configs:
        assert config in report
    if bench in KNOWN:
        kind, reason = KNOWN[bench]
        violations = [line.strip() for line in report.splitlines() if line.startswith("  [")]
        assert code == 1, f"{bench}: the known violation is gone; remove it from KNOWN"
        assert all(v.startswith(f"[{kind}]") for v in violations), report
        pytest.xfail(reason)
    assert code == 0, report
    assert re.search(rf"check: OK — {len(configs)} configs, \d+ splits, no violations", report)


# -- deliberately broken builds fail --------------------------------------------------------------


def _check(targets: list[str], capsys, **options) -> tuple[int, str]:
    argv = ["check", *targets]
    for name, value in options.items():
        argv += [f"--{name.replace('_', '-')}", str(value)]
    code = cli.main(argv)
    return code, capsys.readouterr().out


def test_a_dev_question_that_is_an_eval_question_in_other_letters_is_leakage(tmp_path, capsys):
    # Ada-LEval keeps a later row in dev when its question_id is not in eval; this file repeats an
    # eval question under another id, in other case and punctuation.
    rows = ada_samples.stackselect_rows("1k", ada_samples.FULL)
    dev_row = next(
        i
        for i in range(1000, len(rows))
        if rows[i]["question_id"] not in {r["question_id"] for r in rows[:1000]}
    )
    rows[dev_row] = {**rows[dev_row], "question": rows[3]["question"].upper().replace("\n", " ? ")}
    url = registry.benchmark("adaleval").lookup("bestanswer_1k")[0].sources("1k")["data"].url
    ada_samples.write_samples(str(tmp_path / "m"), ada_samples.FULL)  # dev reads the other settings too
    write_to_mirror(str(tmp_path / "m"), url, json_bytes(rows, indent=4))
    code, report = _check(
        ["bestanswer_1k"], capsys, mirror=tmp_path / "m", cache_dir=tmp_path / "c", tokenizer="words"
    )
    assert code == 1, report
    assert "[leakage] adaleval/bestanswer: 1 question values are in both dev and eval:" in report
    assert "query_id values" not in report and "check: FAILED — 1 violation in 1 configs" in report


@pytest.mark.slow
def test_inputs_over_budget_are_named_by_row(demo_mirror, tiny_tokenizer, tmp_path, capsys, monkeypatch):
    # A builder bug: fitting prompts to 600 tokens more than HELMET's budget.
    apply = CutContextTail.apply

    def too_generous(self, template, fields, tokenizer, budget, what, chat=None):
        wide = InputBudget(budget.tokens + 600, budget.rule)
        return apply(self, template, fields, tokenizer, wide, what, chat=chat)

    monkeypatch.setattr(CutContextTail, "apply", too_generous)
    code, report = _check(
        ["helmet/popqa_8k"], capsys, mirror=demo_mirror, tokenizer=tiny_tokenizer, cache_dir=tmp_path / "c"
    )
    assert code == 1
    line = next(v for v in report.splitlines() if "[budget]" in v)
    assert re.search(
        r"\[budget\] helmet/popqa_8k eval: \d+ of 600 inputs exceed 8172 tokens "
        r"\(max_length − max_new_tokens\) under \S+: row \d+ \(8\d{3}\)",
        line,
    ), line


def test_sizes_that_are_not_the_specs_and_empty_answers_fail(demo_mirror, tmp_path, capsys):
    mirror = tmp_path / "m"
    url = lveval_archive("factrecall_en").url
    with open(mirrored(url, demo_mirror), "rb") as f:
        members = read_members(f.read())
    member = "factrecall_en/factrecall_en_16k.jsonl"
    record = json.loads(members[member].split(b"\n")[2])
    members[member] = replace_line(members[member], 3, json.dumps({**record, "answers": [" "]}).encode())
    write_to_mirror(str(mirror), url, zip_bytes(members))
    code, report = _check(["factrecall_en_16k"], capsys, mirror=mirror, cache_dir=tmp_path / "c")
    assert code == 1
    assert "[sizes] lveval/factrecall_en_16k eval: 4 rows; the spec fixes 200" in report
    assert "[empty] lveval/factrecall_en_16k eval: 1 of 4 rows have an empty 'output': rows 2" in report
    assert "[empty] lveval/factrecall_en_16k eval: 1 of 4 rows have an empty 'answers': rows 2" in report


def test_check_builds_with_the_build_options_and_reuses_the_build(
    demo_mirror, tiny_tokenizer, tmp_path, capsys
):
    options = dict(
        mirror=demo_mirror, tokenizer=tiny_tokenizer, cache_dir=tmp_path / "c", max_input_tokens=300
    )
    code, report = _check(["lveval/factrecall_en_16k"], capsys, **options)
    assert "300 (+8)" in report  # LV-Eval's middle cut with its tolerance
    assert "[budget]" not in report and "[sizes]" in report and code == 1
    builder = get_builder(
        "factrecall_en_16k", **{k: str(v) if k != "max_input_tokens" else v for k, v in options.items()}
    )
    assert os.path.isdir(builder.cache_dir), "check did not build into the cache build uses"
    report_obj = check([builder])
    assert [v.check for v in report_obj.violations] == ["sizes"]
    assert max(s.max_tokens for s in report_obj.splits) <= 304


def test_unknown_targets_are_one_line_errors(capsys):
    assert cli.main(["check", "helmet/nq_9k"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown config of helmet 'nq_9k'" in err
