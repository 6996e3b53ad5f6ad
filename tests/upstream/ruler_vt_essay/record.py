"""Run NVIDIA/RULER's unchanged ``variable_tracking.py`` with the essay haystack and keep its rows.

    TIKTOKEN_CACHE_DIR=... NLTK_DATA=... /work/venv_ruler/bin/python tests/upstream/ruler_vt_essay/record.py \
        RULER_CHECKOUT LLAMA2_HF_DIR

RULER's ``synthetic.yaml`` runs vt on the noise haystack; ``type_haystack: essay`` is the script's other
mode. Each case (Llama-2 and cl100k, 4096 and 8192 tokens, 3 rows, seed 42) gets the arguments
``prepare.py`` would pass (template = task template + answer prefix, 30 generated tokens, one chain of
four hops). The checkout is copied to a temporary folder first; the essay is ``../ruler_niah/essay.json.gz``
put where the script reads Paul Graham's essays. Rows go to ``vt_essay-<tokenizer>-<length>.jsonl.gz``
beside this file.
"""

import gzip
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEMPLATE = (
    "Memorize and track the chain(s) of variable assignment hidden in the following text.\n\n{context}\n"
    "Question: Find all variables that are assigned the value {query} in the text above."
    " Answer: According to the chain(s) of variable assignment in the text above, {num_v} variables are "
    "assigned the value {query}, they are: "
)
ruler, llama2 = (Path(p).resolve() for p in sys.argv[1:3])
tokenizers = {"llama2": ["--tokenizer_type", "hf", "--tokenizer_path", str(llama2)],
              "cl100k": ["--tokenizer_type", "openai", "--tokenizer_path", "cl100k_base"]}
with tempfile.TemporaryDirectory() as tmp:
    copy = Path(tmp, "ruler")
    shutil.copytree(ruler, copy, ignore=shutil.ignore_patterns(".git"))
    scripts = copy / "scripts" / "data" / "synthetic"
    with gzip.open(HERE.parent / "ruler_niah" / "essay.json.gz", "rb") as f:
        (scripts / "json" / "PaulGrahamEssays.json").write_bytes(f.read())
    for name, tokenizer in tokenizers.items():
        for length in (4096, 8192):
            out = Path(tmp, f"{name}-{length}")
            argv = [sys.executable, str(scripts / "variable_tracking.py"), "--save_dir", str(out),
                    "--save_name", "rows", *tokenizer, "--max_seq_length", str(length),
                    "--tokens_to_generate", "30", "--num_samples", "3", "--random_seed", "42",
                    "--type_haystack", "essay", "--num_chains", "1", "--num_hops", "4",
                    "--template", TEMPLATE]
            subprocess.run(argv, check=True, cwd=scripts, capture_output=True)
            rows = (out / "rows" / "validation.jsonl").read_bytes()
            with gzip.GzipFile(HERE / f"vt_essay-{name}-{length}.jsonl.gz", "wb", mtime=0) as f:
                f.write(rows)
            print(name, length, len(rows.splitlines()), "rows", flush=True)
