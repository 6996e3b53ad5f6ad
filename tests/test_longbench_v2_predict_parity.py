"""``predict`` on LongBench v2's ``cot`` configs against what upstream's unchanged ``pred.py`` sent and
``result.py`` scored (``tests/upstream/longbench_v2/``): the same loopback replies give the same two
requests per item (first and answer call, byte for byte, cut at each budget under Llama-2 and
o200k), the same sampling and lengths, no second call after an empty first reply, and, at upstream's
120000 budget, the numbers of ``result.py``'s table.

The fixtures and their readers come with the LongBench v2 parity tests (``test_longbench_v2_parity.py``);
without them (a branch that has the benchmark but not yet its fixtures) this module is skipped.
"""

from __future__ import annotations

import gzip
import json
import re

import pytest

from longbench_suite.predict import predict
from tests.support.fake_openai import FakeOpenAI

pytest.importorskip("openai")
parity = pytest.importorskip("tests.test_longbench_v2_parity", reason="LongBench v2's upstream fixtures")
reply = pytest.importorskip("tests.upstream.longbench_v2.fake_openai").reply
FIXTURES, LENGTH_OF_BUDGET, TOKENIZERS = parity.FIXTURES, parity.LENGTH_OF_BUDGET, parity.TOKENIZERS
assert_is_prompt, sent = parity.assert_is_prompt, parity.sent
data_dir, specs = parity.data_dir, parity.specs  # fixtures

CASES = [(budget, tokenizer) for budget in LENGTH_OF_BUDGET for tokenizer in TOKENIZERS]
COT_END = "Let\u2019s think step by step:"


def item_of(prompt: str) -> str:
    return "Q" + re.findall(r"this question: \s*Q(\d\d):", prompt)[-1]


def result_table() -> dict[str, dict[str, float]]:
    lines = (FIXTURES / "predictions" / "result.txt").read_text(encoding="utf-8").split("\n")
    columns = lines[0].split("\t")[1:]
    return {
        line.split("\t")[0]: dict(zip(columns, map(float, line.split("\t")[1:]), strict=True))
        for line in lines[1:]
    }


@pytest.mark.slow
@pytest.mark.parametrize(("budget", "tokenizer"), CASES, ids=["-".join(c) for c in CASES])
def test_predict_sends_pred_py_s_two_calls_and_scores_as_result_py(
    budget, tokenizer, data_dir, specs, tmp_path
):
    first_sent, answers_sent = sent("cot", budget, tokenizer), sent("cot", budget, tokenizer, call="answer")
    (name,) = {r["model"] for r in first_sent.values()}
    (model,) = {r["sent_model"] for r in first_sent.values()}  # model2path's name for an HF model

    def answer(prompt: str) -> str:  # the loopback server's script, told the item and call by the prompt
        return reply(int(item_of(prompt)[1:]), "cot" if prompt.endswith(COT_END) else "cot_ans", model)

    config = f"longbench_v2/cot_{LENGTH_OF_BUDGET[budget]}"
    out = tmp_path / "out"
    scored = budget == "120000"
    with FakeOpenAI(answer) as server:
        predict(
            [config],
            str(out),
            model=model,
            endpoint=server.url,
            concurrency=2,
            progress=False,
            score=scored,
            plot=False,
            data_dir=data_dir,
            tokenizer=specs[tokenizer],
            cache_dir=str(tmp_path / "cache"),
        )
    ours = {"first": {}, "answer": {}}
    for request in server.requests:
        body = request["body"]
        prompt = body["messages"][-1]["content"]
        call = "first" if body["max_tokens"] == 1024 else "answer"
        ours[call][item_of(prompt)] = body
    for call, theirs in (("first", first_sent), ("answer", answers_sent)):
        assert sorted(ours[call]) == sorted(r["item"] for r in theirs.values()), call
        for request in theirs.values():
            body = ours[call][request["item"]]
            assert_is_prompt(body["messages"][-1]["content"], request, f"{call} {request['item']}")
            assert [m["role"] for m in body["messages"]] == request["roles"]
            assert (body["max_tokens"], body["temperature"]) == (
                request["max_tokens"],
                request["temperature"],
            )
    if scored:
        summary = json.loads((out / "results.json").read_text())["summary"]["result"]["longbench_v2"]
        expected = result_table()[f"{name}_cot"]
        assert {column: summary[column][f"cot {LENGTH_OF_BUDGET[budget]}"] for column in expected} == expected


def test_pred_py_s_output_files_score_as_result_py_scored_them():
    """Every file ``pred.py`` wrote in the 120000 run (three modes, three models), an item it never wrote
    (an empty reply) given as an empty prediction."""
    from longbench_suite.metrics import score_task, summarize

    table = result_table()
    records = parity.data_records()
    folder = FIXTURES / "predictions"  # the files of the 120000 run
    assert len(table) == len(list(folder.glob("*.jsonl.gz")))  # result.py: one row per file
    for name, expected in table.items():
        with gzip.open(folder / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
            written = {line["_id"]: line for line in map(json.loads, f)}
        assert 0 < len(written) <= len(records)
        rows = [{**record, "query_id": record["_id"]} for record in records]
        predictions = [written[r["_id"]]["response"] if r["_id"] in written else "" for r in rows]
        task = "cot" if name.endswith("_cot") else "no_context" if name.endswith("_no_context") else "0shot"
        result = score_task("longbench_v2", task, rows, predictions, length="128k")
        summary = summarize([result], "result")["longbench_v2"]
        assert {column: summary[column][f"{task} 128k"] for column in expected} == expected, name
