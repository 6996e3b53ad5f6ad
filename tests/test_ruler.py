"""The ``ruler`` benchmark: RULER's own rows as ``eval`` (against records its unchanged ``niah.py``
wrote, ``tests/upstream/ruler_niah/``), fresh ``dev`` rows screened against them, any length, and
the three prompt modes (``docs/ruler.md``)."""

from __future__ import annotations

import gzip
import itertools
import json
import random
from pathlib import Path

import pytest

from longbench_suite import cli, get_builder, load_dataset, registry
from longbench_suite.errors import OptionError
from longbench_suite.fit.tokenizers import load_tokenizer
from longbench_suite.generate import niah_ruler
from longbench_suite.generate.niah_ruler import ruler_rows, screen_strings, settings_of
from tests.specs import spec
from tests.upstream.ruler_niah.cases import CASES, RULER_TEMPLATE, TOKENS_TO_GENERATE

FIXTURES = Path(__file__).parent / "upstream" / "ruler_niah"
BENCH = registry.benchmark("ruler")


def fixture_lines(case: dict) -> list[str]:
    with gzip.open(FIXTURES / f"{case['name']}.jsonl.gz", "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def essay_text() -> str:
    with gzip.open(FIXTURES / "essay.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)["text"]


@pytest.fixture(scope="module")
def essay_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("essay") / "PaulGrahamEssays.json"
    path.write_text(json.dumps({"text": essay_text()}), encoding="utf-8")
    return str(path)


def tokenizer_of(case, llama2_tokenizer):
    return llama2_tokenizer if case["tokenizer"] == "llama2" else "cl100k_base"


#: the fixture cases made with a task's own ``synthetic.yaml`` settings: the benchmark's configs
OWN = [c for c in CASES if settings_of(c["args"]) == settings_of(BENCH.task(c["task"]).task_args)]


def test_the_template_is_rulers():
    assert niah_ruler.TEMPLATE + niah_ruler.ANSWER_PREFIX == RULER_TEMPLATE
    assert niah_ruler.TOKENS_TO_GENERATE == TOKENS_TO_GENERATE
    assert {c["task"] for c in OWN} >= {"niah_single_1", "niah_multikey_2", "niah_multikey_3"}


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=() if c["length"] == 4096 else pytest.mark.slow, id=c["name"]) for c in CASES],
)
def test_the_generator_writes_rulers_records_byte_for_byte(case, llama2_tokenizer, cl100k):
    """Every key of every record (``index``, ``length``, ``token_position_answer`` included), serialised
    as RULER's ``write_manifest`` does, against the line its script wrote."""
    records = ruler_rows(
        case["args"],
        load_tokenizer(tokenizer_of(case, llama2_tokenizer)),
        max_seq_length=case["length"],
        tokens_to_generate=TOKENS_TO_GENERATE,
        template=RULER_TEMPLATE,
        answer_prefix=niah_ruler.ANSWER_PREFIX,
        num_samples=case["rows"],
        seed=case["seed"],
        essay=essay_text() if case["args"]["type_haystack"] == "essay" else None,
    )
    assert [json.dumps(r) for r in records] == fixture_lines(case)


def _compare(rows, case):
    for row, line in zip(rows, fixture_lines(case), strict=True):
        ruler = json.loads(line)
        assert row["input"] == ruler["input"] + ruler["answer_prefix"]
        assert row["answer_prefix"] == ruler["answer_prefix"]
        assert row["answers"] == ruler["outputs"]
        assert row["length"] == ruler["length"]
        assert row["token_position_answer"] == ruler["token_position_answer"]
        assert json.loads(row["metadata"])["ruler_index"] == ruler["index"]


def _fast(case) -> bool:
    return case["tokenizer"] == "llama2" and case["length"] == 4096 and case["task"] in ("niah_single_1",)


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=() if _fast(c) else pytest.mark.slow, id=c["name"]) for c in OWN],
)
def test_eval_and_dev_rows_are_rulers(case, llama2_tokenizer, cl100k, essay_file, tmp_path):
    """Seed 42 is ``eval`` (RULER's defaults); another seed is ``dev`` unscreened: RULER's rows of it."""
    essay = {"essay": essay_file} if case["args"]["type_haystack"] == "essay" else {}
    split = "eval" if case["seed"] == 42 else "dev"
    generate = {**essay, **({"seed": case["seed"], "screen": False} if split == "dev" else {})}
    rows = load_dataset(
        "ruler",
        f"{case['task']}_{case['length']}",
        split=split,
        streaming=True,
        tokenizer=tokenizer_of(case, llama2_tokenizer),
        cache_dir=str(tmp_path),
        generate=generate or None,
    )
    _compare(list(itertools.islice(iter(rows), case["rows"])), case)


def test_a_screened_dev_row_asking_an_eval_key_is_skipped(llama2_tokenizer):
    """The stream keeps RULER's draws: the rows are RULER's own, less those asking for an excluded key."""
    case = next(c for c in OWN if c["task"] == "niah_single_1" and c["tokenizer"] == "llama2")
    counter = load_tokenizer(llama2_tokenizer)

    def rows(n, excluded=frozenset()):
        return list(
            ruler_rows(
                case["args"],
                counter,
                max_seq_length=case["length"],
                tokens_to_generate=128,
                template=RULER_TEMPLATE,
                answer_prefix=niah_ruler.ANSWER_PREFIX,
                num_samples=n,
                seed=5,
                excluded=excluded,
            )
        )

    free = rows(3)
    first = screen_strings(free[0])
    assert first == {*free[0]["outputs"], free[0]["answer_prefix"].split(" for ")[1].split(" mentioned")[0]}
    assert rows(2, frozenset(first)) == free[1:]
    assert rows(2, frozenset(free[1]["outputs"])) == [free[0], free[2]]


def test_screen_strings_split_a_multi_key_question():
    record = {
        "input": "What are all the special magic numbers for a-b, c-d, e-f, and g-h mentioned in the text?",
        "outputs": ["1", "2", "3", "4"],
        "answer_prefix": " The special magic numbers for a-b, c-d, e-f, and g-h mentioned in the text are",
    }
    assert screen_strings(record) == {"a-b", "c-d", "e-f", "g-h", "1", "2", "3", "4"}


def test_the_last_question_is_read_from_the_end_as_the_whole_text_scan_finds_it():
    rng = random.Random(4)
    parts = ["special magic numbers for ", "x-y", " mentioned in the ", "\n", "special magic ", "a, b"]
    parts.append(" for ")
    found = 0
    for _ in range(3000):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(0, 14)))
        every = niah_ruler._ASKED.findall(text)
        assert niah_ruler.last_asked(text) == (every[-1] if every else None), text
        found += bool(every)
    assert found > 300


@pytest.mark.slow
def test_dev_avoids_every_eval_key(tmp_path):
    """A screened ``dev`` shares no key or answer with ``eval`` at the listed lengths and its own (the
    strings its one leakage rule reads; ``check`` verifies it on the samples, ``tests/test_check.py``)."""
    config, demo_cache = "niah_single_1_3k", str(tmp_path)
    dev = load_dataset("ruler", config, split="dev", demo=True, cache_dir=demo_cache, generate={"rows": 60})
    task = BENCH.task("niah_single_1")
    seen = set()
    for length in (*task.lengths, "3k"):
        seen |= {
            s
            for row in load_dataset(
                "ruler", f"niah_single_1_{length}", split="eval", demo=True, cache_dir=demo_cache
            )
            for s in row["screened"]
        }
    assert len(dev) == 60
    assert not seen & {s for row in dev for s in row["screened"]}


def test_eval_alone_is_built_without_dev_and_a_build_of_both_serves_it(tiny_tokenizer, tmp_path, capsys):
    """``dev``'s screen draws ``eval`` at every listed length: asking for ``eval`` (``load_dataset``,
    ``build --split``) builds it alone, in a cache of its own; once every split is built, that build
    serves ``eval``, with the same rows."""
    options = dict(tokenizer=tiny_tokenizer, cache_dir=str(tmp_path))
    given = ["--tokenizer", tiny_tokenizer, "--cache-dir", str(tmp_path)]
    cli.main(["build", "ruler/niah_single_1_2k", "--split", "eval", *given])
    built = capsys.readouterr().out.split("\t")
    assert built[1:3] == ["eval", "500 rows"] and "niah_single_1_2k-only-eval" in built[3]
    alone = load_dataset("ruler", "niah_single_1_2k", split="eval", **options)
    assert alone.cache_files[0]["filename"].startswith(built[3].strip())
    assert get_builder("ruler/niah_single_1_2k", split="eval", **options).info.splits.keys() == {"eval"}
    assert not list(tmp_path.rglob("ruler-screen"))  # dev's screen never ran
    both = load_dataset("ruler", "niah_single_1_2k", generate={"rows": 3}, **options)
    assert set(both) == {"dev", "eval"} and list(tmp_path.rglob("ruler-screen"))
    again = load_dataset("ruler", "niah_single_1_2k", split="eval", generate={"rows": 3}, **options)
    assert again.cache_files == both["eval"].cache_files
    assert again["input"] == alone["input"] and again["query_id"] == alone["query_id"]


def test_configs_are_listed_at_rulers_lengths_and_built_at_any():
    expected = spec("ruler")
    assert BENCH.config_names == expected.configs
    assert BENCH.lookup("niah_multikey_2_48k") == (BENCH.task("niah_multikey_2"), "48k")
    assert BENCH.lookup("niah_single_1_3000")[1] == "3000"
    assert not BENCH.has_config("niah_single_1_100")  # no room beside 128 generated tokens
    task = BENCH.task("niah_single_1")
    assert task.max_length("128k") == 131072 and task.max_length("3000") == 3000


@pytest.mark.parametrize(
    "generate, message",
    [
        ({"seed": 42}, r"seed 42 is eval's"),
        ({"rows": 0}, r"rows must be a positive integer"),
        ({"prompt": "system"}, r"prompt must be one of"),
        ({"tokens_to_generate": 512}, r"budget of prompt='user'"),
        ({"colour": 1}, r"unknown generate option"),
    ],
)
def test_bad_generate_options_are_one_line_errors(generate, message, tiny_tokenizer):
    with pytest.raises(OptionError, match=message):
        get_builder("ruler/niah_single_1_4k", tokenizer=tiny_tokenizer, generate=generate)


def test_lengths_past_the_limit_and_max_input_tokens_are_refused(tiny_tokenizer, tmp_path):
    with pytest.raises(OptionError, match="at most"):
        get_builder("ruler/niah_single_1_17m", tokenizer=tiny_tokenizer)
    with pytest.raises(OptionError, match="sized by its length"):
        _first("niah_single_1_4k", tmp_path, tokenizer=tiny_tokenizer, max_input_tokens=2000)


def _first(config, tmp_path, **options):
    rows = load_dataset("ruler", config, split="eval", streaming=True, cache_dir=str(tmp_path), **options)
    return next(iter(rows))


#: RULER's ``meta-chat`` model template (``scripts/data/template.py``) as a chat template
META_CHAT = "{% for message in messages %}[INST] {{ message['content'] }} [/INST]{% endfor %}"


def test_prompt_modes(llama2_tokenizer, cl100k, tmp_path):
    """completion: RULER's ``base`` template; assistant: the chat template's user turn, then the prefix
    (RULER's model templates: its ``meta-chat`` rows, byte for byte); user: the prefix in the user turn,
    no prefill, a larger budget."""
    config, given = "niah_single_1_4k", {"tokenizer": llama2_tokenizer}
    completion = _first(config, tmp_path, **given)
    assert completion["input"].endswith(completion["answer_prefix"]) and not completion["use_chat_template"]
    assert completion["chat_template"] is None and completion["max_new_tokens"] == 128

    rows = load_dataset(
        "ruler",
        config,
        split="eval",
        streaming=True,
        cache_dir=str(tmp_path),
        tokenizer="cl100k_base",
        chat_template=META_CHAT,
    )
    with gzip.open(FIXTURES / "meta-chat-niah_single_1-noise-cl100k-4096-seed42.jsonl.gz", "rt") as f:
        ruler = [json.loads(line) for line in f]
    for row, record in zip(itertools.islice(iter(rows), 3), ruler, strict=True):
        assert row["input"] == record["input"] + record["answer_prefix"]
        assert row["answer_prefix"] == record["answer_prefix"] and row["length"] == record["length"]
        assert row["chat_template"] and not row["use_chat_template"]  # a completion of the templated prompt

    user = _first(config, tmp_path, generate={"prompt": "user"}, **given)
    assert user["use_chat_template"] and user["answer_prefix"] == ""
    assert user["input"].endswith(" mentioned in the provided text is") and user["max_new_tokens"] == 512
    assert user["length"] <= 4096 and user["input_tokens"] < completion["input_tokens"] - 300
    wide = _first(config, tmp_path, generate={"prompt": "user", "tokens_to_generate": 1000}, **given)
    assert json.loads(wide["metadata"])["tokens_to_generate"] == wide["max_new_tokens"] == 1000

    with pytest.raises(OptionError, match="give chat_template="):
        _first(config, tmp_path, generate={"prompt": "assistant"}, **given)


@pytest.mark.slow
def test_check_passes_on_the_essay_tasks_from_the_sandbox(tmp_path, capsys):
    """The essay haystack read from its declared source (the sandbox's ``essays.parquet``, trusted through
    the sandbox's manifest), built and held by ``check`` to its sizes, budget and leakage rule."""
    from longbench_suite import cli

    code = cli.main(
        [
            "check",
            "ruler/niah_single_2_4k",
            "ruler/niah_multikey_1_8k",
            "--demo",
            "--cache-dir",
            str(tmp_path),
        ]
    )
    report = capsys.readouterr().out
    assert code == 0, report
    assert "check: OK — 2 configs, 4 splits, no violations" in report


@pytest.mark.slow
def test_helmet_and_ruler_share_one_generator(llama2_tokenizer, tmp_path):
    """HELMET's ``gen_*`` configs with RULER's recipe and the ``ruler`` benchmark's rows of the same seed
    are the same prompts: one implementation of RULER's NIAH (``generate/niah_ruler.py``)."""
    given = {"tokenizer": llama2_tokenizer, "cache_dir": str(tmp_path), "split": "dev", "streaming": True}
    helmet = load_dataset(
        "helmet", "gen_niah_multikey_2_4k", generate={"recipe": "ruler", "seed": 3, "screen": False}, **given
    )
    ruler = load_dataset("ruler", "niah_multikey_2_4k", generate={"seed": 3, "screen": False}, **given)
    pairs = list(itertools.islice(zip(helmet, ruler, strict=False), 3))
    assert len(pairs) == 3
    for h, r in pairs:
        assert h["input"] == r["input"] and h["answers"] == r["answers"]
        assert h["input_tokens"] == r["input_tokens"]


def test_dev_streams_without_end(tiny_tokenizer, tmp_path):
    rows = load_dataset(
        "ruler",
        "niah_single_1_2k",
        split="dev",
        streaming=True,
        tokenizer=tiny_tokenizer,
        cache_dir=str(tmp_path),
        generate={"rows": None, "screen": False, "seed": 1},
    )
    taken = list(itertools.islice(iter(rows), 520))
    assert len(taken) == 520 and len({r["query_id"] for r in taken}) > 500
    with pytest.raises(OptionError, match="stream"):
        load_dataset(
            "ruler",
            "niah_single_1_2k",
            split="dev",
            tokenizer=tiny_tokenizer,
            cache_dir=str(tmp_path),
            generate={"rows": None},
        )


def test_predict_asks_a_user_mode_row_for_its_own_budget():
    """A ``user``-mode row carries its larger generation budget in ``max_new_tokens``; ``predict`` asks for
    it, and for the declaration's elsewhere."""
    from longbench_suite.predict import request_for

    task = BENCH.task("niah_single_1")
    row = {
        "use_chat_template": True,
        "query_id": "q",
        "input": "text",
        "answer_prefix": "",
        "max_new_tokens": 512,
    }
    request = request_for(task, 0, row)
    assert request.chat and request.prompt == "text" and request.max_tokens == 512
    assert request_for(task, 0, {**row, "max_new_tokens": None}).max_tokens == task.max_new_tokens == 128


def test_every_family_states_rulers_constants_and_each_task_its_own_screen():
    """Each task's template, prefix and budget are its generator module's, which are RULER's
    (``constants.py``, checked against the recorded rows by ``tests/test_ruler_parity.py``); the
    leakage rule says what that family screens."""
    tasks = {t.name: t for t in registry.benchmark("ruler").tasks}
    assert set(tasks) == set(spec("ruler").tasks)
    for task in tasks.values():
        module = task.generator()
        assert task.max_new_tokens == module.TOKENS_TO_GENERATE
        assert (task.template.user, task.template.answer_prefix) == (module.TEMPLATE, module.ANSWER_PREFIX)
    assert "set of common words" in tasks["cwe"].leakage.reason
    assert "question" in tasks["qa_1"].leakage.reason
    # cwe's screened string is its whole answer set, read by the rule from the row's answers, not from
    # its screened column
    row = {"input": "1. b 2. a" + tasks["cwe"].template.answer_prefix, "answers": ["b", "a"], "screened": []}
    assert tasks["cwe"].leakage.strings(row) == {"a\nb"}


def test_english_words_is_read_only_when_cwe_asks_for_it():
    """The 8.5 MB word list is passed as a reader the generator calls for a list longer than its pool."""
    from longbench_suite.benchmarks.ruler.tasks import Options
    from longbench_suite.errors import SourceError
    from longbench_suite.source import FileRef

    cwe = next(t for t in registry.benchmark("ruler").tasks if t.name == "cwe")
    missing = FileRef("/nonexistent/english_words.json", "english_words.json (missing)")
    values = cwe.source_values({"english_words": missing}, Options())
    assert callable(values["english_words"])  # nothing read yet
    with pytest.raises(SourceError, match=r"english_words.json \(missing\)"):
        values["english_words"]()


# -- one-line errors naming the config and what to do ----------------------------------------------------


def test_prompt_mode_errors_name_the_chat_template_option_and_flag(tiny_tokenizer, tmp_path):
    """``user`` leaves the template to the chat server, so ``chat_template=`` is refused rather than
    ignored; ``assistant`` without one names the keyword and the command-line flag."""
    given = {"tokenizer": tiny_tokenizer}
    with pytest.raises(OptionError, match=r"^niah_single_1_4k: generate prompt='user' leaves the chat tem"):
        _first("niah_single_1_4k", tmp_path, chat_template=META_CHAT, generate={"prompt": "user"}, **given)
    with pytest.raises(OptionError, match=r"give chat_template= .*--chat-template tokenizer"):
        _first("niah_single_1_4k", tmp_path, generate={"prompt": "assistant"}, **given)


def test_too_short_lengths_name_the_config_and_a_longer_length(tiny_tokenizer, tmp_path):
    from longbench_suite.errors import DataFormatError, UnknownNameError

    given = {"tokenizer": tiny_tokenizer}
    short = r"^niah_single_1_300: niah: no haystack fits 173 tokens;.*longer"
    with pytest.raises(DataFormatError, match=short):
        _first("niah_single_1_300", tmp_path, **given)
    budget = r"an input budget of 50 tokens .* choose a longer length"
    with pytest.raises(OptionError, match=rf"^fwe_100: fwe: {budget}"):
        _first("fwe_100", tmp_path, **given)
    # below the task's tokens_to_generate no config exists: the message gives the shortest
    shortest = r"'niah_single_1_100': .* above its 128 .*\(niah_single_1_129 at the least"
    with pytest.raises(UnknownNameError, match=shortest):
        get_builder("ruler/niah_single_1_100", **given)
    assert not BENCH.has_config("niah_single_1_128") and BENCH.has_config("niah_single_1_129")


def test_a_missing_essay_source_points_to_the_essay_option(tiny_tokenizer, tmp_path):
    from longbench_suite.errors import SourceNotProvidedError

    empty = tmp_path / "data"
    empty.mkdir()
    instead = r"essays.parquet is not in data_dir .*generate=\{'essay': PATH\} \(--generate essay=PATH\)"
    with pytest.raises(SourceNotProvidedError, match=instead):
        _first("niah_single_2_4k", tmp_path, tokenizer=tiny_tokenizer, data_dir=str(empty))


@pytest.mark.slow
def test_vt_and_cwe_build_in_the_sandbox_under_the_whitespace_tokenizer(tmp_path):
    """The sandbox's small BPE makes VT's example and CWE's smallest prompt too long (docs/ruler.md §6);
    ``tokenizer="words"`` builds both from the sandbox's sources."""
    for config in ("vt_4k", "cwe_4k"):
        row = _first(config, tmp_path, demo=True, tokenizer="words")
        assert row["length"] <= 4096 and row["answers"] and row["input"].endswith(row["answer_prefix"])
