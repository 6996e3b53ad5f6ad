"""LongBench's 21 tasks and LongBench-E's counterparts, as upstream states them: ``pred.py``
(``dataset2maxlen``, the chat-template exceptions), ``eval.py`` (``dataset2metric``, the first-line
rule), the README leaderboard's categories and ``task.md``'s row counts (``docs/longbench.md`` §2-§4).

A task is one line; a task with a LongBench-E counterpart (``rows_e`` not None) also gives ``<task>_e``.
"""

from __future__ import annotations

from typing import NamedTuple

from . import Spec


class Line(NamedTuple):
    category: str
    language: str
    metric: str
    first_line: bool  # the scorer keeps a prediction's first line only
    max_new_tokens: int
    chat: bool  # use_chat_template
    rows: int  # eval rows of data/<task>.jsonl
    rows_e: int | None  # eval rows of data/<task>_e.jsonl; None: no LongBench-E counterpart


#: length -> (window in tokens, the rows' max_length; prompt budget, the rows' input_budget), K = 1024
LENGTHS = {
    "4k": (4096, 3500),
    "8k": (8192, 7500),
    "16k": (16384, 15500),
    "32k": (32768, 31500),
    "64k": (65536, 63500),
    "128k": (131072, 127500),
    "full": (None, None),
}

LINES = {
    "narrativeqa": Line("Single-Doc QA", "en", "qa_f1_score", False, 128, True, 200, None),
    "qasper": Line("Single-Doc QA", "en", "qa_f1_score", False, 128, True, 200, 224),
    "multifieldqa_en": Line("Single-Doc QA", "en", "qa_f1_score", False, 64, True, 150, 150),
    "multifieldqa_zh": Line("Single-Doc QA", "zh", "qa_f1_zh_score", False, 64, True, 200, None),
    "hotpotqa": Line("Multi-Doc QA", "en", "qa_f1_score", False, 32, True, 200, 300),
    "2wikimqa": Line("Multi-Doc QA", "en", "qa_f1_score", False, 32, True, 200, 300),
    "musique": Line("Multi-Doc QA", "en", "qa_f1_score", False, 32, True, 200, None),
    "dureader": Line("Multi-Doc QA", "zh", "rouge_zh_score", False, 128, True, 200, None),
    "gov_report": Line("Summarization", "en", "rouge_score", False, 512, True, 200, 300),
    "qmsum": Line("Summarization", "en", "rouge_score", False, 512, True, 200, None),
    "multi_news": Line("Summarization", "en", "rouge_score", False, 512, True, 200, 294),
    "vcsum": Line("Summarization", "zh", "rouge_zh_score", False, 512, True, 200, None),
    "trec": Line("Few-shot Learning", "en", "classification_score", True, 64, False, 200, 300),
    "triviaqa": Line("Few-shot Learning", "en", "qa_f1_score", True, 32, False, 200, 300),
    "samsum": Line("Few-shot Learning", "en", "rouge_score", True, 128, False, 200, 300),
    "lsht": Line("Few-shot Learning", "zh", "classification_score", True, 64, False, 200, None),
    "passage_count": Line("Synthetic Tasks", "en", "count_score", False, 32, True, 200, 300),
    "passage_retrieval_en": Line("Synthetic Tasks", "en", "retrieval_score", False, 32, True, 200, 300),
    "passage_retrieval_zh": Line("Synthetic Tasks", "zh", "retrieval_zh_score", False, 32, True, 200, None),
    "lcc": Line("Code Completion", "code", "code_sim_score", False, 64, False, 500, 300),
    "repobench-p": Line("Code Completion", "code", "code_sim_score", False, 64, False, 500, 300),
}

E_SUFFIX = "_e"
#: LongBench's tasks, then LongBench-E's, in the order of the Hub script's configs
LONGBENCH = list(LINES)
LONGBENCH_E = [name + E_SUFFIX for name, line in LINES.items() if line.rows_e is not None]


def base(task: str) -> str:
    """The LongBench task a LongBench-E one is the counterpart of (itself for a LongBench task)."""
    return task.removesuffix(E_SUFFIX) if task in LONGBENCH_E else task


def line(task: str) -> Line:
    return LINES[base(task)]


def sibling(task: str) -> str | None:
    """The other set of the same task (where dev rows come from), or None."""
    if task in LONGBENCH_E:
        return base(task)
    return task + E_SUFFIX if task + E_SUFFIX in LONGBENCH_E else None


def _declared(task: str) -> dict:
    facts = line(task)
    return {
        "category": facts.category,
        "language": facts.language,
        "metric": facts.metric,
        "first_line": facts.first_line,
        "max_new_tokens": facts.max_new_tokens,
        "use_chat_template": facts.chat,
    }


SPEC = Spec(
    benchmark="longbench",
    tasks={task: tuple(LENGTHS) for task in LONGBENCH + LONGBENCH_E},
    declared={task: _declared(task) for task in LONGBENCH + LONGBENCH_E},
    eval_rows={
        **{task: facts.rows for task, facts in LINES.items()},
        **{task: line(task).rows_e for task in LONGBENCH_E},
    },
)
