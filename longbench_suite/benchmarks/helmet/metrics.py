"""HELMET's metrics and categories (``docs/helmet.md`` §1.6, the metric parts of §3, §4).

Per-row values follow HELMET's ``data.py`` post-processing (``utils.py`` metrics on the raw output and
on ``parse_output``, keeping the max of each); ALCE follows ``eval_alce.py``
(:mod:`.helmet_alce`), the model-judged metrics its GPT-4o scripts (:mod:`.helmet_judge`). Task
scores are on ``collect_results.py``'s 0-100 scale: 100 × the mean (as ``eval.py``), except
``gpt-4-score`` (HELMET's 0-3 mean × 100/3) and the unscaled counts ``length`` and ``num_preds``.

In completion mode (the row's ``use_chat_template`` is false, unless the caller says otherwise)
HELMET prepends the filled system template to the model output before scoring; the row's
``answer_prefix`` stripped is exactly that text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache

from longbench_suite.errors import DataFormatError, UnknownNameError
from longbench_suite.metrics.base import (
    JudgeModels,
    Judges,
    Row,
    RowScores,
    TaskScoring,
    column,
    normalize_answer,
    optional_import,
    scaled,
    token_f1,
)

from .parsing import ANSWER_PREFIX, meta_field, parse_output

# -- utils.py ---------------------------------------------------------------------------------------


def exact_match_score(prediction: str, ground_truth: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def substring_exact_match_score(prediction: str, ground_truth: str) -> bool:
    """SubEM: the normalised gold is a substring of the normalised prediction."""
    return normalize_answer(ground_truth) in normalize_answer(prediction)


def f1_score(prediction: str, ground_truth: str) -> float:
    """Token F1; 0 when either side normalises to yes/no/noanswer and they differ."""
    pred, gold = normalize_answer(prediction), normalize_answer(ground_truth)
    if pred != gold and (pred in ("yes", "no", "noanswer") or gold in ("yes", "no", "noanswer")):
        return 0.0
    return token_f1(pred.split(), gold.split())


@cache
def _rouge_scorer():
    module = optional_import("rouge_score.rouge_scorer", "rouge-score", "HELMET's ROUGE (rouge-score)")
    return module.RougeScorer(["rougeL", "rougeLsum"], use_stemmer=True)


def rouge_scores(prediction: str, answers: Sequence[str]) -> dict[str, float]:
    """``rougeL``/``rougeLsum`` F1 and recall (target = gold), each the max over the golds."""
    scorer = _rouge_scorer()
    scores = [scorer.score(target=a, prediction=prediction) for a in answers]
    out = {}
    for kind in ("rougeL", "rougeLsum"):
        out[f"{kind}_f1"] = max(s[kind].fmeasure for s in scores)
        out[f"{kind}_recall"] = max(s[kind].recall for s in scores)
    return out


def calculate_metrics(prediction: str, answers: Sequence[str]) -> dict[str, float]:
    """``exact_match``, ``f1``, ``substring_exact_match`` and ROUGE, each the max over ``answers``."""
    if not answers:
        raise DataFormatError("'answers' is empty")
    return {
        "exact_match": float(max(exact_match_score(prediction, a) for a in answers)),
        "f1": max(f1_score(prediction, a) for a in answers),
        "substring_exact_match": float(max(substring_exact_match_score(prediction, a) for a in answers)),
        **rouge_scores(prediction, answers),
    }

def post_process(prediction: str, answers: Sequence[str], prefix: str = ANSWER_PREFIX) -> dict[str, float]:
    """HELMET's ``default_post_process``: every metric on the raw and the parsed output, max of each."""
    raw = calculate_metrics(prediction, answers)
    parsed = calculate_metrics(parse_output(prediction, prefix), answers)
    return {k: max(v, parsed[k]) for k, v in raw.items()}


def ruler_recall(prediction: str, answers: Sequence[str]) -> float:
    """Share of gold strings found (case-insensitive substring) in the raw output; no normalisation."""
    if not answers:
        raise DataFormatError("'answers' is empty")
    return sum(a.lower() in prediction.lower() for a in answers) / len(answers)


def icl_post_process(prediction: str, answers: Sequence[str]) -> dict[str, float]:
    """ICL: only the output parsed after ``label:`` is scored."""
    return calculate_metrics(parse_output(prediction, "label:"), answers)


def infbench_choice_post_process(prediction: str, answers: Sequence[str]) -> dict[str, float]:
    """InfiniteBench MC: EM/F1/ROUGE max over raw and parsed output, then the option override:
    ``answers[1]`` (``"B. the option"``) found in the lowercased raw output sets SubEM and EM."""
    if len(answers) < 2:
        raise DataFormatError(f"InfiniteBench MC needs answers [letter, 'letter. option'], got {answers!r}")
    raw = calculate_metrics(prediction, answers)
    parsed = calculate_metrics(parse_output(prediction), answers)
    metrics = {k: max(v, parsed[k]) for k, v in raw.items() if k != "substring_exact_match"}
    metrics["substring_exact_match"] = 0.0
    if answers[1].lower() in prediction.lower():
        metrics["substring_exact_match"] = metrics["exact_match"] = 1.0
    return metrics


# -- MS MARCO re-ranking ----------------------------------------------------------------------------

#: cut-offs HELMET evaluates, kept where they do not exceed the number of candidates
RANKING_CUTOFFS = (1, 5, 10, 20, 50, 100, 200, 500, 1000)
_TREC_NAMES = {"ndcg_cut": "NDCG", "map_cut": "MAP", "recall": "Recall", "P": "P"}


def parse_rankings(output: str) -> dict[str, int]:
    """Passage id → score: the longest ``id > id > ...`` chain, the first of n ids scoring n.

    Brackets and colons are dropped and the text lowercased with every ``"id"`` removed first; with
    no digits at all, the whole cleaned text is the single "id".
    """
    cleaned = re.sub(r"[\[\]:]", "", output).lower().replace("id", "")
    longest = ""
    for match in re.finditer(r"(\d+)(?:\s*>\s*(\d+))*", cleaned):
        if len(match.group(0)) > len(longest):
            longest = match.group(0)
    if longest:
        ranking = [part.strip() for part in longest.split(">") if part.strip().isdigit()]
    else:
        ranking = [cleaned]
    scores: dict[str, int] = {}
    for i, pid in enumerate(ranking):
        scores.setdefault(pid, len(ranking) - i)
    return scores


def ranking_metrics(scores: Mapping[str, int], qrels: Mapping[str, int]) -> dict[str, float]:
    """trec_eval's ``ndcg_cut``, ``map_cut``, ``recall``, ``P`` at HELMET's cut-offs and
    ``recip_rank`` for one query (via ``pytrec_eval``), each rounded to 5 decimals as HELMET's
    ``calculate_retrieval_metrics`` does for a one-query evaluation."""
    pytrec_eval = optional_import("pytrec_eval", "pytrec-eval-terrier", "HELMET's NDCG@10 (trec_eval)")
    cutoffs = [k for k in RANKING_CUTOFFS if k <= len(qrels)]
    ks = ",".join(str(k) for k in cutoffs)
    measures = {f"{m}.{ks}" for m in _TREC_NAMES} | {"recip_rank"}
    evaluator = pytrec_eval.RelevanceEvaluator({"q": {str(k): int(v) for k, v in qrels.items()}}, measures)
    result = evaluator.evaluate({"q": dict(scores)})["q"]
    out = {}
    for measure, name in _TREC_NAMES.items():
        for k in cutoffs:
            out[f"{name}@{k}"] = round(result[f"{measure}_{k}"], 5)
    out["MRR"] = round(result["recip_rank"], 5)
    return out


# -- row adapters ---------------------------------------------------------------------------------
def model_output(prediction: str, row: Row, mode: str | None = None) -> str:
    """The output HELMET scores: in completion mode the stripped ``answer_prefix`` goes in front."""
    chat = bool(column(row, "use_chat_template")) if mode in (None, "auto") else mode == "chat"
    return prediction if chat else column(row, "answer_prefix").strip() + prediction


def _answers(row: Row) -> list[str]:
    return list(column(row, "answers"))


def _qa(prefix: str = ANSWER_PREFIX):
    def row_metrics(prediction: str, row: Row) -> RowScores:
        return post_process(prediction, _answers(row), prefix)

    return row_metrics


def _ruler(prediction: str, row: Row) -> RowScores:
    return {"ruler_recall": ruler_recall(prediction, _answers(row))}


def _icl(prediction: str, row: Row) -> RowScores:
    return icl_post_process(prediction, _answers(row))


def _infbench_choice(prediction: str, row: Row) -> RowScores:
    return infbench_choice_post_process(prediction, _answers(row))


def _msmarco(prediction: str, row: Row) -> RowScores:
    scores = parse_rankings(prediction)
    qrels = meta_field(row, "qrels")
    if not isinstance(qrels, Mapping) or not qrels:
        raise DataFormatError(f"'metadata.qrels' must be a non-empty {{passage id: label}}, got {qrels!r}")
    return {**ranking_metrics(scores, qrels), "num_preds": float(len(scores))}


def _alce(row, metric: str, **aggregates) -> TaskScoring:
    """An ALCE task: its own correctness metric, then citation recall and precision (NLI judge)."""
    from . import metrics_alce as helmet_alce

    return TaskScoring(
        f"eval_alce.py ({metric}, AutoAIS citations)",
        row,
        (metric, "citation_rec", "citation_prec"),
        aggregates={**aggregates, **helmet_alce.CITATION_AGGREGATES},
        judged=helmet_alce.citations_judged,
        judge_needed=helmet_alce.NEEDS,
    )


def _scorings() -> dict[str, TaskScoring]:
    from . import judge as helmet_judge
    from . import metrics_alce as helmet_alce

    plain = scaled(1.0)
    rag = TaskScoring("default_post_process", _qa(), ("substring_exact_match",))
    icl = TaskScoring("exact_match after parse_output(label:)", _icl, ("exact_match",))
    ruler = TaskScoring("ruler_recall", _ruler, ("ruler_recall",))
    return {
        "rag_subem": rag,
        "json_kv_subem": TaskScoring(
            "substring_exact_match", _qa("corresponding value:"), ("substring_exact_match",)
        ),
        "ruler_recall": ruler,
        "icl_exact_match": icl,
        "msmarco_ndcg": TaskScoring(
            "NDCG@10 (trec_eval ndcg_cut)", _msmarco, ("NDCG@10",), aggregates={"num_preds": plain}
        ),
        "narrativeqa_judge": TaskScoring(
            "gpt-4-score (GPT-4o judge)",
            _qa(),
            ("gpt-4-score",),
            aggregates={"gpt-4-score": scaled(100 / 3)},
            judged=helmet_judge.longqa_judged,
            judge_needed=helmet_judge.NEEDS,
        ),
        "infbench_qa_rougel": TaskScoring("rougeL_f1", _qa(), ("rougeL_f1",)),
        "infbench_mc_exact_match": TaskScoring(
            "exact_match with option override", _infbench_choice, ("exact_match",)
        ),
        "infbench_sum_judge": TaskScoring(
            "gpt-4-f1 (GPT-4o judge)",
            _qa(),
            ("gpt-4-f1",),
            judged=helmet_judge.summary_judged,
            judge_needed=helmet_judge.NEEDS,
        ),
        "multi_lexsum_judge": TaskScoring(
            "gpt-4-f1 (GPT-4o judge)",
            _qa("Summary:"),
            ("gpt-4-f1",),
            judged=helmet_judge.summary_judged,
            judge_needed=helmet_judge.NEEDS,
        ),
        "alce_asqa": _alce(helmet_alce.asqa_row, "str_em", length=plain),
        "alce_qampari": _alce(helmet_alce.qampari_row, "qampari_rec_top5", length=plain, num_preds=plain),
    }


@cache
def scorings() -> dict[str, TaskScoring]:
    """Every HELMET scoring, by the name a task declares as its ``metric``."""
    return _scorings()


def scoring(task) -> TaskScoring:
    """The scoring a task declaration names."""
    if task.metric not in scorings():
        raise UnknownNameError(f"HELMET has no metric {task.metric!r} (declared by {task.name})")
    return scorings()[task.metric]


def task_scoring(task: str) -> TaskScoring:
    """The scoring of a HELMET task, by task name."""
    return scoring(declared_task(task))


def declared_task(name: str):
    from . import BENCHMARK

    try:
        return BENCHMARK.task(name)
    except KeyError:
        raise UnknownNameError(f"HELMET has no metric for task {name!r}") from None


def make_judges(models: JudgeModels) -> Judges:
    """HELMET's judges (the hook of :func:`longbench_suite.metrics.report.judges_from`): the GPT-4o
    judge as ``models.judge_model`` at ``models.endpoint`` (OpenAI's by default), and the citation NLI
    judge served at ``models.nli_endpoint`` (``nli_model``, else AutoAIS's model) or ``nli_model`` loaded
    on first use."""
    from . import judge as helmet_judge
    from . import metrics_alce as helmet_alce

    nli = None
    if models.nli_endpoint:
        nli = helmet_alce.EndpointNLIJudge(
            model=models.nli_model or helmet_alce.AUTOAIS_MODEL,
            base_url=models.nli_endpoint,
            api_key=models.api_key,
        )
    elif models.nli_model:
        loaded: list[helmet_alce.T5NLIJudge] = []

        def nli(premise: str, hypothesis: str) -> bool:
            if not loaded:
                loaded.append(helmet_alce.T5NLIJudge.from_pretrained(models.nli_model))
            return loaded[0](premise, hypothesis)

    llm = None
    if models.judge_model:
        llm = helmet_judge.OpenAIJudge(
            model=models.judge_model, base_url=models.endpoint, api_key=models.api_key
        )
    return Judges(nli=nli, llm=llm)


def prepare(prediction: str, row: Row, mode: str | None) -> str:
    return model_output(prediction, row, mode)


# -- categories (collect_results.py) ------------------------------------------------------------------


@cache
def categories() -> dict[str, tuple[tuple[str, str], ...]]:
    """Category -> the (task, metric) scores it averages, from the task declarations: each task's
    headline metrics count in its ``category``; "Ours" is the mean of the categories."""
    from . import BENCHMARK

    members: dict[str, list[tuple[str, str]]] = {name: [] for name in BENCHMARK.categories}
    for task in BENCHMARK.tasks:
        if "eval" in task.missing_split_reasons:  # generated rows (gen_*): dev only, never in the table
            continue
        members[task.category].extend((task.name, metric) for metric in scoring(task).headline)
    return {name: tuple(pairs) for name, pairs in members.items()}


def category_scores(task_scores: Mapping[tuple[str, str], float]) -> dict[str, float | None]:
    """Each category's mean over the (task, metric) scores it has (pandas' NaN-skipping mean, as in
    ``collect_results.py``), and ``Ours`` = the mean of the categories that have a score."""
    out: dict[str, float | None] = {}
    for name, members in categories().items():
        values = [task_scores[m] for m in members if task_scores.get(m) is not None]
        out[name] = sum(values) / len(values) if values else None
    present = [v for v in out.values() if v is not None]
    out["Ours"] = sum(present) / len(present) if present else None
    return out


def summarize_category(results: Sequence) -> dict:
    """Categories per length, from per-config results."""
    by_length: dict[str, dict[tuple[str, str], float]] = {}
    for r in results:
        scores = by_length.setdefault(r.length, {})
        for metric, value in r.metrics.items():
            scores[(r.task, metric)] = value
    return {length: category_scores(scores) for length, scores in by_length.items()}


SUMMARIES = {"category": summarize_category}

__all__ = [
    "ANSWER_PREFIX",
    "calculate_metrics",
    "categories",
    "category_scores",
    "exact_match_score",
    "f1_score",
    "icl_post_process",
    "infbench_choice_post_process",
    "parse_output",
    "parse_rankings",
    "post_process",
    "ranking_metrics",
    "rouge_scores",
    "ruler_recall",
    "substring_exact_match_score",
]
