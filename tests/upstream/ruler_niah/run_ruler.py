"""Run NVIDIA/RULER's own ``scripts/data/synthetic/niah.py`` on the parity cases and keep its rows.

Run outside the project, in a venv with RULER's light dependencies (see README.md beside this file):

    TIKTOKEN_CACHE_DIR=... /work/venv_ruler/bin/python tests/upstream/ruler_niah/run_ruler.py \
        RULER_CHECKOUT LLAMA2_HF_DIR OUT_DIR

Each case calls niah.py unchanged, with the arguments RULER's ``prepare.py`` would pass for the task
(template = the niah task template + its answer prefix, as ``prepare.py`` joins them for the ``base``
model template), and writes RULER's rows to ``OUT_DIR/<case>.jsonl.gz``.
"""

import gzip
import subprocess
import sys
import tempfile
from pathlib import Path

from cases import CASES, RULER_TEMPLATE, TOKENS_TO_GENERATE

ruler, llama2, out = (Path(p).resolve() for p in sys.argv[1:4])
script = ruler / "scripts" / "data" / "synthetic" / "niah.py"
tokenizers = {"llama2": ("hf", str(llama2)), "cl100k": ("openai", "cl100k_base")}
out.mkdir(parents=True, exist_ok=True)
for case in CASES:
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
