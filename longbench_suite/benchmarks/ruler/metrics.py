"""RULER's metrics, as its ``scripts/eval/evaluate.py`` and ``scripts/eval/synthetic/constants.py``
compute them (NVIDIA/RULER c3f5e3b; ``tests/upstream/ruler/eval/`` holds evaluate.py's own numbers).

- ``postprocess_pred``: the prediction stripped, every character ``\\x00``-``\\x1f`` replaced by a
  newline, stripped again (no other normalisation: no answer prefix cut, no chat-template handling).
- ``string_match_all`` (NIAH, VT, CWE, FWE): per row, the share of the references contained in the
  prediction, case-insensitively (``str.lower`` on both sides).
- ``string_match_part`` (QA): per row, 1 if ANY reference is contained, else 0. (lm-evaluation-harness
  scores the share of references matched here instead, which gives partial credit to a SQuAD question
  whose annotators wrote several spans; RULER gives 1.)
- A task's score: the row values summed in row order, divided by the row count, × 100, rounded to 2
  decimals with Python's ``round`` — the same float operations in the same order as RULER, so the
  same number to the last bit.

Which metric a task uses follows RULER: ``synthetic.yaml`` maps each task to a family, and the
family to its metric. ``SUMMARIES["length"]`` gives what RULER's README tabulates: per length the
mean of the task scores (its "Avg." over the 13 tasks), per task the mean over lengths; RULER's code
computes neither, so they are plain means, not rounded.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from longbench_suite.errors import DataFormatError, UnknownNameError
from longbench_suite.metrics.base import Row, RowScores, TaskScoring, column

_NON_PRINTABLE = re.compile(r"[\x00-\x1f]")


def postprocess_pred(prediction: str) -> str:
    """RULER's ``postprocess_pred``: strip, control characters to ``\\n``, strip."""
    return _NON_PRINTABLE.sub("\n", prediction.strip()).strip()


def _references(references: Sequence[str]) -> Sequence[str]:
    if isinstance(references, str) or not references or not all(isinstance(r, str) for r in references):
        raise DataFormatError(f"'answers' must be a non-empty list of strings, got {references!r}")
    return references


def match_all(prediction: str, references: Sequence[str]) -> float:
    """One row of ``string_match_all``: the share of references contained, case-insensitively."""
    references = _references(references)
    lowered = prediction.lower()
    return sum([1.0 if r.lower() in lowered else 0.0 for r in references]) / len(references)


def match_part(prediction: str, references: Sequence[str]) -> float:
    """One row of ``string_match_part``: 1 if any reference is contained, case-insensitively."""
    lowered = prediction.lower()
    return max([1.0 if r.lower() in lowered else 0.0 for r in _references(references)])


def task_score(values: Sequence[float]) -> float | None:
    """RULER's task score from the row values: ``round(sum / n * 100, 2)``; ``None`` without rows."""
    return round(sum(values) / len(values) * 100, 2) if values else None


def string_match_all(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """RULER's ``string_match_all`` over already post-processed predictions."""
    return task_score([match_all(p, r) for p, r in zip(predictions, references, strict=True)])


def string_match_part(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """RULER's ``string_match_part`` over already post-processed predictions."""
    return task_score([match_part(p, r) for p, r in zip(predictions, references, strict=True)])


def _row_scorer(name: str, match: Callable[[str, Sequence[str]], float]) -> Callable[[str, Row], RowScores]:
    def row_scores(prediction: str, row: Row) -> RowScores:
        return {name: match(postprocess_pred(prediction), column(row, "answers"))}

    return row_scores


#: RULER's metrics, by name
SCORINGS = {
    name: TaskScoring(name, _row_scorer(name, match), (name,), aggregate=task_score)
    for name, match in (("string_match_all", match_all), ("string_match_part", match_part))
}

#: each task of RULER's ``synthetic.yaml`` and its metric (through its family's ``metric_fn``)
TASK_METRICS = {
    **dict.fromkeys(
        [f"niah_single_{i}" for i in (1, 2, 3)]
        + [f"niah_multikey_{i}" for i in (1, 2, 3)]
        + ["niah_multivalue", "niah_multiquery", "vt", "cwe", "fwe"],
        "string_match_all",
    ),
    "qa_1": "string_match_part",
    "qa_2": "string_match_part",
}


def scoring(task) -> TaskScoring:
    """The scoring a task declaration names (its ``metric``)."""
    if task.metric not in SCORINGS:
        raise UnknownNameError(f"RULER has no metric {task.metric!r} (declared by {task.name})")
    return SCORINGS[task.metric]


def task_scoring(task: str) -> TaskScoring:
    """The scoring of a RULER task, by task name."""
    if task not in TASK_METRICS:
        raise UnknownNameError(f"RULER has no metric for task {task!r}; its tasks: {', '.join(TASK_METRICS)}")
    return SCORINGS[TASK_METRICS[task]]


def prepare(prediction: str, row: Row, mode: str | None) -> str:
    """RULER scores the generated text as it is (``postprocess_pred`` is part of each metric)."""
    return prediction


# -- averages (RULER's README tables) ---------------------------------------------------------------


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def length_scores(task_scores: Mapping[tuple[str, str], float | None]) -> dict[str, dict[str, float | None]]:
    """From ``{(task, length): score}``: per length the mean over its tasks, per task the mean over its
    lengths (in the order the scores come; missing scores are left out)."""
    scored = {key: value for key, value in task_scores.items() if value is not None}
    lengths = list(dict.fromkeys(length for _, length in task_scores))
    tasks = list(dict.fromkeys(task for task, _ in task_scores))
    return {
        "per_length": {lv: _mean([s for (_, v), s in scored.items() if v == lv]) for lv in lengths},
        "per_task": {t: _mean([s for (x, _), s in scored.items() if x == t]) for t in tasks},
    }


def summarize_length(results: Sequence) -> dict:
    """RULER's tables from per-config results (headline = the task's one metric), lengths shortest first."""
    from longbench_suite.predict.tables import length_order

    order = {length: i for i, length in enumerate(length_order("ruler", (r.length for r in results)))}
    ordered = sorted(results, key=lambda r: order[r.length])
    return length_scores({(r.task, r.length): next(iter(r.headline.values())) for r in ordered})


SUMMARIES = {"length": summarize_length}
