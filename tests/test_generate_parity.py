"""Generated rows against NVIDIA/RULER's own ``niah.py`` output (``tests/upstream/ruler_niah/``).

With RULER's settings (``generate={"recipe": "ruler", ...}``: its template, seed, haystack, 128
generated tokens) a generated row's ``input`` must be RULER's ``input`` + ``answer_prefix`` byte for
byte, its answers RULER's ``outputs``, and its token count RULER's ``length`` − 128. The fixtures were
made by running RULER's unchanged script (see the README there); nothing here re-implements it.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from longbench_suite import load_dataset
from longbench_suite.benchmarks.helmet.generated import TASKS
from longbench_suite.fit.tokenizers import load_tokenizer
from longbench_suite.generate.count import PromptCounter
from longbench_suite.generate.niah import VARIANTS
from longbench_suite.generate.search import Prompt, Sizer
from tests.upstream.ruler_niah.cases import CASES, TOKENS_TO_GENERATE

FIXTURES = Path(__file__).parent / "upstream" / "ruler_niah"


def ruler_rows(case: dict) -> list[dict]:
    with gzip.open(FIXTURES / f"{case['name']}.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def spec(case, llama2_tokenizer):
    return llama2_tokenizer if case["tokenizer"] == "llama2" else "cl100k_base"


def test_every_case_has_its_fixture():
    assert len(CASES) == 24
    for case in CASES:
        rows = ruler_rows(case)
        assert len(rows) == case["rows"]
        assert all(row["outputs"] and row["outputs"][0] in row["input"] for row in rows)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_ruler_recipe_rows_are_rulers_rows(case, helmet_mirror, llama2_tokenizer, cl100k, tmp_path):
    args = case["args"]
    rows = load_dataset(
        "helmet",
        f"gen_{case['task']}_{case['length']}",
        split="dev",
        mirror=helmet_mirror,
        tokenizer=spec(case, llama2_tokenizer),
        cache_dir=str(tmp_path),
        generate={
            "recipe": "ruler",
            "seed": case["seed"],
            "rows": case["rows"],
            "haystack": args["type_haystack"],
        },
    )
    specials = PromptCounter(load_tokenizer(spec(case, llama2_tokenizer))).specials
    for row, ruler in zip(rows, ruler_rows(case), strict=True):
        assert row["input"] == ruler["input"] + ruler["answer_prefix"]
        assert row["answer_prefix"] == ruler["answer_prefix"]
        assert row["answers"] == ruler["outputs"]
        assert row["input_tokens"] - specials + TOKENS_TO_GENERATE == ruler["length"]


def test_the_core_search_alone_reproduces_ruler(llama2_tokenizer):
    """The procedure without the builder, on one case per haystack kind (fast lane)."""
    task = next(t for t in TASKS if t.name == "gen_niah_multikey_2")
    for case in [c for c in CASES if c["tokenizer"] == "llama2" and c["length"] == 4096][:2]:
        settings = VARIANTS[case["task"]]
        template = task.render(settings, "ruler")
        counter = PromptCounter(load_tokenizer(llama2_tokenizer))

        def prompt(sample, template=template, settings=settings):
            fields = {"type_needle_v": settings.type_needle_v, "query": sample.query, "context": "\x00"}
            head, tail = template.render_completion(fields).split("\x00")
            return Prompt(head, sample.lines, tail)

        limit = case["length"] - TOKENS_TO_GENERATE + counter.specials
        sizer = Sizer(settings, prompt, counter, limit, case["length"], case["seed"])
        rng = random.Random(case["seed"])
        size = sizer.search(rng)
        for ruler in ruler_rows(case):
            assert sizer.row(rng, size).prompt.text == ruler["input"] + ruler["answer_prefix"]
