"""Generated recall rows (``docs/generate.md``): exact sizes at any length and tokenizer, determinism
in every build mode, no key or value of an ``eval`` row, clear errors, scoring and rewards."""

from __future__ import annotations

import json
import logging
import random
import re
import uuid

import pytest
from tokenizers import Tokenizer

from longbench_suite import get_builder, load_dataset
from longbench_suite.errors import OptionError, SuiteError
from longbench_suite.fit import fastcount
from longbench_suite.fit.tokenizers import load_tokenizer
from longbench_suite.generate.count import PromptCounter
from longbench_suite.generate.niah import VARIANTS, Excluded, draw, drawer, uuid_run
from longbench_suite.generate.words import key_words
from longbench_suite.training.rewards import reward_function
from tests.specs import spec

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


def counter_of(tokenizer: str, llama2_tokenizer: str, monkeypatch):
    """cl100k, or Llama-2 with fastokens (``"llama2"``) or without (``"llama2 without fastokens"``)."""
    if tokenizer == "cl100k":
        return load_tokenizer("cl100k_base")
    if tokenizer != "llama2":
        monkeypatch.setenv(fastcount.ENV, "0")
    return load_tokenizer(Tokenizer.from_file(llama2_tokenizer))


@pytest.mark.parametrize("tokenizer", ["llama2", "llama2 without fastokens", "cl100k"])
def test_line_summed_counts_equal_whole_prompt_counts(tokenizer, llama2_tokenizer, cl100k, monkeypatch):
    counter = counter_of(tokenizer, llama2_tokenizer, monkeypatch)
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


@pytest.mark.parametrize("tokenizer", ["llama2", "llama2 without fastokens", "cl100k"])
def test_a_prompt_and_its_tokens_before_any_character_are_counted_together_exactly(
    tokenizer, llama2_tokenizer, cl100k, monkeypatch
):
    counter = counter_of(tokenizer, llama2_tokenizer, monkeypatch)
    counting = PromptCounter(counter)
    rng = random.Random(9)
    words = ["One", "of", "the", " magic", "7654321.", "é", "😀", "  spaced", "{x}", "ab-cd", ":", "\t", "1"]
    split = 0
    for _ in range(80):
        lines = tuple(
            " ".join(rng.choice(words) for _ in range(rng.randint(0, 9))) for _ in range(rng.randint(1, 9))
        )
        head = rng.choice(["", "Intro text.\n", "A\nB\n", "no break "])
        tail = rng.choice(["\nWhat is it?", "\n\nKey: x\nValue:", " tail"])
        text = head + "\n".join(lines) + tail
        for at in {rng.randrange(1, len(text) + 1) for _ in range(4)}:
            whole, before = counting.count_and_prefix(head, lines, tail, at)
            assert whole == counter.count(text)
            if before is not None:  # None: no rule splits there, the caller counts the prefix itself
                split += 1
                assert before == counter.count(text[:at], special=False), (text, at)
    # the fast backends split most prompts; tokenizers alone counts them line by line and never splits
    assert (split > 20) == (tokenizer != "llama2 without fastokens")


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_a_long_line_is_split_at_the_last_space_before_the_answer_exactly(encoding, cl100k, o200k):
    """An essay haystack is one line: under tiktoken's encodings the prompt and its prefix are counted
    from a split at the last space that follows another character, whatever whitespace or script is
    around it (runs of spaces, tabs, no-break spaces, line breaks after punctuation, digits, CJK)."""
    counter = load_tokenizer(encoding)
    counting = PromptCounter(counter)
    rng = random.Random(11)
    words = ["It", "was", "1999.", "don't", "  two", "\u00a0nbsp", "\t", "x\n", ".\n", "汉字", "é", "😀"]
    words += ["1234567", "—"]
    for _ in range(60):
        essay = " ".join(rng.choice(words) for _ in range(rng.randint(1, 60)))
        head, tail = "Some text.\n", rng.choice(["\nWhat is it?", " The answer is", "\n\n"])
        text = head + essay + tail
        for at in {rng.randrange(1, len(text) + 1) for _ in range(6)}:
            whole, before = counting.count_and_prefix(head, (essay,), tail, at)
            assert whole == counter.count(text)
            assert before is None or before == counter.count(text[:at], special=False), (text, at)


@pytest.mark.parametrize("tokenizer", ["llama2", "cl100k"])
def test_a_noise_prompts_tokens_before_its_answer_are_summed_from_remembered_lines(
    tokenizer, llama2_tokenizer, cl100k, monkeypatch
):
    counter = counter_of(tokenizer, llama2_tokenizer, monkeypatch)
    counting = PromptCounter(counter)
    rng = random.Random(3)
    noise = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
    needles = ["One of the special magic numbers for tall-tree is: 1234567.", "9 lives", "é  x\t"]
    given = 0
    for _ in range(40):
        lines = [noise] * rng.randint(1, 30)
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(needles))
        head, tail = rng.choice(["", "Intro.\n", "no break "]), "\nWhat is it?"
        text = head + "\n".join(lines) + tail
        for at in {rng.randrange(1, len(text) + 1) for _ in range(5)}:
            before = counting.count_remembered_prefix(head, lines, tail, at)
            if before is not None:
                given += 1
                assert before == counter.count(text[:at], special=False), (text, at)
    assert (given > 50) == (tokenizer == "cl100k")  # Llama-2 counts the prefix itself


def test_fresh_lines_and_long_lines_are_counted_but_not_remembered(llama2):
    counting = PromptCounter(llama2)
    counting.count("Intro.\n", ("a needle 1", "a needle 2"), "\nQuestion?")
    remembered = dict(counting._lines)
    assert "\na needle 2" in remembered  # the line rule applies: repeated lines are remembered
    fresh = tuple(f"One of the special magic numbers for key-{i} is: {i}." for i in range(50))
    essay = ("word " * 2000 + "end.",)
    for lines, kind in ((fresh, {"fresh": True}), (essay, {})):
        text = "Intro.\n" + "\n".join(lines) + "\nQuestion?"
        assert counting.count("Intro.\n", lines, "\nQuestion?", **kind) == llama2.count(text)
        assert counting._lines == remembered


def test_a_full_line_memory_is_cleared_without_losing_the_counts_of_the_prompt_being_counted(
    llama2, monkeypatch
):
    from longbench_suite.generate import count

    monkeypatch.setattr(count, "MAX_LINES", 4)
    counting = PromptCounter(llama2)
    for lines in (("a", "b"), ("a", "c"), ("d", "e", "f"), ("a", "g", "h", "i", "j")):
        text = "Head\n" + "\n".join(lines) + "\nQ?"
        assert counting.count("Head\n", lines, "\nQ?") == llama2.count(text)
        assert len(counting._lines) <= 4 + len(lines) + 2


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
    assert drawer(rng, "words")() == free.keys[0]  # the free stream's first draw is the banned key


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
        pick = random.Random(seed)
        kinds = [pick.choice(sorted(ruler)) for _ in range(300)]
        assert set(kinds) == set(ruler)  # every kind, interleaved
        made = {kind: drawer(ours, kind) for kind in ruler}
        assert [made[kind]() for kind in kinds] == [ruler[kind](theirs) for kind in kinds]
        assert ours.getstate() == theirs.getstate()


def test_a_run_of_uuids_in_one_call_is_rulers_uuids_one_by_one():
    for seed, count in ((0, 1), (7, 2), (42, 801)):
        ours, theirs = random.Random(seed), random.Random(seed)
        ours.random(), theirs.random()  # not at the start of a generator block
        expected = [str(uuid.UUID(int=theirs.getrandbits(128), version=4)) for _ in range(count)]
        assert uuid_run(ours, count) == expected
        assert ours.getstate() == theirs.getstate()
    # an excluded UUID among them: nothing drawn, the caller draws one by one
    rng = random.Random(3)
    state = rng.getstate()
    drawn = uuid_run(rng, 5)
    rng.setstate(state)
    assert uuid_run(rng, 5, frozenset([drawn[3]])) is None
    assert rng.getstate() == state


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


def assert_filled(rows, counter, budget: int, length: int) -> None:
    """Every row fits its budget, fills it to within 2%, and carries its answers and answer prefix."""
    for row in rows:
        tokens = counter.count(row["input"])
        assert row["input_tokens"] == tokens <= budget == row["input_budget"]
        assert tokens >= 0.98 * budget, (row["metadata"], tokens, budget)
        assert row["max_length"] == length
        assert all(answer in row["input"] for answer in row["answers"])
        assert row["input"].endswith(row["answer_prefix"])


@pytest.fixture(scope="module")
def essay_file(tmp_path_factory) -> str:
    """The essay RULER's parity runs read (``tests/upstream/ruler_niah``), as a plain-text file."""
    import gzip
    from pathlib import Path

    fixture = Path(__file__).parent / "upstream" / "ruler_niah" / "essay.json.gz"
    with gzip.open(fixture, "rt", encoding="utf-8") as f:
        text = json.load(f)["text"]
    path = tmp_path_factory.mktemp("essay") / "essay.txt"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_needle_rows_fill_their_budget_within_2_percent(helmet_mirror, llama2_tokenizer, tmp_path):
    """The issue's case: needle-haystack rows at 6000 tokens under Llama-2 (they filled 89-100%)."""
    rows = gen("gen_niah_multikey_2_6000", helmet_mirror, llama2_tokenizer, tmp_path, rows=30)
    assert len(rows) == 30
    assert_filled(rows, load_tokenizer(llama2_tokenizer), 6000 - 50, 6000)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("config", "max_new_tokens", "options"),
    [
        ("gen_niah_multikey_2_6k", 50, {}),  # needle haystack: word keys, number values
        ("gen_niah_multikey_3_7000", 100, {}),  # needle haystack: UUID keys and values
        ("gen_niah_single_1_32k", 50, {}),  # noise haystack
        ("gen_niah_multivalue_5000", 50, {"essay": True}),  # essay haystack
        ("gen_json_kv_5k", 100, {}),
    ],
)
@pytest.mark.parametrize("tokenizer", ["llama2", "cl100k", "tiny"])
def test_rows_fill_their_budget_within_2_percent_under_any_tokenizer(
    config, max_new_tokens, options, tokenizer, helmet_mirror, llama2_tokenizer, cl100k, tiny_tokenizer,
    essay_file, tmp_path,
):
    spec = {"llama2": llama2_tokenizer, "cl100k": "cl100k_base", "tiny": tiny_tokenizer}[tokenizer]
    options = {"essay": essay_file} if options else {}
    rows = gen(config, helmet_mirror, spec, tmp_path, rows=12, **options)
    length = {"6k": 6144, "7000": 7000, "32k": 32768, "5000": 5000, "5k": 5120}[config.rsplit("_", 1)[1]]
    assert len(rows) == 12
    assert_filled(rows, load_tokenizer(spec), length - max_new_tokens, length)


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


def test_an_unbounded_stream_is_the_bounded_rows_in_order_and_its_shards_never_repeat_a_row(
    helmet_mirror, llama2_tokenizer, tmp_path
):
    options = dict(split="dev", mirror=helmet_mirror, tokenizer=llama2_tokenizer)
    streamed = load_dataset(
        "helmet", "gen_niah_single_1_3k", streaming=True, generate={"rows": None}, **options
    )
    bounded = gen("gen_niah_single_1_3k", helmet_mirror, llama2_tokenizer, tmp_path, rows=4).to_list()
    assert json.dumps([dict(r) for r in streamed.take(4)]) == json.dumps(bounded)
    first, second = (list(streamed.shard(2, i).take(3)) for i in range(2))
    assert not {r["query_id"] for r in first} & {r["query_id"] for r in second}


@pytest.mark.slow
def test_rulers_recipe_is_one_stream_however_it_is_sharded_or_prepared(
    helmet_mirror, llama2_tokenizer, tmp_path
):
    options = dict(split="dev", mirror=helmet_mirror, tokenizer=llama2_tokenizer)
    generate = {"rows": 4, "recipe": "ruler"}
    one = load_dataset(
        "helmet", "gen_niah_single_1_3k", cache_dir=str(tmp_path / "a"), generate=generate, **options
    )
    two = load_dataset(
        "helmet",
        "gen_niah_single_1_3k",
        cache_dir=str(tmp_path / "b"),
        generate=generate,
        num_proc=2,
        **options,
    )
    streamed = load_dataset("helmet", "gen_niah_single_1_3k", streaming=True, generate=generate, **options)
    assert len(one) == 4 and len({r["query_id"] for r in one}) == 4
    assert json.dumps(two.to_list()) == json.dumps(one.to_list())
    assert json.dumps([dict(r) for r in streamed]) == json.dumps(one.to_list())


def test_an_unbounded_generator_is_refused_when_prepared(helmet_mirror, llama2_tokenizer, tmp_path):
    with pytest.raises(
        OptionError, match=r"gen_niah_single_1_3k: rows=None generates without end.*streaming=True"
    ):
        gen("gen_niah_single_1_3k", helmet_mirror, llama2_tokenizer, tmp_path, rows=None)
    assert not list((tmp_path / "cache").rglob("*.arrow"))


def test_no_generated_row_shares_a_key_or_value_with_the_matching_eval_rows(
    helmet_mirror, llama2_tokenizer, tmp_path
):
    rows = gen("gen_niah_multikey_2_8k", helmet_mirror, llama2_tokenizer, tmp_path, rows=4)
    strings = set()
    for length in spec("helmet").tasks["ruler_mk_needle"]:
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
        ("gen_niah_multikey_2_8k", {"rows": True}, "rows must be a positive integer"),  # --generate rows=true
        ("gen_niah_multikey_2_8k", {"seed": False}, "seed must be an integer"),
        ("gen_niah_multikey_2_8k", {"recipe": "lm-eval"}, "recipe must be one of"),
        ("gen_niah_multivalue_8k", {}, "essay haystack needs a file"),
        ("gen_niah_multikey_2_8k", {"haystack": "hay"}, "haystack must be one of"),
        ("gen_json_kv_8k", {"recipe": "ruler"}, "JSON KV takes only the seed, rows and screen"),
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


# -- check: no generated row shares a key, value or needle with the matching eval rows -----------------


def test_the_generators_leakage_rule_finds_needles_and_uuids_in_a_row():
    from longbench_suite.benchmarks.helmet.generated import TASKS

    rules = {task.name: task.leakage for task in TASKS}
    assert rules["gen_niah_multikey_2"].reference == "ruler_mk_needle"
    assert rules["gen_niah_multikey_3"].reference == "ruler_mk_uuid"
    assert rules["gen_niah_multivalue"].reference == "ruler_mv"
    assert rules["gen_json_kv"].reference == "json_kv"
    text = (
        "Intro.\nOne of the special magic numbers for calm-otter is: 1234567.\n"
        "Essay words. One of the special magic uuids for 0f0e0d0c-aaaa-4bbb-8ccc-111122223333 is: "
        "9a8b7c6d-1111-4222-9333-444455556666. More essay.\nWhat is the special magic number for "
        "calm-otter mentioned in the provided text?"
    )
    assert rules["gen_niah_multikey_2"].strings({"input": text}) == {
        "calm-otter",
        "1234567",
        "0f0e0d0c-aaaa-4bbb-8ccc-111122223333",
        "9a8b7c6d-1111-4222-9333-444455556666",
    }
    kv = '{"0f0e0d0c-aaaa-4bbb-8ccc-111122223333": "9a8b7c6d-1111-4222-9333-444455556666"}\nKey: x'
    assert rules["gen_json_kv"].strings({"input": kv}) == {
        "0f0e0d0c-aaaa-4bbb-8ccc-111122223333",
        "9a8b7c6d-1111-4222-9333-444455556666",
    }


def _check(config, mirror, tokenizer, cache):
    from longbench_suite.check import check

    return check(
        [get_builder(config, mirror=mirror, tokenizer=tokenizer, cache_dir=cache, generate={"rows": 3})]
    )


def _eval_strings(task, length, mirror, tokenizer, cache, pattern):
    rows = load_dataset(
        "helmet", f"{task}_{length}", split="eval", mirror=mirror, tokenizer=tokenizer, cache_dir=cache
    )
    found = [match for text in rows["input"] for match in re.findall(pattern, text)]
    return [s for match in found for s in ((match,) if isinstance(match, str) else match)]


@pytest.mark.slow
def test_check_reports_no_leak_for_generated_rows_and_fails_on_a_planted_one(
    helmet_mirror, llama2_tokenizer, tmp_path, monkeypatch
):
    from longbench_suite.generate import kv

    clean = _check("helmet/gen_json_kv_4k", helmet_mirror, llama2_tokenizer, str(tmp_path / "a"))
    assert clean.ok, clean.format()
    [split] = clean.splits
    assert (split.config, split.split, split.rows, split.leaked) == ("helmet/gen_json_kv_4k", "dev", 3, 0)
    [reference] = clean.references
    assert reference.task == "helmet/json_kv"
    assert reference.lengths == spec("helmet").tasks["json_kv"]
    assert len(reference.found) > 1000
    assert "leaked" in clean.format().splitlines()[0]

    # a generator that emits a key of a 64k eval row as the first demonstration key of every row
    planted = _eval_strings("json_kv", "64k", helmet_mirror, llama2_tokenizer, str(tmp_path / "e"), UUID)[7]
    original, drawn = kv.random_uuid, []

    def leaky(rng, excluded):
        value = original(rng, excluded)
        drawn.append(value)
        return planted if len(drawn) == 1 else value

    monkeypatch.setattr(kv, "random_uuid", leaky)
    leaked = _check("helmet/gen_json_kv_4k", helmet_mirror, llama2_tokenizer, str(tmp_path / "b"))
    assert not leaked.ok
    assert leaked.splits[0].leaked == 1
    [violation] = leaked.violations
    assert violation.check == "leakage" and violation.where == "helmet/gen_json_kv_4k dev"
    assert (
        "1 of 3 rows share a key, value or needle with the eval rows of helmet/json_kv" in violation.message
    )
    assert f"row 0 ('{planted}' in helmet/json_kv_" in violation.message
    assert "check: FAILED" in leaked.format()


@pytest.mark.slow
def test_cli_check_of_a_needle_generator_fails_when_it_draws_an_eval_value(
    helmet_mirror, llama2_tokenizer, tmp_path, monkeypatch, capsys
):
    from longbench_suite import cli
    from longbench_suite.generate import niah

    argv = ["check", "gen_niah_multikey_2_4k", "--mirror", helmet_mirror, "--tokenizer", llama2_tokenizer]
    assert cli.main([*argv, "--cache-dir", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    assert "helmet/gen_niah_multikey_2_4k" in out and "check: OK" in out
    assert re.search(r"helmet/gen_niah_multikey_2_4k\s+dev\s+500\s+-\s+-\s+0\s", out)
    assert "keys of the eval rows of helmet/ruler_mk_needle (8k, 16k, 32k, 64k, 128k)" in out

    # every 40th number the generator draws is a value of a 128k eval row's haystack
    values = _eval_strings(
        "ruler_mk_needle", "128k", helmet_mirror, llama2_tokenizer, str(tmp_path / "e"), NEEDLE
    )
    planted = next(v for v in values if v.isdigit())
    original, calls = niah.drawer, []

    def leaky(rng, kind, excluded=frozenset()):
        one = original(rng, kind, excluded)

        def value():
            calls.append(kind)
            return planted if kind == "numbers" and len(calls) % 40 == 0 else one()

        return value

    monkeypatch.setattr(niah, "drawer", leaky)
    assert cli.main([*argv, "--cache-dir", str(tmp_path / "b")]) == 1
    out = capsys.readouterr().out
    assert re.search(r"helmet/gen_niah_multikey_2_4k\s+dev\s+500\s+-\s+-\s+500\s", out)
    assert "[leakage] helmet/gen_niah_multikey_2_4k dev: 500 of 500 rows share a key, value or needle" in out
    assert f"'{planted}' in helmet/ruler_mk_needle_" in out
    assert "check: FAILED" in out


# -- scoring, the CLI's generate options, the card ----------------------------------------------------


def test_every_generator_scores_with_its_matching_tasks_metric():
    from longbench_suite.benchmarks.helmet.generated import TASKS
    from longbench_suite.metrics.scoring import metrics_module

    module = metrics_module("helmet")
    for task in TASKS:
        matching = task.matching()
        assert (task.metric, task.max_new_tokens) == (matching.metric, matching.max_new_tokens), task.name
        assert module.task_scoring(task.name).headline == module.task_scoring(matching.name).headline


@pytest.mark.slow
def test_json_kv_rows_score_and_reward_through_cli_and_api(helmet_mirror, llama2_tokenizer, tmp_path, capsys):
    from longbench_suite import cli
    from longbench_suite.metrics import score

    cache = str(tmp_path / "cache")
    rows = gen("gen_json_kv_4k", helmet_mirror, llama2_tokenizer, tmp_path, rows=4, seed=3)
    right = [" " + r["output"] for r in rows]
    assert score("gen_json_kv_4k", rows, right, split="dev").metrics["substring_exact_match"] == 100
    assert score("gen_json_kv_4k", rows, [" x"] * 4, split="dev").metrics["substring_exact_match"] == 0
    reward = reward_function("helmet/gen_json_kv_4k")
    columns = {c: rows[c] for c in rows.column_names}
    assert reward(rows["input"], [right[0], " x", right[2], " x"], **columns) == [1.0, 0.0, 1.0, 0.0]
    # the CLI builds the same rows from --generate and scores a prediction file against them
    predictions = tmp_path / "p.jsonl"
    lines = [
        {"query_id": r["query_id"], "prediction": r["output"] if i < 3 else "x"} for i, r in enumerate(rows)
    ]
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    argv = ["score", "gen_json_kv_4k", "--split", "dev", "--predictions", str(predictions)]
    argv += ["--generate", "rows=4", "--generate", "seed=3", "--mirror", helmet_mirror]
    argv += ["--tokenizer", llama2_tokenizer, "--cache-dir", cache, "--output", str(tmp_path / "s.json")]
    assert cli.main(argv) == 0
    [result] = json.loads((tmp_path / "s.json").read_text())["results"]
    assert result["headline"] == {"substring_exact_match": pytest.approx(75.0)}


def test_generate_options_on_the_command_line():
    from longbench_suite.options import generate_options

    assert generate_options([]) is None
    assert generate_options(["seed=7", "rows=null", "haystack=noise", "essay=/a/b=c.json"]) == {
        "seed": 7,
        "rows": None,
        "haystack": "noise",
        "essay": "/a/b=c.json",
    }
    with pytest.raises(SuiteError, match="--generate 'seed': expected KEY=VALUE"):
        generate_options(["seed"])


@pytest.mark.slow
def test_the_card_of_an_export_describes_its_generated_configs(helmet_mirror, llama2_tokenizer, tmp_path):
    from longbench_suite import export

    out = tmp_path / "out"
    options = dict(mirror=helmet_mirror, tokenizer=llama2_tokenizer, cache_dir=str(tmp_path / "c"))
    export(["nq_8k"], str(out), histogram=False, **options)
    assert "## Generated configs" not in (out / "README.md").read_text()
    generate = {"rows": 2, "seed": 11, "haystack": "needle"}
    export(["gen_niah_multivalue_3k"], str(out), histogram=False, generate=generate, **options)
    card = (out / "README.md").read_text()
    section = card.split("## Generated configs", 1)[1].split("\n## ", 1)[0]
    [line] = [x for x in section.splitlines() if x.startswith("| `gen_")]
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[:5] == ["`gen_niah_multivalue_3k`", "niah_multivalue", "helmet", "11", "2"]
    assert "`ruler_mv` (8k, 16k, 32k, 64k, 128k)" in cells and "needle" in cells
    assert "`nq_8k`" not in section and "byte for byte" in section and "check CONFIG" in section
    assert card.count("## Generated configs") == 1


# -- the screen against HELMET's eval rows ---------------------------------------------------------------


def test_without_the_screen_no_helmet_file_is_read(llama2_tokenizer, tmp_path, caplog):
    """Offline, no mirror: HELMET's archive cannot be had, and ``screen=False`` never asks for it."""
    caplog.set_level(logging.INFO, logger="longbench_suite")
    options = {"rows": 2, "screen": False}
    rows = load_dataset(
        "helmet",
        "gen_niah_multikey_2_4k",
        split="dev",
        tokenizer=llama2_tokenizer,
        cache_dir=str(tmp_path / "cache"),
        generate=options,
    )
    assert len(rows) == 2 and len(NEEDLE.findall(rows[0]["input"])) > 50
    assert "screening" not in caplog.text and "data.tar.gz" not in caplog.text
    builder = get_builder("helmet/gen_niah_multikey_2_4k", tokenizer=llama2_tokenizer, generate=options)
    facts = builder.config.task.generated_facts("4k", options)
    assert facts["avoids eval rows of"] == "none (screen off: rows may share keys with HELMET's eval)"


def test_the_first_screen_is_announced_and_later_builds_read_it_from_the_cache(
    helmet_mirror, llama2_tokenizer, tmp_path, caplog, monkeypatch
):
    from longbench_suite.benchmarks.helmet import generated
    from longbench_suite.source import Member, SourceResolver

    asked = []
    original = SourceResolver.resolve

    def resolve(self, sources):
        asked.extend(sources.values())
        return original(self, sources)

    monkeypatch.setattr(SourceResolver, "resolve", resolve)
    caplog.set_level(logging.WARNING, logger="longbench_suite")
    generated.SCREENS.clear()  # what another test of this process computed
    gen("gen_niah_multikey_2_4k", helmet_mirror, llama2_tokenizer, tmp_path, seed=1)
    [announced] = [r.getMessage() for r in caplog.records if "screening" in r.getMessage()]
    assert "the eval rows of ruler_mk_needle at 8k, 16k, 32k, 64k, 128k" in announced
    assert "data/ruler/niah_multikey_2/validation_131072.jsonl" in announced
    assert "HELMET's data.tar.gz (about 11.3 GB" in announced
    assert "generate={'screen': False} skips it (rows may then share keys with HELMET's eval)" in announced
    assert any(isinstance(s, Member) and "niah_multikey_2" in s.path for s in asked)
    [stored] = (tmp_path / "cache").rglob("memo/generate-screen/*/*.json")
    keys = set(json.loads(stored.read_text()))
    assert len(keys) > 100

    # as a new process would: nothing in memory; the screen comes from disk, HELMET's files are not read
    generated.SCREENS.clear()
    generated._ANNOUNCED.clear()
    asked.clear()
    caplog.clear()
    rows = gen("gen_niah_multikey_2_4k", helmet_mirror, llama2_tokenizer, tmp_path, seed=2)
    assert not [s for s in asked if isinstance(s, Member)]
    assert "screening" not in caplog.text
    for row in rows:  # and it still screens
        drawn = {s for pair in NEEDLE.findall(row["input"]) for s in pair}
        assert len(drawn) > 50 and drawn.isdisjoint(keys)


def test_rulers_recipe_skips_rows_asking_for_a_screened_string_but_not_rows_holding_one(
    helmet_mirror, llama2_tokenizer, tmp_path, monkeypatch
):
    from longbench_suite.benchmarks.helmet.generated import SCREENS, NiahTask

    def inputs(cache, **options):
        SCREENS.clear()  # the screen this process may hold from another test
        return gen("gen_niah_multikey_2_3k", helmet_mirror, llama2_tokenizer, tmp_path / cache, **options)

    free = inputs("free", recipe="ruler", rows=4, screen=False)
    answer = free[0]["answers"][0]
    distractor = next(v for _, v in NEEDLE.findall(free[0]["input"]) if v != answer)
    monkeypatch.setattr(NiahTask, "eval_keys", lambda self, files, env: frozenset({answer}))
    assert inputs("asked", recipe="ruler", rows=3)["input"] == free["input"][1:]
    monkeypatch.setattr(NiahTask, "eval_keys", lambda self, files, env: frozenset({distractor}))
    assert inputs("held", recipe="ruler", rows=4)["input"] == free["input"]
