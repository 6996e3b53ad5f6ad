"""LV-Eval's metrics and averages (``docs/lveval.md`` §7, §8; LV-Eval's ``metrics.py``, ``config.py``,
``evaluation.py``).

Only the first reference is scored (``answers[0]``); a config scores ``round(100 × mean, 2)``. The
"AK" metrics gate F1 on keyword recall: the share of the keyword tokens that the prediction recalls,
not counting blacklisted words in the overlap (they still count in the denominator), must reach 0.2
(English, keywords = ``answer_keywords``) or 0.4 (Chinese, keywords = ``answer_keywords`` or, when
there are none, the answer itself). F1 itself is computed on the full token lists.

**ZeroDivision guard.** Upstream divides by the number of keyword tokens; a keyword string that
normalises to no token at all (e.g. ``"the"`` or ``"。"``) raises ``ZeroDivisionError`` there. Here
such a gate is treated as passed: the row scores its plain F1 (a keyword string without words cannot
exclude anything).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from longbench_suite.errors import UnknownNameError
from longbench_suite.metrics.base import (
    UPSTREAM_ROUGE_DEPTH,
    Row,
    RowScores,
    TaskScoring,
    column,
    jieba_tokens,
    normalize_answer,
    normalize_zh_answer,
    percent_2dp,
    qa_f1_score,
    qa_f1_zh_score,
    rouge_l_f,
    token_f1,
    zh_tokens,
)

from .lengths import LENGTHS

EN_KEYWORD_THRESHOLD = 0.2
ZH_KEYWORD_THRESHOLD = 0.4

# fmt: off
ABANDON_WORDS_EN = frozenset([
    "and", "to", "of", "in", "her", "was", "with", "for", "it", "from", "is", "that", "his", "he",
    "by", "she", "they", "or", "at", "because", "be", "on", "are", "their", "what", "as", "had", "were",
    "about", "being", "this", "who", "but", "have", "has", "when", "which", "does",
])
ABANDON_WORDS_ZH = frozenset([
    "的", "和", "是", "等", "在", "年", "可以", "为", "与", "‰", "了", "或", "一种", "月",
    "c", "至", "日", "有", "进行", "于", "不", "中", "×", "根据", "小", "由", "亩", "也",
    "要", "指", "法", "会", "元", "主要", "以及", "通过", "首先", "对", "然后", "号", "以", "所",
    "后", "丁", "包括", "无", "将", "用", "能", "形", "方面", "因素", "位于", "而", "从", "到",
    "一定", "用于", "但", "使用", "让", "具有", "并", "亿元", "万元", "上", "类", "基于", "才", "来",
    "地", "片", "其他", "个", "或者", "变得", "时", "给", "你", "使", "条", "受", "已经", "带",
    "度",
])
# fmt: on


def keyword_recall(
    prediction_tokens: Sequence[str], keyword_tokens: Sequence[str], blacklist: Iterable[str]
) -> float:
    """Overlap of prediction and keyword tokens, blacklisted words not counted, over all keyword
    tokens (which must not be empty)."""
    blacklist = frozenset(blacklist)
    common = Counter(prediction_tokens) & Counter(keyword_tokens)
    return sum(n for token, n in common.items() if token not in blacklist) / len(keyword_tokens)


def _gated_f1(
    prediction: list[str], reference: list[str], keywords: list[str], blacklist, threshold
) -> float:
    # No keyword token: upstream divides by zero here; the gate counts as passed (module doc).
    if keywords and keyword_recall(prediction, keywords, blacklist) < threshold:
        return 0.0
    return token_f1(prediction, reference)


def qa_f1_score_with_gold_ans(prediction: str, ground_truth: str, gold_ans: str | None = None) -> float:
    """English AK metric: F1, or 0 if the keywords' recall is below 0.2 (no keywords: plain F1)."""
    pred = normalize_answer(prediction).split()
    ref = normalize_answer(ground_truth).split()
    if not gold_ans:
        return token_f1(pred, ref)
    keywords = normalize_answer(gold_ans).split()
    return _gated_f1(pred, ref, keywords, ABANDON_WORDS_EN, EN_KEYWORD_THRESHOLD)


def qa_f1_zh_score_with_gold_ans(prediction: str, ground_truth: str, gold_ans: str | None = None) -> float:
    """Chinese AK metric: F1 over jieba tokens, or 0 if the keywords' recall is below 0.4; without
    keywords the answer itself is the keyword string."""
    pred, ref = zh_tokens(prediction), zh_tokens(ground_truth)
    keywords = zh_tokens(gold_ans or ground_truth)
    return _gated_f1(pred, ref, keywords, ABANDON_WORDS_ZH, ZH_KEYWORD_THRESHOLD)


def rouge_zh_score_blacklist(prediction: str, ground_truth: str, gold_ans: str | None = None) -> float:
    """dureader: jieba-cut, join with spaces, jieba-cut again, normalise every token (spaces become
    empty tokens), drop blacklisted ones, join with spaces, ROUGE-L F of the ``rouge`` package."""

    def prepared(text: str) -> str:
        tokens = [normalize_zh_answer(t) for t in jieba_tokens(" ".join(jieba_tokens(text)))]
        return " ".join(t for t in tokens if t not in ABANDON_WORDS_ZH)

    # upstream calls get_scores through rouge_score, one frame deeper than its English metric would
    return rouge_l_f(prepared(prediction), prepared(ground_truth), upstream_depth=UPSTREAM_ROUGE_DEPTH + 1)


def _plain(metric: Callable[[str, str], float]) -> Callable[..., float]:
    def score(prediction: str, ground_truth: str, gold_ans: str | None = None) -> float:
        return metric(prediction, ground_truth)

    score.__name__ = metric.__name__
    return score


#: every metric an LV-Eval dataset may declare, by ``config.py``'s name for it
METRICS: dict[str, Callable[..., float]] = {
    fn.__name__: fn
    for fn in (
        qa_f1_score_with_gold_ans,
        qa_f1_zh_score_with_gold_ans,
        _plain(qa_f1_score),
        _plain(qa_f1_zh_score),
        rouge_zh_score_blacklist,
    )
}


def score_row(task, prediction: str, row: Row) -> float:
    """The first reference only; 0 when there is none (upstream's loop never runs)."""
    answers = column(row, "answers")
    if not answers:
        return 0.0
    return max(0.0, METRICS[task.metric](prediction, answers[0], row.get("answer_keywords")))


def scoring(task) -> TaskScoring:
    """The scoring a dataset declaration names."""
    if task.metric not in METRICS:
        raise UnknownNameError(f"LV-Eval has no metric {task.metric!r} (declared by {task.name})")

    def row_metrics(prediction: str, row: Row) -> RowScores:
        return {task.metric: score_row(task, prediction, row)}

    return TaskScoring(task.metric, row_metrics, (task.metric,), percent_2dp)


def task_scoring(task: str) -> TaskScoring:
    """The scoring of an LV-Eval dataset, by name."""
    from . import BENCHMARK

    try:
        return scoring(BENCHMARK.task(task))
    except KeyError:
        raise UnknownNameError(f"LV-Eval has no metric for task {task!r}") from None


def _datasets() -> tuple[str, ...]:
    from . import BENCHMARK

    return tuple(task.name for task in BENCHMARK.tasks)


def prepare(prediction: str, row: Row, mode: str | None) -> str:
    return prediction


# -- averages (README) ------------------------------------------------------------------------------


def _mean_2dp(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 2) if values else None


def level_scores(config_scores: dict[tuple[str, str], float]) -> dict[str, dict[str, float | None]]:
    """From ``{(dataset, level): score}``: per level the mean over datasets ("overall" in the
    README), per dataset the mean over levels, both rounded to 2 decimals as the README prints them."""
    levels = [lv for lv in LENGTHS if any(k[1] == lv for k in config_scores)]
    levels += sorted({k[1] for k in config_scores} - set(levels))
    datasets = [d for d in _datasets() if any(k[0] == d for k in config_scores)]
    datasets += sorted({k[0] for k in config_scores} - set(datasets))
    return {
        "per_level": {lv: _mean_2dp([s for (d, v), s in config_scores.items() if v == lv]) for lv in levels},
        "per_dataset": {d: _mean_2dp([s for (x, v), s in config_scores.items() if x == d]) for d in datasets},
    }


def summarize_level(results: Sequence) -> dict:
    return level_scores({(r.task, r.length): next(iter(r.headline.values())) for r in results})


SUMMARIES = {"level": summarize_level}
