"""RULER's vt and fwe generators against RULER's own rows (``tests/upstream/ruler/``), and their parts.

The fixtures are what RULER's unchanged ``prepare.py`` wrote at c3f5e3b (see the README there): the first
rows verbatim and a digest of every line of all 500. A generated record serialised as RULER's
``write_manifest`` does (``json.dump``, ASCII escapes) must be RULER's line, byte for byte.
"""

from __future__ import annotations

import collections
import gzip
import itertools
import json
import math
import random
import re
from pathlib import Path

import pytest

from longbench_suite.errors import OptionError
from longbench_suite.fit.tokenizers import load_tokenizer
from longbench_suite.generate import freq_words, variable_tracking
from longbench_suite.generate.count import PromptCounter
from tests.upstream.ruler.cases import digests, first_lines, first_records, line_digest

ESSAY_FIXTURES = Path(__file__).parent / "upstream" / "ruler_vt_essay"
MODULES = {"vt": variable_tracking, "fwe": freq_words}
ARGS = {"vt": {"type_haystack": "noise", "num_chains": 1, "num_hops": 4}, "fwe": {"alpha": 2.0}}
CASES = [(task, tok, length) for task in MODULES for tok in ("llama2", "cl100k") for length in (2048, 8192)]


@pytest.fixture(scope="module")
def counters(llama2_tokenizer, cl100k):
    return {"llama2": load_tokenizer(llama2_tokenizer), "cl100k": load_tokenizer("cl100k_base")}


def rows(task, counter, length, n, **options):
    gen = MODULES[task]
    return gen.ruler_rows(
        ARGS[task],
        counter,
        max_seq_length=length,
        tokens_to_generate=gen.TOKENS_TO_GENERATE,
        template=gen.TEMPLATE + gen.ANSWER_PREFIX,
        answer_prefix=gen.ANSWER_PREFIX,
        num_samples=n,
        **options,
    )


@pytest.mark.parametrize(("task", "tok", "length"), CASES, ids=["-".join(map(str, c)) for c in CASES])
def test_rows_are_rulers_rows(task, tok, length, counters):
    """All 500 rows, at 2048 (RULER's small steps below 4096 tokens: vt's 5 lines) and 8192 tokens."""
    name = f"{task}-{tok}-{length}"
    expected = digests()[name]["line"]
    lines = [json.dumps(record) for record in rows(task, counters[tok], length, len(expected))]
    first = first_lines(name)
    assert lines[: len(first)] == first
    assert [line_digest(line) for line in lines] == expected


@pytest.mark.parametrize(("tok", "length"), [(t, n) for t in ("llama2", "cl100k") for n in (4096, 8192)])
def test_vt_essay_rows_are_rulers_rows(tok, length, counters):
    """vt's essay haystack (links as sentences at NLTK sentence depths, the essay cut, never repeated)."""
    with gzip.open(ESSAY_FIXTURES / f"vt_essay-{tok}-{length}.jsonl.gz", "rt", encoding="utf-8") as f:
        expected = f.read().splitlines()
    with gzip.open(ESSAY_FIXTURES.parent / "ruler_niah" / "essay.json.gz", "rt", encoding="utf-8") as f:
        essay = json.load(f)["text"]
    gen = variable_tracking
    made = gen.ruler_rows(
        {"type_haystack": "essay", "num_chains": 1, "num_hops": 4},
        counters[tok],
        max_seq_length=length,
        tokens_to_generate=gen.TOKENS_TO_GENERATE,
        template=gen.TEMPLATE + gen.ANSWER_PREFIX,
        answer_prefix=gen.ANSWER_PREFIX,
        num_samples=len(expected),
        essay=essay,
    )
    assert [json.dumps(record) for record in made] == expected


def test_rows_stream_without_end(counters):
    """``num_samples=None`` gives RULER's rows and goes on past them."""
    for task in MODULES:
        endless = rows(task, counters["cl100k"], 2048, None)
        made = [json.dumps(r) for r in itertools.islice(endless, 7)]
        assert made[:5] == first_lines(f"{task}-cl100k-2048")
        assert len(made) == 7


def test_vt_example_is_rulers_example_with_new_names_and_value(counters):
    """Each row starts with the same example (a 3-letter chain sized to 500 tokens) whose five answer
    variables and value are redrawn: the rows' examples differ only there."""
    records = list(rows("vt", counters["cl100k"], 8192, 20))
    shapes, values = set(), set()
    for record in records:
        text = record["input"]
        example, _, task_text = text.partition("\nMemorize and track")
        assert task_text.startswith(" the chain(s)") and example.startswith("Memorize and track")
        names = example.split("they are: ")[-1].split()
        assert len(names) == 5 and all(re.fullmatch("[A-Z]{3}", n) for n in names)
        value = re.search(r"assigned the value (\d{5}),", example).group(1)
        chain = [f"VAR {names[0]} = {value}", *(f"VAR {b} = VAR {a} " for a, b in itertools.pairwise(names))]
        assert [line for line in example.split("\n") if line.startswith("VAR")] == chain
        shape = example
        for n, name in enumerate(names):
            shape = shape.replace(name, f"<{n}>")
        shapes.add(shape.replace(value, "<value>"))
        values.add(value)
        assert value not in record["outputs"] and "12345" not in example
    assert len(shapes) == 1  # one example, renamed per row
    assert len(values) == len(records)


def test_fwe_counts_follow_the_zeta_distribution(counters):
    """Word ``k`` (by frequency) appears ``int(N * k**-2 / zeta(2))`` times for one N; the answers are
    words 2-4, after the noise word ``...``."""
    zeta2 = math.pi**2 / 6
    for record in itertools.islice(rows("fwe", counters["llama2"], 8192, None), 3):
        context = record["input"].split("coded words. ", 1)[1].rsplit("\nQuestion:", 1)[0]
        frequencies = collections.Counter(context.split(" ")).most_common()
        assert frequencies[0][0] == "..."
        assert [w for w, _ in frequencies[1:4]] == record["outputs"]
        first = frequencies[0][1]
        around = int(first * zeta2)
        candidates = [n for n in range(around - 2, around + 3) if int(n / zeta2) == first]
        observed = [count for _, count in frequencies]
        assert any(
            [c for c in (int(n * k**-2.0 / zeta2) for k in range(1, len(observed) + 2)) if c] == observed
            for n in candidates
        )


def test_zeta_constant_is_scipys():
    special = pytest.importorskip("scipy.special")
    for alpha, value in freq_words.ZETA.items():
        assert value == float(special.zeta(alpha))
    assert freq_words.zeta(3.0) == float(special.zeta(3.0))


def test_screen_strings():
    vt = first_records("vt-llama2-2048")[0]
    value = re.search(r"the value (\d+),", vt["answer_prefix"]).group(1)
    assert variable_tracking.screen_strings(vt) == {*vt["outputs"], value}
    fwe = first_records("fwe-llama2-2048")[0]
    assert freq_words.screen_strings(fwe) == set(fwe["outputs"])


@pytest.mark.parametrize("task", list(MODULES))
def test_excluded_rows_are_skipped_and_later_rows_stay_rulers(task, counters):
    """A row holding an excluded string is left out; the others are RULER's, numbered on."""
    ruler = first_records(f"{task}-cl100k-2048")
    excluded = MODULES[task].screen_strings(ruler[1])
    if task == "vt":  # the value alone excludes a row too
        excluded = {next(s for s in excluded if s.isdigit())}
    made = list(rows(task, counters["cl100k"], 2048, 4, excluded=frozenset(excluded)))
    kept = [ruler[0], *ruler[2:5]]
    assert [r["input"] for r in made] == [r["input"] for r in kept]
    assert [r["index"] for r in made] == [0, 1, 2, 3]
    assert all(excluded.isdisjoint(MODULES[task].screen_strings(r)) for r in made)


def test_tiktoken_prompts_are_counted_line_by_line_exactly(cl100k):
    """A prompt whose lines start with a letter or digit is counted from its lines under tiktoken: the
    sum equals the whole text's count on lines full of what tiktoken's pattern treats specially."""
    counter = load_tokenizer("cl100k_base")
    prompts = PromptCounter(counter)
    rng = random.Random(5)
    pieces = ["VAR", "ABCDE", "=", "12345", " ", "  ", ".", "...", "'s", "Été", "名字", "x\t", "!?", "\xa0"]
    starts = ["A", "z", "9", "É", "名"]
    for _ in range(200):
        lines = [
            rng.choice(starts) + "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
            for _ in range(rng.randint(1, 6))
        ]
        head = rng.choice(["", "Memorize this.\n\n", "Q:\n", "x \n"])
        tail = rng.choice(["", "\nQuestion: ?", " end.", "\n\n"])
        whole = counter.count(head + "\n".join(lines) + tail)
        assert prompts.count(head, lines, tail) == whole


@pytest.mark.parametrize(("tok", "prefix"), [("cl100k", " "), ("llama2", "")])
def test_fwe_texts_are_counted_word_by_word_exactly(tok, prefix, counters):
    """Under tiktoken and Llama's SentencePiece BPE an fwe text is counted from its distinct words:
    equal to the whole text's count, also when the last word is the noise word ``...``."""
    counter = counters[tok]
    assert freq_words.word_prefix(counter) == prefix
    settings = freq_words.Settings({"alpha": 2.0})
    made = freq_words.Rows(settings, counter, freq_words.TEMPLATE + freq_words.ANSWER_PREFIX, 3000, 42)
    last_kinds = set()
    for num_words in (1, 2, 40, 333, 2000, 5000):
        vocab = made.vocabulary()
        ranks = freq_words.rank_order(made.vocab_size, num_words, 2.0, 42).ranks
        if ranks:
            last_kinds.add(ranks[-1] == 0)
        assert made.tokens(vocab, num_words) == counter.count(made.text(vocab, num_words), special=False)
    assert last_kinds == {True, False}


def test_fwe_other_tokenizers_count_whole_texts(tmp_path, llama2_tokenizer):
    """A tokenizer.json whose vocabulary joins a word to the next word's ``▁`` is counted whole."""
    with open(llama2_tokenizer, encoding="utf-8") as f:
        spec = json.load(f)
    assert freq_words._llama_words_alone(load_tokenizer(llama2_tokenizer).backend)
    spec["model"]["vocab"]["s\u2581the"] = len(spec["model"]["vocab"])
    changed = tmp_path / "tokenizer.json"
    changed.write_text(json.dumps(spec), encoding="utf-8")
    from tokenizers import Tokenizer

    assert not freq_words._llama_words_alone(Tokenizer.from_file(str(changed)))


@pytest.mark.parametrize(
    ("task", "args", "message"),
    [
        ("vt", {"num_hop": 4}, "vt: unknown task argument"),
        ("vt", {"type_haystack": "essay"}, "vt: the essay haystack needs the essay's text"),
        ("vt", {"type_haystack": "needle"}, "vt: type_haystack must be one of"),
        ("fwe", {"alpha": 2.0, "beta": 1}, "fwe: unknown task argument"),
        ("fwe", {"alpha": 1.0}, "fwe: alpha must be above 1"),
    ],
)
def test_bad_task_arguments_are_one_line_errors(task, args, message, counters):
    gen = MODULES[task]
    made = gen.ruler_rows(
        args,
        counters["cl100k"],
        max_seq_length=2048,
        tokens_to_generate=gen.TOKENS_TO_GENERATE,
        template=gen.TEMPLATE + gen.ANSWER_PREFIX,
        answer_prefix=gen.ANSWER_PREFIX,
        num_samples=1,
    )
    with pytest.raises(OptionError, match=message):
        next(made)
