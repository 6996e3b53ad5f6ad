"""HELMET's citation, re-ranking and recall tasks together: configs, sizes, splits, budgets, archive reads.

The session fixture ``helmet_archive_built`` prepares every config of these tasks in one call
from the loopback mirror of a full-scale synthetic ``data.tar.gz`` (HELMET's row counts, tiny passages,
and in every file one ``eval`` and one ``dev`` row long enough to overflow every budget).
"""

from __future__ import annotations

import os
import tarfile

import pytest

from longbench_suite import get_builder, list_configs, load_dataset
from longbench_suite.api import prefetch
from longbench_suite.benchmarks.helmet.common import ARCHIVE
from longbench_suite.fit.tokenizers import load_tokenizer
from longbench_suite.source import archives, mirrored
from tests.conftest import HELMET_ARCHIVE_TASKS as TASKS
from tests.conftest import HELMET_LENGTHS as LENGTHS
from tests.specs import helmet as helmet_spec

SIZES = {  # (dev, eval), from the seed (docs/helmet-derived.md)
    "alce_asqa": (848, 100),
    "alce_qampari": (900, 100),
    "msmarco": (83, 40),
    "json_kv": (500, 100),
    "ruler_mk_needle": (60, 40),
    "ruler_mk_uuid": (60, 40),
    "ruler_mv": (60, 40),
}
GENERATION = {  # HELMET's generation_max_length (configs/cite*.yaml, rerank*.yaml, recall*.yaml)
    "alce_asqa": 300,
    "alce_qampari": 300,
    "msmarco": 200,
    "json_kv": 100,
    "ruler_mk_needle": 50,
    "ruler_mk_uuid": 100,
    "ruler_mv": 50,
}


def _members_for(length: str) -> set[str]:
    """The archive members one length of these tasks reads (docs/helmet.md §1.2)."""
    row = helmet_spec.LENGTHS[length]
    k, n, tokens = row.msmarco_passages, row.json_kv_pairs, row.tokens
    return {
        "data/alce/asqa_eval_gtr_top2000.json",
        "data/alce/qampari_eval_gtr_top2000.json",
        f"data/msmarco/test_reranking_data_k{k}_dep3.jsonl",
        "data/msmarco/test_reranking_data_k10_dep3.jsonl",
        f"data/json_kv/test_k{n}_dep6.jsonl",
        f"data/ruler/niah_multikey_2/validation_{tokens}.jsonl",
        f"data/ruler/niah_multikey_3/validation_{tokens}.jsonl",
        f"data/ruler/niah_multivalue/validation_{tokens}.jsonl",
    }


def _extracted(cache: str) -> set[str]:
    root = os.path.join(cache, "longbench_suite", "sources", "members")
    found = set()
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.relpath(os.path.join(directory, name), root)
            if os.sep not in path:  # a marker beside the archive's folder, not a member
                continue
            found.add(path.split(os.sep, 1)[1].replace(os.sep, "/"))  # drop the archive key
    return found


def test_all_configs_are_listed():
    listed = set(list_configs("helmet"))
    assert {f"helmet/{t}_{length}" for t in TASKS for length in LENGTHS} <= listed


@pytest.mark.slow
def test_split_sizes_match_the_seed(helmet_archive_built):
    splits = helmet_archive_built.splits
    for (task, length), built in splits.items():
        assert (len(built["dev"]), len(built["eval"])) == SIZES[task], (task, length)


def test_no_query_in_both_splits(helmet_archive_built):
    splits = helmet_archive_built.splits
    for task in TASKS:
        dev = {q for length in LENGTHS for q in splits[(task, length)]["dev"]["query_id"]}
        ev = {q for length in LENGTHS for q in splits[(task, length)]["eval"]["query_id"]}
        assert dev and ev and not dev & ev, task
        for length in LENGTHS:
            built = splits[(task, length)]
            assert not set(built["dev"]["question"]) & set(built["eval"]["question"]), (task, length)
    for task in ("alce_asqa", "alce_qampari", "msmarco"):  # one question set at every length
        dev = {q for length in LENGTHS for q in splits[(task, length)]["dev"]["question"]}
        ev = {q for length in LENGTHS for q in splits[(task, length)]["eval"]["question"]}
        assert not dev & ev, task


def test_every_input_fits_its_budget_and_long_rows_were_cut(helmet_archive_built, tiny_tokenizer):
    counter = load_tokenizer(tiny_tokenizer)
    for (task, length), built in helmet_archive_built.splits.items():
        budget = LENGTHS[length] - GENERATION[task]
        counts = []
        for split in ("dev", "eval"):
            rows = built[split]
            assert set(rows["max_length"]) == {LENGTHS[length]}
            assert set(rows["max_new_tokens"]) == {GENERATION[task]}
            # A byte-level BPE token covers at least one byte: short inputs cannot exceed the budget.
            counts += counter.count_batch([t for t in rows["input"] if len(t.encode("utf-8")) + 2 > budget])
        assert counts and max(counts) <= budget, (task, length)
        assert max(counts) > budget - 400, f"{task} {length}: no row was cut to the budget"


def test_archive_is_downloaded_and_read_once_for_all_its_configs(helmet_archive_built, helmet_mirror):
    assert helmet_archive_built.served == os.path.getsize(mirrored(ARCHIVE.url, helmet_mirror))
    assert helmet_archive_built.tar_reads == 1
    needed = set().union(*(_members_for(length) for length in LENGTHS))
    assert _extracted(helmet_archive_built.cache) == needed, "extracted members differ from those needed"


def test_one_length_extracts_only_its_members_in_one_pass(
    helmet_mirror, tiny_tokenizer, tmp_path, monkeypatch
):
    opened = []
    real_open = tarfile.open
    monkeypatch.setattr(archives.tarfile, "open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    cache = str(tmp_path / "cache")
    prefetch(
        get_builder(f"{t}_16k", tokenizer=tiny_tokenizer, mirror=helmet_mirror, cache_dir=cache)
        for t in TASKS
    )
    assert len(opened) == 1
    assert _extracted(cache) == _members_for("16k")


@pytest.mark.parametrize("config, over_http", [("alce_qampari_8k", True), ("ruler_mv_16k", False)])
def test_streaming_rows_equal_prepared_rows(
    helmet_archive_built, helmet_http, helmet_mirror, tiny_tokenizer, tmp_path, config, over_http
):
    task, length = config.rsplit("_", 1)
    for split in ("dev", "eval"):
        streamed = load_dataset(
            "helmet",
            config,
            split=split,
            streaming=True,
            mirror=helmet_http.url if over_http else helmet_mirror,
            tokenizer=tiny_tokenizer,
            cache_dir=str(tmp_path / "s"),
        )
        assert list(streamed) == helmet_archive_built.splits[(task, length)][split].to_list(), (config, split)
    assert not (tmp_path / "s" / "longbench_suite_helmet").exists(), "streaming wrote Arrow files"


@pytest.mark.parametrize("task", ["ruler_mk_needle", "ruler_mk_uuid", "ruler_mv"])
def test_ruler_leakage_is_the_question_answer_pair_not_the_drawn_key(task):
    # Each length's RULER file draws its keys anew: a key drawn again, with other values, is another item.
    from longbench_suite import registry

    ruler = registry.benchmark("helmet").lookup(f"{task}_8k")[0]
    json_kv = registry.benchmark("helmet").lookup("json_kv_8k")[0]
    first = {"query_id": f"{task}-aaa", "question": "museum-pilot"}
    again = {"query_id": f"{task}-bbb", "question": "museum-pilot"}
    assert set(ruler.leakage_keys(first).values()).isdisjoint(ruler.leakage_keys(again).values())
    same_pair = {"query_id": first["query_id"], "question": "another-key"}
    assert set(ruler.leakage_keys(first).values()) & set(ruler.leakage_keys(same_pair).values())
    assert json_kv.leakage_keys(first)["question"] == json_kv.leakage_keys(again)["question"]
