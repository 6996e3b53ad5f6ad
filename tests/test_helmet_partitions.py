"""HELMET partitions: each task's one leakage rule, applied by the builder and verified by ``check``;
``dev`` of the summarization tasks without HELMET's archive; InfiniteBench Sum's overlap with HELMET.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil

import pytest

from longbench_suite import load_dataset
from longbench_suite.benchmarks.helmet import infbench, rag, recall
from longbench_suite.benchmarks.helmet.common import ARCHIVE
from longbench_suite.benchmarks.helmet.shuffled import RowKey
from longbench_suite.check import LeakageKeys, check_sizes
from longbench_suite.errors import SourceError, SplitUnavailableError
from longbench_suite.partition import sampling
from longbench_suite.partition.leakage import DEFAULT_RULE, LeakageRule
from longbench_suite.source import mirrored


def _task(module, name):
    return next(t for t in module.TASKS if t.name == name)


def test_a_rule_drops_a_candidate_sharing_any_declared_column():
    evaluated = [{"query_id": "q1", "question": "Who wrote 'Emma'?"}]
    candidates = [
        {"query_id": "q1", "question": "other"},
        {"query_id": "q2", "question": "who wrote emma"},
        {"query_id": "q3", "question": "who wrote persuasion"},
        {"query_id": "q4", "question": ""},
    ]
    kept, dropped = DEFAULT_RULE.split(evaluated, candidates, lambda c: c)
    assert [c["query_id"] for c in kept] == ["q3", "q4"]
    assert dropped == [
        {"query_id": "q1", "question": "other"},
        {"query_id": "q2", "question": "who wrote emma"},
    ]
    pair_only = LeakageRule(("query_id",))
    kept, dropped = pair_only.split(evaluated, candidates, lambda c: c)
    assert [c["query_id"] for c in kept] == ["q2", "q3", "q4"] and dropped == [{"query_id": "q1"}]


def test_every_helmet_task_declares_the_rule_check_reads():
    from longbench_suite import registry

    rules = {t.name: t.leakage.columns for t in registry.benchmark("helmet").tasks}
    assert rules["ruler_mk_needle"] == rules["ruler_mv"] == ("query_id",)
    assert rules["narrativeqa"] == rules["infbench_sum"] == rules["multi_lexsum"] == ("query_id",)
    assert rules["popqa"] == rules["banking77"] == rules["json_kv"] == ("query_id", "question")
    ruler = _task(recall, "ruler_mk_needle")
    row = {"query_id": "x", "question": "the key"}
    assert ruler.leakage_keys(row) == {"query_id": "x"}
    assert "no dev row shares a query_id" in ruler.info("8k")["dev leakage rule"]


def _shuffled_keys(n: int, repeat_from: int, repeat_to: int) -> list[RowKey]:
    """Rows with distinct pairs; the row ``repeat_to`` asks the question of row ``repeat_from``."""
    keys = [RowKey(f"id-{i}", f"key {i}") for i in range(n)]
    keys[repeat_to] = RowKey(f"id-{repeat_to}", keys[repeat_from].question)
    return keys


def test_ruler_keeps_a_dev_row_that_shares_only_a_needle_key_json_kv_drops_it():
    ruler = _task(recall, "ruler_mk_needle")
    head = sampling.hf_shuffle_order(100, sampling.HELMET_SEED)
    in_eval, in_dev = head[0], head[ruler.eval_size]  # an eval row, and a row dev would keep
    evaluated, dev, dropped = ruler.partition(_shuffled_keys(100, in_eval, in_dev))
    assert len(evaluated) == 40 and len(dev) == 60 and dropped == [] and in_dev in dev

    json_kv = _task(recall, "json_kv")
    head = sampling.hf_shuffle_order(600, sampling.HELMET_SEED)
    in_eval, in_dev = head[0], head[json_kv.eval_size]
    evaluated, dev, dropped = json_kv.partition(_shuffled_keys(600, in_eval, in_dev))
    assert len(dev) == 499 and in_dev not in dev
    assert dropped == [{"query_id": f"id-{in_dev}", "question": f"key {in_eval}"}]


def test_popqa_keeps_another_id_asking_an_eval_question_out_of_dev():
    popqa = _task(rag, "popqa")
    records = [
        rag.KiltRecord(line=i * 6 + d, key=i, depth=d / 5, popular=False, question=f"question {i}")
        for i in range(150)
        for d in range(6)
    ]
    eval_keys, chosen, _ = popqa.partition(records)
    asked = next(iter(sorted(eval_keys)))
    other = next(k for k in range(150) if k not in eval_keys)
    records = [
        rag.KiltRecord(
            r.line, r.key, r.depth, r.popular, f"Question {asked}?" if r.key == other else r.question
        )
        for r in records
    ]
    eval_keys, chosen, dropped = popqa.partition(records)
    dev_keys = {records[line].key for line, split in chosen.items() if split == "dev"}
    assert other not in dev_keys and len(dev_keys) == 150 - 100 - 1
    assert dropped == [{"query_id": f"popqa-{other}", "question": f"question {asked}"}]


def test_check_expects_the_spec_minus_the_reported_drops():
    assert (
        check_sizes("helmet/banking77_8k", {"dev": 2580, "eval": 500}, {"dev": 2576, "eval": 500}, {"dev": 4})
        == []
    )
    found = [str(v) for v in check_sizes("b/c", {"dev": 2580}, {"dev": 2580}, {"dev": 4})]
    assert found == ["[sizes] b/c dev: 2580 rows; the spec fixes 2580 − 4 dropped = 2576"]
    keys = LeakageKeys()
    keys.add({"query_id": "q1", "question": "who"}, "eval", "nq_8k")
    assert keys.in_eval({"query_id": "q9", "question": "who"}, "nq_8k")
    assert not keys.in_eval({"query_id": "q9", "question": "who"}, "nq_32k")
    assert not keys.in_eval({"query_id": "q9", "question": "what"}, "nq_8k")


# -- the summarization tasks' dev without data.tar.gz ---------------------------------------------


@pytest.fixture(scope="module")
def mirror_without_archive(helmet_mirror, tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("no-archive"))
    shutil.copytree(helmet_mirror, root, dirs_exist_ok=True)
    os.remove(mirrored(ARCHIVE.url, root))
    return root


@pytest.mark.slow
@pytest.mark.parametrize("task", ["infbench_sum", "multi_lexsum"])
def test_dev_streams_without_the_archive_and_eval_names_it(
    task, mirror_without_archive, llama2_tokenizer, tmp_path
):
    options = dict(
        streaming=True,
        mirror=mirror_without_archive,
        tokenizer="words",
        pretruncation_tokenizer=llama2_tokenizer,
        cache_dir=str(tmp_path),
    )
    row = next(iter(load_dataset("helmet", f"{task}_8k", split="dev", **options)))
    assert json.loads(row["metadata"])["keypoints"] == []
    with pytest.raises(SourceError, match=r"data\.tar\.gz is not in the mirror"):
        next(iter(load_dataset("helmet", f"{task}_8k", split="eval", **options)))
    # prepared too: the build keeps dev and says why it has no eval
    options["streaming"] = False
    prepared = load_dataset("helmet", f"{task}_8k", split="dev", **options)
    assert prepared[0] == row
    with pytest.raises(
        SplitUnavailableError,
        match=rf"helmet/{task}_8k has no 'eval' split in this build: eval also reads .*data\.tar\.gz"
        r".*is not in the mirror.*'dev' does not need them",
    ):
        load_dataset("helmet", f"{task}_8k", split="eval", **options)


# -- InfiniteBench Sum: HELMET's rows 51-100 are the first 50 dev rows ----------------------------


def test_infbench_sum_flags_the_dev_rows_helmet_evaluates(helmet_mirror, llama2_tokenizer, tmp_path):
    task = _task(infbench, "infbench_sum")
    assert "other 50 are the first 50 dev rows" in task.info("8k")["overlap with HELMET"]
    assert "overlap with HELMET" not in _task(infbench, "infbench_qa").info("8k")
    options = dict(
        mirror=helmet_mirror,
        tokenizer="words",
        pretruncation_tokenizer=llama2_tokenizer,
        cache_dir=str(tmp_path),
    )
    dev = load_dataset("helmet", "infbench_sum_8k", split="dev", streaming=True, **options)
    flags = [json.loads(m)["in_helmet_eval"] for m in (r["metadata"] for r in itertools.islice(dev, 53))]
    # The sample file holds 103 books, all long enough: dev is HELMET's order from position 50.
    assert flags == [True] * 50 + [False] * 3
    kept = dev.filter(lambda m: not json.loads(m)["in_helmet_eval"], input_columns="metadata")
    assert len(list(kept)) == 3
