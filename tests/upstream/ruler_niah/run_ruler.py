"""Run NVIDIA/RULER's own ``scripts/data/synthetic/niah.py`` on the parity cases and keep its rows.

Run outside the project, in a venv with RULER's light dependencies (see README.md beside this file):

    TIKTOKEN_CACHE_DIR=... NLTK_DATA=... /work/venv_ruler/bin/python tests/upstream/ruler_niah/run_ruler.py \
        RULER_CHECKOUT LLAMA2_HF_DIR OUT_DIR [NAME_PART]

Each case calls niah.py unchanged, with the arguments RULER's ``prepare.py`` would pass for the task
(template = the niah task template + its answer prefix, as ``prepare.py`` joins them for the ``base``
model template), and writes RULER's rows to ``OUT_DIR/<case>.jsonl.gz``. For the essay cases the
essay (``essay.json.gz`` beside this file) is put where niah.py reads Paul Graham's essays,
``scripts/data/synthetic/json/PaulGrahamEssays.json``, and ``NLTK_DATA`` must hold the ``punkt_tab``
data ``write_punkt_tab.py`` writes; NLTK's sentences of the essay are kept as
``OUT_DIR/essay-sentences.json.gz``. Only cases whose name contains NAME_PART run, if given.
"""

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from cases import CASES, RULER_TEMPLATE, TOKENS_TO_GENERATE

ruler, llama2, out = (Path(p).resolve() for p in sys.argv[1:4])
script = ruler / "scripts" / "data" / "synthetic" / "niah.py"
tokenizers = {"llama2": ("hf", str(llama2)), "cl100k": ("openai", "cl100k_base")}
out.mkdir(parents=True, exist_ok=True)
part = sys.argv[4] if len(sys.argv) > 4 else ""

with gzip.open(Path(__file__).with_name("essay.json.gz"), "rb") as f:
    essay = f.read()
(script.parent / "json" / "PaulGrahamEssays.json").write_bytes(essay)
from nltk.tokenize import sent_tokenize  # noqa: E402 (NLTK_DATA must hold punkt_tab)

sentences = sent_tokenize(json.loads(essay)["text"])
with gzip.GzipFile(out / "essay-sentences.json.gz", "wb", mtime=0) as f:
    f.write(json.dumps(sentences).encode("utf-8"))

for case in [c for c in CASES if part in c["name"]]:
    kind, path = tokenizers[case["tokenizer"]]
    with tempfile.TemporaryDirectory() as tmp:
        argv = [
            sys.executable,
            str(script),
            "--save_dir",
            tmp,
            "--save_name",
            "rows",
            "--tokenizer_path",
            path,
            "--tokenizer_type",
            kind,
            "--max_seq_length",
            str(case["length"]),
            "--tokens_to_generate",
            str(TOKENS_TO_GENERATE),
            "--num_samples",
            str(case["rows"]),
            "--random_seed",
            str(case["seed"]),
            "--template",
            RULER_TEMPLATE,
        ]
        for name, value in case["args"].items():
            argv += [f"--{name}", str(value)]
        subprocess.run(
            argv, check=True, cwd=script.parent, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        rows = Path(tmp, "rows", "validation.jsonl").read_bytes()
    with gzip.GzipFile(out / f"{case['name']}.jsonl.gz", "wb", mtime=0) as f:
        f.write(rows)
    print(case["name"], len(rows.splitlines()), "rows", flush=True)
