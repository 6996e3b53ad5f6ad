"""HELMET RAG end to end: NQ, TriviaQA, PopQA, HotpotQA x 8k-128k from a loopback HTTP mirror.

The fixture archive is at full scale in questions and depth variants (NQ 993 x 6, TriviaQA 976 x 6,
PopQA 292 x 6, HotpotQA 987 x 3). The reference pipeline below re-implements HELMET's ``load_qa`` and
``model_utils.tokenize`` from ``docs/helmet.md`` §3.1/§1.4 with numpy, ``random`` and ``tokenizers``
directly, independently of the library, and the built ``eval`` rows must equal it exactly.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import tarfile

import numpy as np
import pytest
from tokenizers import Tokenizer

from longbench_suite import get_builder, load_dataset
from longbench_suite.benchmarks.helmet.common import ARCHIVE
from longbench_suite.fit.tokenizers import load_tokenizer
from longbench_suite.source import mirrored
from tests.conftest import HELMET_LENGTHS as LENGTHS
from tests.specs import helmet as helmet_spec

TASKS = helmet_spec.family("rag")
K = {length: row.kilt_passages for length, row in helmet_spec.LENGTHS.items()}
FILES = {
    "nq": (
        "data/kilt/nq-dev-multikilt_1000_k{k}_dep6.jsonl",
        "data/kilt/nq-train-multikilt_1000_k3_dep6.jsonl",
    ),
    "triviaqa": (
        "data/kilt/triviaqa-dev-multikilt_1000_k{k}_dep6.jsonl",
        "data/kilt/triviaqa-train-multikilt_1000_k3_dep6.jsonl",
    ),
    "popqa": ("data/kilt/popqa_test_1000_k{k}_dep6.jsonl", "data/kilt/popqa_test_1000_k3_dep6.jsonl"),
    "hotpotqa": (
        "data/kilt/hotpotqa-dev-multikilt_1000_k{k}_dep3.jsonl",
        "data/kilt/hotpotqa-train-multikilt_1000_k3_dep3.jsonl",
    ),
}
USER = (
    "Use the given documents to write a concise and short answer to the question. Write your answer in the "
    "following format:\nAnswer: [answer]\n\n{demos}{context}\n\nQuestion: {question}"
)
PROMPT = USER + "\n" + "Answer:"
SERVED: dict[str, int] = {}


@pytest.fixture(scope="module")
def built(helmet_rag_build):
    # Prepared once per session, in one call (conftest), and shared with test_check.
    builders = [
        get_builder(f"helmet/{t}_{length}", **helmet_rag_build["options"])
        for t in TASKS
        for length in LENGTHS
    ]
    SERVED["prepare"] = helmet_rag_build["served"]
    return {(b.config.task.name, b.config.length): b.as_dataset() for b in builders}


@pytest.fixture(scope="module")
def members(helmet_mirror):
    path = mirrored(ARCHIVE.url, helmet_mirror)
    with tarfile.open(path) as tar:
        return {
            m.name: [
                json.loads(line) for line in tar.extractfile(m).read().decode("utf-8").splitlines() if line
            ]
            for m in tar.getmembers()
            if m.isfile()
        }


@pytest.mark.slow
def test_split_sizes_match_the_seed(built, members):
    expected = {"nq": (893, 600), "triviaqa": (876, 600), "popqa": (192, 600)}
    for (task, length), splits in built.items():
        dev, ev = len(splits["dev"]), len(splits["eval"])
        if task == "hotpotqa":
            questions = {r["question"] for r in members[FILES[task][0].format(k=K[length])]}
            assert (dev, ev) == (len(questions) - 100, 300), length
        else:
            assert (dev, ev) == expected[task], (task, length)


def test_no_query_in_both_splits_at_any_length(built):
    for task in TASKS:
        dev_ids = {q for length in LENGTHS for q in built[(task, length)]["dev"]["query_id"]}
        eval_ids = {q for length in LENGTHS for q in built[(task, length)]["eval"]["query_id"]}
        assert dev_ids and eval_ids and not dev_ids & eval_ids
        dev_questions = {q for length in LENGTHS for q in built[(task, length)]["dev"]["question"]}
        eval_questions = {q for length in LENGTHS for q in built[(task, length)]["eval"]["question"]}
        assert not dev_questions & eval_questions


def test_dev_keeps_one_variant_per_question_the_same_at_every_length(built):
    for task in TASKS:
        chosen = {}
        for length in LENGTHS:
            rows = built[(task, length)]["dev"]
            ids = list(rows["query_id"])
            assert len(ids) == len(set(ids))
            for qid, depth, meta in zip(ids, rows["depth"], rows["metadata"], strict=True):
                variant = depth if task != "hotpotqa" else json.loads(meta)["source_line"]
                assert chosen.setdefault(qid, variant) == variant, (task, length, qid)


def test_every_input_fits_its_budget(built, tiny_tokenizer):
    counter = load_tokenizer(tiny_tokenizer)
    truncated = 0
    for (_task, length), splits in built.items():
        for split in ("dev", "eval"):
            rows = splits[split]
            assert set(rows["max_length"]) == {LENGTHS[length]}
            counts = counter.count_batch(list(rows["input"]))
            assert max(counts) <= LENGTHS[length] - 20
            truncated += sum(c > LENGTHS[length] - 20 - 200 for c in counts)
    assert truncated > 0, "the fixture's long rows should have exercised truncation"


def _helmet_eval_reference(task, length, members, tokenizer_path):
    """HELMET's load_qa + model_utils.tokenize for one config, from the spec's prose."""
    test_rows = members[FILES[task][0].format(k=K[length])]
    demo_rows = members[FILES[task][1]]
    key = "id" if task == "popqa" else "question"
    if task == "popqa":
        test_rows = [r for r in test_rows if math.log10(r["s_pop"]) < 3]
        demo_rows = [r for r in demo_rows if math.log10(r["s_pop"]) < 3]
    random.seed(42)
    keys = random.sample(sorted({r[key] for r in test_rows}), min(100, len({r[key] for r in test_rows})))
    selected = [r for r in test_rows if r[key] in keys]
    tok = Tokenizer.from_file(tokenizer_path)
    budget = LENGTHS[length] - 20
    passage = "Document (Title: {title}): {text}"
    prompts = []
    for sample in selected:
        pool = [d for d in demo_rows if d[key] != sample[key]] if task == "popqa" else demo_rows
        h = int(hashlib.sha256(str(sample[key]).encode("utf-8")).hexdigest(), 16) % 2**31
        order = np.random.default_rng(h).permutation(len(pool))
        picked, seen = [], set()
        for i in order:
            if pool[i][key] not in seen:
                seen.add(pool[i][key])
                picked.append(pool[i])
        demos = (
            "\n\n".join(
                "{documents}\n\nQuestion: {question}\nAnswer: {answer}".format(
                    documents="\n\n".join(passage.format(**c) for c in d["ctxs"]),
                    question=d["question"],
                    answer=d["answers"][0],
                )
                for d in picked[:2]
            )
            + "\n\n"
        )
        fields = {
            "demos": demos,
            "context": "\n\n".join(passage.format(**c) for c in sample["ctxs"]),
            "question": sample["question"],
        }
        prompt = PROMPT.format(**fields)
        n = len(tok.encode(prompt).ids)
        if n > budget:
            offsets = tok.encode(fields["context"]).offsets
            fields["context"] = fields["context"][: offsets[-(n - budget)][0]]
            prompt = PROMPT.format(**fields)
        prompts.append(prompt)
    return selected, prompts


@pytest.mark.parametrize(
    "task, length", [("nq", "8k"), ("popqa", "16k"), ("hotpotqa", "8k"), ("triviaqa", "128k")]
)
def test_eval_equals_helmets_pipeline(built, members, tiny_tokenizer, task, length):
    selected, prompts = _helmet_eval_reference(task, length, members, tiny_tokenizer)
    rows = built[(task, length)]["eval"]
    assert list(rows["question"]) == [r["question"] for r in selected]
    assert list(rows["answers"]) == [r["answers"] for r in selected]
    assert list(rows["output"]) == [r["answers"][0] for r in selected]
    assert list(rows["input"]) == prompts
    assert set(rows["answer_prefix"]) == {"\nAnswer:"} and set(rows["use_chat_template"]) == {False}


def test_demos_never_leak_eval_questions_into_dev(built, members):
    for task in TASKS:
        for length in ("8k", "128k"):
            splits = built[(task, length)]
            eval_ids = set(splits["eval"]["query_id"])
            for qid, meta in zip(splits["dev"]["query_id"], splits["dev"]["metadata"], strict=True):
                demo_ids = json.loads(meta)["demo_query_ids"]
                assert len(demo_ids) == 2 and qid not in demo_ids and not eval_ids & set(demo_ids)


def test_popqa_popularity_filter(built, members):
    test_rows = members[FILES["popqa"][0].format(k=50)]
    popularity = {f"popqa-{r['id']}": r["s_pop"] for r in test_rows}
    eval_ids = set(built[("popqa", "8k")]["eval"]["query_id"])
    dev_ids = set(built[("popqa", "8k")]["dev"]["query_id"])
    assert all(math.log10(popularity[q]) < 3 for q in eval_ids)
    assert any(math.log10(popularity[q]) >= 3 for q in dev_ids), "dev keeps the popular queries too"


def test_positive_ctxs_and_depth_columns(built, members):
    row = built[("nq", "32k")]["eval"][0]
    source = members[FILES["nq"][0].format(k=220)][json.loads(row["metadata"])["source_line"] - 1]
    assert row["positive_ctxs"] == [{"title": c["title"], "text": c["text"]} for c in source["positive_ctxs"]]
    assert row["depth"] == source["depth"]
    assert built[("hotpotqa", "8k")]["eval"][0]["depth"] is None
    assert built[("popqa", "8k")]["eval"][0]["positive_ctxs"] == []


@pytest.mark.slow
def test_streaming_rows_equal_prepared_rows_and_rebuilds_are_identical(
    built, helmet_http, helmet_mirror, tiny_tokenizer, tmp_path
):
    prepared = built[("nq", "8k")]
    streamed = load_dataset(
        "helmet",
        "nq_8k",
        split="dev",
        streaming=True,
        mirror=helmet_http.url,
        tokenizer=tiny_tokenizer,
        cache_dir=str(tmp_path / "s"),
    )
    assert list(streamed) == prepared["dev"].to_list()
    assert not (tmp_path / "s" / "longbench_suite_helmet").exists(), "streaming wrote Arrow files"
    again = load_dataset(
        "longbench_suite",
        "helmet/nq_8k",
        mirror=helmet_mirror,
        tokenizer=tiny_tokenizer,
        cache_dir=str(tmp_path / "other"),
    )
    for split in ("dev", "eval"):
        assert again[split].to_list() == prepared[split].to_list()


def test_archive_is_downloaded_once_for_all_configs(built, helmet_mirror):
    # Building the RAG configs fetched data.tar.gz exactly once (then read its members from the cache).
    assert SERVED["prepare"] == os.path.getsize(mirrored(ARCHIVE.url, helmet_mirror))


def _mini_kilt(tmp_path):
    """103 questions in NQ's layout: 100 go to eval, 3 to dev; row 0 is checked by hand."""
    kilt = tmp_path / "data" / "kilt"
    kilt.mkdir(parents=True)
    rows = []
    for i in range(103):
        for depth in (0.0, 1.0):
            gold = {"title": f"Gold {i}", "text": f"the answer is A{i}", "passage_id": "9", "title_score": 1}
            other = {"id": "5", "title": "Other", "text": "nothing here", "has_answer": False}
            rows.append(
                {
                    "question": f"q{i}?",
                    "answers": [f"A{i}"],
                    "depth": depth,
                    "ctxs": [gold, other] if depth == 0.0 else [other, gold],
                    "positive_ctxs": [gold],
                }
            )
    for k in (50,):
        (kilt / f"nq-dev-multikilt_1000_k{k}_dep6.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in rows)
        )
    train = [
        {"question": f"t{j}?", "answers": [f"T{j}"], "ctxs": [{"title": f"Tt{j}", "text": f"x{j}"}]}
        for j in range(2)
    ]
    (kilt / "nq-train-multikilt_1000_k3_dep6.jsonl").write_text("".join(json.dumps(r) + "\n" for r in train))
    return tmp_path


def test_hand_checked_prompt_text(tmp_path):
    data_dir = _mini_kilt(tmp_path)
    splits = load_dataset(
        "helmet", "nq_8k", data_dir=str(data_dir), tokenizer="words", cache_dir=str(tmp_path / "c")
    )
    random.seed(42)
    eval_questions = set(random.sample(sorted(f"q{i}?" for i in range(103)), 100))
    assert {r["question"] for r in splits["eval"]} == eval_questions
    assert len(splits["dev"]) == 3
    row = next(r for r in splits["eval"] if r["question"] == "q0?" and r["depth"] == 0.0)
    h = int(hashlib.sha256(b"q0?").hexdigest(), 16) % 2**31
    first, second = np.random.default_rng(h).permutation(2)
    demo = [
        "Document (Title: Tt0): x0\n\nQuestion: t0?\nAnswer: T0",
        "Document (Title: Tt1): x1\n\nQuestion: t1?\nAnswer: T1",
    ]
    expected = (
        "Use the given documents to write a concise and short answer to the question. "
        "Write your answer in the "
        "following format:\nAnswer: [answer]\n\n"
        f"{demo[first]}\n\n{demo[second]}\n\n"
        "Document (Title: Gold 0): the answer is A0\n\nDocument (Title: Other): nothing here\n\n"
        "Question: q0?\nAnswer:"
    )
    assert row["input"] == expected
    assert row["output"] == "A0" and row["answers"] == ["A0"] and row["max_new_tokens"] == 20


def _mini_popqa(root, ids: list) -> None:
    """PopQA's layout with the given ``id`` values (int or str: the spec leaves the type open)."""
    kilt = root / "data" / "kilt"
    kilt.mkdir(parents=True)
    rows = []
    for n, ident in enumerate(ids):
        gold = {"title": f"Gold {n}", "text": f"the answer is A{n}"}
        for depth in (0.0, 1.0):
            rows.append(
                {
                    "id": ident,
                    "s_pop": 10 + n,
                    "question": f"What is the occupation of P{n}?",
                    "answers": [f"A{n}"],
                    "depth": depth,
                    "ctxs": [gold] if depth == 0.0 else [{"title": "Other", "text": "x"}, gold],
                    "positive_ctxs": [gold],
                }
            )
    for k in (3, 50):
        (kilt / f"popqa_test_1000_k{k}_dep6.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.parametrize("id_type", [int, str])
def test_popqa_eval_sample_follows_the_sorted_order_of_the_id_type(id_type, tmp_path):
    # sorted() orders 7 < 14 but "14" < "7": HELMET samples from the ids as the file types them.
    numbers = [7 * n for n in range(1, 121)]
    _mini_popqa(tmp_path, [id_type(n) for n in numbers])
    splits = load_dataset(
        "helmet", "popqa_8k", data_dir=str(tmp_path), tokenizer="words", cache_dir=str(tmp_path / "c")
    )

    def helmet_sample(keys):
        random.seed(42)
        return random.sample(sorted(keys), 100)

    expected = {f"popqa-{k}" for k in helmet_sample([id_type(n) for n in numbers])}
    other_type = str if id_type is int else int
    assert {f"popqa-{k}" for k in helmet_sample([other_type(n) for n in numbers])} != expected
    assert set(splits["eval"]["query_id"]) == expected
    assert len(splits["eval"]) == 200 and len(splits["dev"]) == 20
    assert not set(splits["dev"]["query_id"]) & expected
