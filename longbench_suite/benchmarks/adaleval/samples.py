"""Synthetic Ada-LEval files in the exact hosted layout, for ``longbench-suite demo`` and the tests.

Every file is one JSON array written like the real one (``json.dump(..., indent=4,
ensure_ascii=False)``) at ``BASE_URL/<stem>_<setting>.json`` in a mirror.

* ``stackselect_*``: the five fields of ``docs/adaleval.md`` §3 (``question_id`` a string of digits,
  ``question`` and every answer starting with ``"\\n"``, ``answer`` ``"A<k>"``, ``tags``). Row i is the
  same question at every setting, with more distractors at longer settings; a few rows repeat an
  earlier question with another candidate order (as in the real 1k file), and after the evaluated prefix
  every fourth row repeats an ``eval`` question, so ``dev`` has rows to drop.
* ``textsort_*``: ``prompt`` (the confirmed instruction header of §5.2 followed by the prototype's
  problem layout, which is a hypothesis), ``answer``, ``book_id`` and ``para_offset``; consecutive
  cases come from the same book, as upstream's stride construction makes them.

Files are longer than the evaluated prefix only when the scale says so; the text is short.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from longbench_suite.samplefiles import TextMaker, json_bytes, write_to_mirror

from .bestanswer import TASK as BESTANSWER
from .common import eval_rows, setting_k
from .tsort import TASK as TSORT

# ``docs/adaleval.md`` §5.2: the header every hosted TSort prompt starts with (verbatim).
TSORT_HEADER = (
    "\n    You are an AI assistant. Your job is to sort multiple book sections into the correct order.\n"
    "    Each time, you will be provided with 4 pieces of text.\n"
    "    These texts form a continuous part of a book, but are provided in random order.\n"
    "    You need to find the correct order and return the answer in a string.\n"
    "    For example, if you output [4, 1, 3, 2], that means the correct order is: Part 4 -> Part 1 -> "
    "Part 3 -> Part 2.\n"
    "    You will also be provided with the neighboring paragraphs before and after the 4 pieces of texts. "
    "\n\n"
    "    The case sample is shown below and you should give me the answer in the format exactly the same "
    "as the sample. \n\n"
    "    However, you should NOT focus on the content of sample answer. \n\n"
    "    Please do NOT output any extra content. \n"
    "    Sample Input (format only): \n\n"
    "    Before: XXX (Text before the continuous book part)\n\n\n"
    "    Part 1: XXX\n\n\n    Part 2: XXX\n\n\n    Part 3: XXX\n\n\n    Part 4: XXX\n\n\n"
    "    After: XXX (Text after the continuous book part)\n\n\n"
    "    Sample Output (format only): \n\n"
    "    Answer: [4, 1, 3, 2] \n\n\n\n"
)
# The problem part after the header, as the pre-release prototype rendered it (unconfirmed, §5.2).
TSORT_PROBLEM = (
    "    The question you need to answer is given below.\n    Input:\n\n    Problem:\n\n"
    "    Before: {before}\n\n\n    Part 1: {part1}\n\n\n    Part 2: {part2}\n\n\n    Part 3: {part3}\n\n\n"
    "    Part 4: {part4}\n\n\n    After: {after}\n\n\n"
    "    Now you need to find the correct order of these parts.\n    Output:\n\n    "
)
TAGS = ("python", "javascript", "java", "c++", "android", "git", "mysql", "pandas", "linux", "css")


@dataclass(frozen=True)
class Scale:
    extra_rows: int = 48  # rows after the evaluated prefix below 32k
    extra_rows_ultra: int = 40  # ... from 32k up
    prefix_fraction: float = 1.0  # share of the evaluated prefix the files hold
    cases_per_book: int = 7
    tsort_answer_as_json: bool = False  # TSort ``answer`` written as a JSON string
    tsort_book_id_as_str: bool = False  # TSort ``book_id`` written as a string
    words: int = 6


FULL = Scale()
#: Small files: only a few rows at the short settings (no ``dev``), a longer file from 32k up.
DEMO = Scale(prefix_fraction=0.02, extra_rows=0, extra_rows_ultra=36)
DEMO_CONFIGS = ("bestanswer_1k", "tsort_2k", "tsort_64k")


def row_count(length: str, scale: Scale) -> int:
    prefix = eval_rows(length)
    if scale.prefix_fraction < 1 and setting_k(length) < 32:
        return max(1, round(prefix * scale.prefix_fraction))
    return prefix + (scale.extra_rows if setting_k(length) < 32 else scale.extra_rows_ultra)


def _question(i: int, text: TextMaker) -> dict:
    return {
        "question_id": str(1_000_000 + i * 7919),
        "question": f"\n{text.sentence(8)}\n{text.words(4)}()\n",
        "gold": f"\n{text.sentence(10)}\nThe accepted answer {i}.\n",
        "tags": [text.choice(TAGS) for _ in range(1 + i % 3)],
    }


#: Questions (books) the settings below 32k evaluate: the first 1000 rows of their files.
LONG_EVAL = 1000


def _after_prefix(i: int, n_eval: int) -> int:
    """Whose question (book) row ``i``, after the evaluated prefix, takes: a row this file evaluates
    (every 4th), a row only the settings below 32k evaluate (every 5th, from 32k up), or a fresh one
    that no setting evaluates."""
    if i % 4 == 0:
        return (i * 13) % n_eval
    if i % 5 == 0 and n_eval < LONG_EVAL:
        return n_eval + (i * 7) % (LONG_EVAL - n_eval)
    return LONG_EVAL + (i - n_eval)


def stackselect_rows(length: str, scale: Scale) -> list[dict]:
    n_rows, n_eval = row_count(length, scale), eval_rows(length)
    questions = TextMaker("stackselect-questions")
    pool = [_question(i, questions) for i in range(max(n_rows, LONG_EVAL + scale.extra_rows_ultra + n_rows))]
    text = TextMaker(f"stackselect-{length}")
    rows = []
    for i in range(n_rows):
        source = i
        if i % 97 == 50:  # a repeated question, as rows 56 and 377 of the real 1k file
            source = i - 40
        if i >= n_eval:
            source = _after_prefix(i, n_eval)
        question = pool[source]
        distractors = [
            f"\n{text.sentence(scale.words)}\n"
            for _ in range(1 + setting_k(length) // 8 + text.randint(0, 3))
        ]
        position = text.randint(0, len(distractors))
        candidates = [*distractors[:position], question["gold"], *distractors[position:]]
        rows.append(
            {
                "question_id": question["question_id"],
                "question": question["question"],
                "all_answers": candidates,
                "answer": f"A{position + 1}",
                "tags": question["tags"],
            }
        )
    return rows


def textsort_rows(length: str, scale: Scale) -> list[dict]:
    text = TextMaker(f"textsort-{length}")
    stride = 64 if setting_k(length) < 32 else 128
    rows = []
    n_eval = eval_rows(length)
    for i in range(row_count(length, scale)):
        book = 40_000 + (i if i < n_eval else _after_prefix(i, n_eval)) // scale.cases_per_book
        start = (i % scale.cases_per_book) * stride
        segments = [text.paragraph(1 + text.randint(0, 2), scale.words) for _ in range(4)]
        shown = [0, 1, 2, 3]
        text.shuffle(shown)  # shown[d] is the true position of the segment displayed as Part d + 1
        answer = [shown.index(true) + 1 for true in range(4)]
        prompt = TSORT_HEADER + TSORT_PROBLEM.format(
            before=text.paragraph(1, scale.words),
            after=text.paragraph(1, scale.words),
            **{f"part{d + 1}": segments[shown[d]] for d in range(4)},
        )
        rows.append(
            {
                "prompt": prompt,
                "answer": json.dumps(answer) if scale.tsort_answer_as_json else answer,
                "book_id": str(book) if scale.tsort_book_id_as_str else book,
                "para_offset": [start + 3 * k for k in range(4)],
            }
        )
    return rows


def write_samples(mirror_dir: str, scale: Scale = DEMO) -> list[str]:
    """Write every hosted Ada-LEval file for ``scale`` under ``mirror_dir``; returns the files written."""
    written = []
    for task, make in ((BESTANSWER, stackselect_rows), (TSORT, textsort_rows)):
        for length in task.lengths:
            url = task.sources(length)["data"].url
            written.append(write_to_mirror(mirror_dir, url, json_bytes(make(length, scale), indent=4)))
    return written


def declared_sizes(scale: Scale = DEMO) -> dict[str, dict[str, int]]:
    """The eval sizes the files of ``scale`` give each config: the evaluated prefix, or the whole file
    where it holds fewer rows."""
    return {
        task.config_name(length): {"eval": min(eval_rows(length), row_count(length, scale))}
        for task in (BESTANSWER, TSORT)
        for length in task.lengths
    }
