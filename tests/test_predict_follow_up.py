"""A task's follow-up call (``decoding.FollowUp``) through ``predict``: LongBench v2's chain of thought,
declared here with its ``0shot_cot_ans`` template as a constant, against the fake OpenAI server: the
exact second prompt, its sampling and length, both replies kept, an empty first reply, failures of the
second call, and the second prompt's cut at the budget."""

from __future__ import annotations

import dataclasses
import json

import pytest

from longbench_suite import registry
from longbench_suite.decoding import FollowUp, Generation
from longbench_suite.errors import GenerationError
from longbench_suite.fit.tokenizers import load_tokenizer
from longbench_suite.fit.truncation import keep_middle
from longbench_suite.predict import OpenAIBackend, predict_split
from longbench_suite.predict.requests import follow_up_cut
from tests.support.fake_openai import FakeOpenAI

pytest.importorskip("openai")

#: THUDM/LongBench ``prompts/0shot_cot_ans.txt`` at 2e00731 (no final newline; U+2019 in "Let’s")
COT_ANSWER_TEXT = (
    "Please read the following text and answer the questions below.\n\n"
    "The text is too long and omitted here.\n\n"
    "What is the correct answer to this question: $Q$\nChoices:\n(A) $C_A$\n(B) $C_B$\n(C) $C_C$\n"
    "(D) $C_D$\n\nLet\u2019s think step by step: $COT$\n\n"
    "Based on the above, what is the single, most likely answer choice? "
    'Format your response as follows: "The correct answer is (insert answer here)".'
)
PLACEHOLDERS = (
    ("$Q$", "question"),
    ("$C_A$", "choice_A"),
    ("$C_B$", "choice_B"),
    ("$C_C$", "choice_C"),
    ("$C_D$", "choice_D"),
)


def cot_answer_prompt(row, reply: str) -> str:
    """pred.py's second prompt: the question and choices, then the stripped first reply, replaced in
    that order, every value stripped."""
    prompt = COT_ANSWER_TEXT
    for placeholder, name in PLACEHOLDERS:
        prompt = prompt.replace(placeholder, row[name].strip())
    return prompt.replace("$COT$", reply.strip())


COT = dataclasses.replace(
    registry.benchmark("longbench").task("qasper"),  # a chat-mode task, given LongBench v2's decoding
    max_new_tokens=1024,
    generation=Generation(
        temperature=0.1,
        follow_up=FollowUp(
            cot_answer_prompt,
            128,
            cut=keep_middle,
            name="answer call",
        ),
    ),
)
END = 'Format your response as follows: "The correct answer is (insert answer here)".'


def rows_of(n: int) -> list[dict]:
    return [
        {
            "query_id": f"q{i}",
            "input": f"<text>document {i}</text> question {i}? Let\u2019s think step by step:",
            "answer_prefix": "",
            "use_chat_template": True,
            "question": f"  Which one, {i}? ",
            "choice_A": " alpha",
            "choice_B": "beta ",
            "choice_C": "\ngamma",
            "choice_D": "delta",
        }
        for i in range(n)
    ]


def model(prompt: str) -> str:
    """A chain of thought for a first prompt, an answer for a second (which ends with the format line)."""
    if prompt.endswith(END):
        return "The correct answer is (B)"
    number = prompt.split("document ")[1].split("<")[0]
    return f"  Thinking about {number}: it is beta.\n "


def backend(server: FakeOpenAI, **options) -> OpenAIBackend:
    return OpenAIBackend(
        server.url, "fake-model", api_key="k", **{"concurrency": 3, "timeout": 5.0, **options}
    )


def lines(path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def prompt_of(request: dict) -> str:
    return request["body"]["messages"][-1]["content"]


def test_the_second_call_sends_pred_py_s_prompt_with_its_sampling_and_length(tmp_path):
    rows = rows_of(3)
    path = tmp_path / "p.jsonl"
    with FakeOpenAI(model) as server:
        predict_split(COT, rows, backend(server), str(path), progress=False)
    assert len(server.requests) == 6
    first = [r for r in server.requests if not prompt_of(r).endswith(END)]
    second = [r for r in server.requests if prompt_of(r).endswith(END)]
    assert sorted(prompt_of(r) for r in first) == [row["input"] for row in rows]
    for request in first:
        assert {k: request["body"][k] for k in ("max_tokens", "temperature")} == {
            "max_tokens": 1024,
            "temperature": 0.1,
        }
    for request in second:
        assert {k: request["body"][k] for k in ("max_tokens", "temperature")} == {
            "max_tokens": 128,
            "temperature": 0.1,
        }
        assert [m["role"] for m in request["body"]["messages"]] == ["user"]
    assert (
        "Please read the following text and answer the questions below.\n\n"
        "The text is too long and omitted here.\n\n"
        "What is the correct answer to this question: Which one, 1?\nChoices:\n(A) alpha\n(B) beta\n"
        "(C) gamma\n(D) delta\n\nLet\u2019s think step by step: Thinking about 1: it is beta.\n\n"
        "Based on the above, what is the single, most likely answer choice? "
        'Format your response as follows: "The correct answer is (insert answer here)".'
    ) in [prompt_of(r) for r in second]
    written = lines(path)
    assert [r["prediction"] for r in written] == ["The correct answer is (B)"] * 3
    assert [r["first_prediction"] for r in written] == [
        f"  Thinking about {i}: it is beta.\n " for i in range(3)
    ]
    assert all(
        set(r)
        == {"index", "query_id", "prediction", "output_tokens", "first_prediction", "first_output_tokens"}
        for r in written
    )


def test_an_empty_first_reply_is_not_followed_up_and_leaves_the_prediction_empty(tmp_path):
    rows = rows_of(2)
    with FakeOpenAI(lambda prompt: "" if "document 1<" in prompt else model(prompt)) as server:
        predict_split(COT, rows, backend(server), str(tmp_path / "p.jsonl"), progress=False)
    assert len(server.requests) == 3  # row 1's second call is never made
    assert [(r["prediction"], r["first_prediction"]) for r in lines(tmp_path / "p.jsonl")] == [
        ("The correct answer is (B)", "  Thinking about 0: it is beta.\n "),
        ("", ""),
    ]


def test_a_failing_second_call_stops_the_run_and_a_resume_asks_both_calls_of_that_row_only(tmp_path):
    rows = rows_of(6)
    path = str(tmp_path / "p.jsonl")
    with FakeOpenAI(model) as server:
        server.retry_after = "0.01"
        server.prompt_faults = {"Which one, 4?": ("500", 100)}  # only row 4's second prompt has it stripped
        failed = r"row 4 \(query_id q4\), answer call failed after retries \(up to 1, with backoff"
        with pytest.raises(GenerationError, match=failed):
            predict_split(COT, rows, backend(server, max_retries=1), path, progress=False)
        done = {r["index"] for r in lines(path)}
        assert 4 not in done
        server.prompt_faults = {}
        before = len(server.requests)
        predict_split(COT, rows, backend(server), path, progress=False)
        asked = [prompt_of(r) for r in server.requests[before:]]
    missing = [i for i in range(6) if i not in done]
    assert sorted(a for a in asked if not a.endswith(END)) == sorted(rows[i]["input"] for i in missing)
    assert len(asked) == 2 * len(missing)
    assert [r["index"] for r in lines(path)] == list(range(6))
    assert all(r["prediction"] == "The correct answer is (B)" for r in lines(path))


def test_the_second_prompt_is_cut_in_the_middle_at_the_config_s_budget(tmp_path):
    words = load_tokenizer("words")
    cut = follow_up_cut(COT, "full", 40, lambda: words)  # a user budget of 40 tokens
    rows = rows_of(1)
    with FakeOpenAI(model) as server:
        predict_split(
            COT, rows, backend(server), str(tmp_path / "p.jsonl"), progress=False, follow_up_cut=cut
        )
    sent = prompt_of(server.requests[1])
    whole = cot_answer_prompt(rows[0], "  Thinking about 0: it is beta.\n ")
    assert words.count(whole) > 40
    assert sent == keep_middle(whole, words, 40) != whole
    assert sent.startswith("Please read the following text") and sent.endswith(END)
    assert words.count(sent) <= 40


def test_no_budget_or_no_declared_cut_sends_the_second_prompt_whole():
    never = lambda: pytest.fail("the tokenizer is not needed")  # noqa: E731
    assert follow_up_cut(COT, "full", None, never) is None  # LongBench's full: no budget
    uncut = dataclasses.replace(COT, generation=Generation(follow_up=FollowUp(cot_answer_prompt, 128)))
    assert follow_up_cut(uncut, "full", 40, never) is None


def test_info_says_the_task_makes_a_second_call():
    assert (
        COT.generation.describe()
        == "temperature 0.1, top_p 1.0, then the answer call (128 new tokens, cut at the budget)"
    )


@pytest.fixture
def qasper_e_with_a_follow_up():
    """LongBench's qasper_e (chat mode, an 8k budget) declaring a follow-up whose cut records what the
    config hands it; the registry's declaration is restored afterwards."""
    task = registry.benchmark("longbench").task("qasper_e")
    seen: list = []

    def cut(text, tokenizer, budget):
        seen.append((tokenizer, budget))
        return f"[cut at {budget}] {text}"

    declared = task.generation
    follow_up = FollowUp(lambda row, reply: f"second call of {row['query_id']}: {reply.strip()}", 7, cut=cut)
    object.__setattr__(task, "generation", dataclasses.replace(declared, follow_up=follow_up))
    try:
        yield seen
    finally:
        object.__setattr__(task, "generation", declared)


@pytest.mark.slow
def test_predict_cuts_the_second_prompt_with_the_config_s_tokenizer_and_budget(
    tmp_path, qasper_e_with_a_follow_up
):
    from longbench_suite import get_builder
    from longbench_suite.demo import offline_options
    from longbench_suite.predict import predict

    options = offline_options(str(tmp_path / "demo"))
    first = "a chain of thought "
    with FakeOpenAI(lambda prompt: "the answer" if prompt.startswith("[cut at") else first) as server:
        predict(
            ["longbench/qasper_e_8k"],
            str(tmp_path / "out"),
            model="m",
            endpoint=server.url,
            concurrency=2,
            limit=3,
            progress=False,
            **options,
        )
    (tokenizer, budget), *_ = qasper_e_with_a_follow_up
    builder = get_builder("longbench/qasper_e_8k", **options)
    assert budget == builder.config.task.budget_rule("8k", None).tokens
    assert tokenizer.identity == builder.tokenizer.identity
    second = sorted(prompt_of(r) for r in server.requests if prompt_of(r).startswith("[cut at"))
    assert len(second) == 3 and len(server.requests) == 6
    assert second[0].startswith(f"[cut at {budget}] second call of ") and second[0].endswith(
        ": a chain of thought"
    )
    assert all(r["body"]["max_tokens"] == 7 for r in server.requests if prompt_of(r).startswith("[cut at"))
    written = lines(tmp_path / "out" / "longbench" / "qasper_e_8k.eval.jsonl")
    assert [(r["prediction"], r["first_prediction"]) for r in written] == [("the answer", first)] * 3
