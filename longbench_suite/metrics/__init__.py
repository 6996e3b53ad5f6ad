"""Every benchmark's official metrics, reproduced exactly, and the scorer behind
``longbench-suite score``.

>>> from longbench_suite.metrics import score
>>> result = score("nq_8k", eval_rows, predictions)  # doctest: +SKIP
>>> result.headline                                     # doctest: +SKIP
{'substring_exact_match': 61.5}

One module per benchmark (:mod:`.helmet`, :mod:`.longbench`, :mod:`.lveval`, :mod:`.adaleval`) holds
its metrics as plain functions, with upstream's names, and declares per task which metrics a row gets
and how they are averaged; :mod:`.base` holds what they share. The libraries that define the numbers
(``rouge``, ``rouge-score``, ``jieba``, ``rapidfuzz``, ``pytrec-eval-terrier``, ``nltk``) come with the
``metrics`` extra.
"""

from .base import Judges, TaskScoring
from .predictions import align_predictions, read_predictions
from .scoring import ScoreResult, score, score_task, summarize

__all__ = [
    "Judges",
    "ScoreResult",
    "TaskScoring",
    "align_predictions",
    "read_predictions",
    "score",
    "score_task",
    "summarize",
]
