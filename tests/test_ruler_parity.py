"""The ``ruler`` benchmark's ``eval`` rows against NVIDIA/RULER's own ``prepare.py`` output.

``tests/upstream/ruler/`` holds what RULER's unchanged scripts wrote (c3f5e3b, 500 samples, seed 42,
template ``base``) for each of its 13 tasks at 2048 and 8192 tokens under the Llama-2 and cl100k
tokenizers, from the synthetic inputs of ``tests/upstream/ruler/inputs/`` (see the README there): the
first rows verbatim and a digest of every row. An eval row must be RULER's row in the project's
convention: ``input`` = RULER's ``input`` + ``answer_prefix``, ``answer_prefix`` and ``length`` RULER's,
``answers`` RULER's ``outputs`` — for all 500 rows.
"""

from __future__ import annotations

import json

import pytest

from longbench_suite import load_dataset
from tests.upstream.ruler.cases import (
    CASES,
    CHUNK_CASES,
    ESSAY_TASKS,
    FIRST_ROWS,
    SAMPLES,
    TASKS,
    digests,
    first_lines,
    first_records,
    line_digest,
    record_row_digest,
    row_digest,
    unpack_inputs,
)

#: the config length names of the recorded lengths (K = 1024)
LENGTH_NAMES = {2048: "2k", 8192: "8k"}



def test_every_case_is_recorded():
    assert len(CASES) == len(TASKS) * 2 * 2 == 52
    recorded = digests()
    assert list(recorded) == [c["name"] for c in CASES + CHUNK_CASES]
    for case in CASES + CHUNK_CASES:
        lines = first_lines(case["name"])
        assert len(lines) == FIRST_ROWS
        entry = recorded[case["name"]]
        assert len(entry["line"]) == len(entry["row"]) == SAMPLES // case.get("chunk_amount", 1)
        assert [line_digest(x) for x in lines] == entry["line"][:FIRST_ROWS]
        assert [record_row_digest(r) for r in first_records(case["name"])] == entry["row"][:FIRST_ROWS]
        for record in first_records(case["name"]):
            assert record["length"] <= case["length"]
            assert record["outputs"] and all(isinstance(o, str) for o in record["outputs"])


@pytest.fixture(scope="module")
def ruler_inputs(tmp_path_factory) -> dict[str, str]:
    """The synthetic inputs RULER read: a data_dir folder in the upstream files' layout, and RULER's
    PaulGrahamEssays.json."""
    return unpack_inputs(tmp_path_factory.mktemp("ruler-inputs"))


def tokenizer_spec(case: dict, llama2_tokenizer: str) -> str:
    return llama2_tokenizer if case["tokenizer"] == "llama2" else "cl100k_base"


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_eval_rows_are_rulers_rows(case, ruler_inputs, llama2_tokenizer, cl100k, tmp_path):
    generate = {"essay": ruler_inputs["essay"]} if case["task"] in ESSAY_TASKS else None
    # streamed: eval alone (a prepared build also makes dev, whose screen builds eval at every length;
    # streamed and prepared rows are the same, tests/test_determinism.py)
    rows = list(
        load_dataset(
            "longbench_suite",
            f"ruler/{case['task']}_{LENGTH_NAMES[case['length']]}",
            split="eval",
            streaming=True,
            tokenizer=tokenizer_spec(case, llama2_tokenizer),
            data_dir=ruler_inputs["data_dir"],
            cache_dir=str(tmp_path),
            generate=generate,
        )
    )
    assert len(rows) == SAMPLES
    for row, ruler in zip(rows, first_records(case["name"]), strict=False):
        assert row["input"] == ruler["input"] + ruler["answer_prefix"]
        assert row["answer_prefix"] == ruler["answer_prefix"]
        assert row["answers"] == ruler["outputs"]
        assert row["length"] == ruler["length"]
    expected = digests()[case["name"]]["row"]
    got = [row_digest(r["input"], r["answer_prefix"], r["answers"], r["length"]) for r in rows]
    differing = [i for i, (a, b) in enumerate(zip(got, expected, strict=True)) if a != b]
    assert not differing, f"{len(differing)} of {SAMPLES} rows differ from RULER's, first at {differing[:5]}"


def test_the_fixture_rows_are_rulers_serialisation():
    """RULER writes each record with ``json.dump`` (default separators, ASCII escapes): a generator's
    dict serialised that way is byte-comparable with a fixture line."""
    for case in CASES + CHUNK_CASES:
        for line in first_lines(case["name"]):
            assert json.dumps(json.loads(line)) == line
