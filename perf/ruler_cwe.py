"""RULER's ``cwe`` rows: the library's generator against RULER's own script, CPU per row.

Run: ``python -m perf.ruler_cwe [--ruler DIR] [--ruler-python PATH]``.

For Llama-2 and cl100k at 32k and 128k tokens (seed 42, RULER's template and 120 generated tokens):

* **RULER**: NVIDIA/RULER's unchanged ``scripts/data/synthetic/common_words_extraction.py`` (checkout
  ``--ruler``, default ``/tmp/ruler_src``; Python ``--ruler-python``, default
  ``/work/venv_ruler/bin/python``, see ``tests/upstream/ruler_cwe/README.md``), run from a copy of
  its ``scripts/data`` with the stand-in ``english_words.json`` of that folder (RULER's git tree
  holds a git-LFS pointer there, which its script cannot read). It runs for 1 and for 1 + N rows;
  CPU per row is the difference over N, set-up the 1-row run less one row.
* **library**: ``longbench_suite.generate.common_words.ruler_rows`` in this process, timed the same
  way (1 and 1 + M rows, the per-tokenizer count memory cleared before each, so set-up is counted);
  its rows must be RULER's.

Figures are CPU seconds (user + system); "file" is a 500-row file: set-up + 500 rows.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from perf.common import cl100k_dir, table
from perf.generate import ruler_tokenizer_dir

TOKENIZER = "tokenizer.json"
LENGTHS = {"32k": 32_768, "128k": 131_072}
RULER_ROWS = {"32k": 20, "128k": 6}
LIBRARY_ROWS = {"32k": 200, "128k": 50}
FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "upstream" / "ruler_cwe"


def ruler_copy(ruler: Path, root: Path) -> Path:
    """RULER's ``scripts/data`` with the stand-in ``english_words.json``; its cwe script's path."""
    data = root / "data"
    shutil.copytree(ruler / "scripts" / "data", data)
    with gzip.open(FIXTURES / "english_words.json.gz", "rb") as f:
        (data / "synthetic" / "json" / "english_words.json").write_bytes(f.read())
    return data / "synthetic" / "common_words_extraction.py"


def ruler_run(script: Path, python: str, tokenizer: list[str], length: int, rows: int) -> tuple[float, list]:
    from longbench_suite.generate.common_words import ANSWER_PREFIX, TEMPLATE

    with tempfile.TemporaryDirectory() as out:
        argv = [python, str(script), "--save_dir", out, "--save_name", "cwe", *tokenizer]
        argv += ["--max_seq_length", str(length), "--tokens_to_generate", "120", "--num_samples", str(rows)]
        argv += ["--random_seed", "42", "--freq_cw", "30", "--freq_ucw", "3", "--num_cw", "10"]
        argv += ["--template", TEMPLATE + ANSWER_PREFIX]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, check=True, cwd=script.parent, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        lines = Path(out, "cwe", "validation.jsonl").read_text(encoding="utf-8").splitlines()
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), lines


def library_run(counter, length: int, rows: int, english: list[str]) -> tuple[float, list[str]]:
    from longbench_suite.generate import common_words as cwe

    cwe._COUNTS.clear()
    start = time.process_time()
    made = list(
        cwe.ruler_rows(
            {"freq_cw": 30, "freq_ucw": 3, "num_cw": 10},
            counter,
            max_seq_length=length,
            tokens_to_generate=cwe.TOKENS_TO_GENERATE,
            template=cwe.TEMPLATE + cwe.ANSWER_PREFIX,
            answer_prefix=cwe.ANSWER_PREFIX,
            num_samples=rows,
            english_words=english,
        )
    )
    return time.process_time() - start, [json.dumps(row) for row in made]


def per_row(run, few: int) -> tuple[float, float, list[str]]:
    """(set-up, per row) CPU seconds from runs of 1 and 1 + ``few`` rows, and the longer run's rows."""
    one, _ = run(1)
    many, lines = run(1 + few)
    row = (many - one) / few
    return one - row, row, lines


def main(ruler: str | None = None, ruler_python: str | None = None) -> None:
    from longbench_suite.fit.tokenizers import load_tokenizer

    cl100k_dir()
    python = ruler_python or "/work/venv_ruler/bin/python"
    with gzip.open(FIXTURES / "english_words.json.gz", "rt", encoding="utf-8") as f:
        english = list(json.load(f).values())
    results = []
    with tempfile.TemporaryDirectory() as root:
        script = ruler_copy(Path(ruler or "/tmp/ruler_src"), Path(root))
        llama_dir = ruler_tokenizer_dir(Path(root))
        tokenizers = {
            "llama2": (["--tokenizer_type", "hf", "--tokenizer_path", str(llama_dir)], llama_dir / TOKENIZER),
            "cl100k": (["--tokenizer_type", "openai", "--tokenizer_path", "cl100k_base"], "cl100k_base"),
        }
        for name, (ruler_args, spec) in tokenizers.items():
            counter = load_tokenizer(str(spec))
            library_run(counter, 4096, 1, english)  # imports and first loads, untimed
            for label, length in LENGTHS.items():
                r_setup, r_row, r_lines = per_row(
                    functools.partial(ruler_run, script, python, ruler_args, length), RULER_ROWS[label]
                )
                l_setup, l_row, l_lines = per_row(
                    lambda n, length=length, counter=counter: library_run(counter, length, n, english),
                    LIBRARY_ROWS[label],
                )
                assert l_lines[: len(r_lines)] == r_lines, f"rows differ from RULER's: {name} {label}"
                r_file, l_file = r_setup + 500 * r_row, l_setup + 500 * l_row
                results.append([
                    name, label, f"{r_setup:.2f}", f"{r_row * 1e3:.2f}", f"{l_setup:.2f}",
                    f"{l_row * 1e3:.2f}", f"{r_row / l_row:.0f}x", f"{r_file:.1f} / {l_file:.1f}",
                    f"{r_file / l_file:.1f}x",
                ])  # fmt: skip
    header = ["tokenizer", "length", "RULER set-up s", "RULER ms/row", "library set-up s", "library ms/row",
              "per row", "500-row file s (RULER / library)", "file"]  # fmt: skip
    print(table(results, header))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruler", help="RULER checkout (default /tmp/ruler_src)")
    parser.add_argument("--ruler-python", help="RULER's Python (default /work/venv_ruler/bin/python)")
    args = parser.parse_args()
    main(args.ruler, args.ruler_python)
