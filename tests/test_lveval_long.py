"""LV-Eval at length: 256k-level lines of over 1 MB stream in flat memory, and ``max_input_tokens``
cuts the middle of the prompt exactly as LV-Eval's ``prediction.py`` does (``docs/lveval.md`` §6).

The truncation reference below is the spec's prose written with ``tokenizers`` directly: tokenize
the rendered prompt with the model tokenizer (special tokens included); if it has more than
``budget`` tokens, keep ``decode(first half) + decode(last half)`` with ``half = int(budget / 2)``
and special tokens skipped.
"""

from __future__ import annotations

import hashlib
import json
import tracemalloc
import zipfile

import pytest
from tokenizers import Tokenizer

from longbench_suite import load_dataset, registry
from longbench_suite.benchmarks.lveval import samples
from longbench_suite.samplefiles import ChineseText, TextMaker
from tests.support.hand_made import declare_as_written
from tests.test_lveval import TEMPLATES

FACTRECALL_EN = TEMPLATES["factrecall_en"]
ONE_PASSAGE_EN = TEMPLATES["loogle_SD_mixup"]
ONE_PASSAGE_ZH = TEMPLATES["multifieldqa_zh_mixup"]

ROWS = 40
LINE_BYTES = 1_100_000


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _long_level_zip(path) -> tuple[list[tuple[str, str]], int]:
    """``factrecall_en.zip`` with a 256k level of ROWS lines of over LINE_BYTES each.

    Returns the sha256 of each row's (context, prompt) and the longest line's size.
    """
    paragraph = TextMaker("lveval-long").paragraph(8)
    expected, lines = [], []
    for row in range(ROWS):
        passages, size, p = [], 0, 0
        while size < LINE_BYTES:
            passages.append(f"### Passage {p + 1}\n{paragraph} (row {row}, passage {p})")
            size += len(passages[-1]) + 2
            p += 1
        record = {
            "input": f"What does passage {row} say?",
            "context": "\n\n".join(passages),
            "answers": [f"row {row}"],
            "length": size // 6,
            "dataset": "factrecall_en",
            "language": "en",
            "confusing_facts": [f"confusing {row}"],
        }
        lines.append(json.dumps(record) + "\n")
        expected.append((_sha(record["context"]), _sha(FACTRECALL_EN.format(**record))))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("factrecall_en/factrecall_en_256k.jsonl", "".join(lines))
    declare_as_written(path.parent, "lveval/factrecall_en_256k")
    return expected, max(len(line.encode("utf-8")) for line in lines)


def _check_rows(rows, expected) -> int:
    seen = 0
    for i, row in enumerate(rows):
        assert (_sha(row["context"]), _sha(row["input"])) == expected[i], i
        assert row["answers"] == [f"row {i}"] and row["confusing_facts"] == [f"confusing {i}"]
        assert row["query_id"].endswith("-0")  # distinct questions: every pair appears once
        seen += 1
    return seen


def test_256k_lines_stream_in_flat_memory_and_arrive_intact(tmp_path):
    expected, line_bytes = _long_level_zip(tmp_path / "factrecall_en.zip")
    assert line_bytes >= 1_000_000
    stream = load_dataset(
        "lveval", "factrecall_en_256k", split="eval", streaming=True, data_dir=str(tmp_path)
    )
    tracemalloc.start()
    try:
        seen = _check_rows(stream, expected)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == ROWS
    # One row in flight holds a few copies of a line (raw bytes, parsed record, prompt, encoded row:
    # about 7 here); reading the file into a list would hold all ROWS of them.
    assert peak < 12 * line_bytes, (peak, line_bytes)
    assert peak < ROWS * line_bytes / 3, (peak, ROWS * line_bytes)


def test_256k_lines_are_prepared_a_few_rows_at_a_time(tmp_path):
    expected, line_bytes = _long_level_zip(tmp_path / "factrecall_en.zip")
    tracemalloc.start()
    try:
        rows = load_dataset(
            "lveval",
            "factrecall_en_256k",
            split="eval",
            data_dir=str(tmp_path),
            cache_dir=str(tmp_path / "c"),
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert _check_rows(rows, expected) == ROWS
    # Each row carries the prompt and the context (two lines' worth); Arrow batches of 8 rows keep
    # the peak near 20 lines, where the default batch of 64 would hold every row here (over 80).
    assert peak < 30 * line_bytes, (peak, line_bytes)
    assert registry.builder_class("lveval").DEFAULT_WRITER_BATCH_SIZE == 8
    assert registry.builder_class("helmet").DEFAULT_WRITER_BATCH_SIZE == 64, "other benchmarks keep theirs"


def _reference_cut(tok: Tokenizer, prompt: str, budget: int) -> str:
    ids = tok.encode(prompt).ids
    if len(ids) <= budget:
        return prompt
    half = int(budget / 2)
    return tok.decode(ids[:half], skip_special_tokens=True) + tok.decode(
        ids[-half:], skip_special_tokens=True
    )


def _english_records() -> list[dict]:
    text = TextMaker("lveval-cut-en")
    long = "\n\n".join(f"### Passage {p + 1}\n{text.paragraph(6)}" for p in range(60))
    short = "### Passage 1\nThe museum was founded by Ada Lovelace."
    return [
        {"input": "Who founded the museum?", "context": c, "answers": ["Ada"], "length": len(c.split())}
        | {"dataset": "loogle_SD_mixup", "language": "en", "answer_keywords": "Ada"}
        for c in (long, short)
    ]


def _chinese_records() -> list[dict]:
    text = ChineseText("lveval-cut-zh", samples.ZH_WORDS)
    long = "\n\n".join(f"文章 {p + 1}\n\n标题：{text.words(3)}\n内容：{text.paragraph(8)}" for p in range(40))
    return [
        {"input": "谁建立了博物馆？", "context": long, "answers": ["张三"], "length": len(long)}
        | {"dataset": "multifieldqa_zh_mixup", "language": "zh", "answer_keywords": "张三"}
        | {"confusing_facts": ["李四建立了博物馆。"]}
    ]


@pytest.mark.parametrize(
    "config, template, records",
    [
        ("loogle_SD_mixup_16k", ONE_PASSAGE_EN, _english_records()),
        ("multifieldqa_zh_mixup_16k", ONE_PASSAGE_ZH, _chinese_records()),
    ],
)
def test_max_input_tokens_cuts_the_middle_as_lveval_does(
    llama2_tokenizer, tmp_path, config, template, records
):
    tok = Tokenizer.from_file(llama2_tokenizer)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / f"{config}.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    declare_as_written(tmp_path / "data", f"lveval/{config}")
    full = [template.format(**r) for r in records]
    assert len(tok.encode(full[0]).ids) > 4 * 1501, "the long record must be far over the budgets"
    for budget in (1501, 2000):
        rows = load_dataset(
            "lveval",
            config,
            split="eval",
            data_dir=str(tmp_path / "data"),
            tokenizer=llama2_tokenizer,
            max_input_tokens=budget,
            cache_dir=str(tmp_path / "c"),
        )
        assert list(rows["input"]) == [_reference_cut(tok, p, budget) for p in full], budget
        assert list(rows["context"]) == [r["context"] for r in records], "the context column stays whole"
        assert set(rows["max_length"]) == {None} and set(rows["input_budget"]) == {budget}
    if len(records) > 1:
        assert rows[1]["input"] == full[1], "a prompt within the budget is left alone"
