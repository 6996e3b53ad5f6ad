"""Generated recall rows (``docs/generate.md``): exact sizes at any length and tokenizer, determinism
in every build mode, no key or value of an ``eval`` row, clear errors, scoring and rewards."""

from __future__ import annotations

import json
import random
import re
import uuid

import pytest
from tokenizers import Tokenizer

from longbench_suite import get_builder, load_dataset
from longbench_suite.errors import SuiteError
from longbench_suite.fit import fastcount
from longbench_suite.fit.tokenizers import load_tokenizer
from longbench_suite.generate.count import PromptCounter
from longbench_suite.generate.niah import VARIANTS, Excluded, draw, drawer, random_value
from longbench_suite.generate.words import key_words
from longbench_suite.training.rewards import reward_function

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
NEEDLE = re.compile(r"special magic \w+ for (\S+) is: (\S+?)\.(?=\n|$)", re.M)


@pytest.fixture(scope="module")
def llama2(llama2_tokenizer):
    return load_tokenizer(llama2_tokenizer)


def gen(config, mirror, tokenizer, tmp_path, split="dev", **options):
    return load_dataset(
        "helmet",
        config,
        split=split,
        mirror=mirror,
        tokenizer=tokenizer,
        cache_dir=str(tmp_path / "cache"),
        generate={"rows": 3, **options},
    )


# -- counting ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("tokenizer", ["llama2", "llama2 without fastokens", "cl100k"])
def test_line_summed_counts_equal_whole_prompt_counts(tokenizer, llama2_tokenizer, cl100k, monkeypatch):
    if tokenizer == "cl100k":
        counter = load_tokenizer("cl100k_base")
    else:
        if tokenizer != "llama2":
            monkeypatch.setenv(fastcount.ENV, "0")
        counter = load_tokenizer(Tokenizer.from_file(llama2_tokenizer))
    counting = PromptCounter(counter)
    # fresh lines go whole through the fast backend where there is one, else line by line
    assert counting.fast_whole == (tokenizer != "llama2 without fastokens")
    rng = random.Random(5)
    words = ["One", "of", "the", " magic", "7654321.", "é", "😀", "  spaced", "{x}", "ab-cd", ":", "\t"]
    for _ in range(60):
        lines = tuple(
            " ".join(rng.choice(words) for _ in range(rng.randint(0, 9))) for _ in range(rng.randint(1, 9))
        )
        head = rng.choice(["", "Intro text.\n", "A\nB\n", "no break "])
        tail = rng.choice(["\nWhat is it?", "\n\nKey: x\nValue:", " tail"])
        whole = counter.count(head + "\n".join(lines) + tail)
        assert counting.count(head, lines, tail) == whole
        assert counting.count(head, lines, tail, fresh=True) == whole


def test_fresh_lines_and_long_lines_are_counted_but_not_remembered(llama2):
    counting = PromptCounter(llama2)
    counting.count("Intro.\n", ("a needle 1", "a needle 2"), "\nQuestion?")
    remembered = dict(counting._lines)
    fresh = tuple(f"One of the special magic numbers for key-{i} is: {i}." for i in range(50))
    essay = ("word " * 2000 + "end.",)
    for lines, kind in ((fresh, {"fresh": True}), (essay, {})):
        text = "Intro.\n" + "\n".join(lines) + "\nQuestion?"
        assert counting.count("Intro.\n", lines, "\nQuestion?", **kind) == llama2.count(text)
        assert counting._lines == remembered


# -- drawing ----------------------------------------------------------------------------------------


def test_excluded_keys_and_values_are_never_drawn_and_the_rest_of_the_stream_is_unchanged():
    settings = VARIANTS["niah_multikey_2"]
    free = draw(settings, random.Random(3), 40, 3)
    # exclude the first key and first value the free stream drew: the excluded draw must avoid them
    banned = {free.keys[0], free.values[0][0]}
    avoided = draw(settings, random.Random(3), 40, 3, excluded=Excluded(banned))
    assert not banned & {*avoided.keys, *(v for vs in avoided.values for v in vs)}
    assert not banned & {s for line in avoided.lines for s in NEEDLE.findall(line)[0]}
    rng = random.Random(3)
    assert random_value(rng, "words") == free.keys[0]  # the free stream's first draw is the banned key


def test_drawers_consume_the_stream_exactly_as_rulers_random_calls():
    """RULER draws with ``randint``, ``choice`` and ``uuid.UUID(int=getrandbits(128), version=4)``; the
    drawers must give the same values and leave the generator in the same state."""
    words = key_words()
    ruler = {
        "numbers": lambda rng: str(rng.randint(10**6, 10**7 - 1)),
        "words": lambda rng: rng.choice(words),
        "uuids": lambda rng: str(uuid.UUID(int=rng.getrandbits(128), version=4)),
    }
    for seed in (0, 7, 42):
        ours, theirs = random.Random(seed), random.Random(seed)
        kinds = [random.Random(seed).choice(sorted(ruler)) for _ in range(300)]
        made = {kind: drawer(ours, kind) for kind in ruler}
        assert [made[kind]() for kind in kinds] == [ruler[kind](theirs) for kind in kinds]
        assert ours.getstate() == theirs.getstate()


@pytest.mark.slow
def test_key_words_are_rulers_sorted_unique_adjective_noun_list():
    from longbench_suite.generate.words import _word_list, key_words

    adjectives, nouns = _word_list("adjectivelist.txt"), _word_list("nounlist.txt")
    expected = sorted({f"{a}-{n}" for a in adjectives for n in nouns})
    words = key_words()
    assert len(words) == len(expected)
    assert all(words[i] == expected[i] for i in range(0, len(expected), 997))
    assert all(words[i] == expected[i] for i in range(len(expected) - 5000, len(expected)))


# -- rows ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("config", "max_new_tokens"),
    [("gen_niah_multikey_2_6k", 50), ("gen_niah_multikey_3_7000", 100), ("gen_json_kv_5k", 100)],
)
@pytest.mark.parametrize("tokenizer", ["llama2", "cl100k"])
def test_rows_fit_their_length_exactly_under_any_tokenizer(
    config, max_new_tokens, tokenizer, helmet_mirror, llama2_tokenizer, cl100k, tmp_path
):
    spec = llama2_tokenizer if tokenizer == "llama2" else "cl100k_base"
    counter = load_tokenizer(spec)
    rows = gen(config, helmet_mirror, spec, tmp_path)
    length = {"6k": 6144, "7000": 7000, "5k": 5120}[config.rsplit("_", 1)[1]]
    budget = length - max_new_tokens
    assert len(rows) == 3
    for row in rows:
        tokens = counter.count(row["input"])
        assert row["input_tokens"] == tokens <= budget == row["input_budget"]
        assert row["max_length"] == length
        # RULER's rule: the searched size, `step` lines smaller after each draw that overflows
        lines = [
            line for line in row["input"].split("\n") if "special magic" in line or line.startswith(' "')
        ]
        longest = max(counter.count(line, special=False) for line in lines[1:-1])
        assert tokens > budget - 3 * 25 * longest
        assert all(answer in row["input"] for answer in row["answers"])
        assert row["input"].endswith(row["answer_prefix"])


def test_same_seed_same_bytes_other_seed_other_rows_and_streaming_equals_prepared(
    helmet_mirror, llama2_tokenizer, tmp_path
):
    one = gen("gen_niah_multikey_2_4k", helmet_mirror, llama2_tokenizer, tmp_path / "a", seed=7).to_list()
    two = gen("gen_niah_multikey_2_4k", helmet_mirror, llama2_tokenizer, tmp_path / "b", seed=7).to_list()
    other = gen("gen_niah_multikey_2_4k", helmet_mirror, llama2_tokenizer, tmp_path / "c", seed=8).to_list()
    assert json.dumps(one) == json.dumps(two)
    assert {r["query_id"] for r in one}.isdisjoint(r["query_id"] for r in other)
    streamed = load_dataset(
        "helmet",
        "gen_niah_multikey_2_4k",
        split="dev",
        streaming=True,
        mirror=helmet_mirror,
        tokenizer=llama2_tokenizer,
        generate={"rows": 3, "seed": 7},
    )
    assert json.dumps([dict(r) for r in streamed]) == json.dumps(one)
    # the shards of the stream are the same rows, in order
    shards = [dict(r) for i in range(streamed.num_shards) for r in streamed.shard(streamed.num_shards, i)]
    assert json.dumps(shards) == json.dumps(one)


def test_unbounded_stream_keeps_giving_fresh_rows(helmet_mirror, llama2_tokenizer):
    streamed = load_dataset(
        "helmet",
        "gen_niah_single_1_3k",
        split="dev",
        streaming=True,
        mirror=helmet_mirror,
        tokenizer=llama2_tokenizer,
        generate={"rows": None},
    )
    rows = list(streamed.take(7))
    assert len(rows) == 7 and len({r["query_id"] for r in rows}) == 7
    assert all(json.loads(r["metadata"])["haystack"] == "noise" for r in rows)


def test_no_generated_row_shares_a_key_or_value_with_the_matching_eval_rows(
    helmet_mirror, llama2_tokenizer, tmp_path
):
    rows = gen("gen_niah_multikey_2_8k", helmet_mirror, llama2_tokenizer, tmp_path, rows=4)
    strings = set()
    for length in ("8k", "16k", "32k", "64k", "128k"):
        for row in load_dataset(
            "helmet",
            f"ruler_mk_needle_{length}",
            split="eval",
            mirror=helmet_mirror,
            tokenizer=llama2_tokenizer,
            cache_dir=str(tmp_path / "e"),
        ):
            strings.update([row["question"], *row["answers"]])
            strings.update(s for pair in NEEDLE.findall(row["input"]) for s in pair)
    assert len(strings) > 100
    for row in rows:
        drawn = {s for pair in NEEDLE.findall(row["input"]) for s in pair}
        assert len(drawn) > 100
        assert drawn.isdisjoint(strings)


def test_the_task_excludes_every_needle_of_the_eval_rows(helmet_mirror, llama2_tokenizer, tmp_path):
    from longbench_suite.api import get_builder

    builder = get_builder("helmet/gen_niah_multikey_2_8k", mirror=helmet_mirror, tokenizer=llama2_tokenizer)
    task = builder.config.task
    eval_rows = load_dataset(
        "helmet", "ruler_mk_needle_32k", split="eval", mirror=helmet_mirror, tokenizer=llama2_tokenizer
    )
    row = eval_rows[0]
    strings = task.eval_strings(
        type(
            "I",
            (),
            {"fields": {"query": row["question"], "context": row["input"]}, "answers": row["answers"]},
        )()
    )
    assert {row["question"], *row["answers"]} <= strings
    assert {s for pair in NEEDLE.findall(row["input"]) for s in pair} <= strings


def test_scoring_and_rewards_take_generated_rows(helmet_mirror, llama2_tokenizer, tmp_path):
    from longbench_suite.metrics import score

    rows = gen("gen_niah_multivalue_4k", helmet_mirror, llama2_tokenizer, tmp_path, haystack="needle")
    right = [" " + ", ".join(r["answers"]) for r in rows]
    wrong = [" 0000000" for _ in rows]
    assert score("gen_niah_multivalue_4k", rows, right, split="dev").metrics["ruler_recall"] == pytest.approx(
        100
    )
    assert score("gen_niah_multivalue_4k", rows, wrong, split="dev").metrics["ruler_recall"] == 0
    reward = reward_function("helmet/gen_niah_multivalue_4k")
    columns = {c: rows[c] for c in rows.column_names}
    assert reward(rows["input"], right, **columns) == [1.0] * len(rows)


@pytest.mark.parametrize(
    ("config", "options", "message"),
    [
        ("gen_niah_multikey_2_8k", {"sede": 1}, "unknown generate option"),
        ("gen_niah_multikey_2_8k", {"rows": 0}, "rows must be a positive integer"),
        ("gen_niah_multikey_2_8k", {"recipe": "lm-eval"}, "recipe must be one of"),
        ("gen_niah_multivalue_8k", {}, "essay haystack needs a file"),
        ("gen_niah_multikey_2_8k", {"haystack": "hay"}, "haystack must be one of"),
        ("gen_json_kv_8k", {"recipe": "ruler"}, "JSON KV takes only the seed and rows"),
        ("gen_niah_multikey_2_60", {}, "no haystack fits"),
    ],
)
def test_bad_options_fail_in_one_line_naming_the_option(
    config, options, message, helmet_mirror, llama2_tokenizer, tmp_path
):
    with pytest.raises(SuiteError, match=message):
        gen(config, helmet_mirror, llama2_tokenizer, tmp_path, **options)


def test_any_length_resolves_and_unknown_lengths_do_not():
    from longbench_suite import registry

    assert registry.resolve("gen_niah_multikey_2_48k") == ("helmet", "gen_niah_multikey_2_48k")
    assert registry.resolve("helmet/gen_json_kv_1m") == ("helmet", "gen_json_kv_1m")
    with pytest.raises(SuiteError):
        registry.resolve("gen_niah_multikey_2_48q")
    with pytest.raises(SuiteError):
        registry.resolve("nq_48k")  # a task that reads upstream files has only its declared lengths


def test_an_edited_essay_file_is_a_new_build(tmp_path):
    essay = tmp_path / "essay.txt"
    essay.write_text("One sentence. Another sentence.\n")
    options = dict(generate={"haystack": "essay", "essay": str(essay)}, tokenizer="words")
    first = get_builder("helmet/gen_niah_single_1_8k", cache_dir=str(tmp_path / "c"), **options).config_id
    again = get_builder("helmet/gen_niah_single_1_8k", cache_dir=str(tmp_path / "c"), **options).config_id
    essay.write_text("One sentence. Another, longer sentence.\n")
    edited = get_builder("helmet/gen_niah_single_1_8k", cache_dir=str(tmp_path / "c"), **options).config_id
    assert first == again != edited
