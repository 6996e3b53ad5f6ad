"""LongBench v2 rows against what upstream's unchanged ``pred.py`` sent (``tests/upstream/longbench_v2/``).

The fixtures are every request ``pred.py`` (THUDM/LongBench 2e00731) posted to a loopback server, for
each prompt mode, under the Llama-2 tokenizer (Hugging Face, adds ``<s>``), the project's tiny byte-level
BPE (Hugging Face, adds ``<s>``, splits non-ASCII text into bytes) and tiktoken's ``o200k_base``
(GPT-named models), at upstream's 120000-token budget, at 30000 and 15000, uncut, and at 101 (odd, and
below every prompt, the CoT answer call's too); see the README there. A config's ``input`` must be that
prompt byte for byte (before and after the cut), its ``prompt_tokens`` the uncut prompt's count as
``pred.py`` counts it, its ``max_new_tokens`` and temperature the request's. Nothing here
re-implements ``pred.py``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from longbench_suite import load_dataset
from longbench_suite.benchmarks.longbench_v2.tasks import TASKS
from longbench_suite.fit.tokenizers import load_tokenizer
from tests.support.longbench_v2_data import write_data_dir
from tests.upstream.longbench_v2.fake_openai import reply

COT = next(task for task in TASKS if task.name == "cot")

FIXTURES = Path(__file__).parent / "upstream" / "longbench_v2"
#: the fixtures' budgets (``config/model2maxlen.json`` values) by the config length that has them
LENGTH_OF_BUDGET = {"120000": "128k", "30000": "32k", "15000": "16k", "uncut": "full"}
TOKENIZERS = ("llama2", "tiny_bpe", "o200k")
CASES = [
    (task.name, budget, tokenizer)
    for task in TASKS
    for budget, length in LENGTH_OF_BUDGET.items()
    if length in task.lengths
    for tokenizer in TOKENIZERS
]


def requests() -> list[dict]:
    with gzip.open(FIXTURES / "requests.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def data_records() -> list[dict]:
    with gzip.open(FIXTURES / "data.json.gz", "rb") as f:
        return json.loads(f.read())


def sent(mode: str, budget: str, tokenizer: str, call: str = "first") -> dict[str, dict]:
    """The requests of one run and call, by ``_id``."""
    return {
        r["_id"]: r
        for r in requests()
        if (r["mode"], r["budget"], r["tokenizer"], r["call"]) == (mode, budget, tokenizer, call)
    }


def assert_is_prompt(text: str, request: dict, what: str) -> None:
    if "prompt" in request:
        assert text == request["prompt"], what
        return
    # a long prompt is kept as its digest and ends: compare the ends first, for a readable failure
    assert text[: len(request["prompt_head"])] == request["prompt_head"], what
    assert text[-len(request["prompt_tail"]) :] == request["prompt_tail"], what
    assert len(text) == request["prompt_chars"], what
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == request["prompt_sha256"], what


def scripted_cot_reply(first_call: dict) -> str:
    """What the loopback server answered to a CoT first call (``fake_openai.py``'s script)."""
    return reply(int(first_call["item"][1:]), "cot", first_call["sent_model"])


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("longbench_v2_data")
    with gzip.open(FIXTURES / "data.json.gz", "rb") as f:
        write_data_dir(str(folder), f.read())
    return str(folder)


def test_the_fixtures_hold_every_request_of_every_run():
    """Each run sent one user message per item (two in CoT, but none after an empty first reply), at
    temperature 0.1, with 128 new tokens (CoT's first call 1024), and the long items were cut."""
    rows = requests()
    items = len(data_records())
    runs = {(r["budget"], r["tokenizer"], r["mode"], r["call"]) for r in rows}
    assert len(runs) == 5 * 3 * 4  # budgets x tokenizers x (three modes + CoT's answer call)
    for run in runs:
        run_rows = [r for r in rows if (r["budget"], r["tokenizer"], r["mode"], r["call"]) == run]
        assert len(run_rows) == (items - 1 if run[3] == "answer" else items), run  # Q06's CoT is empty
    assert {r["temperature"] for r in rows} == {0.1} and {tuple(r["roles"]) for r in rows} == {("user",)}
    uncut = {(r["tokenizer"], r["mode"], r["call"], r["_id"]): r for r in rows if r["budget"] == "uncut"}
    for r in rows:
        assert r["max_tokens"] == (1024 if (r["mode"], r["call"]) == ("cot", "first") else 128)
        if (
            r["budget"] != "uncut"
            and r["mode"] != "no_context"
            and r["call"] == "first"
            and r["item"] == "Q04"
        ):
            whole = uncut[r["tokenizer"], r["mode"], r["call"], r["_id"]]
            assert chars(r) < chars(whole) and r["sent_tokens"] < whole["sent_tokens"], r


def chars(request: dict) -> int:
    return len(request["prompt"]) if "prompt" in request else request["prompt_chars"]


@pytest.fixture(scope="module")
def specs(llama2_tokenizer, o200k) -> dict[str, str]:
    tiny_bpe = str(FIXTURES / "tiny_bpe" / "tokenizer.json")
    return {"llama2": llama2_tokenizer, "tiny_bpe": tiny_bpe, "o200k": "o200k_base"}


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "budget", "tokenizer"), CASES, ids=["-".join(c) for c in CASES])
def test_rows_are_the_prompts_pred_py_sent(mode, budget, tokenizer, data_dir, specs, tmp_path):
    config = f"{mode}_{LENGTH_OF_BUDGET[budget]}"
    rows = load_dataset(
        "longbench_v2", config, data_dir=data_dir, tokenizer=specs[tokenizer], cache_dir=str(tmp_path)
    )["eval"]
    requests_sent = sent(mode, budget, tokenizer)
    uncut = sent(mode, "uncut", tokenizer)
    task = next(t for t in TASKS if t.name == mode)
    assert [row["_id"] for row in rows] == [record["_id"] for record in data_records()]
    for row in rows:
        request = requests_sent[row["_id"]]
        assert_is_prompt(row["input"], request, f"{config} {tokenizer} {request['item']}")
        assert row["prompt_tokens"] == uncut[row["_id"]]["sent_tokens"], request["item"]
        assert row["input_truncated"] == (budget != "uncut" and row["prompt_tokens"] > int(budget))
        assert row["max_new_tokens"] == request["max_tokens"]
        assert task.generation.temperature == request["temperature"]


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_the_cot_answer_call_is_the_one_pred_py_sent(tokenizer):
    """The second CoT call: ``0shot_cot_ans.txt`` with the question, choices and the first call's
    stripped reply (the loopback server's, padded with whitespace, quoting placeholders). None of these
    is over a budget, so none is cut; ``predict``'s own tests check what it sends."""
    first_calls = sent("cot", "120000", tokenizer)
    answers = sent("cot", "120000", tokenizer, call="answer")
    assert answers
    for record in data_records():
        if record["_id"] not in answers:
            continue
        first_reply = scripted_cot_reply(first_calls[record["_id"]])
        prompt = COT.generation.follow_up.prompt(record, first_reply)
        assert_is_prompt(prompt, answers[record["_id"]], record["question"][:5])


ODD_BUDGET = 101


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["0shot", "cot"])
@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_max_input_tokens_cuts_as_pred_py_at_an_odd_budget(mode, tokenizer, data_dir, specs, tmp_path):
    """``max_input_tokens=101`` cuts each prompt as ``pred.py`` did with ``model2maxlen`` 101: 50 head
    and 51 tail tokens (``ids[-max_len//2:]``), decoded once. (``no_context`` takes no
    ``max_input_tokens``: its prompt holds no document.)"""
    rows = load_dataset(
        "longbench_v2",
        f"{mode}_full",
        data_dir=data_dir,
        tokenizer=specs[tokenizer],
        max_input_tokens=ODD_BUDGET,
        cache_dir=str(tmp_path),
    )["eval"]
    requests_sent = sent(mode, str(ODD_BUDGET), tokenizer)
    for row in rows:
        assert row["input"] == requests_sent[row["_id"]]["prompt"], requests_sent[row["_id"]]["item"]
        assert row["input_truncated"]


@pytest.mark.parametrize("tokenizer", TOKENIZERS)
def test_the_cot_answer_call_is_cut_as_pred_py_cut_it(tokenizer, specs):
    """At budget 101 ``pred.py`` cuts the answer call's prompt too; the cot task's declared cut gives it."""
    counter = load_tokenizer(specs[tokenizer])
    first_calls = sent("cot", str(ODD_BUDGET), tokenizer)
    answers = sent("cot", str(ODD_BUDGET), tokenizer, call="answer")
    assert len(answers) == len(data_records()) - 1
    for record in data_records():
        if record["_id"] not in answers:
            continue
        first_reply = scripted_cot_reply(first_calls[record["_id"]])
        whole = COT.generation.follow_up.prompt(record, first_reply)
        cut = COT.generation.follow_up.cut(whole, counter, ODD_BUDGET)
        assert cut != whole and cut == answers[record["_id"]]["prompt"], record["question"][:5]
