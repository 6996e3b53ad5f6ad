"""LongBench's and LongBench-E's metrics and averages (``docs/longbench.md`` §8, §9; ``LongBench/metrics.py``,
``LongBench/eval.py``).

A row scores the max over its ``answers`` (starting from 0); the few-shot tasks first keep only the
first line of the prediction. A task scores ``round(100 × mean, 2)``; LongBench-E reports the same per
``length_bucket`` (``0-4k``, ``4-8k``, ``8k+`` by the row's ``length``). LongBench-E tasks (``<task>_e``)
are scored as their base task.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache

from longbench_suite.errors import DataFormatError, UnknownNameError
from longbench_suite.metrics.base import (
    UPSTREAM_ROUGE_DEPTH,
    Row,
    RowScores,
    TaskScoring,
    column,
    jieba_tokens,
    optional_import,
    percent_2dp,
    qa_f1_score,
    qa_f1_zh_score,
    rouge_l_f,
)

LENGTH_BUCKETS = ("0-4k", "4-8k", "8k+")


def first_line(prediction: str) -> str:
    """The few-shot rule: strip leading newlines, keep the first line."""
    return prediction.lstrip("\n").split("\n")[0]


def rouge_score(prediction: str, ground_truth: str) -> float:
    return rouge_l_f(prediction, ground_truth)


def rouge_zh_score(prediction: str, ground_truth: str) -> float:
    """ROUGE-L over jieba tokens joined by spaces."""
    joined = " ".join(jieba_tokens(prediction)), " ".join(jieba_tokens(ground_truth))
    return rouge_l_f(*joined, upstream_depth=UPSTREAM_ROUGE_DEPTH + 1)  # via upstream's rouge_score


def classification_score(prediction: str, ground_truth: str, all_classes: Sequence[str]) -> float:
    """1/len(M) if the reference is in M, else 0, where M = the classes found in the prediction minus
    those that are a proper substring of the reference.

    Upstream removes from M while iterating over it, which skips the element after each removal;
    this walk does the same (``list.remove`` takes the first equal element, the index moves on).
    """
    matches = [c for c in all_classes if c in prediction]
    i = 0
    while i < len(matches):
        term = matches[i]
        if term in ground_truth and term != ground_truth:
            matches.remove(term)
        i += 1
    return 1.0 / len(matches) if ground_truth in matches else 0.0


def _share_equal(prediction: str, target: str) -> float:
    numbers = re.findall(r"\d+", prediction)
    return sum(n == target for n in numbers) / len(numbers) if numbers else 0.0


def count_score(prediction: str, ground_truth: str) -> float:
    """Share of the digit runs in the prediction that equal the reference."""
    return _share_equal(prediction, str(ground_truth))


def _paragraph_share(prediction: str, ground_truth: str, pattern: str) -> float:
    found = re.findall(pattern, ground_truth)
    if not found:
        raise DataFormatError(f"reference {ground_truth!r} has no {pattern!r} paragraph id")
    return _share_equal(prediction, found[0])


def retrieval_score(prediction: str, ground_truth: str) -> float:
    return _paragraph_share(prediction, ground_truth, r"Paragraph (\d+)")


def retrieval_zh_score(prediction: str, ground_truth: str) -> float:
    return _paragraph_share(prediction, ground_truth, r"段落(\d+)")


def _difflib_ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def _levenshtein_ratio(a: str, b: str) -> float:
    indel = optional_import("rapidfuzz.distance.Indel", "rapidfuzz", "code_sim_score's Levenshtein matcher")
    return indel.normalized_similarity(a, b)


#: fuzzywuzzy's ``SequenceMatcher``: difflib when python-Levenshtein is absent (what LongBench's
#: requirements.txt installs), else python-Levenshtein's InDel ratio (= rapidfuzz's)
MATCHERS: dict[str, Callable[[str, str], float]] = {
    "difflib": _difflib_ratio,
    "levenshtein": _levenshtein_ratio,
}


def fuzz_ratio(a: str, b: str, matcher: str = "difflib") -> int:
    """``fuzzywuzzy.fuzz.ratio``: 100 if equal (even both empty), 0 if either is empty, else
    ``int(round(100 × ratio))`` (Python's round: halves go to even)."""
    if a == b:
        return 100
    if not a or not b:
        return 0
    return round(100 * MATCHERS[matcher](a, b))


def code_line(prediction: str) -> str:
    """The first line (after leading newlines) containing none of `` ` ``, ``#``, ``//``; else ``""``."""
    for line in prediction.lstrip("\n").split("\n"):
        if "`" not in line and "#" not in line and "//" not in line:
            return line
    return ""


def code_sim_score(prediction: str, ground_truth: str, matcher: str = "difflib") -> float:
    return fuzz_ratio(code_line(prediction), ground_truth, matcher) / 100


#: every metric a LongBench task may declare, by ``eval.py``'s name for it
METRICS: dict[str, Callable[..., float]] = {
    fn.__name__: fn
    for fn in (
        qa_f1_score,
        qa_f1_zh_score,
        rouge_score,
        rouge_zh_score,
        classification_score,
        retrieval_score,
        retrieval_zh_score,
        count_score,
        code_sim_score,
    )
}


def score_row(task, prediction: str, row: Row, code_matcher: str = "difflib") -> float:
    """One row's score: the max over its answers of the task's declared ``metric``, after its
    ``first_line`` rule."""
    metric = METRICS[task.metric]
    if task.first_line:
        prediction = first_line(prediction)
    if metric is classification_score:
        classes = column(row, "all_classes")
        if not classes:
            raise DataFormatError("'all_classes' is empty; the classification metric needs the label set")
        fn = lambda p, gt: classification_score(p, gt, classes)  # noqa: E731
    elif metric is code_sim_score:
        fn = lambda p, gt: code_sim_score(p, gt, code_matcher)  # noqa: E731
    else:
        fn = metric
    best = 0.0
    for ground_truth in column(row, "answers"):
        best = max(best, fn(prediction, ground_truth))
    return best


def scoring(task, code_matcher: str = "difflib") -> TaskScoring:
    """The scoring a task declaration names (``metric``, ``first_line``)."""
    if task.metric not in METRICS:
        raise UnknownNameError(f"LongBench has no metric {task.metric!r} (declared by {task.name})")
    if code_matcher not in MATCHERS:
        raise UnknownNameError(f"unknown code_matcher {code_matcher!r}; choose one of {', '.join(MATCHERS)}")

    def row_metrics(prediction: str, row: Row) -> RowScores:
        return {task.metric: score_row(task, prediction, row, code_matcher)}

    return TaskScoring(task.metric, row_metrics, (task.metric,), percent_2dp)


def task_scoring(task: str, code_matcher: str = "difflib") -> TaskScoring:
    """The scoring of a LongBench or LongBench-E task, by name (``code_matcher`` picks fuzzywuzzy's
    matcher for ``code_sim_score``, see :data:`MATCHERS`)."""
    return scoring(declared_task(task), code_matcher)


def declared_task(name: str):
    from . import BENCHMARK

    try:
        return BENCHMARK.task(name)
    except KeyError:
        raise UnknownNameError(f"LongBench has no metric for task {name!r}") from None


def base_task(task: str) -> str:
    """``qasper_e`` -> ``qasper``; a LongBench task name is returned unchanged."""
    try:
        return declared_task(task).base
    except UnknownNameError:
        return task


def prepare(prediction: str, row: Row, mode: str | None) -> str:
    return prediction


#: row groups reported in upstream's order, empty ones included (LongBench-E prints NaN for those)
GROUP_LEVELS = {"length_bucket": LENGTH_BUCKETS}


# -- averages (README leaderboard) -----------------------------------------------------------------

#: LongBench's two leaderboards; tasks in another language (code) count in both
LANGUAGES = ("en", "zh")
_OTHER_LANGUAGES = ("code",)


@cache
def categories() -> dict[str, dict[str, tuple[str, ...]]]:
    """Per leaderboard language, category -> its LongBench tasks, from the task declarations
    (``category``, ``language``), in the order the README's tables list them."""
    from . import BENCHMARK

    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for language in LANGUAGES:
        members: dict[str, list[str]] = {name: [] for name in BENCHMARK.categories}
        for task in BENCHMARK.tasks:
            if task.name == task.base and task.language in (language, *_OTHER_LANGUAGES):
                members[task.category].append(task.name)
        out[language] = {name: tuple(tasks) for name, tasks in members.items() if tasks}
    return out


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def category_scores(task_scores: Mapping[str, float]) -> dict[str, dict[str, float | None]]:
    """Per language: each category's unweighted mean over its tasks' scores, and ``Avg`` = the mean
    of the six categories (the code tasks count in both languages). Missing tasks are skipped."""
    out: dict[str, dict[str, float | None]] = {}
    for language, members in categories().items():
        scores = {
            name: _mean([task_scores[t] for t in tasks if task_scores.get(t) is not None])
            for name, tasks in members.items()
        }
        present = [v for v in scores.values() if v is not None]
        out[language] = {"Avg": _mean(present), **scores}
    return out


def summarize_category(results: Sequence) -> dict:
    """Category and language averages per length, LongBench and LongBench-E apart."""
    groups: dict[str, dict[str, float]] = {}
    for r in results:
        variant = "LongBench-E" if base_task(r.task) != r.task else "LongBench"
        key = f"{variant} {r.length}" if r.length else variant
        groups.setdefault(key, {})[base_task(r.task)] = next(iter(r.headline.values()))
    return {key: category_scores(scores) for key, scores in groups.items()}


SUMMARIES = {"category": summarize_category}
