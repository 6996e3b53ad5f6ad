"""LongBench v2: upstream's prompt files, ``pred.py``'s filling and middle cut, the rows, the source.

References are written here from ``pred.py`` (THUDM/LongBench 2e00731, ``docs/longbench-v2.md`` §3-§4):
the ``str.replace`` chain and ``ids[:b//2] + ids[-b//2:]`` decoded once, with ``tokenizers`` and
``tiktoken`` used directly. The parity fixtures recorded from upstream's unchanged ``pred.py`` live with
their own test (``tests/upstream/``).
"""

from __future__ import annotations

import hashlib
import json
import os

import pytest
import tiktoken
from tokenizers import Tokenizer

from longbench_suite import load_dataset, registry
from longbench_suite.benchmarks.longbench_v2 import prompts, samples
from longbench_suite.benchmarks.longbench_v2.lengths import LENGTHS, token_bucket
from longbench_suite.benchmarks.longbench_v2.tasks import DATA, V2_MIDDLE_CUT
from longbench_suite.errors import DataFormatError, ShortSourceError, SplitUnavailableError
from longbench_suite.fit.tokenizers import load_tokenizer
from longbench_suite.fit.tokenizers.units import CharCounter
from longbench_suite.fit.truncation import keep_middle, middle_cut_ends
from longbench_suite.render import ReplacingTemplate
from longbench_suite.source import mirrored
from longbench_suite.source.manifest import write_manifest
from tests.specs import longbench_v2 as spec
from tests.support.longbench_v2_data import write_data_dir

#: ``git ls-tree 2e00731f8d0bff23dc4325161044d0ed8af94c1e prompts/`` in THUDM/LongBench: blob ids
UPSTREAM_BLOBS = {
    "0shot.txt": "81ad9bc1e85ad7ba5b4780fe0fa87745f4bfd964",
    "0shot_cot.txt": "372d217b0d77778428092b01e93ad9a8274c366c",
    "0shot_cot_ans.txt": "06318c5f9c3d4426122ab226b345aa8ce0fad471",
    "0shot_no_context.txt": "c891fbb9910e63ecf9aee270a002b0c389fe4801",
    "0shot_rag.txt": "1d963b551a7a733172898e0d5f6f2ced54368d31",
}
FILE_OF = {"0shot": "0shot.txt", "cot": "0shot_cot.txt", "no_context": "0shot_no_context.txt"}
BENCH = "longbench_v2"


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def pred_py_prompt(template: str, item: dict) -> str:
    """``pred.py``'s ``get_pred``: the chain of replacements, in its order, each value stripped."""
    return (
        template.replace("$DOC$", item["context"].strip())
        .replace("$Q$", item["question"].strip())
        .replace("$C_A$", item["choice_A"].strip())
        .replace("$C_B$", item["choice_B"].strip())
        .replace("$C_C$", item["choice_C"].strip())
        .replace("$C_D$", item["choice_D"].strip())
    )


def pred_py_cut_hf(tok: Tokenizer, prompt: str, max_len: int) -> str:
    """``query_llm`` for a model of ``model2path``: ``tokenizer.encode`` (special tokens added), the cut,
    one decode with special tokens skipped."""
    input_ids = tok.encode(prompt).ids
    if len(input_ids) > max_len:
        input_ids = input_ids[: max_len // 2] + input_ids[-max_len // 2 :]
        prompt = tok.decode(input_ids, skip_special_tokens=True)
    return prompt


def pred_py_cut_tiktoken(enc, prompt: str, max_len: int) -> str:
    """``query_llm`` for a GPT-named model: tiktoken with ``disallowed_special=()``, a plain decode."""
    input_ids = enc.encode(prompt, disallowed_special=())
    if len(input_ids) > max_len:
        input_ids = input_ids[: max_len // 2] + input_ids[-max_len // 2 :]
        prompt = enc.decode(input_ids)
    return prompt


# -- prompts ------------------------------------------------------------------------------------


def test_prompt_texts_are_upstreams_files_byte_for_byte():
    assert set(prompts.FILES) == set(UPSTREAM_BLOBS)
    for name, text in prompts.FILES.items():
        data = text.encode("utf-8")
        assert git_blob_id(data) == UPSTREAM_BLOBS[name], name
        assert not data.endswith(b"\n"), name
    assert prompts.COT_TEXT.endswith("Let\u2019s think step by step:")
    assert "Let\u2019s think step by step: $COT$" in prompts.COT_ANSWER_TEXT
    assert "$DOC$" not in prompts.COT_ANSWER_TEXT and "$DOC$" not in prompts.NO_CONTEXT_TEXT


def test_each_task_renders_its_upstream_file_as_pred_py_fills_it():
    bench = registry.benchmark(BENCH)
    for record in samples.records(samples.DEMO)[:6]:
        for task in bench.tasks:
            fields = {k: record[k].strip() for k in task.template.fields}
            upstream = prompts.FILES[FILE_OF[task.name]]
            assert task.template.render_user(fields) == pred_py_prompt(upstream, record), task.name


def test_a_placeholder_in_a_value_is_replaced_as_upstream_replaces_it_hand_checked():
    item = {
        "context": "\n  Quoted: $Q$ or ($C_A$).\t\n",
        "question": "  Which one?  ",
        "choice_A": " one ",
        "choice_B": "two",
        "choice_C": "three",
        "choice_D": "four\n",
    }
    fields = {k: v.strip() for k, v in item.items()}
    rendered = prompts.ZERO_SHOT.render_user(fields)
    assert "<text>\nQuoted: Which one? or (one).\n</text>\n\nWhat is the correct answer" in rendered
    assert "this question: Which one?\nChoices:\n(A) one\n(B) two\n" in rendered
    tail = '(D) four\n\nFormat your response as follows: "The correct answer is (insert answer here)".'
    assert rendered.endswith(tail)
    # the CoT answer call puts the response in last: a question quoting $COT$ gets it too
    answer_call = prompts.COT_ANSWER.render_user({**fields, "question": "Why $COT$?", "cot_response": "R"})
    assert "this question: Why R?\n" in answer_call and "step by step: R\n\nBased on the above" in answer_call


def test_a_replacing_template_refuses_a_placeholder_its_text_lacks():
    with pytest.raises(ValueError, match=r"\$DOC\$"):
        ReplacingTemplate("no document here: $Q$", placeholders=(("$DOC$", "context"), ("$Q$", "question")))
    with pytest.raises(KeyError, match="question"):
        ReplacingTemplate("$Q$", placeholders=(("$Q$", "question"),)).render_user({})


# -- the cut --------------------------------------------------------------------------------------


def test_an_odd_budget_keeps_one_extra_token_from_the_tail():
    assert middle_cut_ends(7, extra_tail=True) == (3, 4)
    assert middle_cut_ends(7) == (3, 3)  # LongBench (v1)'s int(budget / 2) at each end
    assert middle_cut_ends(8, extra_tail=True) == (4, 4)
    text = "abcdefghij"
    assert keep_middle(text, CharCounter(), 5, extra_tail=True, decode_once=True) == "ab" + "hij"
    assert keep_middle(text, CharCounter(), 5) == "ab" + "ij"
    assert keep_middle(text, CharCounter(), 10, extra_tail=True, decode_once=True) == text


def _cut_texts() -> list[str]:
    """Prompts to cut: the sample records' (the long ones cross many line breaks, so the windowed path
    runs), and one whose middle is multi-byte text the join falls into."""
    texts = [pred_py_prompt(prompts.ZERO_SHOT_TEXT, r) for r in samples.records(samples.DEMO)[:6]]
    middle = "会议纪要，北京的图书馆 — “naïve” 😀 <s> </s> " * 40
    record = {**samples.records()[0], "context": "Head.\n" + middle + "\nTail."}
    texts.append(pred_py_prompt(prompts.COT_TEXT, record))
    return texts


@pytest.mark.parametrize("which", ["llama2", "tiny"])
def test_the_cut_is_pred_pys_under_hf_tokenizers(which, llama2_tokenizer, tiny_tokenizer):
    path = llama2_tokenizer if which == "llama2" else tiny_tokenizer
    counter, tok = load_tokenizer(path), Tokenizer.from_file(path)
    checked = 0
    for text in _cut_texts():
        n = len(tok.encode(text).ids)
        for budget in sorted({101, 100, 37, n // 3, n // 3 + 1, n - 1, n, 15000, 15001}):
            if budget < 2:
                continue
            expected = pred_py_cut_hf(tok, text, budget)
            for fast in (True, False):
                got = keep_middle(text, counter, budget, fast=fast, extra_tail=True, decode_once=True)
                assert got == expected, (which, budget, fast, n)
            checked += expected != text
    assert checked > 20  # most budgets cut


def test_the_cut_is_pred_pys_under_tiktoken(cl100k):
    counter, enc = load_tokenizer("cl100k_base"), tiktoken.get_encoding("cl100k_base")
    for text in _cut_texts():
        n = len(enc.encode(text, disallowed_special=()))
        for budget in sorted({101, 100, 37, n // 2 + 1, n - 1, n}):
            expected = pred_py_cut_tiktoken(enc, text, budget)
            assert keep_middle(text, counter, budget, extra_tail=True, decode_once=True) == expected, budget


def test_decoding_once_differs_from_longbench_v1s_two_decodes(llama2_tokenizer):
    """Llama-2's decoder drops a leading space at the start of a decode: v1's second decode loses the
    space at the join, v2's single decode keeps it."""
    counter = load_tokenizer(llama2_tokenizer)
    text = " ".join(f"word{i}" for i in range(200))
    v1 = keep_middle(text, counter, 41)
    v2 = keep_middle(text, counter, 41, extra_tail=True, decode_once=True)
    assert v1 != v2 and v2 == pred_py_cut_hf(Tokenizer.from_file(llama2_tokenizer), text, 41)


# -- rows -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mirror(tmp_path_factory) -> str:
    """The DEMO samples in a mirror, with a manifest (as the sandbox has)."""
    root = str(tmp_path_factory.mktemp("lb2-mirror"))
    written = samples.write_samples(root, samples.DEMO)
    write_manifest(root, written, scale="DEMO", writer="tests", sizes={})
    return root


def _options(mirror: str, tokenizer: str, tmp_path) -> dict:
    return {"mirror": mirror, "tokenizer": tokenizer, "cache_dir": str(tmp_path / "cache")}


def test_rows_are_pred_pys_prompts_cut_under_llama2(mirror, llama2_tokenizer, tmp_path):
    tok = Tokenizer.from_file(llama2_tokenizer)
    records = samples.records(samples.DEMO)
    for config in ("0shot_16k", "cot_32k", "0shot_full"):
        task, length = registry.benchmark(BENCH).lookup(config)
        rows = load_dataset(BENCH, config, split="eval", **_options(mirror, llama2_tokenizer, tmp_path))
        budget = LENGTHS[length].prompt_budget
        assert len(rows) == len(records)
        for row, record in zip(rows, records, strict=True):
            uncut = pred_py_prompt(prompts.FILES[FILE_OF[task.name]], record)
            expected = uncut if budget is None else pred_py_cut_hf(tok, uncut, budget)
            assert row["input"] == expected, (config, record["_id"])
            assert row["prompt_tokens"] == len(tok.encode(uncut).ids)
            assert row["input_truncated"] == (expected != uncut)
            assert row["length_bucket_tokens"] == token_bucket(row["prompt_tokens"])
            assert row["input_budget"] == budget and row["max_length"] == LENGTHS[length].window
            assert {k: row[k] for k in samples.records()[0] if k != "context"} == {
                k: v for k, v in record.items() if k != "context"
            }
            assert row["answers"] == [record["answer"]]
            assert row["output"] == f"The correct answer is ({record['answer']})"
        assert any(row["input_truncated"] for row in rows) == (budget is not None)


def test_no_context_rows_hold_no_document_and_no_token_bucket(mirror, tiny_tokenizer, tmp_path):
    rows = load_dataset(BENCH, "no_context_full", split="eval", **_options(mirror, tiny_tokenizer, tmp_path))
    record = samples.records()[1]
    assert rows[1]["input"] == pred_py_prompt(prompts.NO_CONTEXT_TEXT, record)
    assert set(rows["length_bucket_tokens"]) == {None}
    assert rows[0]["input_tokens"] == rows[0]["prompt_tokens"]


def test_streamed_rows_equal_prepared_rows_in_any_number_of_processes(mirror, tiny_tokenizer, tmp_path):
    options = _options(mirror, tiny_tokenizer, tmp_path)
    prepared = list(load_dataset(BENCH, "cot_16k", split="eval", **options))
    streamed = list(load_dataset(BENCH, "cot_16k", split="eval", streaming=True, **options))
    options_2 = {**options, "cache_dir": str(tmp_path / "c2")}
    two = list(load_dataset(BENCH, "cot_16k", split="eval", num_proc=2, **options_2))
    assert prepared == streamed == two and len(prepared) == samples.DEMO.records


def test_there_is_no_dev_split(mirror, tiny_tokenizer, tmp_path):
    with pytest.raises(SplitUnavailableError, match=r"publishes evaluation data only .* no 'dev' split"):
        load_dataset(BENCH, "0shot_32k", split="dev", **_options(mirror, tiny_tokenizer, tmp_path))


def test_the_token_buckets_follow_the_papers_ranges():
    assert [token_bucket(n) for n in (0, 31_999, 32_000, 128_000, 128_001)] == [
        "short",
        "short",
        "medium",
        "medium",
        "long",
    ]


def test_declarations_match_the_spec():
    bench = registry.benchmark(BENCH)
    for task, length in map(bench.lookup, bench.config_names):
        assert (LENGTHS[length].window, LENGTHS[length].prompt_budget) == tuple(spec.LENGTHS[length])
        assert task.generation.temperature == 0.1 and task.expected_sizes(length) == {"eval": spec.EVAL_ROWS}
    cot = bench.task("cot")
    follow_up = cot.generation.follow_up
    assert follow_up.max_new_tokens == 128 and bench.task("0shot").generation.follow_up is None
    row = {"question": " Q? ", **{f"choice_{x}": f" {x}1 " for x in "ABCD"}}
    assert follow_up.prompt(row, " R \n") == prompts.COT_ANSWER.render_user(
        {"question": "Q?", **{f"choice_{x}": f"{x}1" for x in "ABCD"}, "cot_response": "R"}
    )
    assert bench.task("0shot").fit == V2_MIDDLE_CUT and V2_MIDDLE_CUT.extra_tail and V2_MIDDLE_CUT.decode_once
    assert samples.declared_sizes(samples.FULL)["0shot_128k"] == {"eval": spec.EVAL_ROWS}
    assert DATA.records == spec.EVAL_ROWS and "/resolve/2b48e494f2c7a2f0af81aae178e05c7e1dde0fe9/" in DATA.url


# -- bad input ------------------------------------------------------------------------------------


def _one_line_error(folder, tokenizer, tmp_path, kind=DataFormatError) -> str:
    with pytest.raises(kind) as caught:
        load_dataset(
            BENCH, "0shot_full", split="eval", data_dir=str(folder), tokenizer=tokenizer,
            cache_dir=str(tmp_path / "cache"),
        )  # fmt: skip
    message = str(caught.value)
    assert "\n" not in message and "data.json" in message
    return message


@pytest.mark.parametrize(
    "change, named",
    [
        (lambda r: r.pop("choice_C"), "no field 'choice_C'"),
        (lambda r: r.update(answer="E"), "field 'answer' must be one of 'A', 'B', 'C', 'D', got 'E'"),
        (lambda r: r.update(difficulty="medium"), "field 'difficulty' must be one of 'easy', 'hard'"),
        (lambda r: r.update(context=None), "field 'context' must be a string"),
    ],
)
def test_a_bad_record_is_one_line_naming_the_file_record_and_field(change, named, tiny_tokenizer, tmp_path):
    records = samples.records()[:4]
    change(records[2])
    write_data_dir(str(tmp_path / "data"), records)
    message = _one_line_error(tmp_path / "data", tiny_tokenizer, tmp_path)
    assert "record 2" in message and named in message


def test_a_short_or_malformed_data_json_is_one_line(tiny_tokenizer, tmp_path):
    folder = tmp_path / "short"
    folder.mkdir()
    (folder / "data.json").write_text(json.dumps(samples.records()[:3]), encoding="utf-8")
    message = _one_line_error(folder, tiny_tokenizer, tmp_path, ShortSourceError)
    assert "holds 3 records, fewer than the 503" in message
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "data.json").write_bytes(json.dumps(samples.records()[:3]).encode()[:-40])
    assert "the file ends inside the JSON array" in _one_line_error(cut, tiny_tokenizer, tmp_path / "2")


def test_the_sample_file_is_the_hub_layout(mirror):
    path = mirrored(DATA.url, mirror)
    assert os.path.basename(path) == "data.json"
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    assert isinstance(data, list) and len(data) == samples.DEMO.records
    assert list(data[0]) == [
        "_id", "domain", "sub_domain", "difficulty", "length", "question",
        "choice_A", "choice_B", "choice_C", "choice_D", "answer", "context",
    ]  # fmt: skip


# -- data.json parsed once for every config (docs/longbench-v2.md §2) ---------------------------------


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The files :func:`iter_json_records` opens for LongBench v2's records, one entry per parse."""
    from longbench_suite.records import stored

    opened: list[str] = []
    parse = stored.iter_json_records

    def counted(ref, *args, **kwargs):
        opened.append(os.path.basename(ref.location))
        return parse(ref, *args, **kwargs)

    monkeypatch.setattr(stored, "iter_json_records", counted)
    return opened


def test_configs_built_together_parse_data_json_once(parses, tiny_tokenizer, tmp_path):
    from longbench_suite import get_builder, prepare

    folder = str(tmp_path / "data")
    write_data_dir(folder, samples.records())
    options = {"data_dir": folder, "tokenizer": tiny_tokenizer, "cache_dir": str(tmp_path / "cache")}
    configs = ("0shot_16k", "cot_32k", "no_context_full")
    built = prepare([get_builder(f"{BENCH}/{config}", **options) for config in configs])
    assert parses == ["data.json"]
    from_copy = {config: list(b.as_dataset(split="eval")) for config, b in zip(configs, built, strict=True)}
    streamed = list(load_dataset(BENCH, "0shot_full", split="eval", streaming=True, **options))
    assert parses == ["data.json"] and len(streamed) == samples.DEMO.records
    # each config alone in a cache of its own parses the file: the same rows as read from the copy
    for config, rows in from_copy.items():
        alone = load_dataset(BENCH, config, split="eval", **{**options, "cache_dir": str(tmp_path / config)})
        assert list(alone) == rows and len(rows) == samples.DEMO.records
    assert len(parses) == 1 + len(configs)


def test_a_changed_data_json_is_parsed_again(parses, tiny_tokenizer, tmp_path):
    folder = str(tmp_path / "data")
    records = samples.records()
    path = write_data_dir(folder, records)
    options = {"data_dir": folder, "tokenizer": tiny_tokenizer, "cache_dir": str(tmp_path / "cache")}

    def questions(config: str) -> list[str]:
        return load_dataset(BENCH, config, split="eval", **options)["question"]

    assert questions("0shot_full") == questions("cot_full") == [r["question"] for r in records]
    assert len(parses) == 1
    longer = [{**records[0], "question": "A new question?"}, *records[1:]]
    write_data_dir(folder, longer)  # another size
    assert questions("no_context_full")[0] == "A new question?" and len(parses) == 2
    with open(path, "rb") as f:
        data = f.read()
    stat = os.stat(path)
    with open(path, "wb") as f:  # the same size, a later modification time
        f.write(data.replace(b"A new question?", b"A old question?"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    assert questions("0shot_16k")[0] == "A old question?" and len(parses) == 3
    assert questions("cot_16k")[0] == "A old question?" and len(parses) == 3
