"""RULER's QA rows (``longbench_suite.generate.qa``) against RULER's own ``qa.py`` output.

The fixtures in ``tests/upstream/ruler/`` were written by RULER's unchanged ``prepare.py`` (see the
README there): for ``qa_1`` (SQuAD) and ``qa_2`` (HotpotQA) under Llama-2 and cl100k at 2048 and 8192
tokens, RULER's first lines verbatim and a digest of every one of its 500 lines, and prepare.py's
second chunk of two (``--pre_samples 250``, seed 43). The generator reads the same input files.
"""

from __future__ import annotations

import gzip
import itertools
import json
import random

import pytest

from longbench_suite.benchmarks.ruler import sources
from longbench_suite.errors import BudgetError, OptionError
from longbench_suite.fit.tokenizers import CharCounter, load_tokenizer
from longbench_suite.generate import qa
from tests.upstream.ruler import cases

TEMPLATE = (
    "Answer the question based on the given documents. Only give me the answer and do not output any other "
    "words.\n\nThe following are given documents.\n\n{context}\n\nAnswer the question based on the given "
    "documents. Only give me the answer and do not output any other words.\n\nQuestion: {query} Answer:"
)
PREFIX = " Answer:"
DATASETS = {"qa_1": "squad", "qa_2": "hotpotqa"}
QA_CASES = [c for c in cases.CASES if c["task"] in DATASETS]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, qa.QaSource]:
    """RULER's inputs of the fixtures, read as the generator's callers read them."""
    folder = tmp_path_factory.mktemp("ruler-qa-inputs")
    read = {}
    for name in DATASETS.values():
        path = folder / f"{name}.json"
        path.write_bytes(gzip.decompress((cases.INPUTS / f"{name}.json.gz").read_bytes()))
        read[name] = sources.READERS[name](str(path))
    return read


@pytest.fixture(scope="module")
def counters(llama2_tokenizer, cl100k):
    return {"llama2": load_tokenizer(llama2_tokenizer), "cl100k": load_tokenizer("cl100k_base")}


def rows(source, counter, length, samples=cases.SAMPLES, **kw) -> list[dict]:
    return list(
        qa.ruler_rows(
            {"dataset": "x"},
            counter,
            max_seq_length=length,
            tokens_to_generate=32,
            template=TEMPLATE,
            answer_prefix=PREFIX,
            num_samples=samples,
            qa=source,
            **kw,
        )
    )


def lines(records: list[dict]) -> list[str]:
    return [json.dumps(r) for r in records]  # as RULER's write_manifest: json.dump, ensure_ascii


@pytest.mark.parametrize("case", QA_CASES, ids=[c["name"] for c in QA_CASES])
def test_rows_are_rulers_byte_for_byte(case, inputs, counters):
    made = lines(rows(inputs[DATASETS[case["task"]]], counters[case["tokenizer"]], case["length"]))
    assert made[: cases.FIRST_ROWS] == cases.first_lines(case["name"])
    assert [cases.line_digest(line) for line in made] == cases.digests()[case["name"]]["line"]


@pytest.mark.parametrize("chunk", cases.CHUNK_CASES, ids=[c["name"] for c in cases.CHUNK_CASES])
def test_a_later_chunk_asks_rulers_later_questions(chunk, inputs, counters):
    # prepare.py's chunk 1 of 2: seed 42 + 1, and --pre_samples 250 (the questions after chunk 0's)
    half = cases.SAMPLES // 2
    made = rows(inputs[DATASETS[chunk["task"]]], counters["llama2"], 2048, half, seed=43, pre_samples=half)
    assert lines(made)[: cases.FIRST_ROWS] == cases.first_lines(chunk["name"])
    assert [cases.line_digest(line) for line in lines(made)] == cases.digests()[chunk["name"]]["line"]


def test_sample_i_asks_question_i_plus_pre_samples_whatever_the_seed(inputs, counters):
    source = inputs["squad"]
    for seed, pre in ((42, 0), (7, 0), (42, 5), (3, 11)):
        made = rows(source, counters["cl100k"], 2048, 6, seed=seed, pre_samples=pre)
        assert [r["index"] for r in made] == list(range(6))
        asked = [qa.screen_strings(r) for r in made]
        assert asked == [{source.questions[pre + i].query} for i in range(6)]
        assert [r["outputs"] for r in made] == [list(source.questions[pre + i].outputs) for i in range(6)]
    # the seed draws the documents
    assert rows(source, counters["cl100k"], 2048, 3, seed=1) != rows(
        source, counters["cl100k"], 2048, 3, seed=2
    )


def test_every_document_is_rulers_layout_and_the_question_own_documents_are_there(inputs, counters):
    source = inputs["hotpotqa"]
    for row in rows(source, counters["llama2"], 8192, 4):
        assert row["answer_prefix"] == PREFIX and row["length"] <= 8192
        question = next(q for q in source.questions if row["input"].endswith(f"Question: {q.query}"))
        context = row["input"].split("The following are given documents.\n\n", 1)[1]
        documents = context.split("\n\nAnswer the question based on")[0].split("\n\nDocument ")
        assert documents[0].startswith("Document 1:\n")
        assert [d.split(":\n", 1)[0].removeprefix("Document ") for d in documents] == [
            str(i) for i in range(1, len(documents) + 1)
        ]
        for own in question.documents:
            assert f":\n{source.documents[own]}" in context


TRICKY = (
    "Plain paragraph. With two sentences.",
    " starts with a space",
    "\tstarts with a tab\nand has a second line",
    "\n\nstarts with blank lines",
    "ends with spaces   ",
    "ends with a line break\n",
    "Title line\nBody with  double  spaces.\n\nAnd a blank line inside.",
    "123 starts with digits and ends with digits 4567",
    "“Quoted” – café, naïve, 東京, emoji 🙂!",
    "'s contraction at the start",
    "Dots...\n...and more dots.",
)


@pytest.mark.parametrize("name", ["llama2", "cl100k", "chars"])
def test_counting_by_parts_is_the_whole_prompts_count(name, counters):
    counter = counters.get(name) or CharCounter()
    cost = qa._PromptCost(counter, TRICKY)
    assert cost.mode == {"llama2": "lines", "cl100k": "breaks", "chars": None}[name]
    generator = random.Random(name)
    templates = (TEMPLATE, "\n{context}\n{query}", "{context}\n\nQ: {query}", "H\n{context}{query}")
    queries = ("Who?", "What about 'this'\n?", "  spaced  ")
    for template, query in itertools.product(templates, queries):
        head, tail = qa._parts(template, query)
        for n in (1, 2, 7, 30):
            order = qa.np.array([generator.randrange(len(TRICKY)) for _ in range(n)])
            whole = counter.count(qa.render(head, order.tolist(), TRICKY, tail), special=False)
            assert cost.total(head, order, tail) == whole, (query, order)


def test_rulers_sample_is_replayed_draw_for_draw():
    for seed in range(40):
        generator = random.Random(seed)
        n = generator.choice([1, 5, 30, 700, 1190, 44643])
        k = generator.randint(0, n)
        ours, theirs = random.Random(seed), random.Random(seed)
        assert qa._sample_positions(ours, n, k) == theirs.sample(range(n), k)
        assert ours.getrandbits(64) == theirs.getrandbits(64)  # the same state after
    with pytest.raises(ValueError):
        qa._sample_positions(random.Random(0), 3, 4)


def test_excluded_questions_are_drawn_but_not_yielded(inputs, counters):
    source = inputs["squad"]
    full = rows(source, counters["cl100k"], 2048, 8)
    excluded = frozenset(qa.screen_strings(full[2]) | qa.screen_strings(full[5]))
    kept = rows(source, counters["cl100k"], 2048, 6, excluded=excluded)
    # RULER's draws are kept: the other rows are RULER's own, at their RULER index
    assert kept == [r for i, r in enumerate(full) if i not in (2, 5)]
    assert all(not (qa.screen_strings(r) & excluded) for r in kept)


def test_screen_strings_reads_the_question_with_or_without_the_prefix(inputs, counters):
    row = rows(inputs["hotpotqa"], counters["cl100k"], 2048, 1)[0]
    question = inputs["hotpotqa"].questions[0].query
    assert qa.screen_strings(row) == {question}
    assert qa.screen_strings({**row, "input": row["input"] + row["answer_prefix"]}) == {question}
    with pytest.raises(ValueError, match="not a RULER QA input"):
        qa.screen_strings({"input": "no question here", "answer_prefix": PREFIX})


def test_a_question_that_never_fits_is_one_line_not_a_hang(counters):
    long_document = "word " * 400
    source = qa.QaSource(
        tuple(f"{i} {long_document}" for i in range(30)),
        tuple(qa.QaQuestion(f"q{i}?", ("a",), (i,), ()) for i in range(3)),
        "tiny.json",
    )
    with pytest.raises(BudgetError) as error:
        rows(source, counters["cl100k"], 1024, 2)
    message = str(error.value)
    assert "\n" not in message and "max_seq_length 1,024" in message and "retry for ever" in message


def test_more_questions_than_the_file_holds_is_one_line(inputs, counters):
    source = inputs["squad"]
    with pytest.raises(BudgetError, match=rf"need {len(source.questions) + 1} questions; it holds"):
        rows(source, counters["cl100k"], 2048, len(source.questions), pre_samples=1)
    with pytest.raises(OptionError, match="unknown task arguments num_docs"):
        list(
            qa.ruler_rows(
                {"num_docs": 3},
                counters["cl100k"],
                max_seq_length=2048,
                tokens_to_generate=32,
                template=TEMPLATE,
                answer_prefix=PREFIX,
                num_samples=1,
                qa=source,
            )
        )


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{context} {query} {title}", r"takes \{context\} and \{query\} only: KeyError\('title'\)"),
        ("{query} only", r"must hold \{context\} exactly once"),
    ],
)
def test_a_bad_template_is_one_line(template, message, inputs, counters):
    with pytest.raises(OptionError, match=message):
        list(
            qa.ruler_rows(
                {},
                counters["cl100k"],
                max_seq_length=2048,
                tokens_to_generate=32,
                template=template,
                answer_prefix=PREFIX,
                num_samples=1,
                qa=inputs["squad"],
            )
        )


def test_same_inputs_same_rows(inputs, counters):
    first = rows(inputs["hotpotqa"], counters["llama2"], 2048, 5, seed=9)
    qa._COSTS.clear()  # nothing remembered
    assert rows(inputs["hotpotqa"], counters["llama2"], 2048, 5, seed=9) == first
