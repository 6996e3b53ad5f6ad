"""HELMET recall tasks: JSON KV and RULER MK needle / MK UUID / MV (``docs/helmet.md`` §3.9-§3.10).

Parity: the built ``eval`` rows equal HELMET's ``load_json_kv`` / ``load_ruler`` followed by
``model_utils.tokenize``, re-implemented in ``tests/support/helmet_reference.py``. The hand-checked
prompts below are typed from the spec.
"""

from __future__ import annotations

import json

import pytest
from tokenizers import Tokenizer

from longbench_suite import load_dataset
from longbench_suite.benchmarks.helmet.common import ARCHIVE
from longbench_suite.errors import DataFormatError
from longbench_suite.source import mirrored
from tests.conftest import HELMET_LENGTHS as LENGTHS
from tests.specs import helmet as helmet_spec
from tests.support.helmet_reference import fit, read_archive, shuffled

KV = {length: row.json_kv_pairs for length, row in helmet_spec.LENGTHS.items()}
RULER_DIRS = {
    "ruler_mk_needle": "niah_multikey_2",
    "ruler_mk_uuid": "niah_multikey_3",
    "ruler_mv": "niah_multivalue",
}
RULER_GENERATION = {"ruler_mk_needle": 50, "ruler_mk_uuid": 100, "ruler_mv": 50}
JSON_KV_PROMPT = (
    "{context}\n\nExtract the value corresponding to the specified key in the JSON object below.\n\n{demos}"
    "Key: {question}" + "\n" + "Corresponding value:"
)
MK_PROMPT = (
    "A special magic {type_needle_v} is hidden within the following text. Make sure to memorize it. I will "
    "quiz you about the {type_needle_v} afterwards.\n{context}\nWhat is the special magic {type_needle_v} "
    "for {query} mentioned in the provided text?"
    + "\n"
    + "The special magic {type_needle_v} for {query} mentioned in the provided text is"
)
MV_PROMPT = (
    "Some special magic {type_needle_v} are hidden within the following text. Make sure to memorize it. I "
    "will quiz you about the {type_needle_v} afterwards.\n{context}\nWhat are all the special magic "
    "{type_needle_v} for {query} mentioned in the provided text?"
    + "\n"
    + "The special magic {type_needle_v} for {query} mentioned in the provided text are"
)


def _kv_file(length):
    return f"data/json_kv/test_k{KV[length]}_dep6.jsonl"


def _ruler_file(task, length):
    return f"data/ruler/{RULER_DIRS[task]}/validation_{LENGTHS[length]}.jsonl"


@pytest.fixture(scope="module")
def sources(helmet_mirror):
    paths = [_kv_file(length) for length in LENGTHS]
    paths += [_ruler_file(task, length) for task in RULER_DIRS for length in LENGTHS]
    return read_archive(mirrored(ARCHIVE.url, helmet_mirror), paths)


def _gold(row):
    gold = row["answer"] if "answer" in row else row["outputs"]
    return [gold] if isinstance(gold, str) else gold


@pytest.mark.parametrize("length", ["8k", "128k"])
def test_json_kv_eval_equals_helmets_pipeline(helmet_archive_built, sources, tiny_tokenizer, length):
    rows = sources[_kv_file(length)]
    tok = Tokenizer.from_file(tiny_tokenizer)
    expected = []
    for i in shuffled(len(rows))[:100]:
        row = rows[i]
        demos = "\n\n".join(
            "Key: {key}\nCorresponding value:{value}".format(key=k, value=" " + v)
            for k, v in row["demos"][:2]
        )
        fields = {"context": row["context"], "demos": demos + "\n\n", "question": row["question"]}
        expected.append((fit(JSON_KV_PROMPT, fields, tok, LENGTHS[length] - 100), row))
    built = helmet_archive_built.splits[("json_kv", length)]["eval"]
    assert list(built["input"]) == [prompt for prompt, _ in expected]
    assert list(built["answers"]) == [_gold(row) for _, row in expected]
    assert list(built["output"]) == [_gold(row)[0] for _, row in expected]
    assert list(built["depth"]) == [row["depth"] for _, row in expected]
    assert set(built["answer_prefix"]) == {"\nCorresponding value:"} and not any(built["use_chat_template"])


@pytest.mark.parametrize(
    "task, length",
    [("ruler_mk_needle", "8k"), ("ruler_mk_uuid", "32k"), ("ruler_mv", "128k"), ("ruler_mv", "16k")],
)
def test_ruler_eval_equals_helmets_pipeline(helmet_archive_built, sources, tiny_tokenizer, task, length):
    rows = sources[_ruler_file(task, length)]
    tok = Tokenizer.from_file(tiny_tokenizer)
    template = MV_PROMPT if task == "ruler_mv" else MK_PROMPT
    budget = LENGTHS[length] - RULER_GENERATION[task]
    helmet_order = shuffled(len(rows))[:100]  # HELMET evaluates these 100; eval is their first 40
    expected = [rows[i] for i in helmet_order[:40]]
    built = helmet_archive_built.splits[(task, length)]
    assert list(built["eval"]["input"]) == [fit(template, row, tok, budget) for row in expected]
    assert list(built["eval"]["answers"]) == [_gold(row) for row in expected]
    assert list(built["eval"]["output"]) == [", ".join(_gold(row)) for row in expected]
    assert list(built["eval"]["question"]) == [row["query"] for row in expected]
    rest = sorted(set(range(len(rows))) - set(helmet_order[:40]))
    assert list(built["dev"]["question"]) == [rows[i]["query"] for i in rest], (
        "dev is every other row, in file order"
    )


def test_ruler_gold_values_occur_verbatim_in_context(helmet_archive_built, sources):
    for task in RULER_DIRS:
        for length in LENGTHS:
            for row in sources[_ruler_file(task, length)]:
                assert all(value in row["context"] for value in _gold(row)), (task, length, row["index"])
            for split in ("dev", "eval"):
                for built in helmet_archive_built.splits[(task, length)][split]:
                    assert isinstance(built["answers"], list) and built["answers"]
                    assert all(value in built["input"] for value in built["answers"]), (task, length)
    mv = helmet_archive_built.splits[("ruler_mv", "8k")]["eval"][0]
    assert len(mv["answers"]) == 4 and mv["output"] == ", ".join(mv["answers"])


# -- hand-checked rows, both answer forms, bad input ------------------------------------------------


def _write_jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _kv_rows(n, answer_form):
    rows = []
    for i in range(n):
        value = f"v{i}"
        rows.append(
            {
                "context": json.dumps({f"k{i}": value, "other": "x"}),
                "demos": [["dk1", "dv1"], ["dk2", "dv2"], ["dk3", "dv3"]],
                "question": f"k{i}",
                "answer": [value] if answer_form == "list" else value,
                "depth": 0.0,
                "num_kvs": 2,
            }
        )
    return rows


@pytest.mark.parametrize("answer_form", ["string", "list"])
def test_json_kv_hand_checked_prompt_and_both_answer_forms(tmp_path, answer_form):
    _write_jsonl(tmp_path / "data" / "json_kv" / "test_k105_dep6.jsonl", _kv_rows(103, answer_form))
    splits = load_dataset(
        "helmet", "json_kv_8k", data_dir=str(tmp_path), tokenizer="words", cache_dir=str(tmp_path / "c")
    )
    assert (len(splits["dev"]), len(splits["eval"])) == (3, 100)
    assert list(splits["eval"]["question"]) == [f"k{i}" for i in shuffled(103)[:100]]
    row = next(r for split in ("dev", "eval") for r in splits[split] if r["question"] == "k0")
    assert row["input"] == (
        '{"k0": "v0", "other": "x"}\n\nExtract the value corresponding to the specified key in the JSON '
        "object below.\n\nKey: dk1\nCorresponding value: dv1\n\nKey: dk2\nCorresponding value: dv2\n\n"
        "Key: k0\nCorresponding value:"
    )
    assert row["answers"] == ["v0"] and row["output"] == "v0" and row["max_new_tokens"] == 100


def _ruler_rows(n, answer_form, values_per_key):
    rows = []
    for i in range(n):
        values = [f"{1000000 + i * 10 + j}" for j in range(values_per_key)]
        needles = " ".join(f"One of the special magic numbers for key-{i} is: {v}." for v in values)
        row = {
            "index": i,
            "input": "unused",
            "outputs": values,
            "length": 30,
            "type_needle_v": "number" if values_per_key == 1 else "numbers",
            "query": f"key-{i}",
            "context": f"Filler text. {needles} More filler.",
        }
        if answer_form == "string":
            row["answer"] = values[0]
        elif answer_form == "list":
            row["answer"] = values
        rows.append(row)
    return rows


@pytest.mark.parametrize("answer_form", ["string", "list", "outputs only"])
def test_ruler_mk_hand_checked_prompt_and_answer_forms(tmp_path, answer_form):
    _write_jsonl(
        tmp_path / "data/ruler/niah_multikey_2/validation_8192.jsonl", _ruler_rows(41, answer_form, 1)
    )
    splits = load_dataset(
        "helmet",
        "ruler_mk_needle_8k",
        data_dir=str(tmp_path),
        tokenizer="words",
        cache_dir=str(tmp_path / "c"),
    )
    assert (len(splits["dev"]), len(splits["eval"])) == (1, 40)
    row = next(r for split in ("dev", "eval") for r in splits[split] if r["question"] == "key-0")
    assert row["input"] == (
        "A special magic number is hidden within the following text. Make sure to memorize it. I will quiz "
        "you about the number afterwards.\nFiller text. One of the special magic numbers for key-0 is: "
        "1000000. More filler.\nWhat is the special magic number for key-0 mentioned in the provided text?"
        "\nThe special magic number for key-0 mentioned in the provided text is"
    )
    assert row["answers"] == ["1000000"] and row["max_new_tokens"] == 50
    assert row["answer_prefix"] == "\nThe special magic number for key-0 mentioned in the provided text is"


def test_ruler_mv_uses_the_multi_value_wording(tmp_path):
    _write_jsonl(tmp_path / "data/ruler/niah_multivalue/validation_8192.jsonl", _ruler_rows(41, "list", 2))
    splits = load_dataset(
        "helmet", "ruler_mv_8k", data_dir=str(tmp_path), tokenizer="words", cache_dir=str(tmp_path / "c")
    )
    row = next(r for split in ("dev", "eval") for r in splits[split] if r["question"] == "key-0")
    assert row["input"] == (
        "Some special magic numbers are hidden within the following text. Make sure to memorize it. I will "
        "quiz you about the numbers afterwards.\nFiller text. One of the special magic numbers for key-0 is: "
        "1000000. One of the special magic numbers for key-0 is: 1000001. More filler.\nWhat are all the "
        "special magic numbers for key-0 mentioned in the provided text?\nThe special magic numbers for "
        "key-0 mentioned in the provided text are"
    )
    assert row["answers"] == ["1000000", "1000001"] and row["output"] == "1000000, 1000001"


def test_malformed_json_line_names_file_and_line(tmp_path):
    path = tmp_path / "data" / "json_kv" / "test_k105_dep6.jsonl"
    _write_jsonl(path, _kv_rows(103, "string"))
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = lines[2][:40] + "\n"
    path.write_text("".join(lines))
    with pytest.raises(DataFormatError, match=r"test_k105_dep6\.jsonl.*line 3: malformed JSON"):
        load_dataset(
            "helmet", "json_kv_8k", data_dir=str(tmp_path), tokenizer="words", cache_dir=str(tmp_path / "c")
        )


def test_a_ruler_row_without_its_context_is_named(tmp_path):
    rows = _ruler_rows(41, "list", 1)
    del rows[5]["context"]
    _write_jsonl(tmp_path / "data/ruler/niah_multikey_3/validation_8192.jsonl", rows)
    with pytest.raises(
        DataFormatError, match=r"validation_8192\.jsonl in .*, line 6: the record has no field 'context'"
    ):
        load_dataset(
            "helmet",
            "ruler_mk_uuid_8k",
            data_dir=str(tmp_path),
            tokenizer="words",
            cache_dir=str(tmp_path / "c"),
        )
