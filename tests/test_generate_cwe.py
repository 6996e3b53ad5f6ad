"""RULER's common-words extraction (``cwe``) against RULER's own rows (``tests/upstream/ruler_cwe/``).

The fixtures were written by RULER's unchanged ``prepare.py`` (see the README there); a generated
record must serialise to the fixture's line byte for byte.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
from pathlib import Path

import pytest

from longbench_suite.errors import DataFormatError, OptionError, ShortSourceError
from longbench_suite.fit.tokenizers import load_tokenizer
from longbench_suite.fit.tokenizers.base import TokenCounter
from longbench_suite.generate import common_words as cwe
from longbench_suite.generate.words import common_words

FIXTURES = Path(__file__).parent / "upstream" / "ruler_cwe"
#: rfix's recordings of RULER's prepare.py: the first rows and digests of all 500 (tests/upstream/ruler/)
RULER = Path(__file__).parent / "upstream" / "ruler"
ARGS = {"freq_cw": 30, "freq_ucw": 3, "num_cw": 10}  # synthetic.yaml's cwe
#: fixture name: (tokenizer, length, seed)
CASES = {
    "cwe-llama2-2048": ("llama2", 2048, 42),
    "cwe-cl100k-2048": ("cl100k", 2048, 42),
    "cwe-llama2-8192": ("llama2", 8192, 42),
    "cwe-cl100k-8192": ("cl100k", 8192, 42),
    "cwe-llama2-4096-seed7": ("llama2", 4096, 7),
}
ENTRY = re.compile(r"(\d+)\. (\S+(?: \S+)*?)(?= \d+\. |$)")


def fixture_lines(name: str) -> list[str]:
    with gzip.open(FIXTURES / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
        return f.readlines()


@pytest.fixture(scope="module")
def english_words() -> list[str]:
    with gzip.open(FIXTURES / "english_words.json.gz", "rt", encoding="utf-8") as f:
        return list(json.load(f).values())  # RULER reads the JSON object's values


@pytest.fixture(scope="module")
def counters(llama2_tokenizer, cl100k):
    return {"llama2": load_tokenizer(llama2_tokenizer), "cl100k": load_tokenizer("cl100k_base")}


def rows(counter, length, count, seed=42, english=None, **options):
    return list(
        cwe.ruler_rows(
            ARGS,
            counter,
            max_seq_length=length,
            tokens_to_generate=cwe.TOKENS_TO_GENERATE,
            template=cwe.TEMPLATE + cwe.ANSWER_PREFIX,
            answer_prefix=cwe.ANSWER_PREFIX,
            num_samples=count,
            seed=seed,
            english_words=english,
            **options,
        )
    )


def lists(text: str) -> list[list[str]]:
    """The numbered lists of a prompt, each as its words in order."""
    found = []
    for line in text.split("\n"):
        if line.startswith("1. "):
            found.append([m.group(2) for m in ENTRY.finditer(line)])
        elif " are: 1. " in line:  # an example's answer after the question
            found.append([m.group(2) for m in ENTRY.finditer(line.split(" are: ", 1)[1])])
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_rows_are_rulers_byte_for_byte(name, counters, english_words):
    tokenizer, length, seed = CASES[name]
    want = fixture_lines(name)
    got = rows(counters[tokenizer], length, len(want), seed, english_words)
    # RULER's write_manifest: json.dump with ensure_ascii=True, one record per line
    assert [json.dumps(row) + "\n" for row in got] == want


@pytest.mark.parametrize("name", ["cwe-llama2-2048", "cwe-cl100k-2048", "cwe-llama2-8192", "cwe-cl100k-8192"])
def test_all_500_rows_are_rulers(name, counters):
    """Against RULER's 500-row files of ``tests/upstream/ruler/``: the first lines verbatim, every line
    by its digest (sha256, 16 hex digits), with that folder's ``english_words.json``."""
    _, tokenizer, length = name.split("-")
    with gzip.open(RULER / "digests.json.gz", "rt", encoding="utf-8") as f:
        digests = json.load(f)[name]["line"]
    with gzip.open(RULER / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
        first = f.read().splitlines()
    with gzip.open(RULER / "inputs" / "english_words.json.gz", "rt", encoding="utf-8") as f:
        english = list(json.load(f).values())
    lines = [json.dumps(row) for row in rows(counters[tokenizer], int(length), 500, english=english)]
    assert lines[: len(first)] == first
    assert [hashlib.sha256(line.encode("utf-8")).hexdigest()[:16] for line in lines] == digests


@pytest.mark.slow
def test_lists_past_the_wonderwords_pool_come_from_english_words(counters, english_words):
    (want,) = fixture_lines("cwe-cl100k-139264")
    (got,) = rows(counters["cl100k"], 139264, 1, english=english_words)
    assert json.dumps(got) + "\n" == want
    listed = lists(got["input"])[-1]
    assert len(set(listed)) > len(common_words())  # more distinct words than the pool has
    assert set(listed) <= set(english_words) and not set(got["outputs"]) <= set(common_words())


@pytest.mark.parametrize(
    ("name", "example", "repeats"),
    [("cwe-llama2-8192", (40, 10, 3), (30, 3)), ("cwe-llama2-2048", (20, 3, 1), (6, 1))],
)
def test_the_few_shot_example_and_the_lists_repetitions(name, example, repeats, counters):
    tokenizer, length, seed = CASES[name]
    for row in rows(counters[tokenizer], length, 2, seed):
        shot, answer, main = lists(row["input"])
        words, common, uncommon = example
        counts = {w: shot.count(w) for w in shot}
        assert len(counts) == words and sorted(counts.values()) == [uncommon] * (words - 10) + [common] * 10
        assert len(answer) == 10 and set(answer) == {w for w in counts if counts[w] == common}
        main_counts = {w: main.count(w) for w in main}
        assert {w for w, n in main_counts.items() if n == repeats[0]} == set(row["outputs"])
        assert set(main_counts.values()) == set(repeats)
        assert row["answer_prefix"] == cwe.ANSWER_PREFIX
        assert row["input"].endswith("\nQuestion: What are the 10 most common words in the above list?")


def test_length_is_the_whole_prompts_count(counters):
    for tokenizer, length in [("llama2", 8192), ("cl100k", 2048)]:
        counter = counters[tokenizer]
        for row in rows(counter, length, 3):
            prompt = row["input"] + row["answer_prefix"]
            assert row["length"] == counter.count(prompt, special=False) + cwe.TOKENS_TO_GENERATE
            assert row["length"] <= length and row["length_w_model_temp"] == row["length"]


class Uneven(TokenCounter):
    """A counter whose counts are not sums of the parts' (every third character, rounded down)."""

    name = identity = "uneven"

    def count(self, text: str, *, special: bool = True) -> int:
        return len(text) // 3

    def encode(self, text, *, special=True):
        raise NotImplementedError


def test_a_tokenizer_whose_counts_do_not_add_up_is_counted_whole():
    got = rows(Uneven(), 6000, 3)
    for row in got:
        assert row["length"] == len(row["input"] + row["answer_prefix"]) // 3 + cwe.TOKENS_TO_GENERATE
    assert max(r["length"] for r in got) > 6000 - 40  # still sized to the length


def test_the_pool_is_wonderwords_nouns_adjectives_and_verbs():
    from wonderwords.random_word import _get_words_from_text_file

    lists_ = ("nounlist.txt", "adjectivelist.txt", "verblist.txt")
    assert list(common_words()) == sorted({w for n in lists_ for w in _get_words_from_text_file(n)})
    assert len(common_words()) == 8166


def test_a_list_longer_than_the_pool_is_sampled_from_english_words():
    english = [f"word{i}" for i in range(9000)]
    pool = cwe.Pool(42, english)
    size = len(common_words()) + 1
    words, source = pool.sample(random.Random(3), size)
    assert source == "english_words" and words == random.Random(3).sample(english, size)
    words, source = pool.sample(random.Random(3), size - 1)
    shuffled = list(common_words())
    random.Random(42).shuffle(shuffled)  # the pool is shuffled with the seed first
    assert source == "wonderwords" and words == random.Random(3).sample(shuffled, size - 1)


def test_english_words_are_read_only_when_a_list_needs_them():
    calls = []

    def read() -> list[str]:
        calls.append(1)
        return [f"word{i}" for i in range(9000)]

    pool = cwe.Pool(42, read)
    pool.sample(random.Random(3), 8000)
    assert calls == []
    pool.sample(random.Random(3), 8500)
    pool.sample(random.Random(3), 8600)
    assert calls == [1]


def test_missing_or_short_english_words_are_one_line_errors():
    with pytest.raises(OptionError, match="english_words="):
        cwe.Pool(42, None).sample(random.Random(1), 9000)
    with pytest.raises(ShortSourceError, match="8999 words"):
        cwe.Pool(42, ["w"] * 8999).sample(random.Random(1), 9000)


def test_bad_task_arguments_and_lengths_are_one_line_errors(counters):
    with pytest.raises(OptionError, match="freq"):
        cwe.Settings.of({"freq": 3}, 4096)
    with pytest.raises(OptionError, match="num_cw"):
        cwe.Settings.of({"num_cw": 0}, 4096)
    with pytest.raises(DataFormatError, match="no list fits 400 tokens"):
        rows(counters["llama2"], 400, 1)


def test_excluded_answers_are_drawn_and_skipped(counters):
    counter = counters["llama2"]
    plain = rows(counter, 2048, 6)
    excluded = frozenset(cwe.screen_strings(plain[0]) | cwe.screen_strings(plain[3]))
    screened = rows(counter, 2048, 4, excluded=excluded)
    kept = [r for i, r in enumerate(plain) if i not in (0, 3)]
    assert [{**r, "index": 0} for r in screened] == [{**r, "index": 0} for r in kept]
    assert [r["index"] for r in screened] == [0, 1, 2, 3]
    assert not any(cwe.screen_strings(r) & excluded for r in screened)


def test_rows_without_end_and_other_seeds(counters):
    counter = counters["cl100k"]
    endless = cwe.ruler_rows(
        ARGS,
        counter,
        max_seq_length=2048,
        tokens_to_generate=120,
        template=cwe.TEMPLATE + cwe.ANSWER_PREFIX,
        answer_prefix=cwe.ANSWER_PREFIX,
        num_samples=None,
        seed=5,
    )
    first = [next(endless) for _ in range(8)]
    assert [r["index"] for r in first] == list(range(8))
    assert first[:3] == rows(counter, 2048, 3, seed=5)  # deterministic
    assert first[0]["outputs"] != rows(counter, 2048, 1)[0]["outputs"]


def test_the_last_entry_of_a_shuffled_list_is_found_without_shuffling():
    orders = cwe.Orders(42)
    for length in [*range(6), 190, 8191, 8192, 8193, 24369]:
        items = list(range(length))
        random.Random(42).shuffle(items)  # RULER's fresh generator per list
        assert orders.last(length) == (items[-1] if items else 0)
        assert list(orders.shuffle(list(range(length)))) == items


@pytest.mark.parametrize("tokenizer", ["llama2", "cl100k", "tiny"])
def test_prompts_are_counted_as_sums_that_equal_whole_counts(tokenizer, counters, tiny_tokenizer):
    counter = load_tokenizer(tiny_tokenizer) if tokenizer == "tiny" else counters[tokenizer]
    for length in (2048, 8192):
        settings = cwe.Settings.of(ARGS, length)
        words = cwe.CommonWords(settings, counter, cwe.TEMPLATE + cwe.ANSWER_PREFIX, 7, None)
        rng = random.Random(1)
        for size in (10, 11, 257, 4096, 8166):
            draw = words.draw(rng, size)
            assert words.tokens(draw) == counter.count(words.text(draw), special=False)
        assert words.summing  # the sums held: no prompt had to be tokenized whole after the first
