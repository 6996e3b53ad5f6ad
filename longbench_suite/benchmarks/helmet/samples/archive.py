"""Synthetic sources of the citation, re-ranking and recall tasks, in HELMET's exact layout.

* ``data/alce/{asqa,qampari}_eval_gtr_top2000.json``: one JSON list each; ASQA rows carry ``qa_pairs``,
  ``wikipages``, ``annotations``, ``sample_id``, ``question``, ``docs``, ``answer``; QAMPARI rows
  ``id``, ``question``, ``answers`` (alias lists), ``docs``. Documents have mixed key sets (#31).
* ``prompts/{asqa,qampari}_revised.json`` of HELMET's GitHub repository: ``instruction``, ``demo_sep``,
  ``demo_prompt``, ``doc_prompt`` and four ``demos`` of five documents (short synthetic text; the tests
  use the real files).
* ``data/msmarco/test_reranking_data_k{K}_dep3.jsonl`` and the ``k10`` demo file: ``qid``, ``query``,
  ``ctxs`` of ``id``/``text``/``label``.
* ``data/json_kv/test_k{N}_dep6.jsonl``: ``context`` (a JSON object of UUID pairs), ``demos``,
  ``question``, ``answer`` (a string), ``depth``, ``num_kvs``.
* ``data/ruler/{niah_multikey_2,niah_multikey_3,niah_multivalue}/validation_{L}.jsonl``: RULER's
  ``index``, ``input``, ``outputs``, ``length`` plus ``answer`` (a list for MK needle and MV, a
  string for MK UUID), ``type_needle_v``, ``query``, ``context``; every gold value is in ``context``.

Ordinary rows are small. In every file a few rows — one in ``eval``, one in ``dev`` — are long enough
to overflow every budget, so truncation is exercised at every length.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING

from longbench_suite.partition import sampling
from longbench_suite.samplefiles import TextMaker, json_bytes, jsonl_bytes

from ..lengths import LENGTHS
from ..msmarco import DEMO_FILE as MSMARCO_DEMO_FILE

if TYPE_CHECKING:
    from . import Scale

DEP6 = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
LONG_PER_LENGTH_WORDS = 300  # words per long passage in the part every length keeps
LONG_TAIL_WORDS = 190  # words per long passage beyond it


def long_rows(n: int, eval_size: int, count: int) -> set[int]:
    """Rows to make long: the first ``eval`` row of HELMET's shuffle order, then its last (``dev``) row."""
    order = sampling.hf_shuffle_order(n, sampling.HELMET_SEED)
    return set([order[0], order[-1]][:count]) if n > eval_size else set(order[:count])


def _uuid(text: TextMaker) -> str:
    return str(uuid.UUID(int=text.randint(0, (1 << 128) - 1), version=4))


# -- ALCE ---------------------------------------------------------------------------------------


def _alce_docs(text: TextMaker, n: int, long: bool) -> list[dict]:
    docs = []
    for j in range(n):
        words = (LONG_PER_LENGTH_WORDS if j < LENGTHS["8k"].alce_docs else LONG_TAIL_WORDS) if long else 6
        doc = {"id": str(1000 + j), "title": text.words(2).title(), "text": text.sentence(words)}
        doc["score"] = round(1.5 - j * 1e-4, 4)
        if j % 3 == 1:  # retrieved documents carry different extra keys (HELMET issue #31)
            doc["answers_found"] = [0, 1]
        if j % 5 == 2:
            doc.pop("score")
            doc["extraction"] = text.words(3)
        docs.append(doc)
    return docs


def _asqa_rows(scale: Scale) -> list[dict]:
    text = TextMaker("alce-asqa")
    long = long_rows(scale.alce_asqa, 100, scale.long_rows)
    rows = []
    for i in range(scale.alce_asqa):
        question = f"who {text.choice(['wrote', 'built', 'won'])} the {text.words(2)} {i}?"
        pairs = [
            {
                "context": text.sentence(8),
                "question": f"{question[:-1]} in {year}?",
                "short_answers": [text.words(2).title(), f"{text.words(1).title()} {i}"],
                "wikipage": text.words(2).title(),
            }
            for year in (1990 + i % 20, 2001 + i % 15)
        ]
        first, second = (p["short_answers"][0] for p in pairs)
        long_answer = f"{first} did in one sense [1], and {second} in another [2]."
        rows.append(
            {
                "qa_pairs": pairs,
                "wikipages": [
                    {"title": p["wikipage"], "url": f"https://en.wikipedia.org/wiki/{i}"} for p in pairs
                ],
                "annotations": [{"knowledge": [], "long_answer": long_answer}],
                "sample_id": str(-(10**18) + i * 7919),
                "question": question,
                "docs": _alce_docs(text, scale.alce_long_docs if i in long else scale.alce_docs, i in long),
                "answer": long_answer,
            }
        )
    return rows


def _qampari_rows(scale: Scale) -> list[dict]:
    text = TextMaker("alce-qampari")
    long = long_rows(scale.alce_qampari, 100, scale.long_rows)
    rows = []
    for i in range(scale.alce_qampari):
        clusters = [[f"{text.words(2).title()} {i}", text.words(1)] for _ in range(2 + i % 4)]
        rows.append(
            {
                "id": f"{i}__wikidata_comp__dev",
                "question": f"Which {text.words(1)} films did {text.words(2)} {i} make?",
                "answers": clusters,
                "docs": _alce_docs(text, scale.alce_long_docs if i in long else scale.alce_docs, i in long),
            }
        )
    return rows


def alce_prompt_file(task: str) -> dict:
    """A prompt file in the layout of HELMET's ``prompts/{asqa,qampari}_revised.json``."""
    text = TextMaker(f"alce-prompts-{task}")
    answer_gap = "\n\n" if task == "asqa" else "\n"
    return {
        "instruction": f"Instruction: {task}, cite [1].",
        "demo_sep": "\n\n\n",
        "demo_prompt": "{instruction}\n\nQuestion: {question}\n\n{context}" + answer_gap + "Answer: {answer}",
        "doc_prompt": "Document [{ID}](Title: {title}): {text}",
        "demos": [
            {
                "question": f"which {k}?",
                "answer": f"{text.words(1).title()} [1].",
                "docs": [{"title": text.words(1).title(), "text": text.words(1)} for _ in range(5)],
            }
            for k in range(4)
        ],
    }


def alce_members(scale: Scale) -> dict[str, bytes]:
    return {
        "data/alce/asqa_eval_gtr_top2000.json": json_bytes(_asqa_rows(scale)),
        "data/alce/qampari_eval_gtr_top2000.json": json_bytes(_qampari_rows(scale)),
    }


# -- MS MARCO -----------------------------------------------------------------------------------


def _ranking_rows(scale: Scale, k: int, long: set[int], seed: str) -> list[dict]:
    """``scale.msmarco`` queries with ``k`` candidates each (ordinary rows: at most
    ``scale.msmarco_passages``); queries depend only on the row, so every file holds the same queries,
    as upstream."""
    queries, passages = TextMaker(f"msmarco-q-{seed}"), TextMaker(f"msmarco-p-{seed}-{k}")
    rows = []
    for i in range(scale.msmarco):
        query = f"what is the {queries.words(2)} of {queries.words(1)}"
        ctxs = []
        for j in range(k if i in long else min(k, scale.msmarco_passages)):
            words = (
                (LONG_PER_LENGTH_WORDS if j < LENGTHS["8k"].msmarco_passages else LONG_TAIL_WORDS)
                if i in long
                else scale.msmarco_words
            )
            ctx = {
                "id": str(7_000_000 + i * 1000 + j),
                "text": passages.sentence(words),
                "label": passages.choice([0, 0, 0, 1, 2, 3]),
            }
            if j % 4 == 3:  # passages carry different extra keys (HELMET issue #31)
                ctx["bm25_score"] = round(20 - j * 0.01, 2)
            ctxs.append(ctx)
        rows.append({"qid": str(1_000_000 + i * 37), "query": query, "ctxs": ctxs})
    return rows


def msmarco_members(scale: Scale) -> dict[str, bytes]:
    long = set([0, scale.msmarco - 1][: scale.long_rows])
    members = {
        f"data/msmarco/test_reranking_data_k{k}_dep3.jsonl": jsonl_bytes(
            _ranking_rows(scale, k, long, "test")
        )
        for k in LENGTHS.column("msmarco_passages").values()
    }
    members[MSMARCO_DEMO_FILE] = jsonl_bytes(_ranking_rows(scale, 10, set(), "test"))
    return members


# -- JSON KV ------------------------------------------------------------------------------------


def _json_kv_rows(scale: Scale, n_pairs: int, length: str) -> list[dict]:
    text = TextMaker(f"json-kv-{length}")
    long = long_rows(scale.json_kv, 100, scale.long_rows)
    rows = []
    for i in range(scale.json_kv):
        count = n_pairs + n_pairs // 4 if i in long else scale.json_kv_pairs
        pairs = [(_uuid(text), _uuid(text)) for _ in range(count)]
        depth = DEP6[i % len(DEP6)]
        gold = min(int(depth * count), count - 1)
        rows.append(
            {
                "context": json.dumps(dict(pairs), indent=1),
                "demos": [[_uuid(text), _uuid(text)] for _ in range(3)],
                "question": pairs[gold][0],
                "answer": pairs[gold][1],
                "depth": depth,
                "num_kvs": count,
            }
        )
    return rows


def json_kv_members(scale: Scale) -> dict[str, bytes]:
    return {
        f"data/json_kv/test_k{n}_dep6.jsonl": jsonl_bytes(_json_kv_rows(scale, n, length))
        for length, n in LENGTHS.column("json_kv_pairs").items()
    }


# -- RULER --------------------------------------------------------------------------------------

NEEDLE = "One of the special magic {type_needle_v} for {key} is: {value}."
RULER_TASKS = {
    # directory: (key kind, value kind, values per key, haystack, the file's type_needle_v)
    "niah_multikey_2": ("words", "numbers", 1, "needle", "number"),
    "niah_multikey_3": ("uuids", "uuids", 1, "needle", "uuid"),
    "niah_multivalue": ("words", "numbers", 4, "essay", "numbers"),
}


def _ruler_value(text: TextMaker, kind: str) -> str:
    if kind == "numbers":
        return str(text.randint(1_000_000, 9_999_999))
    if kind == "uuids":
        return _uuid(text)
    return "-".join(text.words(2).split())


def _ruler_rows(scale: Scale, task: str, tokens: int) -> list[dict]:
    key_kind, value_kind, n_values, haystack, type_needle_v = RULER_TASKS[task]
    text = TextMaker(f"ruler-{task}-{tokens}")
    long = long_rows(scale.ruler, 40, scale.long_rows)
    rows, keys = [], set()
    for i in range(scale.ruler):
        key = _ruler_value(text, key_kind)
        while key in keys:  # one query per key in a file, so no two rows ask the same question
            key = _ruler_value(text, key_kind)
        keys.add(key)
        values = [_ruler_value(text, value_kind) for _ in range(n_values)]
        needles = [NEEDLE.format(type_needle_v=value_kind, key=key, value=v) for v in values]
        per_item = 13 if haystack == "essay" else 16 if value_kind == "numbers" else 75  # tokens, about
        fill = int(tokens * 1.08) // per_item if i in long else scale.ruler_filler
        if haystack == "essay":
            filler = [text.sentence(12) for _ in range(fill)]
        else:
            filler = [
                NEEDLE.format(
                    type_needle_v=value_kind,
                    key=_ruler_value(text, key_kind),
                    value=_ruler_value(text, value_kind),
                )
                for _ in range(fill)
            ]
        for k, needle in enumerate(needles):  # in the first half, so a cut tail never loses them
            filler.insert((k + 1) * len(filler) // (2 * len(needles) + 1), needle)
        context = (" " if haystack == "essay" else "\n").join(filler)  # as RULER joins them
        user = (
            f"A special magic {type_needle_v} is hidden within the following text. Make sure to memorize it. "
            f"I will quiz you about the {type_needle_v} afterwards.\n{context}\n"
            f"What is the special magic {type_needle_v} for {key} mentioned in the provided text?"
        )
        row = {
            "index": i,
            "input": user,
            "outputs": values,
            "length": len(user.split()) + 40,
            "answer": values[0] if task == "niah_multikey_3" else values,
            "type_needle_v": type_needle_v,
            "query": key,
            "context": context,
        }
        rows.append(row)
    return rows


def ruler_members(scale: Scale) -> dict[str, bytes]:
    return {
        f"data/ruler/{task}/validation_{tokens}.jsonl": jsonl_bytes(_ruler_rows(scale, task, tokens))
        for task in RULER_TASKS
        for tokens in LENGTHS.column("tokens").values()
    }
