"""LongBench's metrics and averages (docs/longbench.md §8, §9), on rows built by hand per the row contract."""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path

import jieba
import pytest
from rouge import Rouge

from longbench_suite.benchmarks.longbench import metrics as longbench
from longbench_suite.benchmarks.longbench.lengths import length_bucket
from longbench_suite.benchmarks.longbench.metrics import (
    category_scores,
    classification_score,
    code_line,
    code_sim_score,
    count_score,
    first_line,
    fuzz_ratio,
    retrieval_score,
    retrieval_zh_score,
    rouge_score,
    rouge_zh_score,
)
from longbench_suite.errors import DataFormatError, UnknownNameError
from longbench_suite.metrics import score_task
from tests.specs import longbench as spec

jieba.setLogLevel(60)


def lb_row(answers, *, length=1000, all_classes=None, language="en", dataset="x", query_id="q"):
    return {
        "answers": answers,
        "all_classes": all_classes,
        "length": length,
        "length_bucket": length_bucket(length),
        "language": language,
        "dataset": dataset,
        "query_id": query_id,
        "_id": query_id,
    }


def score(task, rows, predictions, **kw):
    return score_task("longbench", task, rows, predictions, **kw)


def test_qa_f1_english_and_max_over_answers():
    rows = [lb_row(["The Eiffel Tower", "Tour Eiffel"])]
    # "eiffel tower in paris" vs "eiffel tower": P = 2/4, R = 1 -> 2/3
    assert score("hotpotqa", rows, ["the Eiffel Tower in Paris"]).headline == {"qa_f1_score": 66.67}
    # no yes/no rule in LongBench's F1
    assert score("hotpotqa", [lb_row(["yes"])], ["yes it is"]).headline == {"qa_f1_score": 50.0}
    assert score("hotpotqa", rows, [""]).headline == {"qa_f1_score": 0.0}


def test_qa_f1_chinese_uses_jieba_tokens():
    assert list(jieba.cut("北京是中国的首都", cut_all=False)) == ["北京", "是", "中国", "的", "首都"]
    # prediction tokens 北京/是/中国/的/首都, reference 首都/是/北京: overlap 3, P = 3/5, R = 1
    rows = [lb_row(["首都是北京"], language="zh")]
    assert score("multifieldqa_zh", rows, ["北京是中国的首都。"]).headline == {"qa_f1_zh_score": 75.0}


def test_rouge_is_the_rouge_packages_rouge_l_f():
    pred, ref = "the cat sat on the mat. it was happy.", "a cat was on the mat. the cat was happy."
    expected = Rouge().get_scores([pred], [ref], avg=True)["rouge-l"]["f"]
    assert rouge_score(pred, ref) == expected
    assert 0 < expected < 1
    # empty hypothesis: the library raises, the metric says 0; so do "sentences" made of dots only
    assert rouge_score("", ref) == 0.0
    assert rouge_score("...", ref) == 0.0
    assert score("gov_report", [lb_row([ref])], [pred]).headline == {"rouge_score": round(100 * expected, 2)}


def test_rouge_zh_joins_jieba_tokens_with_spaces():
    pred, ref = "他在北京工作了三年。", "他在北京工作。"
    expected = Rouge().get_scores(
        [" ".join(jieba.cut(pred, cut_all=False))], [" ".join(jieba.cut(ref, cut_all=False))], avg=True
    )["rouge-l"]["f"]
    assert rouge_zh_score(pred, ref) == expected > 0


def test_classification_keeps_the_in_place_removal_quirk():
    classes = ["A", "AB", "ABC", "B"]
    # matches A, AB, ABC, B; removing "A" skips "AB"; "B" is removed: M = [AB, ABC] -> 1/2
    assert classification_score("ABC and B", "ABC", classes) == 0.5
    # without the skip M would be [ABC] and the score 1
    assert classification_score("Location", "Location", ["Location", "Entity"]) == 1.0
    assert classification_score("Entity or Location", "Location", ["Location", "Entity"]) == 0.5
    assert classification_score("nothing", "Location", ["Location"]) == 0.0
    rows = [lb_row(["ABC"], all_classes=classes)]
    assert score("trec", rows, ["ABC and B\nsecond line B"]).headline == {"classification_score": 50.0}
    with pytest.raises(DataFormatError, match=r"row 0 .*all_classes"):
        score("lsht", [lb_row(["ABC"], all_classes=[])], ["ABC"])


def test_few_shot_tasks_score_the_first_line_only():
    assert first_line("\n\nLOC\nENTY") == "LOC"
    rows = [lb_row(["Paris"])]
    assert score("triviaqa", rows, ["\nParis\nLondon Berlin Rome"]).headline == {"qa_f1_score": 100.0}
    # a non-few-shot task sees every line
    assert score("hotpotqa", rows, ["\nParis\nLondon Berlin Rome"]).headline == {"qa_f1_score": 40.0}


def test_retrieval_and_count():
    assert retrieval_score("Paragraph 12 and maybe 3", "Paragraph 12") == 0.5
    assert retrieval_score("no digits", "Paragraph 12") == 0.0
    assert retrieval_zh_score("段落5", "段落5") == 1.0
    assert retrieval_zh_score("段落 15", "段落5") == 0.0
    assert count_score("There are 4 unique paragraphs among 10", "4") == 0.5
    assert count_score("four", "4") == 0.0
    with pytest.raises(DataFormatError, match="paragraph id"):
        score("passage_retrieval_en", [lb_row(["12"])], ["12"])


def _fuzzywuzzy_ratio(a: str, b: str) -> int:
    """fuzzywuzzy.fuzz.ratio as its source defines it, with difflib's matcher."""
    if a == b:
        return 100
    if not a or not b:
        return 0
    return round(100 * difflib.SequenceMatcher(None, a, b).ratio())


def _indel_ratio(a: str, b: str) -> float:
    """python-Levenshtein's ratio: 1 - InDel distance / (len a + len b), via a plain LCS table."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return 2 * table[-1][-1] / (len(a) + len(b))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("    return x + 1", "    return x+1"),
        ("xaaaaaaa", "xbbbbbbb"),  # 100 * 2/16 = 12.5: rounds half to even -> 12
        ("abxcd", "cdxab"),
        ("", "x"),
        ("", ""),
        ("same", "same"),
        ("for i in range(10):", "for j in range(len(xs)):"),
    ],
)
def test_code_sim_rounds_like_fuzzywuzzy_with_either_matcher(a, b):
    assert fuzz_ratio(a, b) == _fuzzywuzzy_ratio(a, b)
    expected = 100 if a == b else 0 if not a or not b else round(100 * _indel_ratio(a, b))
    assert fuzz_ratio(a, b, "levenshtein") == expected
    assert code_sim_score(a, b) == _fuzzywuzzy_ratio(a, b) / 100


def test_half_ratio_rounds_to_even():
    assert fuzz_ratio("xaaaaaaa", "xbbbbbbb") == 12
    assert fuzz_ratio("xaaaaaaa", "xbbbbbbb", "levenshtein") == 12


def test_code_sim_takes_the_first_line_without_comment_markers():
    assert code_line("\n# comment\n// also\n```python\n    return x + 1\nfoo") == "    return x + 1"
    assert code_line("# only\n# comments") == ""
    assert code_sim_score("# only comments", "") == 1.0  # "" == "" -> 100
    rows = [lb_row(["    return x+1"])]
    result = score("lcc", rows, ["\n    return x + 1\n"])
    assert result.headline == {
        "code_sim_score": float(_fuzzywuzzy_ratio("    return x + 1", "    return x+1"))
    }
    lev = score("lcc", rows, ["\n    return x + 1\n"], options={"code_matcher": "levenshtein"})
    assert lev.headline == {
        "code_sim_score": float(round(100 * _indel_ratio("    return x + 1", "    return x+1")))
    }
    with pytest.raises(UnknownNameError, match="code_matcher"):
        score("lcc", rows, ["x"], options={"code_matcher": "nope"})


def test_task_score_rounds_to_two_decimals():
    rows = [lb_row(["alpha"]), lb_row(["beta"]), lb_row(["gamma"])]
    assert score("narrativeqa", rows, ["alpha", "x", "y"]).headline == {"qa_f1_score": 33.33}


def test_longbench_e_tasks_use_their_base_metric_and_buckets():
    assert [length_bucket(n) for n in (0, 3999, 4000, 7999, 8000)] == ["0-4k", "0-4k", "4-8k", "4-8k", "8k+"]
    rows = [lb_row(["alpha"], length=100), lb_row(["beta"], length=5000), lb_row(["gamma"], length=6000)]
    result = score("qasper_e", rows, ["alpha", "beta", "no"], by=["length_bucket"])
    assert result.headline == {"qa_f1_score": 66.67}
    buckets = {k: v.get("qa_f1_score") for k, v in result.groups["length_bucket"].items()}
    assert buckets == {"0-4k": 100.0, "4-8k": 50.0, "8k+": None}  # upstream prints NaN for an empty bucket
    assert list(buckets) == ["0-4k", "4-8k", "8k+"]
    with pytest.raises(UnknownNameError):
        longbench.task_scoring("nope_e")


#: GPT-3.5-Turbo-16k in LongBench's README: task scores, then the category table
GPT35_TASKS = {
    "narrativeqa": 23.6, "qasper": 43.3, "multifieldqa_en": 52.3, "multifieldqa_zh": 61.2,
    "hotpotqa": 51.6, "2wikimqa": 37.7, "musique": 26.9, "dureader": 28.7,
    "gov_report": 29.5, "qmsum": 23.4, "multi_news": 26.7, "vcsum": 16.0,
    "trec": 68.0, "triviaqa": 91.4, "samsum": 41.7, "lsht": 29.2,
    "passage_count": 4.5, "passage_retrieval_en": 71.0, "passage_retrieval_zh": 77.5,
    "lcc": 54.7, "repobench-p": 53.6,
}  # fmt: skip
GPT35_EN = {"Single-Doc QA": 39.8, "Multi-Doc QA": 38.7, "Summarization": 26.5, "Few-shot Learning": 67.1,
            "Code Completion": 54.1, "Synthetic Tasks": 37.8}  # fmt: skip
GPT35_ZH = {"Single-Doc QA": 61.2, "Multi-Doc QA": 28.7, "Summarization": 16.0, "Few-shot Learning": 29.2,
            "Code Completion": 54.1, "Synthetic Tasks": 77.5}  # fmt: skip


def test_leaderboard_arithmetic():
    cats = category_scores(GPT35_TASKS)
    # categories from the (rounded) task scores land within 0.1 of the published ones
    for language, published in (("en", GPT35_EN), ("zh", GPT35_ZH)):
        for name, value in published.items():
            assert cats[language][name] == pytest.approx(value, abs=0.1)

    # the language average is the mean of the six published categories: EN 44.0, ZH 44.5
    def avg(c):
        return longbench.category_scores(
            {t: c[name] for name, ts in longbench.categories()["en"].items() for t in ts}
        )

    assert round(avg(GPT35_EN)["en"]["Avg"], 1) == 44.0
    zh = {t: GPT35_ZH[name] for name, ts in longbench.categories()["zh"].items() for t in ts}
    assert category_scores(zh)["zh"]["Avg"] == pytest.approx(44.45)  # published: 44.5


def test_declared_metrics_and_first_line_rules_are_eval_pys():
    # the spec's lines state eval.py's dataset2metric and first-line rule; test_registry checks the
    # declarations against them: here, the scorer uses what is declared
    from longbench_suite import registry

    for task in registry.benchmark("longbench").tasks:
        line = spec.line(task.name)
        assert (task.metric, task.first_line) == (line.metric, line.first_line), task.name
        assert longbench.task_scoring(task.name).metric == task.metric, task.name


def test_categories_from_the_declarations_are_the_readmes():
    # the README leaderboard lists each LongBench task under its category in its language's table, the
    # code tasks in both
    expected = {
        language: {
            category: {
                name
                for name, line in spec.LINES.items()
                if line.category == category and line.language in (language, "code")
            }
            for category in {line.category for line in spec.LINES.values()}
        }
        for language in ("en", "zh")
    }
    derived = longbench.categories()
    assert {lang: {k: set(v) for k, v in cats.items()} for lang, cats in derived.items()} == {
        lang: {k: v for k, v in cats.items() if v} for lang, cats in expected.items()
    }


def test_first_line_rule_applies_to_declared_few_shot_tasks_only():
    rows = [lb_row(["Paris"])]
    # triviaqa keeps the first line; qasper scores the whole prediction
    assert score("triviaqa", rows, ["Paris\nand more words"]).headline == {"qa_f1_score": 100.0}
    assert score("qasper", rows, ["Paris\nand more words"]).headline == {"qa_f1_score": 40.0}


UPSTREAM_ROUGE = Path(__file__).parent / "upstream" / "longbench_rouge_boundary.json"
#: the recorded lengths checked: both sides of both metrics' boundaries (990/991, zh 989/990)
AROUND_THE_BOUNDARY = (980, 989, 990, 991, 995)


def _deeper(frames: int, call):
    return call() if frames == 0 else _deeper(frames - 1, call)


@pytest.mark.slow  # each ~990-word ROUGE-L costs the package about a second
@pytest.mark.parametrize(("extra_frames", "limit"), [(0, 1000), (40, 1000), (300, 1000), (40, 1_000_000)])
def test_rouge_on_long_single_sentences_scores_as_upstream_whatever_the_callers_depth(extra_frames, limit):
    """The ``rouge`` package recurses once per word; upstream gives up past a fixed length (recorded),
    whatever the caller's depth or the recursion limit another library may have set."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        _check_rouge_boundary(extra_frames)
    finally:
        sys.setrecursionlimit(previous)


def _check_rouge_boundary(extra_frames: int) -> None:
    recorded = json.loads(UPSTREAM_ROUGE.read_text(encoding="utf-8"))
    assert recorded["longbench_commit"].startswith("2e00731")
    words = [f"w{i}" for i in range(2000)]
    verdicts = set()
    for case in [c for c in recorded["cases"] if c["words"] in AROUND_THE_BOUNDARY]:
        text = " ".join(words[: case["words"]])
        limit = sys.getrecursionlimit()
        result = _deeper(extra_frames, lambda t=text, c=case: score(c["dataset"], [lb_row([t])], [t]))
        assert sys.getrecursionlimit() == limit  # restored
        assert list(result.headline.values()) == [case["upstream"]], (case, extra_frames)
        verdicts.add(case["upstream"])
    assert verdicts == {0.0, 100.0}  # the fixture spans the boundary
