"""RULER's ``vt`` and ``fwe`` rows (``generate/variable_tracking.py``, ``generate/freq_words.py``) against
RULER's own scripts, in CPU seconds per row.

Run: ``python -m perf.vt_fwe [--lengths 32k 128k] [--tokenizers llama2 cl100k] [--ruler DIR]
[--ruler-python PATH]``.

For each task, tokenizer and length, the same rows (RULER's arguments from ``scripts/synthetic.yaml``,
the ``base`` template, seed 42) are made two ways in one run:

* **RULER**: NVIDIA/RULER's unchanged ``variable_tracking.py`` / ``freq_words_extraction.py`` in its
  own venv (``--ruler``, a checkout at c3f5e3b; ``--ruler-python``, a Python with its dependencies and
  SciPy; ``tests/upstream/ruler_niah/README.md``), run for 1 and for 1 + N rows (N = 200 at 32k, 20 at
  128k): its CPU per row is the difference over N (start-up, imports, the example and the search
  cancel), its set-up the 1-row run less one row. Its rows must be the library's, line for line;
* **library**: ``ruler_rows`` in this process, 1 and 1 + N rows (N = 200 at 32k, 50 at 128k), the
  tokenizer's remembered counts cleared before each, timed the same way.

Figures are CPU seconds (user + system of RULER's process; of this process and its threads), the
comparable figure on a shared machine. The ratio is RULER's CPU per row over the library's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from perf.common import cl100k_dir, llama2_path, table
from perf.generate import ruler_tokenizer_dir

LENGTHS = {"32k": 32_768, "128k": 131_072}
RULER_ROWS = {"32k": 200, "128k": 20}
LIBRARY_ROWS = {"32k": 200, "128k": 50}
#: task -> (RULER's script, its arguments from scripts/synthetic.yaml, the library's module)
TASKS = {
    "vt": (
        "variable_tracking.py",
        {"type_haystack": "noise", "num_chains": 1, "num_hops": 4},
        "longbench_suite.generate.variable_tracking",
    ),
    "fwe": ("freq_words_extraction.py", {"alpha": 2.0}, "longbench_suite.generate.freq_words"),
}


def module(task: str):
    import importlib

    return importlib.import_module(TASKS[task][2])


def library(task: str, counter, length: int, rows: int) -> tuple[float, list[str]]:
    """CPU seconds of ``ruler_rows`` for ``rows`` rows (set-up included), and the rows as JSON lines."""
    gen = module(task)
    counter.clear_cache()
    cpu = time.process_time()
    made = list(
        gen.ruler_rows(
            TASKS[task][1],
            counter,
            max_seq_length=length,
            tokens_to_generate=gen.TOKENS_TO_GENERATE,
            template=gen.TEMPLATE + gen.ANSWER_PREFIX,
            answer_prefix=gen.ANSWER_PREFIX,
            num_samples=rows,
        )
    )
    return time.process_time() - cpu, [json.dumps(row) for row in made]


def ruler_run(ruler: Path, python: str, tokenizer: list[str], task: str, length: int, rows: int) -> tuple:
    """RULER's script for ``rows`` rows: its CPU seconds (user + system) and its lines."""
    gen = module(task)
    script_name, args, _ = TASKS[task]
    script = ruler / "scripts" / "data" / "synthetic" / script_name
    with tempfile.TemporaryDirectory() as tmp:
        argv = [python, str(script), "--save_dir", tmp, "--save_name", "rows", *tokenizer]
        argv += ["--max_seq_length", str(length), "--tokens_to_generate", str(gen.TOKENS_TO_GENERATE)]
        argv += ["--num_samples", str(rows), "--random_seed", "42"]
        argv += ["--template", gen.TEMPLATE + gen.ANSWER_PREFIX]
        for name, value in args.items():
            argv += [f"--{name}", str(value)]
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # nothing written into the checkout
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, check=True, cwd=script.parent, capture_output=True, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        lines = Path(tmp, "rows", "validation.jsonl").read_text(encoding="utf-8").splitlines()
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), lines


def per_row(one: float, many: float, rows: int) -> tuple[float, float]:
    """(set-up, per row) from runs of 1 and 1 + ``rows`` rows."""
    each = max(many - one, 1e-9) / rows
    return one - each, each


def main(lengths=("32k", "128k"), tokenizers=("llama2", "cl100k"), ruler=None, ruler_python=None) -> None:
    from longbench_suite.fit.tokenizers import load_tokenizer

    ruler_dir = Path(ruler or "/tmp/ruler_src")
    python = ruler_python or "/work/venv_ruler/bin/python"
    cl100k_dir()
    with tempfile.TemporaryDirectory() as tmp:
        specs = {
            "llama2": (llama2_path(), ["--tokenizer_type", "hf", "--tokenizer_path"]),
            "cl100k": ("cl100k_base", ["--tokenizer_type", "openai", "--tokenizer_path", "cl100k_base"]),
        }
        hf_dir = str(ruler_tokenizer_dir(Path(tmp)))
        specs["llama2"][1].append(hf_dir)
        results = []
        for name in lengths:
            length = LENGTHS[name]
            for tokenizer in tokenizers:
                spec, ruler_args = specs[tokenizer]
                counter = load_tokenizer(spec)
                for task in TASKS:
                    n_lib, n_ruler = LIBRARY_ROWS[name], RULER_ROWS[name]
                    library(task, counter, length, 1)  # first loads, untimed
                    one, _ = library(task, counter, length, 1)
                    many, ours = library(task, counter, length, 1 + n_lib)
                    lib_setup, lib_row = per_row(one, many, n_lib)
                    r_one, _ = ruler_run(ruler_dir, python, ruler_args, task, length, 1)
                    r_many, theirs = ruler_run(ruler_dir, python, ruler_args, task, length, 1 + n_ruler)
                    assert theirs == ours[: len(theirs)], f"RULER's {task} rows differ ({tokenizer}, {name})"
                    r_setup, r_row = per_row(r_one, r_many, n_ruler)
                    results.append(
                        [
                            task,
                            tokenizer,
                            name,
                            f"{r_setup:.2f}",
                            f"{r_row * 1000:.1f}",
                            f"{lib_setup:.3f}",
                            f"{lib_row * 1000:.2f}",
                            f"{r_row / lib_row:.0f}x",
                            f"{(r_setup + 500 * r_row) / (lib_setup + 500 * lib_row):.0f}x",
                        ]
                    )
                    print(" | ".join(results[-1]), flush=True)
    print(f"load average: {os.getloadavg()[0]:.2f}")
    header = ["task", "tokenizer", "length", "RULER set-up s", "RULER ms/row", "library set-up s"]
    header += ["library ms/row", "per-row ratio", "500-row file ratio"]
    print(table(results, header))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m perf.vt_fwe", description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", nargs="+", default=["32k", "128k"], choices=sorted(LENGTHS))
    parser.add_argument("--tokenizers", nargs="+", default=["llama2", "cl100k"], choices=["llama2", "cl100k"])
    parser.add_argument("--ruler", help="RULER checkout at c3f5e3b (default /tmp/ruler_src)")
    parser.add_argument("--ruler-python", help="Python with RULER's dependencies and SciPy")
    args = parser.parse_args()
    main(args.lengths, args.tokenizers, args.ruler, args.ruler_python)
