"""`longbench-suite predict`: request shapes from the declarations, a fake OpenAI-compatible server on
127.0.0.1 that fails now and then, the resumable predictions file, scoring and the results tables."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from longbench_suite import cli, registry
from longbench_suite.errors import GenerationError, PredictionError
from longbench_suite.predict import OpenAIBackend, predict_split, request_for
from longbench_suite.predict.journal import Journal
from tests.support.fake_openai import FakeOpenAI

pytest.importorskip("openai")

SAMSUM = registry.benchmark("longbench").task("samsum")  # completion mode, stops at a newline
QASPER = registry.benchmark("longbench").task("qasper")  # chat mode
NQ = registry.benchmark("helmet").task("nq")  # completion mode, HELMET's seed
TSORT = registry.benchmark("adaleval").task("tsort")  # chat mode, 1024 tokens


def rows_of(n: int, chat: bool, prefix: str = "Answer:") -> list[dict]:
    return [
        {
            "query_id": f"q{i:03d}",
            "input": f"Question {i}: what is the word?\n{prefix}",
            "answer_prefix": prefix,
            "use_chat_template": chat,
            "output": f"word{i}",
        }
        for i in range(n)
    ]


def gold(rows: list[dict]):
    """The server's answer: the row's output, found by its prompt (user turn or completion prompt)."""
    by_prompt = {}
    for row in rows:
        text, prefix = row["input"], row["answer_prefix"]
        prompt = text[: len(text) - len(prefix)] if row["use_chat_template"] else text
        by_prompt[prompt] = row["output"]
    return lambda prompt: by_prompt[prompt]


def backend(server: FakeOpenAI, **options) -> OpenAIBackend:
    options = {"concurrency": 4, "max_retries": 4, "timeout": 5.0, **options}
    return OpenAIBackend(server.url, "fake-model", api_key="k", **options)


def raw(path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def lines(path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


# -- request shapes -----------------------------------------------------------------------------------


def test_chat_rows_send_the_user_turn_and_completion_rows_the_input():
    chat = request_for(QASPER, 0, rows_of(1, chat=True)[0])
    assert chat.chat and chat.prompt == "Question 0: what is the word?\n"
    assert chat.messages() == [{"role": "user", "content": "Question 0: what is the word?\n"}]
    completion = request_for(SAMSUM, 0, rows_of(1, chat=False)[0])
    assert not completion.chat and completion.prompt.endswith("\nAnswer:")


@pytest.mark.parametrize(
    "task, chat, path, expected",
    [
        (SAMSUM, False, "/v1/completions", {"max_tokens": 128, "temperature": 0.0, "stop": ["\n"]}),
        (QASPER, True, "/v1/chat/completions", {"max_tokens": 128, "temperature": 0.0}),
        (NQ, False, "/v1/completions", {"max_tokens": 20, "temperature": 0.0, "top_p": 1.0, "seed": 42}),
        (TSORT, True, "/v1/chat/completions", {"max_tokens": 1024, "temperature": 0.0}),
    ],
)
def test_requests_carry_the_declared_generation(tmp_path, task, chat, path, expected):
    rows = rows_of(3, chat=chat)
    with FakeOpenAI(gold(rows)) as server:
        predict_split(task, rows, backend(server), str(tmp_path / "p.jsonl"), progress=False)
    assert {r["path"] for r in server.requests} == {path}
    for request in server.requests:
        body = request["body"]
        assert {k: body.get(k) for k in expected} == expected
        assert body["model"] == "fake-model"
        if "stop" not in expected:
            assert "stop" not in body
        if chat:
            assert [m["role"] for m in body["messages"]] == ["user"]
            assert not body["messages"][0]["content"].endswith("Answer:")
        else:
            assert body["prompt"].endswith("Answer:")
    assert [r["prediction"] for r in lines(tmp_path / "p.jsonl")] == [r["output"] for r in rows]


def test_stop_strings_are_applied_by_the_server_and_never_kept(tmp_path):
    rows = rows_of(2, chat=False)
    with FakeOpenAI(lambda prompt: "first line\nsecond line") as server:
        predict_split(SAMSUM, rows, backend(server), str(tmp_path / "p.jsonl"), progress=False)
    assert [r["prediction"] for r in lines(tmp_path / "p.jsonl")] == ["first line", "first line"]


# -- robustness ---------------------------------------------------------------------------------------


def test_429_500_resets_and_slow_replies_lose_nothing(tmp_path):
    rows = rows_of(30, chat=True)
    with FakeOpenAI(gold(rows), slow_seconds=1.5) as server:
        server.faults = {2: "429", 5: "500", 9: "reset", 13: "slow", 17: "429", 21: "500"}
        journal = predict_split(
            QASPER, rows, backend(server, timeout=0.5), str(tmp_path / "p.jsonl"), progress=False
        )
    written = lines(tmp_path / "p.jsonl")
    assert [r["index"] for r in written] == list(range(30))
    assert [r["prediction"] for r in written] == [r["output"] for r in rows]
    assert journal.complete
    faulted = [r for r in server.requests if r["fault"]]
    assert len(faulted) == 6
    # every fault cost exactly one extra request: nothing was dropped, nothing asked twice after success
    assert len(server.requests) == 30 + len(faulted)


def test_retry_after_is_honoured(tmp_path):
    rows = rows_of(1, chat=True)
    with FakeOpenAI(gold(rows)) as server:
        server.retry_after = "1"
        server.faults = {0: "429"}
        predict_split(QASPER, rows, backend(server), str(tmp_path / "p.jsonl"), progress=False)
    first, second = server.requests
    assert second["time"] - first["time"] >= 0.95


def test_a_row_that_keeps_failing_stops_the_run_and_keeps_the_finished_rows(tmp_path):
    rows = rows_of(12, chat=True)
    path = str(tmp_path / "p.jsonl")
    with FakeOpenAI(gold(rows)) as server:
        server.retry_after = "0.01"
        server.prompt_faults = {"Question 7:": ("429", 100)}
        failed = r"row 7 \(query_id q007\) failed after retries \(up to 2, with backoff: --max-retries\).*429"
        with pytest.raises(GenerationError, match=failed):
            predict_split(QASPER, rows, backend(server, max_retries=2), path, progress=False)
        done = {r["index"] for r in lines(path)}
        assert 7 not in done and len(done) >= 4
        server.prompt_faults = {}
        before = len(server.requests)
        predict_split(QASPER, rows, backend(server), path, progress=False)
        asked = [r["body"]["messages"][0]["content"] for r in server.requests[before:]]
    assert sorted(asked) == sorted(f"Question {i}: what is the word?\n" for i in range(12) if i not in done)
    assert [r["index"] for r in lines(path)] == list(range(12))


# -- the predictions file -----------------------------------------------------------------------------


def test_a_partial_last_line_is_cut_off_and_asked_again(tmp_path):
    path = tmp_path / "p.jsonl"
    done = '{"index": 1, "query_id": "q001", "prediction": "word1", "output_tokens": 1}\n'
    path.write_text(done + '{"index": 0, "qu')
    journal = Journal(str(path), ["q000", "q001"])
    assert set(journal.load()) == {1}
    assert path.read_text() == done  # the partial line, and only it, cut off


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"index": 0, "query_id": "other", "prediction": "x"}\n', "belongs to another config or split"),
        ('{"index": 5, "query_id": "q000", "prediction": "x"}\n', "index 5 is not a row"),
        ('{"index": 0, "query_id": "q000", "prediction": "x"}\n' * 2, "row 0 is in the file twice"),
        ("not json\n", "malformed JSON"),
    ],
)
def test_a_predictions_file_of_something_else_is_refused(tmp_path, content, message):
    path = tmp_path / "p.jsonl"
    path.write_text(content)
    with pytest.raises(PredictionError, match=message):
        Journal(str(path), ["q000", "q001"]).load()


_CHILD = """
import sys
sys.path.insert(0, {root!r})
from tests.test_predict import rows_of, QASPER
from longbench_suite.predict import OpenAIBackend, predict_split
backend = OpenAIBackend({url!r}, "fake-model", api_key="k", concurrency=3)
predict_split(QASPER, rows_of(40, chat=True), backend, {path!r}, progress=False)
"""


@pytest.mark.slow
def test_kill_and_resume_gives_the_same_file_as_an_uninterrupted_run(tmp_path):
    rows = rows_of(40, chat=True)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    killed, straight = str(tmp_path / "killed.jsonl"), str(tmp_path / "straight.jsonl")
    with FakeOpenAI(gold(rows), slow_seconds=0.05) as server:
        server.faults = {n: "slow" for n in range(1000)}  # every reply takes 50 ms
        code = _CHILD.format(root=root, url=server.url, path=killed)
        child = subprocess.Popen([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": root})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if os.path.exists(killed) and len(raw(killed).splitlines()) >= 8:
                break
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait()
        with open(killed, "ab") as f:  # a write the kill cut short
            f.write(b'{"index": 39, "query_id": "q0')
        before_resume = {json.loads(x)["index"] for x in raw(killed).splitlines()[:-1]}
        assert 8 <= len(before_resume) < 40
        asked_before = len(server.requests)
        predict_split(QASPER, rows, backend(server), killed, progress=False)
        resumed = [r["body"]["messages"][0]["content"] for r in server.requests[asked_before:]]
        predict_split(QASPER, rows, backend(server), straight, progress=False)
    assert len(resumed) == 40 - len(before_resume)
    assert not {f"Question {i}: what is the word?\n" for i in before_resume} & set(resumed)
    assert raw(killed) == raw(straight)


def test_a_finished_file_is_not_asked_again(tmp_path):
    rows = rows_of(5, chat=False)
    path = str(tmp_path / "p.jsonl")
    with FakeOpenAI(gold(rows)) as server:
        predict_split(SAMSUM, rows, backend(server), path, progress=False)
        first = raw(path)
        asked = len(server.requests)
        predict_split(SAMSUM, rows, backend(server), path, progress=False)
        assert len(server.requests) == asked
    assert raw(path) == first


# -- the command --------------------------------------------------------------------------------------


def test_predict_without_an_endpoint_is_one_clear_line(capsys):
    assert cli.main(["predict", "nq_8k", "--model", "m"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--endpoint" in err


# -- end to end: all four benchmarks, scored ------------------------------------------------------------

# One config per benchmark and mode: completion (HELMET RAG, JSON KV; LongBench samsum, stopping at a
# newline), chat (LongBench-E qasper, with length buckets; LV-Eval; Ada-LEval).
E2E_CONFIGS = [
    "helmet/json_kv_8k",
    "helmet/json_kv_16k",
    "longbench/samsum_4k",
    "longbench/qasper_e_8k",
    "lveval/factrecall_en_16k",
    "lveval/factrecall_en_32k",
    "adaleval/tsort_2k",
]


@pytest.fixture(scope="module")
def demo_options(tmp_path_factory):
    from longbench_suite.demo import offline_options

    return offline_options(str(tmp_path_factory.mktemp("predict-demo")))


@pytest.mark.slow
def test_a_gold_answering_server_scores_100_everywhere_through_the_cli(demo_options, tmp_path):
    from longbench_suite import load_dataset
    from longbench_suite.training.formats import user_turn

    answers, modes = {}, {}
    for config in E2E_CONFIGS:
        rows = load_dataset("longbench_suite", config, split="eval", **demo_options)
        for row in rows:
            answers[user_turn(row) if row["use_chat_template"] else row["input"]] = row["output"]
        modes[config] = set(rows["use_chat_template"])
    out = tmp_path / "out"
    with FakeOpenAI(answers.__getitem__) as server:
        server.faults = {1: "429", 4: "500", 8: "reset"}
        argv = ["predict", *E2E_CONFIGS, "--endpoint", server.url, "--model", "m", "--output", str(out)]
        argv += ["--score", "--concurrency", "3", "--no-progress", "--mirror", demo_options["mirror"]]
        argv += ["--tokenizer", demo_options["tokenizer"], "--cache-dir", demo_options["cache_dir"]]
        argv += ["--pretruncation-tokenizer", demo_options["tokenizer"]]
        assert cli.main(argv) == 0
    results = json.loads((out / "results.json").read_text())["results"]
    assert [r["config"] for r in results] == E2E_CONFIGS
    for r in results:
        assert r["headline"] and all(v == pytest.approx(100.0) for v in r["headline"].values()), r["config"]
    # the mode each config's rows declare is the endpoint they went to
    paths = {"/v1/chat/completions" if chat else "/v1/completions" for m in modes.values() for chat in m}
    assert {r["path"] for r in server.requests} == paths
    markdown = (out / "results.md").read_text()
    for heading in ("## helmet (eval)", "## longbench (eval)", "## lveval (eval)", "## adaleval (eval)"):
        assert heading in markdown
    assert "| task | 8k | 16k |" in markdown  # HELMET by length
    assert "Summary by category:" in markdown and "Summary by level:" in markdown
    assert "Headline scores by length_bucket:" in markdown  # LongBench-E
    assert (out / "scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    umask = os.umask(0)
    os.umask(umask)
    for path in (p for p in out.rglob("*") if p.is_file()):  # the permissions of any file made there
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, path
    # the predictions file is what `score` reads, too
    argv = [
        "score",
        "lveval/factrecall_en_16k",
        "--predictions",
        str(out / "lveval/factrecall_en_16k.eval.jsonl"),
    ]
    argv += ["--output", str(tmp_path / "score.json"), "--mirror", demo_options["mirror"]]
    argv += ["--tokenizer", demo_options["tokenizer"], "--cache-dir", demo_options["cache_dir"]]
    assert cli.main(argv) == 0
    (scored,) = json.loads((tmp_path / "score.json").read_text())["results"]
    assert scored["headline"] == results[4]["headline"]


def _tiny_model(directory: str) -> str:
    """A random 1-layer Llama over the demo BPE, with a minimal chat template; no download."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    from longbench_suite.samplefiles import train_demo_tokenizer

    tokenizer = PreTrainedTokenizerFast(
        tokenizer_file=train_demo_tokenizer(os.path.join(directory, "bpe")),
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
    )
    tokenizer.chat_template = (
        "{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}[assistant]"
    )
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=512,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    path = os.path.join(directory, "model")
    LlamaForCausalLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.mark.slow
def test_a_tiny_random_model_runs_through_the_local_backend(tmp_path):
    from longbench_suite.predict.local import TransformersBackend

    model = TransformersBackend(_tiny_model(str(tmp_path)))
    mc = registry.benchmark("helmet").task("infbench_mc")  # chat mode, 10 tokens
    chat = rows_of(2, chat=True)
    first = predict_split(mc, chat, model, str(tmp_path / "chat.jsonl"), progress=False)
    predict_split(NQ, rows_of(2, chat=False), model, str(tmp_path / "completion.jsonl"), progress=False)
    predict_split(SAMSUM, rows_of(1, chat=False), model, str(tmp_path / "stop.jsonl"), progress=False)
    chat_lines, completion_lines = lines(tmp_path / "chat.jsonl"), lines(tmp_path / "completion.jsonl")
    assert [r["query_id"] for r in chat_lines] == ["q000", "q001"]
    assert all(0 < r["output_tokens"] <= 10 for r in chat_lines)  # the declared max_new_tokens
    assert all(0 < r["output_tokens"] <= 20 for r in completion_lines)
    assert "\n" not in lines(tmp_path / "stop.jsonl")[0]["prediction"]  # samsum's declared stop
    # greedy: the same model gives the same predictions again
    again = predict_split(mc, chat, model, str(tmp_path / "again.jsonl"), progress=False)
    assert again.predictions() == first.predictions()


@pytest.mark.slow
def test_the_example_script_builds_predicts_and_scores(demo_options, tmp_path, capsys):
    import runpy

    from longbench_suite import load_dataset

    rows = load_dataset("longbench_suite", "adaleval/tsort_2k", split="eval", **demo_options)
    with FakeOpenAI(gold(list(rows))) as server:
        path = os.path.join(
            os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "predict.py"
        )
        main = runpy.run_path(path, run_name="example")["main"]
        argv = ["adaleval/tsort_2k", "--endpoint", server.url, "--model", "m", "--output", str(tmp_path)]
        run = main([*argv, "--demo", "--cache-dir", demo_options["cache_dir"]])
    assert run.results[0].headline == {"accuracy": pytest.approx(100.0)}
    assert "| tsort | 100.00 |" in capsys.readouterr().out


# -- the run record, --limit, partial splits ------------------------------------------------------------

TSORT_2K = "adaleval/tsort_2k"  # 20 eval rows in the sandbox, chat mode


def _flags(demo_options) -> list[str]:
    flags = ["--mirror", demo_options["mirror"], "--tokenizer", demo_options["tokenizer"]]
    return [*flags, "--cache-dir", demo_options["cache_dir"], "--no-progress"]


def _gold_server(demo_options, config: str = TSORT_2K) -> FakeOpenAI:
    from longbench_suite import load_dataset

    return FakeOpenAI(gold(list(load_dataset("longbench_suite", config, split="eval", **demo_options))))


def _last_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()  # datasets' progress bars come first
    return err[-1] if err else ""


def test_resuming_with_other_options_is_refused_naming_both(demo_options, tmp_path, capsys):
    """A file half-written by --model m1 is never finished by m2: the resume is one line naming both
    models, the file is left as it was; --force-new discards it and m2 answers every row."""
    out = tmp_path / "out"
    path = out / "adaleval" / "tsort_2k.eval.jsonl"
    with _gold_server(demo_options) as server:
        argv = ["predict", TSORT_2K, "--endpoint", server.url, "--output", str(out), *_flags(demo_options)]
        server.faults = {5: "500"}  # the sixth request fails: m1's run stops there
        assert cli.main([*argv, "--model", "m1", "--max-retries", "0", "--concurrency", "1"]) == 2
        half = raw(path)
        assert 0 < len(half.splitlines()) < 20
        record = json.loads((out / "run.json").read_text())
        assert (record["model"], record["files"]) == ("m1", {TSORT_2K: "adaleval/tsort_2k.eval.jsonl"})
        capsys.readouterr()
        asked = len(server.requests)
        assert cli.main([*argv, "--model", "m2"]) == 2
        assert _last_error(capsys) == (
            f'longbench-suite: error: {out}/run.json: --model is "m2" but the run recorded "m1"; resume '
            "with the same options, pass --force-new to discard its predictions and start over, or give "
            "a new --output"
        )
        assert cli.main([*argv, "--model", "m1", "--tokenizer", "chars"]) == 2
        recorded = demo_options["tokenizer"]
        assert f'--tokenizer is "chars" but the run recorded "{recorded}"' in _last_error(capsys)
        assert len(server.requests) == asked and raw(path) == half  # nothing asked, nothing written
        assert cli.main([*argv, "--model", "m2", "--force-new"]) == 0
        models = {r["body"]["model"] for r in server.requests[asked:]}
    assert models == {"m2"} and len(server.requests) - asked == 20
    assert json.loads((out / "run.json").read_text())["model"] == "m2"
    assert [r["index"] for r in lines(path)] == list(range(20))


def test_a_predictions_file_no_record_covers_is_not_resumed(demo_options, tmp_path, capsys):
    out = tmp_path / "out"
    path = out / "adaleval" / "tsort_2k.eval.jsonl"
    path.parent.mkdir(parents=True)
    old = b'{"index": 0, "query_id": "x", "prediction": "made by whom?", "output_tokens": 3}\n'
    path.write_bytes(old)
    with _gold_server(demo_options) as server:
        argv = ["predict", TSORT_2K, "--endpoint", server.url, "--model", "m", "--output", str(out)]
        assert cli.main([*argv, *_flags(demo_options)]) == 2
        assert _last_error(capsys).endswith(
            f"{path}: predictions of {TSORT_2K} that {out}/run.json does not cover (made by another run or "
            "version, with options unknown); pass --force-new to discard them and start over, or give a "
            "new --output"
        )
        assert raw(path) == old and not server.requests
        assert cli.main([*argv, *_flags(demo_options), "--force-new"]) == 0
    assert len(lines(path)) == 20


def test_limit_predicts_the_first_rows_and_scores_them_only_when_allowed(demo_options, tmp_path, capsys):
    from longbench_suite import load_dataset

    rows = load_dataset("longbench_suite", TSORT_2K, split="eval", **demo_options)
    out = tmp_path / "out"
    with _gold_server(demo_options) as server:
        argv = ["predict", TSORT_2K, "--endpoint", server.url, "--model", "m", "--output", str(out)]
        argv += [*_flags(demo_options), "--limit", "3"]
        capsys.readouterr()
        assert cli.main([*argv, "--score"]) == 2
        assert _last_error(capsys) == (
            f"longbench-suite: error: --limit 3: {TSORT_2K}: 3 of 20 rows (a partial split) is scored only "
            "with --allow-partial (and then marked partial); leave out --score for a smoke run"
        )
        assert not server.requests and not out.exists()  # refused before anything is asked or written
        assert cli.main([*argv, "--score", "--allow-partial", "--no-plot"]) == 0
        assert len(server.requests) == 3
    predictions = lines(out / "adaleval" / "tsort_2k.eval.jsonl")  # the split's name, not a slice's
    assert [p["query_id"] for p in predictions] == rows["query_id"][:3]  # the first rows, in split order
    record = json.loads((out / "run.json").read_text())
    assert (record["split"], record["limit"]) == ("eval", 3)
    results = json.loads((out / "results.json").read_text())
    (entry,) = results["results"]
    assert (entry["rows"], entry["split_rows"], entry["partial"]) == (3, 20, True)
    assert len(entry["row_scores"]) == 3
    assert results["run"] == {k: v for k, v in record.items() if k != "files"}
    markdown = (out / "results.md").read_text()
    assert "| tsort | 100.00 partial (3 of 20 rows) |" in markdown
    assert "partial (3 of 20 rows)" in capsys.readouterr().out  # the printed table too

    # score DIR: the run record says the rest; the partial split again needs the flag
    capsys.readouterr()
    assert cli.main(["score", "--predictions", str(out)]) == 2
    assert "predictions of the first 3 of 20 rows only (a partial split); score it with --allow-partial" in (
        _last_error(capsys)
    )
    written = str(tmp_path / "s.json")
    assert cli.main(["score", "--predictions", str(out), "--allow-partial", "--output", written]) == 0
    scored = json.loads((tmp_path / "s.json").read_text())
    assert scored["run"] == results["run"] and scored["results"][0]["headline"] == entry["headline"]
    assert scored["results"][0]["partial"] is True


@pytest.mark.parametrize(
    "split, hint", [("eval[:5]", "--split eval --limit 5"), ("eval[10:20]", "--split NAME --limit N")]
)
def test_a_slice_of_a_split_is_refused_in_favour_of_limit(split, hint, tmp_path, capsys):
    argv = ["predict", "nq_8k", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m"]
    assert cli.main([*argv, "--split", split, "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"--split {split!r}: predictions are made for a whole split" in err
    assert err.endswith(f"for its first rows use {hint}") and not (tmp_path / "out").exists()
    assert cli.main(["score", "nq_8k", "--predictions", "p.jsonl", "--split", split]) == 2
    assert "for its first rows use" in capsys.readouterr().err


def test_score_a_run_folder_needs_nothing_else_and_refuses_contradicting_options(
    demo_options, tmp_path, capsys
):
    out = tmp_path / "out"
    with _gold_server(demo_options) as server:
        argv = ["predict", TSORT_2K, "--endpoint", server.url, "--model", "m", "--output", str(out)]
        assert cli.main([*argv, *_flags(demo_options)]) == 0
    capsys.readouterr()
    assert cli.main(["score", "--predictions", str(out)]) == 0  # no config, no build option
    assert f"{TSORT_2K}  eval   20    accuracy*     100.00" in capsys.readouterr().out
    assert cli.main(["score", TSORT_2K, "--predictions", str(out), "--tokenizer", "chars"]) == 2
    assert _last_error(capsys) == (
        f'longbench-suite: error: {out}/run.json: --tokenizer is "chars" but the run recorded '
        f'"{demo_options["tokenizer"]}"; leave it out to use the recorded one'
    )
    assert cli.main(["score", "--predictions", str(out), "--split", "dev"]) == 2
    assert "--split is 'dev' but the run recorded 'eval'" in _last_error(capsys)
    assert cli.main(["score", "nq_8k", "--predictions", str(out)]) == 2
    assert _last_error(capsys).endswith(f"the run has no predictions of helmet/nq_8k (it has {TSORT_2K})")
    # the same option, spelled as a relative path, is no contradiction
    relative = os.path.relpath(demo_options["tokenizer"])
    assert cli.main(["score", "--predictions", str(out), "--tokenizer", relative]) == 0


def test_score_a_file_of_a_run_folder_takes_the_run_record_too(demo_options, tmp_path, capsys):
    """`score CONFIG --predictions DIR/<benchmark>/<config>.<split>.jsonl`: the file's folder records
    how it was made, so nothing else is needed and a contradicting option (or config) is one line."""
    out = tmp_path / "out"
    with _gold_server(demo_options) as server:
        argv = ["predict", TSORT_2K, "--endpoint", server.url, "--model", "m", "--output", str(out)]
        assert cli.main([*argv, *_flags(demo_options)]) == 0
    path = str(out / "adaleval" / "tsort_2k.eval.jsonl")
    capsys.readouterr()
    assert cli.main(["score", TSORT_2K, "--predictions", path]) == 0  # no build option given
    assert f"{TSORT_2K}  eval   20    accuracy*     100.00" in capsys.readouterr().out
    assert cli.main(["score", TSORT_2K, "--predictions", path, "--tokenizer", "chars"]) == 2
    assert _last_error(capsys) == (
        f'longbench-suite: error: {out}/run.json: --tokenizer is "chars" but the run recorded '
        f'"{demo_options["tokenizer"]}"; leave it out to use the recorded one'
    )
    assert cli.main(["score", "adaleval/tsort_4k", "--predictions", path]) == 2
    assert _last_error(capsys).endswith(f"as the predictions of {TSORT_2K}, not of adaleval/tsort_4k")
    other = tmp_path / "elsewhere.jsonl"
    other.write_text("")
    assert cli.main(["score", TSORT_2K, "tsort_4k", "--predictions", path, str(other)]) == 2
    assert "files of different predict output folders (or only some in one)" in _last_error(capsys)


def test_an_edited_tokenizer_file_is_another_tokenizer(demo_options, tmp_path, capsys):
    import shutil

    tokenizer = tmp_path / "tok" / "tokenizer.json"
    tokenizer.parent.mkdir()
    shutil.copy(demo_options["tokenizer"], tokenizer)
    out = tmp_path / "out"
    options = {**demo_options, "tokenizer": str(tokenizer)}
    with _gold_server(demo_options) as server:
        argv = ["predict", TSORT_2K, "--endpoint", server.url, "--model", "m", "--output", str(out)]
        assert cli.main([*argv, *_flags(options)]) == 0
    recorded = json.loads((out / "run.json").read_text())["build"]["tokenizer_identity"]
    data = json.loads(tokenizer.read_text())
    data["normalizer"] = {"type": "Lowercase"}  # still a tokenizer, another one
    tokenizer.write_text(json.dumps(data))
    capsys.readouterr()
    assert cli.main(["score", "--predictions", str(out)]) == 2
    err = _last_error(capsys)
    assert "--tokenizer's identity is" in err and f'the run recorded "{recorded}"' in err, err
    # the same through one file of the folder, the line naming the folder's record
    assert cli.main(["score", TSORT_2K, "--predictions", str(out / "adaleval" / "tsort_2k.eval.jsonl")]) == 2
    assert _last_error(capsys).startswith(f"longbench-suite: error: {out}/run.json: --tokenizer's identity")


def test_a_tokenizer_object_is_recorded_by_its_type_and_must_be_given_again_to_score(tmp_path):
    from longbench_suite.errors import OptionError
    from longbench_suite.fit.tokenizers import load_tokenizer
    from longbench_suite.options import BuildOptions
    from longbench_suite.predict import record

    given = BuildOptions(tokenizer=load_tokenizer("chars"), max_input_tokens=100, cache_dir=None, demo=False)
    build = record.build_record(given)
    assert build == {"max_input_tokens": 100, "tokenizer_object": "CharCounter"}  # defaults left out
    run = record.run_record(model="m", backend="openai", endpoint=None, split="eval", limit=None, build=build)
    json.dumps(run)  # a record is JSON, whatever was given
    with pytest.raises(OptionError, match=r"x/run.json: the run's tokenizer was a Python CharCounter object"):
        record.score_options(run, BuildOptions(), "x/run.json")
    with pytest.raises(record.RunMismatchError, match=r"--max-input-tokens is 200 but the run recorded 100"):
        record.score_options(run, BuildOptions(tokenizer="chars", max_input_tokens=200), "x/run.json")
    given = BuildOptions(tokenizer="chars", max_input_tokens=100, cache_dir=str(tmp_path))
    assert record.score_options(run, given, "x/run.json") == given


def test_an_output_that_is_a_file_or_under_one_is_one_line_before_anything_is_built(tmp_path, capsys):
    mine = tmp_path / "notes.txt"
    mine.write_text("mine\n")
    for output, where in ((mine, "is a file"), (mine / "run", f"is under the file {mine}")):
        for extra in ([], ["--force-new"]):
            argv = ["predict", "helmet/nq_8k", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m"]
            assert cli.main([*argv, "--output", str(output), *extra]) == 2
            err = capsys.readouterr().err.strip()
            said = f"--output {output} {where}; name a folder for the run's predictions"
            assert err == f"longbench-suite: error: {said}"
    assert mine.read_text() == "mine\n"


def test_a_run_record_that_does_not_read_is_one_line_and_force_new_replaces_it(tmp_path):
    from longbench_suite.predict import record

    (tmp_path / "run.json").write_bytes(b'{"format": 1, "mod')
    (tmp_path / "helmet").mkdir()
    (tmp_path / "helmet" / "nq_8k.eval.jsonl").write_text("{}\n")
    run = record.run_record(model="m", backend="openai", endpoint=None, split="eval", limit=None, build={})
    files = {"helmet/nq_8k": "helmet/nq_8k.eval.jsonl"}
    with pytest.raises(PredictionError, match=r"run\.json: JSONDecodeError.*; pass --force-new to discard"):
        record.claim(str(tmp_path), run, files, force_new=False)
    written = record.claim(str(tmp_path), run, files, force_new=True)
    assert record.read_record(str(tmp_path)) == written == {**run, "files": files}
    assert not (tmp_path / "helmet" / "nq_8k.eval.jsonl").exists()  # discarded, to be predicted anew


# -- declarations, judges, tables -----------------------------------------------------------------------


def test_info_shows_the_declared_generation(capsys):
    assert cli.main(["info", "longbench/samsum_4k"]) == 0
    assert "generation:        greedy, stop at '\\n'" in capsys.readouterr().out
    assert cli.main(["info", "helmet/nq_8k"]) == 0
    assert "generation:        greedy\n" in capsys.readouterr().out


def test_the_llm_judge_can_point_at_an_openai_compatible_server():
    from longbench_suite.metrics.report import judges_from

    with FakeOpenAI(lambda prompt: "judged: " + prompt) as server:
        judges = judges_from("judge-model", None, endpoint=server.url, api_key="k")
        assert judges.llm("Is this right?", 64) == "judged: Is this right?"
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    body = request["body"]
    assert body["model"] == "judge-model" and body["max_tokens"] == 64
    assert (body["temperature"], body["top_p"], body["seed"]) == (0.1, 0.9, 42)  # HELMET's judge settings


def _result(benchmark, task, length, score, groups=None):
    from longbench_suite.metrics import ScoreResult

    return ScoreResult(
        config=f"{benchmark}/{task}_{length}",
        benchmark=benchmark,
        task=task,
        length=length,
        split="eval",
        metric="m",
        n_rows=1,
        headline={"m": score},
        metrics={"m": score},
        groups=groups or {},
    )


def test_results_tables_put_lengths_in_the_benchmarks_order():
    from longbench_suite.predict.tables import markdown_report

    results = [
        _result("helmet", "nq", "32k", 40.0),
        _result("helmet", "nq", "8k", 60.0),
        _result("helmet", "json_kv", "8k", 90.0),
        _result("longbench", "qasper_e", "8k", 50.0, {"length_bucket": {"0-4k": {"m": 70.0}, "8k+": {}}}),
    ]
    summary = {"category": {"helmet": {"8k": {"RAG": 60.0, "Recall": 90.0}, "32k": {"RAG": 40.0}}}}
    text = markdown_report(results, summary)
    assert "| task | 8k | 32k |\n|---|---|---|\n| nq | 60.00 | 40.00 |\n| json_kv | 90.00 | – |" in text
    assert "| category | 8k | 32k |" in text and "| Recall | 90.00 | – |" in text
    assert "| config | 0-4k | 8k+ |\n|---|---|---|\n| qasper_e_8k | 70.00 | – |" in text
