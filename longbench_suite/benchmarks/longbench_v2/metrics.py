"""LongBench v2's answer extraction and ``result.py``'s accuracies (``docs/predict.md`` §7; THUDM/LongBench
``pred.py`` ``extract_answer`` and ``result.py`` at 2e00731).

**Extraction** (:func:`extract_answer`): every ``*`` removed, then the first match of the case-sensitive
``The correct answer is \\(([A-D])\\)``, else of ``The correct answer is ([A-D])``, else ``None``. A row is
correct when the extracted letter equals its ``answer``.

**Scoring as result.py** (the default): ``pred.py`` never writes an item whose reply is empty (``''``: a
call that failed five times, or a model that said nothing), so ``result.py`` divides by the rows present.
Here every row of the split has a prediction; one that is the empty string is such a row: it leaves
every denominator (its values are ``None``). An unparsed answer (no match) is present and wrong, as
upstream. ``accuracy`` is Overall; ``easy``/``hard`` the accuracy within each ``difficulty`` (anything
not ``easy`` is hard), ``short``/``medium``/``long`` within each upstream ``length`` label (anything not
``short`` or ``medium`` is long), each ``round(100 × correct / rows, 1)`` as result.py prints them.

**An empty bucket.** result.py divides by zero (a ``ZeroDivisionError``, no result file) when a results
file has no row of some difficulty or length; here that accuracy is ``None`` (shown as ``-``/``–``,
"nothing scored"), and the other numbers stand.

**Strict mode** (``task_scoring(task, strict=True)``; ``score --strict``, ``predict --score --strict``):
every row counts, an empty or unparsed answer is wrong; the same numbers are named ``accuracy_strict``,
``easy_strict``, ... Both modes report ``missing`` (empty predictions) and ``unparsed`` (non-empty ones
without an answer) as counts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from longbench_suite.errors import DataFormatError, UnknownNameError
from longbench_suite.metrics.base import Row, RowScores, TaskScoring, column

#: the metric name the tasks declare
METRIC = "longbench_v2_accuracy"
CHOICES = ("A", "B", "C", "D")
_PARENTHESISED = re.compile(r"The correct answer is \(([A-D])\)")
_BARE = re.compile(r"The correct answer is ([A-D])")

DIFFICULTIES = ("easy", "hard")
LENGTHS = ("short", "medium", "long")
#: result.py's columns after Overall, and the metric each one is
COLUMNS = {"Easy": "easy", "Hard": "hard", "Short": "short", "Medium": "medium", "Long": "long"}
COUNTS = ("missing", "unparsed")
STRICT_SUFFIX = "_strict"


def extract_answer(response: str) -> str | None:
    """``pred.py``'s ``extract_answer``: the letter after ``The correct answer is``, ``None`` if none."""
    response = response.replace("*", "")
    match = _PARENTHESISED.search(response) or _BARE.search(response)
    return match.group(1) if match else None


def difficulty_bucket(label: object) -> str:
    """result.py's rule: ``easy`` is easy, every other label hard."""
    return "easy" if label == "easy" else "hard"


def length_bucket(label: object) -> str:
    """result.py's rule: ``short``, ``medium``, and every other label long."""
    return label if label in ("short", "medium") else "long"


def _gold(row: Row) -> str:
    answer = column(row, "answer")
    if answer not in CHOICES:
        raise DataFormatError(f"'answer' must be one of A, B, C, D, got {answer!r}")
    return answer


def row_scores(prediction: str, row: Row, strict: bool = False) -> RowScores:
    """One row's values: correctness overall and under its difficulty's and length's names (``None``
    under the other buckets', and for a missing row outside strict mode), and whether it is missing or
    unparsed (1 or 0)."""
    gold = _gold(row)
    missing = prediction == ""
    extracted = None if missing else extract_answer(prediction)
    correct: float | None = float(extracted == gold)
    if missing and not strict:
        correct = None
    suffix = STRICT_SUFFIX if strict else ""
    mine = (difficulty_bucket(column(row, "difficulty")), length_bucket(column(row, "length")))
    # every bucket named, in result.py's column order; a row counts (its value is not None) in its own
    scores: RowScores = {f"accuracy{suffix}": correct}
    scores.update({bucket + suffix: correct if bucket in mine else None for bucket in COLUMNS.values()})
    scores["missing"] = float(missing)
    scores["unparsed"] = float(not missing and extracted is None)
    return scores


def percent_1dp(values: Sequence[float]) -> float | None:
    """``round(100 × correct / rows, 1)``, as result.py prints every column; ``None`` for no row."""
    return round(100 * sum(values) / len(values), 1) if values else None


def count(values: Sequence[float]) -> int:
    """How many rows have the value 1."""
    return int(sum(values))


def accuracy_scoring(strict: bool = False) -> TaskScoring:
    """The scoring every LongBench v2 task declares (``longbench_v2_accuracy``)."""
    suffix = STRICT_SUFFIX if strict else ""

    def score(prediction: str, row: Row) -> RowScores:
        return row_scores(prediction, row, strict)

    name = "result.py, strict: empty and unparsed answers wrong" if strict else "result.py"
    return TaskScoring(
        name, score, (f"accuracy{suffix}",), percent_1dp, aggregates=dict.fromkeys(COUNTS, count)
    )


#: the options :func:`task_scoring` takes, which the CLI's ``--strict`` routes to this benchmark
SCORING_OPTIONS = ("strict",)


def task_scoring(task: str, strict: bool = False) -> TaskScoring:
    """The scoring of a LongBench v2 task, by name; ``strict`` counts empty and unparsed answers wrong."""
    from . import BENCHMARK

    try:
        declared = BENCHMARK.task(task)
    except KeyError:
        raise UnknownNameError(f"LongBench v2 has no metric for task {task!r}") from None
    if declared.metric != METRIC:
        raise UnknownNameError(f"LongBench v2 has no metric {declared.metric!r} (declared by {task})")
    return accuracy_scoring(strict)


def prepare(prediction: str, row: Row, mode: str | None) -> str:
    return prediction


#: row groups in upstream's order, empty ones included; ``domain`` in the order the rows have them
GROUP_LEVELS = {
    "difficulty": DIFFICULTIES,
    "length": LENGTHS,
    "length_bucket_tokens": LENGTHS,
    "domain": (),
}


def summarize_result(results: Sequence) -> dict:
    """result.py's table with configs (``<task> <length>``, e.g. ``cot 128k``) for models: Overall,
    Easy, Hard, Short, Medium, Long, then how many answers were missing and unparsed (strict results
    read their ``*_strict`` numbers)."""
    out: dict[str, dict[str, float | int | None]] = {}
    for r in results:
        name = f"{r.task} {r.length}" if r.length else r.task
        suffix = STRICT_SUFFIX if any(m.endswith(STRICT_SUFFIX) for m in r.headline) else ""
        out.setdefault("Overall", {})[name] = r.metrics.get(f"accuracy{suffix}")
        for title, metric in COLUMNS.items():
            out.setdefault(title, {})[name] = r.metrics.get(metric + suffix)
        for metric in COUNTS:
            out.setdefault(metric.capitalize(), {})[name] = r.metrics.get(metric)
    return out


SUMMARIES = {"result": summarize_result}
