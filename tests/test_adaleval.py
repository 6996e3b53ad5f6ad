"""Ada-LEval (TSort, BestAnswer): configs, exact prompts, the eval/dev partition, recorded source facts.

References are written here from ``docs/adaleval.md`` (§2.1 prefix rule, §3/§4 fields and official index,
§5.1 prompt assembly) with ``json`` and ``tiktoken`` used directly. The BestAnswer parity test runs on
the 20 genuine upstream records in ``tests/realdata/ada_leval/stackselect_1k.json``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil

import pytest
import tiktoken

from longbench_suite import get_builder, load_dataset, prepare, registry
from longbench_suite.errors import DataFormatError, SplitUnavailableError, SuiteError
from longbench_suite.samplefiles import write_to_mirror
from longbench_suite.source import mirrored
from tests.specs import adaleval as spec
from tests.support.http_mirror import MirrorServer
from tests.support.realdata import REALDATA_DIR

REALDATA = str(REALDATA_DIR / "ada_leval" / "stackselect_1k.json")
HOST = "http://opencompass.openxlab.space/utils/AdaLEval"
TSORT = spec.SPEC.tasks["tsort"]
BESTANSWER = spec.SPEC.tasks["bestanswer"]

# docs/adaleval.md §5.1, typed from the spec's repr strings.
META = (
    "\nYou are an AI assistant. Your job is to find out the most helpful answer to a given question.\nEach "
    "time, you will be provided with a question and n answers to this question.\nEach answer begins with an "
    "'A' and a number(e.g. A4), which represents its designation.\nYou need to determine which answer is the "
    "most helpful one to the question.\nThe case sample is shown below and you should give me the answer in "
    "the format exactly the same as the sample. \n\nHowever, you should NOT focus on the content of sample "
    "answer. \n\nSample Input (format only): \n\nThe question is given below.\nXXX(The content of question)\n"
    "Possible answers are given below.\nA1:\nXXX(The content of answer 1)\nA2:\nXXX(The content of answer 2)"
    "\n.\n.\n.\nAn:\nXXX(The content of answer n)\nNow the answers are over, please decide which answer is "
    "the most helpful one to the question. \nYou must give me only the designation of the MOST helpful "
    "answer.\nSample Output (format only): \n\nAnswer: The designation of the most helpful answer.(e.g. A4 "
    "means answer 4 is the most helpful answer) \n\n\n"
)
TAIL = (
    "\nNow the answers are over, please decide which answer is the most helpful one to the question. \nYou "
    "must give me only the designation of the MOST helpful answer.\n"
)
# docs/adaleval.md §5.2
TSORT_HEADER = (
    "\n    You are an AI assistant. Your job is to sort multiple book sections into the correct order.\n    "
    "Each time, you will be provided with 4 pieces of text.\n    These texts form a continuous part of a "
    "book, but are provided in random order.\n    You need to find the correct order and return the answer "
    "in a string.\n    For example, if you output [4, 1, 3, 2], that means the correct order is: Part 4 -> "
    "Part 1 -> Part 3 -> Part 2.\n    You will also be provided with the neighboring paragraphs before and "
    "after the 4 pieces of texts. \n\n    The case sample is shown below and you should give me the answer "
    "in the format exactly the same as the sample. \n\n    However, you should NOT focus on the content of "
    "sample answer. \n\n    Please do NOT output any extra content. \n    Sample Input (format only): \n\n"
    "    Before: XXX (Text before the continuous book part)\n\n\n    Part 1: XXX\n\n\n    Part 2: XXX\n\n\n"
    "    Part 3: XXX\n\n\n    Part 4: XXX\n\n\n    After: XXX (Text after the continuous book part)\n\n\n"
    "    Sample Output (format only): \n\n    Answer: [4, 1, 3, 2] \n\n\n\n"
)


def reference_prompt(record: dict) -> str:
    """The official runner's BestAnswer prompt (docs/adaleval.md §5.1 steps 1-6)."""
    prompt = META + "The question is given below.\n" + record["question"] + "\n\n"
    prompt += "Possible answers are given below.\n"
    for j, answer in enumerate(record["all_answers"], start=1):
        prompt += "A" + str(j) + ":\n\n" + answer + "\n\n"
    return prompt + TAIL


def n_eval(length: str) -> int:
    return spec.SETTINGS[length].eval_rows


def n_api(length: str) -> int:
    return spec.SETTINGS[length].api_rows


def file_path(mirror: str, stem: str, length: str) -> str:
    return mirrored(f"{HOST}/{stem}_{length}.json", mirror)


def write_file(mirror: str, stem: str, length: str, rows: list) -> str:
    data = json.dumps(rows, indent=4, ensure_ascii=False).encode("utf-8")
    return write_to_mirror(mirror, f"{HOST}/{stem}_{length}.json", data)


@pytest.fixture(scope="module")
def full_mirror(tmp_path_factory) -> str:
    from longbench_suite.benchmarks.adaleval import samples

    root = str(tmp_path_factory.mktemp("adaleval-full"))
    samples.write_samples(root, samples.FULL)
    return root


@pytest.fixture(scope="module")
def real_mirror(tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("adaleval-real"))
    dest = file_path(root, "stackselect", "1k")
    os.makedirs(os.path.dirname(dest))
    shutil.copyfile(REALDATA, dest)
    return root


@pytest.fixture(scope="module")
def real_rows(real_mirror, cl100k, tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("real-cache"))
    return load_dataset("adaleval", "bestanswer_1k", split="eval", mirror=real_mirror, cache_dir=cache)


# -- configs ------------------------------------------------------------------------------------


def test_every_setting_of_each_task_is_listed():
    expected = {f"adaleval/tsort_{x}" for x in TSORT} | {f"adaleval/bestanswer_{x}" for x in BESTANSWER}
    assert set(registry.list_configs("adaleval")) == expected
    tsort_1k = get_builder("adaleval/tsort_1k", tokenizer="words")
    facts = " ".join(str(v) for v in tsort_1k.config.task.info("1k").values())
    assert "not in the paper" in facts and "not reported in the paper" in tsort_1k.config.description
    assert "not in the paper" not in " ".join(str(v) for v in tsort_1k.config.task.info("2k").values())
    for length in BESTANSWER:
        assert get_builder(f"bestanswer_{length}", tokenizer="words").config.task.max_length(length) == (
            spec.SETTINGS[length].tokens
        )


@pytest.mark.slow
def test_every_config_builds_over_loopback_http(tmp_path, cl100k):
    from longbench_suite.benchmarks.adaleval import samples

    mirror = str(tmp_path / "mirror")
    samples.write_samples(mirror, samples.DEMO)
    enc = tiktoken.get_encoding("cl100k_base")
    with MirrorServer(mirror) as server:
        builders = [
            get_builder(name, mirror=server.url, cache_dir=str(tmp_path / "cache"))
            for name in registry.list_configs("adaleval")
        ]
        prepare(builders)
        requested = {path for _, path in server.requests}
    for builder in builders:
        task, length = builder.config.task, builder.config.length
        stem = "stackselect" if task.name == "bestanswer" else "textsort"
        assert f"opencompass.openxlab.space/utils/AdaLEval/{stem}_{length}.json" in requested
        with open(file_path(mirror, stem, length), encoding="utf-8") as f:
            source = json.load(f)
        built = builder.as_dataset()
        assert len(built["eval"]) == min(len(source), n_eval(length))
        for split in built.values():
            assert set(split["max_length"]) == {spec.SETTINGS[length].tokens}
            assert set(split["use_chat_template"]) == {True} and set(split["answer_prefix"]) == {""}
            assert list(split["prompt_tokens_cl100k"]) == [len(enc.encode(p)) for p in split["input"]]
            assert list(split["answers"]) == [[o] for o in split["output"]]


# -- BestAnswer on genuine records ----------------------------------------------------------------


def test_real_bestanswer_prompts_equal_the_official_assembly(real_rows):
    with open(REALDATA, encoding="utf-8") as f:
        records = json.load(f)
    assert len(real_rows) == len(records) == 20
    assert list(real_rows["input"]) == [reference_prompt(r) for r in records]
    assert list(real_rows["output"]) == [r["answer"] for r in records]
    assert list(real_rows["official_index"]) == [f"{r['question_id']}_{r['answer']}" for r in records]
    assert list(real_rows["num_choices"]) == [len(r["all_answers"]) for r in records]
    for field in ("question_id", "question", "all_answers", "answer", "tags"):
        assert list(real_rows[field]) == [r[field] for r in records], field
    assert list(real_rows["row_index"]) == list(range(20)) and all(real_rows["in_api_subset"])


def test_real_bestanswer_token_counts(real_rows):
    enc = tiktoken.get_encoding("cl100k_base")
    with open(REALDATA, encoding="utf-8") as f:
        expected = [len(enc.encode(reference_prompt(r))) for r in json.load(f)]
    assert list(real_rows["prompt_tokens_cl100k"]) == expected
    # docs/adaleval.md §8: over the whole historical file, full prompts measure 386 … 1,116 tokens (mean
    # 954.7; Table 1 says max 1,128). These 20 rows are rows 0-19 of that file.
    assert all(386 <= n <= 1116 for n in expected)
    assert len(enc.encode(TAIL)) == 34  # §5.1 wrapper budget


def test_hand_checked_bestanswer_prompt(real_rows):
    row = real_rows[13]
    question = (
        "\nI want to disable the orange highlight that occurs when touching a listView row. So far in my xml "
        'I have tried the following:\nandroid:focusable="false"\nandroid:focusableInTouchMode="false"\n'
        'android:clickable="false"\n\nMore information: I want there to be zero difference when a user '
        "touches the screen on this listView object.\n"
    )
    first = (
        "\nThe orange highlight effect is a style on the ListView.  This article gives a good overview of "
        "how to override the listView style.\nEssentially, you have a selector that specifies different "
        "style elements based on the current state. \nsee this for short and quick solution "
        "https://stackoverflow.com/a/12242564/185022\n"
    )
    second = (
        '\nAdd this to your xml:\nandroid:listSelector="@android:color/transparent"\n\nAnd for the problem '
        "this may work (I'm not sure and I don't know if there are better solutions):\nYou could apply a "
        "ColorStateList to your TextView.\n"
    )
    expected = (
        META
        + "The question is given below.\n"
        + question
        + "\n\nPossible answers are given below.\nA1:\n\n"
        + first
        + "\n\nA2:\n\n"
        + second
        + "\n\n"
        + TAIL
    )
    assert row["input"] == expected
    assert (row["output"], row["official_index"], row["query_id"]) == (
        "A2",
        "2907335_A2",
        "bestanswer-2907335",
    )
    assert row["tags"] == ["android", "android-listview", "highlighting"] and row["num_choices"] == 2


# -- dev that does not exist ------------------------------------------------------------------------


def test_dev_of_a_prefix_only_file_is_unavailable_prepared_and_streaming(real_mirror, cl100k, tmp_path):
    message = r"no 'dev' split: the hosted stackselect_1k.json holds 20 rows.*first 1000"
    options = dict(mirror=real_mirror, cache_dir=str(tmp_path / "cache"))
    for _ in range(2):  # a fresh build, then the prepared cache
        with pytest.raises(SplitUnavailableError, match=message):
            load_dataset("adaleval", "bestanswer_1k", split="dev", **options)
    assert set(load_dataset("adaleval", "bestanswer_1k", **options)) == {"eval"}
    for split in ("dev", "eval+dev"):
        with pytest.raises(SplitUnavailableError, match=message):
            load_dataset("adaleval", "bestanswer_1k", split=split, streaming=True, **options)


def test_dev_is_unavailable_when_every_later_row_shares_a_group(tmp_path, cl100k):
    rows = [
        {
            "question_id": str(100 + i % 150),
            "question": "\nq",
            "all_answers": ["\na", "\nb"],
            "answer": "A1",
            "tags": ["t"],
        }
        for i in range(230)
    ]  # rows 200-229 repeat questions of rows 50-79
    mirror = str(tmp_path / "m")
    write_file(mirror, "stackselect", "32k", rows)
    message = (
        r"holds 230 rows, but every row after the evaluated prefix \(the first 200\) shares its question_id"
    )
    for streaming in (False, True):
        with pytest.raises(SplitUnavailableError, match=message):
            load_dataset(
                "adaleval",
                "bestanswer_32k",
                split="dev",
                streaming=streaming,
                mirror=mirror,
                cache_dir=str(tmp_path / "c"),
            )


@pytest.mark.parametrize("streaming", [False, True])
def test_eval_needs_only_its_own_file_dev_says_which_others_it_lacks(
    full_mirror, cl100k, tmp_path, streaming
):
    """Upstream reads one setting's file; only dev's cross-setting exclusion reads the others."""
    mine = str(tmp_path / "only-64k")
    own = file_path(full_mirror, "textsort", "64k")
    with open(own, encoding="utf-8") as f:
        records = json.load(f)
    assert len(records) > n_eval("64k")  # rows past the prefix: dev would need the other files
    write_file(mine, "textsort", "64k", records)
    options = dict(mirror=mine, cache_dir=str(tmp_path / "c"), streaming=streaming)
    rows = list(load_dataset("adaleval", "tsort_64k", split="eval", **options))
    assert [r["input"] for r in rows] == [r["prompt"] for r in records[: n_eval("64k")]]
    message = (
        r"adaleval/tsort_64k has no 'dev' split in this build: dev also reads textsort_1k\.json, .*"
        r"textsort_128k\.json \(a question or book another setting evaluates is kept out of dev\), and "
        r".*textsort_1k\.json is not in the mirror"
    )
    with pytest.raises(SplitUnavailableError, match=message):
        list(load_dataset("adaleval", "tsort_64k", split="dev", **options))


# -- the partition ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config, stem, group",
    [
        ("bestanswer_1k", "stackselect", "question_id"),
        ("bestanswer_32k", "stackselect", "question_id"),
        ("tsort_2k", "textsort", "book_id"),
        ("tsort_64k", "textsort", "book_id"),
    ],
)
def test_eval_is_the_file_prefix_and_dev_the_later_rows_of_other_groups(
    full_mirror, cl100k, tmp_path, config, stem, group
):
    length = config.split("_")[1]
    with open(file_path(full_mirror, stem, length), encoding="utf-8") as f:
        source = json.load(f)
    assert len(source) > n_eval(length)
    eval_groups = {str(r[group]) for r in source[: n_eval(length)]}
    # A group another setting of the task evaluates stays out of dev too.
    elsewhere = set()
    for other in registry.benchmark("adaleval").lookup(config)[0].lengths:
        if other != length:
            with open(file_path(full_mirror, stem, other), encoding="utf-8") as f:
                elsewhere |= {str(r[group]) for r in json.load(f)[: n_eval(other)]}
    dev_index = [
        i
        for i, r in enumerate(source)
        if i >= n_eval(length) and str(r[group]) not in eval_groups | elsewhere
    ]
    assert 0 < len(dev_index) < len(source) - n_eval(length), "the fixture should exercise the group rule"
    assert any(str(source[i][group]) in elsewhere for i in range(n_eval(length), len(source))), (
        "the fixture should exercise the cross-setting rule"
    )

    built = load_dataset("adaleval", config, mirror=full_mirror, cache_dir=str(tmp_path / "c"))
    assert list(built["eval"]["row_index"]) == list(range(n_eval(length)))
    assert list(built["dev"]["row_index"]) == dev_index
    assert not {str(g) for g in built["dev"][group]} & {str(g) for g in built["eval"][group]}
    for split in ("eval", "dev"):
        rows = built[split]
        if stem == "stackselect":
            expected = [reference_prompt(source[i]) for i in rows["row_index"]]
        else:
            expected = [source[i]["prompt"] for i in rows["row_index"]]
        assert list(rows["input"]) == expected
    # in_api_subset: the first 200 (below 32k) or 50 eval rows, nested in eval; never in dev.
    assert list(built["eval"]["in_api_subset"]) == [i < n_api(length) for i in range(n_eval(length))]
    assert not any(built["dev"]["in_api_subset"])


@pytest.mark.slow
def test_streaming_equals_prepared(full_mirror, cl100k, tmp_path):
    with MirrorServer(full_mirror) as server:
        for config in ("tsort_64k", "bestanswer_2k"):
            options = dict(mirror=server.url, cache_dir=str(tmp_path / "c"))
            prepared = load_dataset("adaleval", config, **options)
            for split in ("eval", "dev"):
                streamed = load_dataset("adaleval", config, split=split, streaming=True, **options)
                assert list(streamed) == prepared[split].to_list()


def test_sha256_and_row_count_are_recorded(full_mirror, cl100k, tmp_path):
    with MirrorServer(full_mirror) as server:
        for config, stem in (("bestanswer_4k", "stackselect"), ("tsort_128k", "textsort")):
            length = config.split("_")[1]
            builder = get_builder(config, mirror=server.url, cache_dir=str(tmp_path / "c"))
            builder.download_and_prepare()
            with open(file_path(full_mirror, stem, length), "rb") as f:
                data = f.read()
            recorded = builder.as_dataset(split="eval").info.download_checksums[
                f"{HOST}/{stem}_{length}.json"
            ]
            assert recorded == {
                "num_bytes": len(data),
                "checksum": hashlib.sha256(data).hexdigest(),
                "num_rows": len(json.loads(data)),
            }


# -- TSort fixtures -----------------------------------------------------------------------------------


def tsort_record(answer, book_id, offsets) -> dict:
    body = "    Before: b\n\n\n    Part 1: x\n\n\n    Part 2: y\n\n\n    Part 3: z\n\n\n    Part 4: w\n\n\n"
    return {
        "prompt": TSORT_HEADER + body + "    After: a\n\n\n",
        "answer": answer,
        "book_id": book_id,
        "para_offset": offsets,
    }


@pytest.mark.parametrize("answer_as_json", [False, True])
@pytest.mark.parametrize("book_id_as_str", [False, True])
def test_tsort_answer_and_book_id_in_either_stored_form(tmp_path, cl100k, answer_as_json, book_id_as_str):
    orders = ([4, 1, 3, 2], [1, 2, 3, 4], [2, 4, 1, 3])
    records = [
        tsort_record(
            json.dumps(o) if answer_as_json else o,
            str(17 + i // 2) if book_id_as_str else 17 + i // 2,
            [64 * i, 64 * i + 5, 64 * i + 9, 64 * i + 14],
        )
        for i, o in enumerate(orders)
    ]
    mirror = str(tmp_path / "m")
    write_file(mirror, "textsort", "2k", records)
    rows = load_dataset("adaleval", "tsort_2k", split="eval", mirror=mirror, cache_dir=str(tmp_path / "c"))
    assert list(rows["answer"]) == [list(o) for o in orders]
    assert list(rows["output"]) == ["[4, 1, 3, 2]", "[1, 2, 3, 4]", "[2, 4, 1, 3]"]
    assert list(rows["book_id"]) == ["17", "17", "18"]
    assert list(rows["official_index"]) == ["17_0_5_9_14", "17_64_69_73_78", "18_128_133_137_142"]
    assert list(rows["query_id"]) == ["tsort-17_0_5_9_14", "tsort-17_64_69_73_78", "tsort-18_128_133_137_142"]
    assert list(rows["input"]) == [r["prompt"] for r in records]
    assert list(rows["para_offset"]) == [r["para_offset"] for r in records]


def test_records_upstream_accepts_build_empty_tags_and_offsets_and_float_offsets(tmp_path, cl100k):
    """Upstream reads neither ``tags`` nor anything of ``para_offset`` but its string form."""
    offsets = ([], [0.0, 5.0, 9.0, 14.0], [64, 69, 73, 78])
    tsort = [tsort_record([4, 1, 3, 2], 17, o) for o in offsets]
    question = {"question": "\nq", "all_answers": ["\na", "\nb"], "answer": "A2"}
    bestanswer = [
        {"question_id": "1", **question, "tags": []},
        {"question_id": "2", **question},  # no tags at all
        {"question_id": "3", **question, "tags": ["t"]},
    ]
    mirror = str(tmp_path / "m")
    write_file(mirror, "textsort", "2k", tsort)
    write_file(mirror, "stackselect", "2k", bestanswer)
    opts = dict(split="eval", mirror=mirror, cache_dir=str(tmp_path / "c"))
    rows = load_dataset("adaleval", "tsort_2k", **opts)
    assert list(rows["official_index"]) == [f"17_{'_'.join(str(x) for x in o)}" for o in offsets]
    assert rows[1]["official_index"] == "17_0.0_5.0_9.0_14.0"  # str() of upstream's floats
    assert list(rows["para_offset"]) == [[], [0, 5, 9, 14], [64, 69, 73, 78]]
    assert list(load_dataset("adaleval", "bestanswer_2k", **opts)["tags"]) == [[], None, ["t"]]


# -- bad input and options --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "stem, record, message",
    [
        (
            "stackselect",
            {"question_id": "1", "question": "\nq", "all_answers": ["\na"], "answer": "A2", "tags": []},
            r"row 0: 'answer' must designate one of the 1 candidates",
        ),
        (
            "stackselect",
            {"question_id": "1", "question": "\nq", "all_answers": ["\na"], "tags": ["t"]},
            r"row 0: the record has no field 'answer'",
        ),
        (
            "stackselect",
            {"question_id": 1.5, "question": "\nq", "all_answers": ["\na"], "answer": "A1", "tags": ["t"]},
            r"row 0: field 'question_id' must be a string or an integer, got 1.5",
        ),
        (
            "textsort",
            tsort_record("[4, 1", 3, [0]),
            r"row 0: field 'answer' must be a non-empty list of integers \(or that list as a JSON string\)",
        ),
        (
            "textsort",
            tsort_record([4, 1, 3, 2], 3, "12"),
            r"row 0: field 'para_offset' must be a list of integers or whole-number floats, got '12'",
        ),
        (
            "textsort",
            tsort_record([4, 1, 3, 2], 3, [0, 2.5]),
            r"row 0: field 'para_offset' must be a list of integers or whole-number floats, got \[0, 2.5\]",
        ),
    ],
)
def test_malformed_records_are_named(tmp_path, stem, record, message):
    mirror = str(tmp_path / "m")
    write_file(mirror, stem, "4k", [record])
    config = ("bestanswer" if stem == "stackselect" else "tsort") + "_4k"
    with pytest.raises(DataFormatError, match=rf"{stem}_4k\.json, {message}"):
        load_dataset("adaleval", config, mirror=mirror, tokenizer="words", cache_dir=str(tmp_path / "c"))


def test_no_truncation_and_counts_only_in_cl100k(real_mirror, tmp_path):
    with pytest.raises(SuiteError, match=r"never cut .* max_input_tokens does not apply"):
        load_dataset(
            "adaleval",
            "bestanswer_1k",
            mirror=real_mirror,
            tokenizer="words",
            max_input_tokens=500,
            cache_dir=str(tmp_path / "c"),
        )
    rows = load_dataset(
        "adaleval",
        "bestanswer_1k",
        split="eval",
        mirror=real_mirror,
        tokenizer="words",
        cache_dir=str(tmp_path / "c"),
    )
    assert set(rows["prompt_tokens_cl100k"]) == {None}


# -- samples -----------------------------------------------------------------------------------------


def test_samples_are_in_the_hosted_layout(full_mirror):
    from longbench_suite.benchmarks.adaleval import samples

    for stem, lengths in (("stackselect", BESTANSWER), ("textsort", TSORT)):
        for length in lengths:
            with open(file_path(full_mirror, stem, length), "rb") as f:
                raw = f.read()
            rows = json.loads(raw)
            assert raw == json.dumps(rows, indent=4, ensure_ascii=False).encode("utf-8")
            if stem == "textsort":
                assert all(r["prompt"].startswith(TSORT_HEADER) for r in rows)
                assert all(sorted(r["answer"]) == [1, 2, 3, 4] for r in rows)
                assert {type(r["book_id"]) for r in rows} == {int}
            else:
                assert set(rows[0]) == {"question_id", "question", "all_answers", "answer", "tags"}
                assert all(1 <= int(r["answer"][1:]) <= len(r["all_answers"]) for r in rows)
                assert all(r["question"].startswith("\n") for r in rows)
    # The question of row i is the same at every BestAnswer setting, as the paper builds them.
    first = []
    for length in BESTANSWER:
        with open(file_path(full_mirror, "stackselect", length), encoding="utf-8") as f:
            first.append(json.load(f)[5])
    assert len({(r["question_id"], r["question"]) for r in first}) == 1
    assert samples.DEMO_CONFIGS
