"""The recorded RULER cases and how to read their fixtures (standard library only).

A case is one run of RULER's unchanged ``scripts/data/prepare.py`` for a task of its
``scripts/synthetic.yaml``, a tokenizer (``llama2``: the Llama-2 tokenizer as an HF folder, RULER's
``--tokenizer_type hf``; ``cl100k``: RULER's ``--tokenizer_type openai --tokenizer_path cl100k_base``),
a ``max_seq_length``, 500 samples, seed 42 and model template ``base``. Its fixture
``<task>-<tokenizer>-<length>.jsonl.gz`` holds the first ``FIRST_ROWS`` lines of RULER's
``validation.jsonl`` verbatim; ``digests.json.gz`` holds, for every case, two 16-hex-digit sha256
prefixes per row of all 500 (``line_digest`` of RULER's line, ``row_digest`` of the fields an eval row
keeps); ``timings.json`` RULER's CPU seconds, wall seconds and peak RSS per case. ``CHUNK_CASES``
are recorded the same way (their rows: ``SAMPLES // 2``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
INPUTS = HERE / "inputs"

#: the 13 tasks of RULER's scripts/synthetic.yaml, in scripts/config_tasks.sh's order
TASKS = (
    "niah_single_1",
    "niah_single_2",
    "niah_single_3",
    "niah_multikey_1",
    "niah_multikey_2",
    "niah_multikey_3",
    "niah_multivalue",
    "niah_multiquery",
    "vt",
    "cwe",
    "fwe",
    "qa_1",
    "qa_2",
)
TOKENIZERS = ("llama2", "cl100k")
LENGTHS = (2048, 8192)  # 2048 runs RULER's below-4096 branches (vt's and niah's steps, cwe's few-shot)
SAMPLES = 500
SEED = 42
FIRST_ROWS = 5
#: the tasks whose haystack is the essay (``type_haystack: essay`` in synthetic.yaml)
ESSAY_TASKS = ("niah_single_2", "niah_single_3", "niah_multikey_1", "niah_multivalue", "niah_multiquery")
#: RULER's input files -> the names of the upstream files they stand for (what ``data_dir=`` holds for
#: the library's sources: SQuAD's dev-v2.0.json, HotpotQA's hotpot_dev_distractor_v1.json, RULER's
#: english_words.json); the essay goes to essay tasks as ``generate={"essay": <PaulGrahamEssays.json>}``
#: where the library declares HotpotQA (the authors' host, the Hub copy it falls back to), as ``HOST/PATH``
HOTPOTQA_KEYS = (
    "curtis.ml.cmu.edu/datasets/hotpot/hotpot_dev_distractor_v1.json",
    "huggingface.co/datasets/namlh2004/hotpotqa/resolve/7e54db4656209750ff487f6fdf8e39a66dba136b/"
    "hotpot_dev_distractor_v1.json",
)
DATA_DIR_FILES = {
    "squad.json": "dev-v2.0.json",
    "hotpotqa.json": "hotpot_dev_distractor_v1.json",
    "english_words.json": "english_words.json",
}


def case_name(task: str, tokenizer: str, length: int) -> str:
    return f"{task}-{tokenizer}-{length}"


CASES = [
    {"name": case_name(task, tokenizer, length), "task": task, "tokenizer": tokenizer, "length": length}
    for tokenizer in TOKENIZERS
    for length in LENGTHS
    for task in TASKS
]
#: the second of two chunks of a QA run (prepare.py --chunk_idx 1 --chunk_amount 2): 250 rows, seed 43,
#: qa.py's --pre_samples 250, so its questions are 250-499 (for the generators' ``pre_samples``; the
#: benchmark's eval is one chunk)
CHUNK_CASES = [
    {
        "name": f"{case_name(task, 'llama2', 2048)}-chunk1of2",
        "task": task,
        "tokenizer": "llama2",
        "length": 2048,
        "chunk_idx": 1,
        "chunk_amount": 2,
    }
    for task in ("qa_1", "qa_2")
]


def write_gzip(path: Path, data: bytes) -> None:
    """``data`` gzip-compressed with mtime 0 (same bytes every time), written atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with gzip.GzipFile(tmp, "wb", mtime=0) as f:
        f.write(data)
    tmp.replace(path)


def unpack_inputs(root: Path) -> dict[str, str]:
    """The inputs as the library reads them: ``{"data_dir": <folder of DATA_DIR_FILES>, "essay":
    <RULER's PaulGrahamEssays.json>}``, under ``root``."""
    data = root / "data"
    data.mkdir(parents=True, exist_ok=True)
    for ruler_name, upstream_name in DATA_DIR_FILES.items():
        with gzip.open(INPUTS / f"{ruler_name}.gz", "rb") as f:
            (data / upstream_name).write_bytes(f.read())
    with gzip.open(INPUTS / "PaulGrahamEssays.json.gz", "rb") as f:
        (root / "PaulGrahamEssays.json").write_bytes(f.read())
    # the synthetic HotpotQA file holds fewer questions than upstream's declared 7,405: the folder says so
    # (the library's sample-record declaration, keyed HOST/PATH of the declared URLs; docs/architecture.md §5)
    questions = len(json.loads((data / DATA_DIR_FILES["hotpotqa.json"]).read_bytes()))
    declared = {key: questions for key in HOTPOTQA_KEYS}
    (data / "longbench-suite-records.json").write_text(json.dumps(declared), encoding="utf-8")
    return {"data_dir": str(data), "essay": str(root / "PaulGrahamEssays.json")}


def line_digest(line: str) -> str:
    """Digest of one line RULER wrote (``json.dump(record)``, ASCII-escaped, without the newline)."""
    return hashlib.sha256(line.encode("utf-8")).hexdigest()[:16]


def row_digest(input_with_prefix: str, answer_prefix: str, answers: list[str], length: int) -> str:
    """Digest of what an eval row keeps of RULER's record: ``input + answer_prefix``, ``answer_prefix``,
    ``outputs`` (the row's answers) and ``length``."""
    fields = [input_with_prefix, answer_prefix, list(answers), int(length)]
    return hashlib.sha256(json.dumps(fields, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def record_row_digest(record: dict) -> str:
    """``row_digest`` of one of RULER's records."""
    prefix = record["answer_prefix"]
    return row_digest(record["input"] + prefix, prefix, record["outputs"], record["length"])


def first_lines(name: str) -> list[str]:
    """RULER's first lines of a case, exactly as written (no newline)."""
    with gzip.open(HERE / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def first_records(name: str) -> list[dict]:
    return [json.loads(line) for line in first_lines(name)]


@cache
def digests() -> dict[str, dict[str, list[str]]]:
    """``{case: {"line": [...], "row": [...]}}``, one entry per row of all ``SAMPLES``."""
    with gzip.open(HERE / "digests.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)
