"""Ada-LEval's answer extraction, accuracy and random-guess baselines (``docs/adaleval.md`` §6, §7;
Ada-LEval's ``ada_leval/dataset.py`` after PR #3).

- BestAnswer (``bestanswer``), official extractor: the largest designation ``A1`` … ``An`` that
  occurs anywhere in the output (so ``A12`` beats the ``A1`` inside it, and any higher mention
  wins); else the largest bare number ``1`` … ``n`` occurring as a substring; else ``"???"``.
  :func:`extract_bestanswer_strict` (reported as ``accuracy_strict``) is the variant issue #5 asks
  for: the first ``A<k>`` not followed by another digit with 1 ≤ k ≤ n, no bare-number fallback.
- TSort (``tsort``): the text after the first ``"Answer:"`` (up to the next one) parsed as JSON;
  failing that, the one permutation of 1-4 that is a character subsequence of the text, if exactly
  one is; else ``[0, 0, 0, 0]``. A prediction is correct when it agrees with the gold at every
  position of their pairing, the pairing being Python's iteration of the parsed value, as upstream
  pairs them: a matching prefix of the gold (``[4]``, ``[]``) counts as correct, and so do an empty
  object ``{}`` and an empty string ``""``; a non-empty object or string never matches (its keys or
  characters are not part numbers). Where upstream crashes (``TypeError``) — a JSON number, ``true``,
  ``null``, so also a correct order written as bare digits, ``4132`` — the row is scored wrong
  (``docs/adaleval.md`` §7.1). ``tests/upstream/adaleval_tsort_verdicts.json`` holds upstream's own
  verdicts.

Accuracy is 100 × the share of correct rows (unrounded; upstream prints one decimal). Baselines:
TSort 100/24, BestAnswer 100 × mean(1/num_choices) over the rows.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from typing import Any

from longbench_suite.errors import DataFormatError, UnknownNameError
from longbench_suite.metrics.base import Row, RowScores, TaskScoring, column

NO_ANSWER = "???"
TSORT_WRONG = [0, 0, 0, 0]
_PERMUTATIONS = ["".join(str(x) for x in p) for p in itertools.permutations(range(1, 5))]


def extract_bestanswer(prediction: str, num_choices: int) -> str:
    """The official extractor (largest designation mentioned, then bare numbers)."""
    for k in range(num_choices, 0, -1):
        if f"A{k}" in prediction:
            return f"A{k}"
    for k in range(num_choices, 0, -1):
        if str(k) in prediction:
            return f"A{k}"
    return NO_ANSWER


def extract_bestanswer_strict(prediction: str, num_choices: int) -> str:
    """The first ``A<k>`` with a digit boundary after it and 1 ≤ k ≤ ``num_choices``."""
    for match in re.finditer(r"A(\d+)(?!\d)", prediction):
        if 1 <= int(match.group(1)) <= num_choices:
            return f"A{int(match.group(1))}"
    return NO_ANSWER


def _is_subsequence(needle: str, haystack: str) -> bool:
    position = 0
    for ch in needle:
        position = haystack.find(ch, position) + 1
        if position == 0:
            return False
    return True


def extract_tsort(prediction: str) -> Any:
    """The official extractor: a JSON value, a unique permutation subsequence, or ``[0, 0, 0, 0]``."""
    if "Answer:" in prediction:
        prediction = prediction.split("Answer:")[1].strip()
    try:
        return json.loads(prediction)
    except (ValueError, RecursionError):
        found = [p for p in _PERMUTATIONS if _is_subsequence(p, prediction)]
        return [int(c) for c in found[0]] if len(found) == 1 else list(TSORT_WRONG)


def tsort_correct(extracted: Any, gold: Sequence[int]) -> bool:
    """Position-wise agreement over the pairing (a matching prefix counts); non-iterables are wrong."""
    if not isinstance(extracted, list | dict | str):
        return False
    return all(a == e for a, e in zip(gold, extracted, strict=False))


def _gold_order(row: Row) -> list[int]:
    gold = column(row, "answer")
    if isinstance(gold, str):
        try:
            gold = json.loads(gold)
        except ValueError:
            raise DataFormatError(f"'answer' {gold!r} is not a JSON list") from None
    if not isinstance(gold, list | tuple):
        raise DataFormatError(f"'answer' must be a list of part numbers, got {gold!r}")
    return list(gold)


def _bestanswer(prediction: str, row: Row) -> RowScores:
    gold, n = column(row, "answer"), column(row, "num_choices")
    if not isinstance(n, int) or n < 1:
        raise DataFormatError(f"'num_choices' must be a positive integer, got {n!r}")
    return {
        "accuracy": float(extract_bestanswer(prediction, n) == gold),
        "accuracy_strict": float(extract_bestanswer_strict(prediction, n) == gold),
        "random_guess": 1 / n,
    }


def _tsort(prediction: str, row: Row) -> RowScores:
    gold = _gold_order(row)
    return {"accuracy": float(tsort_correct(extract_tsort(prediction), gold)), "random_guess": 1 / 24}


#: every Ada-LEval scoring, by the name a task declares as its ``metric``
SCORINGS = {
    "bestanswer_accuracy": TaskScoring("StackSelect.evaluate (BestAnswer)", _bestanswer, ("accuracy",)),
    "tsort_accuracy": TaskScoring("TextSort.evaluate (TSort)", _tsort, ("accuracy",)),
}


def scoring(task) -> TaskScoring:
    """The scoring a task declaration names."""
    if task.metric not in SCORINGS:
        raise UnknownNameError(f"Ada-LEval has no metric {task.metric!r} (declared by {task.name})")
    return SCORINGS[task.metric]


def task_scoring(task: str) -> TaskScoring:
    """The scoring of an Ada-LEval task, by task name."""
    from . import BENCHMARK

    try:
        return scoring(BENCHMARK.task(task))
    except KeyError:
        raise UnknownNameError(f"Ada-LEval has no metric for task {task!r}") from None


def prepare(prediction: str, row: Row, mode: str | None) -> str:
    return prediction


SUMMARIES: dict = {}
