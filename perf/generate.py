"""Generated NIAH rows (``docs/generate.md`` §3) against RULER's own ``niah.py``, in rows per CPU-second.

Run: ``python -m perf.generate [--rows N] [--ruler DIR] [--ruler-python PATH]``.

The same rows (RULER's recipe: its search, then its rows, one random stream, seed 42, Llama-2, 32k and
128k tokens, the needle and the noise haystack), made four ways and timed in one run:

* **RULER**: NVIDIA/RULER's unchanged ``scripts/data/synthetic/niah.py`` in its own venv, when a
  checkout (``--ruler``, default ``/tmp/ruler_src``) and a Python with its dependencies
  (``--ruler-python``, default ``/work/venv_ruler/bin/python``) exist; see
  ``tests/upstream/ruler_niah/README.md``. It runs twice, for 1 and for 1 + N rows (N = 80 at 32k,
  20 at 128k); its CPU per row is the difference over N (the ~10 s set-up, mostly building its
  6.2M-word list, cancels), and its rows must be the library's. Without them, RULER's figures
  recorded on the reference machine (:data:`RECORDED`) are printed instead, marked so;
* **whole prompt**: the library's drawing step, each candidate counted by ``tokenizers``' ``encode``
  of the whole prompt, as RULER counts;
* **draw**: the library's drawing step alone (search, then rows):
  :class:`~longbench_suite.generate.count.PromptCounter` counting fresh needle lines whole with the
  fastest exact backend (``fastokens``) and summing repeated noise lines from memory;
* **load_dataset**: what a user gets, ``load_dataset("helmet", "gen_<variant>_<length>",
  generate={"recipe": "ruler", ...})`` prepared into a fresh cache (Arrow files, the row's columns and
  token counts), for 1 and for 1 + N rows (N = 200 at 32k, 50 at 128k, as the draw), the difference
  over N, and the 1-row build less one row as its set-up; its rows must be the draw's. The
  screen against HELMET's eval is off (``screen=False``): it is read once per cache (``docs/generate.md``
  §5), and the difference of two builds would cancel it anyway. The default recipe (HELMET's
  template and budget, filled rows) is timed the same way.

Figures are rows per CPU-second (user + system of this process and its threads, or of RULER's
process), the comparable figure on a shared machine; the load average during the run is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from tokenizers import Tokenizer

from perf.common import llama2_path, table

LENGTHS = {"32k": 32_768, "128k": 131_072}
VARIANTS = ("niah_multikey_2", "niah_single_1")
#: library rows timed per length (drawn, and by load_dataset): enough that their CPU stands above the
#: noise of two builds' set-up (``--rows`` sets one number for both)
LIBRARY_ROWS = {"32k": 200, "128k": 50}
#: RULER's task arguments (``scripts/synthetic.yaml``)
RULER_ARGS = {
    variant: ["--type_haystack", haystack, "--type_needle_k", "words", "--type_needle_v", "numbers"]
    for variant, haystack in (("niah_multikey_2", "needle"), ("niah_single_1", "noise"))
}
#: RULER's CPU seconds (set-up, per row) measured by this benchmark on the reference machine, load
#: average ~1.0 on its 2 cores (``perf/README.md``): printed, marked "recorded", without a RULER checkout
RECORDED = {
    ("niah_multikey_2", "32k"): (9.6, 0.098),
    ("niah_multikey_2", "128k"): (13.2, 0.478),
    ("niah_single_1", "32k"): (9.2, 0.104),
    ("niah_single_1", "128k"): (15.5, 0.456),
}


class WholePrompt:
    """A counter that tokenizes the whole prompt every time (RULER's way)."""

    def __init__(self, path: str) -> None:
        self.raw = Tokenizer.from_file(path)
        self.specials = 1

    def count(self, head: str, lines, tail: str, fresh: bool = False) -> int:
        return len(self.raw.encode(head + "\n".join(lines) + tail).ids)


def run(variant: str, length: int, counter, rows: int) -> dict:
    """The library's search and rows: set-up and per-row CPU and wall seconds, and the rows."""
    from longbench_suite.benchmarks.helmet.generated import TASKS
    from longbench_suite.generate.niah import VARIANTS as SETTINGS
    from longbench_suite.generate.search import Prompt, Sizer

    task = next(t for t in TASKS if t.name == "gen_niah_multikey_2")
    settings = SETTINGS[variant]
    template = task.render(settings, "ruler")

    def prompt(sample):
        fields = {"type_needle_v": settings.type_needle_v, "query": sample.query, "context": "\x00"}
        head, tail = template.render_completion(fields).split("\x00")
        return Prompt(head, sample.lines, tail)

    sizer = Sizer(settings, prompt, counter, length - 128 + counter.specials, length, 42)
    rng = random.Random(42)
    cpu, wall = time.process_time(), time.perf_counter()
    size = sizer.search(rng)
    setup = time.process_time() - cpu
    cpu, wall = time.process_time(), time.perf_counter()
    made = [sizer.row(rng, size).prompt.text for _ in range(rows)]
    return {
        "setup": setup,
        "cpu": (time.process_time() - cpu) / rows,
        "wall": (time.perf_counter() - wall) / rows,
        "rows": made,
    }


def through_load_dataset(variant: str, name: str, recipe: str, rows: int, tokenizer: str) -> dict:
    """CPU seconds per row of ``load_dataset`` (a prepared build into a fresh cache), from builds of 1
    and of 1 + ``rows`` rows (set-up cancels), and the rows of the larger."""
    from longbench_suite import load_dataset
    from longbench_suite.fit.tokenizers import load_tokenizer

    def build(n: int) -> tuple[float, list[str]]:
        # the process's tokenizer remembers counted texts: the same prompts, counted before, would be free
        load_tokenizer(tokenizer).clear_cache()
        with tempfile.TemporaryDirectory() as cache:
            cpu = time.process_time()
            built = load_dataset(
                "helmet",
                f"gen_{variant}_{name}",
                split="dev",
                tokenizer=tokenizer,
                cache_dir=cache,
                generate={"recipe": recipe, "rows": n, "screen": False},
            )
            made = built["input"]
            return time.process_time() - cpu, made

    build(1)  # imports and first loads, untimed
    one, _ = build(1)
    many, made = build(1 + rows)
    per_row = max(many - one, 1e-9) / rows
    return {"cpu": per_row, "setup": one - per_row, "rows": made}


def ruler_tokenizer_dir(root: Path) -> Path:
    """The Llama-2 tokenizer as RULER's ``--tokenizer_type hf`` loads it with transformers 4.44:
    the same ``tokenizer.json`` with merges as ``"a b"`` strings (what ``tokenizers`` 0.19 reads)."""
    target = root / "llama2_hf"
    if not (target / "tokenizer.json").exists():
        spec = json.loads(Path(llama2_path()).read_text(encoding="utf-8"))
        spec["model"]["merges"] = [" ".join(pair) for pair in spec["model"]["merges"]]
        spec["model"].pop("ignore_merges", None)
        target.mkdir(parents=True, exist_ok=True)
        config = {
            "add_bos_token": True,
            "add_eos_token": False,
            "bos_token": "<s>",
            "eos_token": "</s>",
            "unk_token": "<unk>",
            "legacy": False,
            "clean_up_tokenization_spaces": False,
            "tokenizer_class": "LlamaTokenizer",
            "pad_token": None,
        }
        (target / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
        (target / "tokenizer.json").write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    return target


def ruler_run(ruler: Path, python: str, tokenizer: Path, variant: str, length: int, rows: int) -> tuple:
    """RULER's niah.py for ``rows`` rows: its CPU seconds (user + system) and its rows."""
    from tests.upstream.ruler_niah.cases import RULER_TEMPLATE

    script = ruler / "scripts" / "data" / "synthetic" / "niah.py"
    with tempfile.TemporaryDirectory() as tmp:
        argv = [python, str(script), "--save_dir", tmp, "--save_name", "rows", "--tokenizer_path"]
        argv += [str(tokenizer), "--tokenizer_type", "hf", "--max_seq_length", str(length)]
        argv += ["--tokens_to_generate", "128", "--num_samples", str(rows), "--random_seed", "42"]
        argv += ["--template", RULER_TEMPLATE, *RULER_ARGS[variant]]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, check=True, cwd=script.parent, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        lines = Path(tmp, "rows", "validation.jsonl").read_text(encoding="utf-8").splitlines()
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    made = [json.loads(line) for line in lines]
    return cpu, [row["input"] + row["answer_prefix"] for row in made]


def ruler_figures(ruler, python, tokenizer, variant, length, rows, ours: list[str]) -> tuple:
    """RULER's (set-up, per row) CPU seconds; its rows must be the library's."""
    one, _ = ruler_run(ruler, python, tokenizer, variant, length, 1)
    many, made = ruler_run(ruler, python, tokenizer, variant, length, 1 + rows)
    assert made[: len(ours)] == ours[: len(made)], f"RULER's rows differ from the library's: {variant}"
    per_row = (many - one) / rows
    return one - per_row, per_row


def main(rows: int | None = None, ruler: str | None = None, ruler_python: str | None = None, ruler_rows=None):
    import datasets

    from longbench_suite.fit.tokenizers import load_tokenizer
    from longbench_suite.generate.count import PromptCounter

    datasets.disable_progress_bars()
    path = llama2_path()
    ruler_dir = Path(ruler or "/tmp/ruler_src")
    python = ruler_python or "/work/venv_ruler/bin/python"
    live = (ruler_dir / "scripts/data/synthetic/niah.py").exists() and os.path.exists(python)
    tokenizer = ruler_tokenizer_dir(Path(tempfile.gettempdir(), "longbench-perf-generate")) if live else None
    loads = []
    out = []
    for variant in VARIANTS:
        for name, length in LENGTHS.items():
            loads.append(os.getloadavg()[0])
            n = rows or LIBRARY_ROWS[name]
            base = run(variant, length, WholePrompt(path), n)
            load_tokenizer(path).clear_cache()
            ours = run(variant, length, PromptCounter(load_tokenizer(path)), n)
            assert base["rows"] == ours["rows"], f"rows differ: {variant} {name}"
            loaded = through_load_dataset(variant, name, "ruler", n, path)
            shared = min(len(loaded["rows"]), len(ours["rows"]))
            same = loaded["rows"][:shared] == ours["rows"][:shared]
            assert same, f"load_dataset's rows differ from the draw's: {variant} {name}"
            default = through_load_dataset(variant, name, "helmet", n, path)
            if live:
                # enough rows that their CPU stands well above the noise of RULER's ~10 s set-up
                timed = ruler_rows or (80 if length <= 32_768 else 20)
                made = ours["rows"]
                setup, per_row = ruler_figures(ruler_dir, python, tokenizer, variant, length, timed, made)
                source = "measured"
            else:
                (setup, per_row), source = RECORDED[(variant, name)], "recorded"
            loads.append(os.getloadavg()[0])
            out.append(
                [
                    variant,
                    name,
                    f"{setup:.1f}",
                    f"{1 / per_row:.1f}",
                    source,
                    f"{1 / base['cpu']:.1f}",
                    f"{1 / ours['cpu']:.0f}",
                    f"{loaded['setup']:.2f}",
                    f"{1 / loaded['cpu']:.1f}",
                    f"{1 / default['cpu']:.1f}",
                    f"{per_row / loaded['cpu']:.1f}x",
                    f"{per_row / ours['cpu']:.0f}x",
                    f"{ours['wall'] * 1000:.1f} ms",
                ]
            )
    header = [
        "variant",
        "length",
        "RULER setup CPU-s",
        "RULER rows/CPU-s",
        "RULER",
        "whole: rows/CPU-s",
        "draw: rows/CPU-s",
        "load_dataset: setup CPU-s",
        "load_dataset: rows/CPU-s",
        "load_dataset, helmet recipe",
        "load_dataset vs RULER",
        "draw vs RULER",
        "draw: wall/row",
    ]
    print(table(out, header))
    print(f"load average (1 min) during the run: {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores")
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m perf.generate")
    parser.add_argument("--rows", type=int, help="library rows timed (default 200 at 32k, 50 at 128k)")
    parser.add_argument("--ruler", help="a RULER checkout (default /tmp/ruler_src)")
    parser.add_argument("--ruler-python", help="a Python with RULER's dependencies")
    parser.add_argument("--ruler-rows", type=int, help="RULER rows timed (default 80 at 32k, 20 at 128k)")
    args = parser.parse_args()
    main(args.rows, args.ruler, args.ruler_python, args.ruler_rows)
