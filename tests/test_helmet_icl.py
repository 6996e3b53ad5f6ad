"""HELMET many-shot ICL: TREC coarse/fine, NLU, BANKING77, CLINC150 from a loopback mirror.

The fixture sources are at full scale in rows (TREC 5452/500, NLU 25716 CSV records, BANKING77
10003/3080, CLINC150 15250/3100) and in the upstream file layouts (CogComp label files, the NLU CSV,
Parquet with ``ClassLabel`` columns). The reference below re-implements HELMET's ``load_icl`` and
``model_utils.tokenize`` from ``docs/helmet.md`` §3.4/§1.4 with ``random``, numpy and ``tokenizers``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import math
import random
import re

import numpy as np
import pyarrow.parquet as pq
import pytest
from tokenizers import Tokenizer

from longbench_suite import get_builder, load_dataset, prepare
from longbench_suite.api import download_manager
from longbench_suite.benchmarks.helmet import icl
from longbench_suite.source import mirrored
from tests.support.hand_made import declare_as_written
from tests.support.helmet_reference import helmet_fit
from tests.test_sampling import _balance_reference

USER = (
    'Use the provided mapping from the text to label to assign a label to the text. Only output "label: '
    '{{label}}" and nothing else. \n\n{context}\n\n{question}'
)
PROMPT = USER + "\n" + "label:"
TASKS = {task.name: task for task in icl.TASKS}


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("icl-cache"))


def _files(name, mirror, cache):
    builder = get_builder(f"helmet/{name}_8k", tokenizer="words", mirror=mirror, cache_dir=cache)
    return builder.resolver(download_manager(builder)).resolve(builder.config.task.sources("8k"))


@pytest.fixture(scope="module")
def partitions(helmet_http, cache):
    out = {}
    for name, task in TASKS.items():
        files = _files(name, helmet_http.url, cache)
        out[name] = {split: task.partition(split, files)[:2] for split in ("dev", "eval")}
    return out


@pytest.fixture(scope="module")
def built(helmet_http, cache):
    builders = [
        get_builder("helmet/trec_coarse_8k", tokenizer="words", mirror=helmet_http.url, cache_dir=cache)
    ]
    prepare(builders)
    return {b.config.name: b.as_dataset() for b in builders}


def _raw(mirror, url: str) -> bytes:
    with open(mirrored(url, mirror), "rb") as f:
        return f.read()


# -- sources, read independently ------------------------------------------------------------------


def _trec(mirror, url, granularity):
    rows = []
    for line in _raw(mirror, url).split(b"\n"):
        label, _, text = line.replace(b"\xf0", b" ").strip().decode().partition(" ")
        if label:
            rows.append((text, label.split(":")[0] if granularity == "coarse" else label))
    return rows


def _nlu(mirror):
    reader = csv.reader(io.StringIO(_raw(mirror, icl.NLU_CSV.url).decode()), delimiter=";", quotechar='"')
    next(reader)
    rows = []
    for r in reader:
        if r[5] != "null":
            rows.append((re.sub(r"\[(.+?)\s+\:+\s(.+?)\]", r"\2", r[5]), f"{r[2]}_{r[3]}"))
    return rows


def _parquet(mirror, url, column):
    table = pq.read_table(mirrored(url, mirror)).to_pylist()
    return [(r["text"], r[column]) for r in table]


def test_trec_and_nlu_label_ids_follow_the_loading_scripts(helmet_mirror):
    # Hand-checked ids of CogComp/trec's ClassLabel orders (after datasets PR #4801) and of NLU's.
    assert icl.TREC_COARSE.index("ABBR") == 0 and icl.TREC_COARSE.index("NUM") == 5
    assert icl.TREC_FINE.index("ABBR:abb") == 0 and icl.TREC_FINE.index("DESC:def") == 24
    assert icl.TREC_FINE.index("HUM:desc") == 31 and icl.TREC_FINE.index("NUM:weight") == 49
    assert len(set(icl.TREC_FINE)) == 50 and len(set(icl.NLU_LABELS)) == 68
    assert icl.NLU_LABELS.index("alarm_query") == 0 and icl.NLU_LABELS.index("weather_query") == 67
    ref = type("Ref", (), {})()
    ref.label = "train_5500.label"
    ref.open = lambda: io.BytesIO(
        b"DESC:manner How did serfdom develop ?\nNUM:weight What is the sister\xf0city ?\n"
    )
    rows = icl.read_trec_file(ref, "train", "fine")
    assert [(r.text, r.label) for r in rows] == [
        ("How did serfdom develop ?", 26),
        ("What is the sister city ?", 49),
    ]
    assert [r.label for r in icl.read_trec_file(ref, "train", "coarse")] == [2, 5]


def test_split_sizes_and_no_text_in_both_splits(partitions):
    expected = {"trec_coarse": 1000, "trec_fine": 1000, "banking77": 2580, "clinc150": 2600}
    for name, splits in partitions.items():
        (dev, dev_pool), (evaluated, _) = splits["dev"], splits["eval"]
        assert len(evaluated) == 500, name
        if name in expected:
            assert len(dev) == expected[name], name
        eval_texts = {r.text for r in evaluated}
        assert not eval_texts & {r.text for r in dev}, name
        # dev demonstrations never repeat an eval or a dev question
        assert not (eval_texts | {r.text for r in dev}) & {r.text for r in dev_pool}, name


def test_nlu_dev_is_the_rest_of_the_ten_percent_split(partitions, helmet_mirror):
    rows = _nlu(helmet_mirror)
    n_test = math.ceil(0.1 * len(rows))
    (dev, _), (evaluated, _) = partitions["nlu"]["dev"], partitions["nlu"]["eval"]
    chosen = {r.index for r in evaluated}
    eval_texts = {r.text for r in evaluated}
    perm = np.random.default_rng(42).permutation(len(rows))
    rest = [i for i in perm[:n_test] if i not in chosen and rows[i][0] not in eval_texts]
    assert [r.index for r in dev] == rest
    assert any(rows[i][0] in eval_texts for i in perm[:n_test] if i not in chosen), "fixture lacks duplicates"


def test_trec_dev_rule(partitions, helmet_mirror):
    train = _trec(helmet_mirror, icl.TREC_TRAIN.url, "coarse")
    test_texts = {t for t, _ in _trec(helmet_mirror, icl.TREC_TEST.url, "coarse")}
    order = np.random.default_rng(42).permutation(len(train))
    expected, seen = [], set()
    for i in order:
        if train[i][0] in test_texts or train[i][0] in seen:
            continue
        seen.add(train[i][0])
        expected.append(int(i))
    expected = expected[: min(1000, len(expected) // 2)]  # never more than half the distinct questions
    dev, pool = partitions["trec_coarse"]["dev"]
    assert [r.index for r in dev] == expected[:1000]
    assert [r.index for r in partitions["trec_fine"]["dev"][0]] == expected[:1000]
    banned = test_texts | {train[i][0] for i in expected[:1000]}
    rest = [i for i in range(len(train)) if i not in set(expected[:1000]) and train[i][0] not in banned]
    assert [r.index for r in pool] == rest
    # the fixture's train row 11 repeats a test question: neither a dev row nor a dev demonstration
    assert 11 not in set(expected) and 11 not in {r.index for r in pool}


# -- HELMET's load_icl, re-implemented ---------------------------------------------------------------


def _helmet_icl(train, test, shots, num_labels, tok, budget):
    """load_icl + model_utils.tokenize; rows are (text, label id)."""
    if len(test) > 500:
        test = [test[i] for i in np.random.default_rng(42).permutation(len(test))]
        test = _balance_reference(test, 500, 42)
    prompts, answers = [], []
    for text, label in test:
        seed = (int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) + 42) % 2**31
        demos = _balance_reference(train, shots, seed)
        mapping = list(range(num_labels))
        random.seed(seed)
        random.shuffle(mapping)
        fields = {
            "context": "\n\n".join(f"{t}\nlabel: {mapping[lab]}" for t, lab in demos),
            "question": text,
        }
        prompts.append(helmet_fit(tok, PROMPT, fields, budget))
        answers.append(str(mapping[label]))
    return prompts, answers


def _assert_same_prompts(got, expected, tok, budget):
    for g, e in zip(got, expected, strict=True):
        if len(tok.encode(e).ids) <= budget:
            assert g == e  # HELMET's single cut fits: identical
        else:
            assert e.startswith(g[: g.rindex("\n\n")])  # a merge at the cut: we cut one token more


@pytest.mark.slow
def test_trec_coarse_eval_equals_helmets_load_icl(helmet_http, helmet_mirror, tiny_tokenizer, tmp_path):
    budget = 3000
    rows = load_dataset(
        "helmet",
        "trec_coarse_8k",
        split="eval",
        streaming=True,
        mirror=helmet_http.url,
        tokenizer=tiny_tokenizer,
        max_input_tokens=budget,
        cache_dir=str(tmp_path),
    )
    rows = list(itertools.islice(rows, 40))
    coarse = {name: i for i, name in enumerate(icl.TREC_COARSE)}
    train = [(t, coarse[lab]) for t, lab in _trec(helmet_mirror, icl.TREC_TRAIN.url, "coarse")]
    test = [(t, coarse[lab]) for t, lab in _trec(helmet_mirror, icl.TREC_TEST.url, "coarse")][:40]
    tok = Tokenizer.from_file(tiny_tokenizer)
    prompts, answers = _helmet_icl(train, test, 400, 6, tok, budget)
    assert [r["question"] for r in rows] == [t for t, _ in test]
    assert [r["answers"] for r in rows] == [[a] for a in answers]
    _assert_same_prompts([r["input"] for r in rows], prompts, tok, budget)
    assert all(len(tok.encode(r["input"]).ids) <= budget for r in rows)


@pytest.mark.slow
def test_banking77_eval_selection_and_prompts_equal_helmets(
    partitions, helmet_http, helmet_mirror, tiny_tokenizer, tmp_path
):
    files = TASKS["banking77"].files
    train = _parquet(helmet_mirror, files["train"].url, "label")
    test = _parquet(helmet_mirror, files["test"].url, "label")
    tok = Tokenizer.from_file(tiny_tokenizer)
    rows = load_dataset(
        "helmet",
        "banking77_16k",
        split="eval",
        streaming=True,
        mirror=helmet_http.url,  # Parquet read by HTTP range requests
        tokenizer=tiny_tokenizer,
        max_input_tokens=5000,
        cache_dir=str(tmp_path),
    )
    rows = list(itertools.islice(rows, 12))
    shuffled = [test[i] for i in np.random.default_rng(42).permutation(len(test))]
    selected = _balance_reference(shuffled, 500, 42)
    evaluated, _ = partitions["banking77"]["eval"]
    assert [(r.text, r.label) for r in evaluated] == selected
    assert [r["question"] for r in rows] == [t for t, _ in selected[:12]]
    prompts, answers = _helmet_icl(train, selected[:12], 720, 77, tok, 5000)
    assert [r["output"] for r in rows] == answers
    _assert_same_prompts([r["input"] for r in rows], prompts, tok, 5000)


def test_eval_labels_are_balanced(partitions):
    for name in ("banking77", "clinc150", "nlu"):
        evaluated, _ = partitions[name]["eval"]
        labels = [r.label for r in evaluated]
        num = len(set(labels))
        first_round = labels[:num]
        assert len(set(first_round)) == num, name  # one row per label in each round
        counts = [labels.count(label) for label in set(labels)]
        assert max(counts) - min(counts) <= 1, name


def _demo_labels(row) -> list[int]:
    """Original label ids of a row's demonstrations, read back through its label permutation."""
    meta = json.loads(row["metadata"])
    inverse = {str(shown): original for original, shown in enumerate(meta["label_permutation"])}
    body = row["input"][row["input"].index("\n\n") + 2 : row["input"].rindex("\n\n" + row["question"])]
    return [inverse[line.split("label: ")[1]] for line in body.split("\n") if line.startswith("label: ")]


def test_demonstrations_are_balanced_and_per_instance_deterministic(built, helmet_http):
    splits = built["trec_coarse_8k"]
    for split in ("dev", "eval"):
        for row in splits[split].select(range(20)):
            labels = _demo_labels(row)
            assert len(labels) == 400
            for start in range(0, 396, 6):  # rounds of one demonstration per label
                assert sorted(labels[start : start + 6]) == list(range(6))
            meta = json.loads(row["metadata"])
            assert sorted(meta["label_permutation"]) == list(range(6))
            assert row["output"] == str(meta["label_permutation"][meta["original_label"]])
    streamed = load_dataset(
        "helmet", "trec_coarse_8k", split="eval", streaming=True, tokenizer="words", mirror=helmet_http.url
    )
    assert list(itertools.islice(streamed, 3)) == splits["eval"].select(range(3)).to_list()


def test_the_same_text_gets_the_same_demonstrations(helmet_http, tmp_path):
    rows = load_dataset(
        "helmet",
        "nlu_8k",
        split="eval",
        streaming=True,
        tokenizer="words",
        mirror=helmet_http.url,
        cache_dir=str(tmp_path),
    )
    by_text = {}
    for row in rows:
        by_text.setdefault(row["question"], set()).add(row["input"])
    repeated = [q for q, inputs in by_text.items() if q == "wake me up at five am"]
    assert repeated and all(len(by_text[q]) == 1 for q in by_text)


def test_dev_rows_and_prompt_text(built):
    dev = built["trec_coarse_8k"]["dev"]
    row = dev[0]
    assert row["query_id"].startswith("trec_coarse-train-")
    assert row["input"].startswith(
        'Use the provided mapping from the text to label to assign a label to the text. Only output "label: '
        '{label}" and nothing else. \n\n'
    )
    assert row["input"].endswith(f"\n\n{row['question']}\nlabel:")
    assert row["answer_prefix"] == "\nlabel:" and row["use_chat_template"] is False
    assert row["max_new_tokens"] == 20 and row["max_length"] == 8192
    assert json.loads(row["metadata"])["helmet_name"] == "icl_trec_coarse_400shot_balance"
    eval_ids = set(built["trec_coarse_8k"]["eval"]["query_id"])
    assert not eval_ids & set(dev["query_id"])


def test_hand_checked_prompt_from_a_tiny_data_dir(tmp_path):
    data = tmp_path / "trec"
    data.mkdir()
    (data / "train_5500.label").write_bytes(b"DESC:def What is a ?\n")
    (data / "TREC_10.label").write_bytes(b"LOC:city Where is c ?\n")
    declare_as_written(data, "helmet/trec_coarse_8k")  # not upstream's 5452 and 500 questions
    (row,) = load_dataset(
        "helmet", "trec_coarse_8k", split="eval", streaming=True, data_dir=str(data), tokenizer="words"
    )
    seed = (int(hashlib.sha256(b"Where is c ?").hexdigest(), 16) + 42) % 2**31
    mapping = list(range(6))
    random.Random(seed).shuffle(mapping)
    # One training question (DESC = 2) fills all 400 shots; the test question is LOC = 4.
    expected = (
        'Use the provided mapping from the text to label to assign a label to the text. Only output "label: '
        '{label}" and nothing else. \n\n'
        + "\n\n".join([f"What is a ?\nlabel: {mapping[2]}"] * 400)
        + "\n\nWhere is c ?\nlabel:"
    )
    assert row["input"] == expected
    assert row["output"] == str(mapping[4]) and row["answers"] == [str(mapping[4])]
    assert json.loads(row["metadata"])["original_label"] == 4


def test_every_input_fits_its_budget(built):
    for split in ("dev", "eval"):
        assert max(len(text.split()) for text in built["trec_coarse_8k"][split]["input"]) <= 8192 - 20
