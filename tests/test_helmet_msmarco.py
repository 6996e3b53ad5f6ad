"""HELMET passage re-ranking: MS MARCO (``docs/helmet.md`` §3.3).

Parity: ``eval`` equals HELMET's ``load_msmarco_rerank`` (``random.seed(42)``; sample the sorted query
ids; demos from the k10 file with its pool rule and ``abs(sha256(qid) % 2**31)`` shuffles) restricted to
the query ids of its first 40 rows, then ``model_utils.tokenize``, re-implemented below.
"""

from __future__ import annotations

import hashlib
import json
import random

import numpy as np
import pytest
from tokenizers import Tokenizer

from longbench_suite import load_dataset
from longbench_suite.benchmarks.helmet.common import ARCHIVE
from longbench_suite.errors import DataFormatError
from longbench_suite.source import mirrored
from tests.conftest import HELMET_LENGTHS as LENGTHS
from tests.specs import helmet as helmet_spec
from tests.support.helmet_reference import fit, read_archive

K = {length: row.msmarco_passages for length, row in helmet_spec.LENGTHS.items()}
TEST_FILE = "data/msmarco/test_reranking_data_k{}_dep3.jsonl"
DEMO_FILE = "data/msmarco/test_reranking_data_k10_dep3.jsonl"
PROMPT = (
    "You are provided with a list of documents, each indicated by their ID. Rank each document based on "
    "their relevance to the question in descending order from most relelvant to least relevant texts. "
    "Include all documents in the rankings. Write your answer using the unique IDs, with the following "
    "format:\nRanking: ID3 > ID1 > ID2\n\n{demos}{context}\n\nQuery: {question}" + "\n" + "Ranking:"
)


def _ranking(row):
    return " > ".join(c["id"] for c in sorted(row["ctxs"], key=lambda c: c["label"], reverse=True))


def _helmet_rows(rows, demos):
    """HELMET's load_msmarco_rerank up to the prompt fields: (row, demo text) for every evaluated row."""
    random.seed(42)
    qids = sorted({r["qid"] for r in rows})
    keys = set(random.sample(qids, min(100, len(qids))))
    data = [r for r in rows if r["qid"] in keys]
    filtered = len(demos) > 2 * len(data)
    if filtered:
        demos = [d for d in demos if d["qid"] not in keys]
    out = []
    for row in data:
        template = (
            "[ID: {id}] Document (Title: {title}): {text}"
            if "title" in row["ctxs"][0]
            else "[ID: {id}] Document: {text}"
        )
        pool = demos if filtered else [d for d in demos if d["qid"] != row["qid"]]
        seed = abs(int(hashlib.sha256(row["qid"].encode("utf-8")).hexdigest(), 16) % 2**31)
        picked, seen = [], set()
        for i in np.random.default_rng(seed).permutation(len(pool)):
            if pool[i]["qid"] not in seen and len(picked) < 2:
                seen.add(pool[i]["qid"])
                picked.append(pool[i])
        demo_text = "".join(
            "\n\n".join(template.format(**c) for c in d["ctxs"])
            + f"\n\nQuery: {d['query']}\nRanking: {_ranking(d)}\n\n"
            for d in picked
        )
        context = "\n\n".join(template.format(**c) for c in row["ctxs"])
        out.append((row, {"demos": demo_text, "context": context, "question": row["query"]}, picked))
    return out


@pytest.fixture(scope="module")
def sources(helmet_mirror):
    paths = [TEST_FILE.format(k) for k in K.values()] + [DEMO_FILE]
    return read_archive(mirrored(ARCHIVE.url, helmet_mirror), paths)


@pytest.mark.parametrize("length", ["8k", "128k"])
def test_eval_equals_helmets_pipeline(helmet_archive_built, sources, tiny_tokenizer, length):
    helmet = _helmet_rows(sources[TEST_FILE.format(K[length])], sources[DEMO_FILE])
    eval_qids = {row["qid"] for row, _, _ in helmet[:40]}
    expected = [(row, fields) for row, fields, _ in helmet if row["qid"] in eval_qids]
    tok = Tokenizer.from_file(tiny_tokenizer)
    built = helmet_archive_built.splits[("msmarco", length)]["eval"]
    assert list(built["input"]) == [fit(PROMPT, fields, tok, LENGTHS[length] - 200) for _, fields in expected]
    assert list(built["output"]) == [_ranking(row) for row, _ in expected]
    assert list(built["answers"]) == [[_ranking(row)] for row, _ in expected]
    assert list(built["query_id"]) == [f"msmarco-{row['qid']}" for row, _ in expected]
    for meta, (row, _) in zip(built["metadata"], expected, strict=True):
        meta = json.loads(meta)
        assert meta["qid"] == row["qid"] and meta["helmet_name"] == "msmarco_rerank_psg"
        assert meta["qrels"] == {c["id"]: c["label"] for c in row["ctxs"]}
    assert set(built["answer_prefix"]) == {"\nRanking:"} and not any(built["use_chat_template"])


def test_dev_is_every_other_query_and_never_sees_eval_queries(helmet_archive_built, sources):
    for length in LENGTHS:
        splits = helmet_archive_built.splits[("msmarco", length)]
        rows = sources[TEST_FILE.format(K[length])]
        # 123 query ids: HELMET evaluates 100 of them; eval is the first 40 of its rows
        helmet = [row["qid"] for row, _, _ in _helmet_rows(rows, sources[DEMO_FILE])]
        assert len(helmet) == 100
        eval_qids = set(helmet[:40])
        assert [json.loads(m)["qid"] for m in splits["eval"]["metadata"]] == helmet[:40]
        dev = [json.loads(m) for m in splits["dev"]["metadata"]]
        assert [m["qid"] for m in dev] == [r["qid"] for r in rows if r["qid"] not in eval_qids]
        for meta in dev:
            assert len(meta["demo_qids"]) == 2 and not set(meta["demo_qids"]) & (eval_qids | {meta["qid"]})


# -- small files in the upstream layout, in a data_dir --------------------------------------------


def _rows(qids, k, titled=False, labels=(1, 3, 1, 0)):
    rows = []
    for q in qids:
        ctxs = []
        for j in range(k):
            ctx = {"id": f"{q}{j}", "text": f"text {q} {j}", "label": labels[j % len(labels)]}
            if titled:
                ctx = {"id": ctx["id"], "title": f"T{j}", "text": ctx["text"], "label": ctx["label"]}
            ctxs.append(ctx)
        rows.append({"qid": q, "query": f"query {q}", "ctxs": ctxs})
    return rows


def _write(tmp_path, name, rows):
    path = tmp_path / "data" / "msmarco" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _load(tmp_path, config="msmarco_8k"):
    return load_dataset(
        "helmet", config, data_dir=str(tmp_path), tokenizer="words", cache_dir=str(tmp_path / "c")
    )


def test_hand_checked_prompt_text_with_titles(tmp_path):
    qids = [str(100 + i) for i in range(45)]
    _write(tmp_path, "test_reranking_data_k50_dep3.jsonl", _rows(qids, 3, titled=True))
    _write(tmp_path, "test_reranking_data_k10_dep3.jsonl", _rows(qids, 2, titled=True))
    splits = _load(tmp_path)
    assert (len(splits["dev"]), len(splits["eval"])) == (5, 40)
    row = splits["eval"][0]
    pool = [q for q in qids if q != "100"]  # HELMET's pool is not filtered (45 <= 2 x 45): drop own query
    seed = abs(int(hashlib.sha256(b"100").hexdigest(), 16) % 2**31)
    first, second = (pool[i] for i in np.random.default_rng(seed).permutation(len(pool))[:2])

    def demo(q):
        return (
            f"[ID: {q}0] Document (Title: T0): text {q} 0\n\n[ID: {q}1] Document (Title: T1): text {q} 1\n\n"
            f"Query: query {q}\nRanking: {q}1 > {q}0\n\n"
        )

    assert row["input"] == (
        "You are provided with a list of documents, each indicated by their ID. Rank each document based on "
        "their relevance to the question in descending order from most relelvant to least relevant texts. "
        "Include all documents in the rankings. Write your answer using the unique IDs, with the following "
        "format:\nRanking: ID3 > ID1 > ID2\n\n"
        + demo(first)
        + demo(second)
        + "[ID: 1000] Document (Title: T0): text 100 0\n\n[ID: 1001] Document (Title: T1): text 100 1\n\n"
        "[ID: 1002] Document (Title: T2): text 100 2\n\nQuery: query 100\nRanking:"
    )
    assert row["output"] == "1001 > 1000 > 1002", "equal labels keep file order"
    assert json.loads(row["metadata"])["demo_qids"] == [first, second]


def test_without_titles_and_with_a_large_demo_pool(tmp_path):
    qids = [str(100 + i) for i in range(45)]
    _write(tmp_path, "test_reranking_data_k50_dep3.jsonl", _rows(qids, 2))
    # 120 demo rows > 2 x 45 test rows: HELMET drops every test query from the pool
    _write(tmp_path, "test_reranking_data_k10_dep3.jsonl", _rows(qids + [str(900 + i) for i in range(75)], 2))
    splits = _load(tmp_path)
    row = splits["eval"][3]
    assert (
        "[ID: 1030] Document: text 103 0\n\n[ID: 1031] Document: text 103 1\n\nQuery: query 103\nRanking:"
        in row["input"]
    )
    for split in ("dev", "eval"):
        for meta in splits[split]["metadata"]:
            assert all(q.startswith("9") for q in json.loads(meta)["demo_qids"])


def test_repeated_query_ids_split_by_query(tmp_path):
    qids = [str(500 + i) for i in range(20)]
    grouped = [r for q in qids for r in _rows([q], 2)]  # each query 3 times, rows of a query together
    tripled = [r for r in grouped for _ in range(3)]
    _write(tmp_path, "test_reranking_data_k50_dep3.jsonl", tripled)
    _write(tmp_path, "test_reranking_data_k130_dep3.jsonl", tripled)
    _write(tmp_path, "test_reranking_data_k10_dep3.jsonl", _rows(qids, 2))
    eval_qids = set(qids[:14])  # rows 0-39 hold the first 14 queries
    chosen = {}
    for config in ("msmarco_8k", "msmarco_16k"):
        splits = _load(tmp_path, config)
        ev = [json.loads(m)["qid"] for m in splits["eval"]["metadata"]]
        assert set(ev) == eval_qids and len(ev) == 42, "eval has every row of the first 40 rows' queries"
        dev = [json.loads(m) for m in splits["dev"]["metadata"]]
        assert sorted(m["qid"] for m in dev) == qids[14:], "dev: one row per other query"
        for meta in dev:
            assert chosen.setdefault(meta["qid"], meta["source_line"]) == meta["source_line"], "same variant"


def test_bad_rows_are_named(tmp_path):
    qids = [str(100 + i) for i in range(45)]
    path = _write(tmp_path, "test_reranking_data_k50_dep3.jsonl", _rows(qids, 2))
    _write(tmp_path, "test_reranking_data_k10_dep3.jsonl", _rows(qids, 2))
    lines = path.read_text().splitlines(keepends=True)
    good = lines[6]
    lines[6] = "{not json\n"
    path.write_text("".join(lines))
    with pytest.raises(
        DataFormatError, match=r"test_reranking_data_k50_dep3\.jsonl in .*, line 7: malformed JSON"
    ):
        _load(tmp_path)
    lines[6] = good.replace('"label": 3', '"label": "high"')
    path.write_text("".join(lines))
    with pytest.raises(DataFormatError, match=r"line 7, passage 1: 'label' must be an integer"):
        _load(tmp_path)
