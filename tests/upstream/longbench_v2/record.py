"""Runs THUDM/LongBench's unchanged LongBench v2 ``pred.py`` and ``result.py`` against the synthetic data of
``make_data.py`` and ``fake_openai.py``, and writes the fixtures of this folder (see README.md).

    python record.py CHECKOUT WORK OUT

CHECKOUT holds upstream's ``pred.py``, ``result.py``, ``prompts/`` and ``config/``; WORK is a scratch
directory; OUT is this folder. Run with the interpreter of the venv that has pred.py's imports.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
#: the model names run, and the tokenizer each makes pred.py use
MODELS = {
    # model2path gives meta-llama/Llama-3.1-8B-Instruct, a folder that holds the Llama-2 files here
    "Llama-3.1-8B-Instruct": "llama2",
    "gpt-4o-2024-08-06": "o200k",
    # model2path gives Qwen/Qwen2.5-7B-Instruct: here the project's tiny byte-level BPE (tiny_bpe/), which
    # adds <s> and splits non-ASCII text into bytes
    "Qwen2.5-7B-Instruct": "tiny_bpe",  # "gpt" in the name: tiktoken's encoding for gpt-4o, o200k_base
}
#: budget label -> the value written into config/model2maxlen.json for both models (None: upstream's file)
#: 101: odd (pred.py's ``-max_len//2`` keeps one more tail token) and below every CoT answer prompt
BUDGETS = {"120000": None, "uncut": 10**9, "30000": 30000, "15000": 15000, "101": 101}
#: the run whose output files and result.txt are kept (the replies do not depend on the budget)
SCORED_BUDGET = "120000"
MODES = {"0shot": [], "cot": ["--cot"], "no_context": ["--no_context"]}
FULL_PROMPT_CHARS = 20000
EDGE_CHARS = 2000
LLAMA_CONFIG = {
    "add_bos_token": True,
    "add_eos_token": False,
    "bos_token": "<s>",
    "eos_token": "</s>",
    "unk_token": "<unk>",
    "clean_up_tokenization_spaces": False,
    "legacy": False,
    "pad_token": None,
    "tokenizer_class": "LlamaTokenizer",
}


def write_gz(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(data)


def prepare(checkout: Path, work: Path) -> None:
    if work.exists():
        shutil.rmtree(work)
    subprocess.run([sys.executable, str(HERE / "make_data.py"), str(work / "data")], check=True)
    llama = work / "llama2"
    llama.mkdir()
    shutil.copy(REPO / "tests/.fixture_cache/llama2/tokenizer.json", llama / "tokenizer.json")
    (llama / "tokenizer_config.json").write_text(json.dumps(LLAMA_CONFIG, indent=1))
    for label, budget in BUDGETS.items():
        run = work / f"run-{label}"
        run.mkdir()
        for name in ("pred.py", "result.py", "prompts", "config"):
            (shutil.copytree if (checkout / name).is_dir() else shutil.copy)(checkout / name, run / name)
        if budget is not None:
            maxlen = json.loads((run / "config/model2maxlen.json").read_text())
            maxlen.update(dict.fromkeys(MODELS, budget))
            (run / "config/model2maxlen.json").write_text(json.dumps(maxlen, indent=4))
        (run / "THUDM/LongBench-v2").mkdir(parents=True)
        shutil.copy(work / "data/data.json", run / "THUDM/LongBench-v2/data.json")
        shutil.copytree(llama, run / "meta-llama/Llama-3.1-8B-Instruct")
        shutil.copytree(HERE / "tiny_bpe", run / "Qwen/Qwen2.5-7B-Instruct")


def environment(work: Path) -> dict:
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_HOME=str(work / "hf"),
        TIKTOKEN_CACHE_DIR=str(REPO / "tests/.fixture_cache/tiktoken"),
    )
    return env


def run_pred(run: Path, model: str, mode: str, env: dict, log: Path) -> list[dict]:
    log.unlink(missing_ok=True)
    server = subprocess.Popen([sys.executable, str(HERE / "fake_openai.py"), str(log)])
    try:
        time.sleep(1.0)
        cmd = [
            sys.executable,
            "pred.py",
            "--model",
            model,
            "--n_proc",
            "1",
            "--save_dir",
            "results",
            *MODES[mode],
        ]
        subprocess.run(
            cmd, cwd=run, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    finally:
        server.terminate()
        server.wait()
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def tokenizers(run: Path):
    import tiktoken
    from transformers import AutoTokenizer

    llama = AutoTokenizer.from_pretrained(str(run / "meta-llama/Llama-3.1-8B-Instruct"))
    tiny = AutoTokenizer.from_pretrained(str(run / "Qwen/Qwen2.5-7B-Instruct"))
    o200k = tiktoken.encoding_for_model("gpt-4o-2024-08-06")
    return {
        "llama2": llama.encode,
        "tiny_bpe": tiny.encode,
        "o200k": lambda text: o200k.encode(text, disallowed_special=()),
    }


def describe(prompt: str) -> dict:
    if len(prompt) <= FULL_PROMPT_CHARS:
        return {"prompt": prompt}
    return {
        "prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest(),
        "prompt_chars": len(prompt),
        "prompt_head": prompt[:EDGE_CHARS],
        "prompt_tail": prompt[-EDGE_CHARS:],
    }


def main(checkout: Path, work: Path, out: Path) -> None:
    prepare(checkout, work)
    env = environment(work)
    os.environ.update(TIKTOKEN_CACHE_DIR=env["TIKTOKEN_CACHE_DIR"])
    encoders = tokenizers(work / "run-120000")
    data = json.loads((work / "data/data.json").read_text(encoding="utf-8"))
    ids = {f"Q{number:02d}": item["_id"] for number, item in enumerate(data, 1)}
    rows = []
    for label in BUDGETS:
        run = work / f"run-{label}"
        for model, tokenizer in MODELS.items():
            for mode in MODES:
                for logged in run_pred(run, model, mode, env, work / "requests.log"):
                    body = logged["body"]
                    prompt = body["messages"][-1]["content"]
                    call = "answer" if logged["call"] == "cot_ans" else "first"
                    qid = f"Q{logged['item']:02d}"
                    rows.append(
                        {
                            "budget": label,
                            "model": model,
                            "sent_model": body["model"],
                            "tokenizer": tokenizer,
                            "mode": mode,
                            "call": call,
                            "_id": ids[qid],
                            "item": qid,
                            "roles": [m["role"] for m in body["messages"]],
                            "temperature": body["temperature"],
                            "max_tokens": body["max_tokens"],
                            "sent_tokens": len(encoders[tokenizer](prompt)),
                            **describe(prompt),
                        }
                    )
        if label == SCORED_BUDGET:
            subprocess.run([sys.executable, "result.py"], cwd=run, env=env, check=True)
            for result in sorted((run / "results").iterdir()):
                write_gz(out / "predictions" / (result.name + ".gz"), result.read_bytes())
            shutil.copy(run / "result.txt", out / "predictions" / "result.txt")
    lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    write_gz(out / "requests.jsonl.gz", lines.encode("utf-8"))
    write_gz(out / "data.json.gz", (work / "data/data.json").read_bytes())


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
