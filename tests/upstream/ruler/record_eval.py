"""Score prediction files with RULER's unchanged ``scripts/eval/evaluate.py`` and keep its numbers.

    python tests/upstream/ruler/record_eval.py predictions     # writes eval/predictions.json.gz (seeded)
    python tests/upstream/ruler/record_eval.py score           # runs evaluate.py, writes eval/scores.json

``predictions`` makes, for two folders (as RULER's ``run.sh`` keeps one prediction folder per length),
a ``<task>.jsonl`` per task of ``synthetic.yaml`` with RULER's prediction-file fields (``index``,
``input``, ``outputs``, ``pred``, ``others``): the references are RULER's own ``outputs`` from the
recorded fixtures plus hand-made ones (several SQuAD-style gold spans, upper case), the predictions
seeded mixes of all, some or none of the references, other case, RULER's control characters
(``\\x00``-``\\x1f``, some of which ``str.strip`` treats as space), empty and whitespace-only
outputs, with row counts (7, 11, 13, ...) whose averages need rounding; a third folder, ``order``,
holds 40 rows whose score rounds differently under another order of RULER's float operations.

``score`` writes the folders to a temporary directory and runs ``python evaluate.py --data_dir
<folder> --benchmark synthetic`` in a copy of the RULER checkout, in ``RULER_VENV`` (pandas, PyYAML,
nltk, tqdm), with ``NLTK_DATA`` holding an empty ``tokenizers/punkt`` (so its ``nltk.download``
is not reached) and a stand-in for the one NeMo import it makes,
``nemo.collections.asr.parts.utils.manifest_utils.read_manifest`` / ``write_manifest`` (one JSON
object per line, as NeMo's are), then keeps each folder's ``summary.csv`` (task → score, nulls).
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cases import TASKS, first_records, write_gzip  # noqa: E402

EVAL = HERE / "eval"
RULER_SRC = Path(os.environ.get("RULER_SRC", "/tmp/ruler_src"))
RULER_VENV = Path(os.environ.get("RULER_VENV", "/work/venv_ruler"))
FOLDERS = {"4096": 0, "131072": 1}
SYNTHETIC = ["--benchmark", "synthetic"]
#: the other fields of RULER's prediction files (call_api.py), which evaluate.py does not score
RECORD_REST = {"others": {}, "truncation": -1, "length": -1}

#: hand-made references: several gold spans (SQuAD keeps every annotator's), case, punctuation
EXTRA_REFS = [
    ["Denver Broncos", "Denver Broncos", "the Broncos"],
    ["1994", "in 1994", "the year 1994"],
    ["Saint-Étienne", "ST-ÉTIENNE"],
    ["yes"],
    ["ABC", "abc def"],
]
CONTROL = ["\x00", "\x01", "\x07", "\x0b", "\x0c", "\x1c", "\x1f", "\t", "\r", "\n"]
FILLER = ["The answer is", "I think", "Answer:", "they are", "None of the above.", "The top words:"]


def prediction(rng: random.Random, refs: list[str]) -> str:
    kind = rng.randrange(9)
    pick = refs if kind in (0, 1) else rng.sample(refs, rng.randint(0, len(refs)))
    if kind == 1:
        pick = [r.upper() if rng.random() < 0.5 else r.lower() for r in pick]
    glue = rng.choice([", ", " ", "\n", rng.choice(CONTROL), " and "])
    text = f"{rng.choice(FILLER)} {glue.join(pick)}"
    if kind == 2 and refs:  # a reference broken by a control character, which RULER turns into \n
        ref = rng.choice(refs)
        cut = rng.randrange(1, max(2, len(ref)))
        text = f"{ref[:cut]}{rng.choice(CONTROL)}{ref[cut:]}"
    if kind == 3:
        text = rng.choice(["", " ", "\n\n", "\x00", "\x1f\x1c", " \x00 \x01", "\t\x0b"])
    if kind == 4:
        text = rng.choice(FILLER)
    pad = lambda: "".join(rng.choice([*CONTROL, " "]) for _ in range(rng.randint(0, 3)))  # noqa: E731
    return pad() + text + pad()


def make_predictions() -> dict:
    pool = {task: [r["outputs"] for r in first_records(f"{task}-llama2-2048")] for task in TASKS}
    sizes = [7, 11, 13, 3, 29, 6, 17, 9, 21, 14, 19, 23, 31]
    out: dict = {}
    for folder, salt in FOLDERS.items():
        rng = random.Random(f"ruler-eval-{folder}")
        out[folder] = {}
        for i, task in enumerate(TASKS):
            refs_pool = pool[task] + EXTRA_REFS
            rows = []
            for index in range(sizes[(i + salt) % len(sizes)] + salt * 10):
                refs = rng.choice(refs_pool)
                rows.append({"index": index, "outputs": refs, "pred": prediction(rng, refs)})
            out[folder][task] = rows
    out["order"] = {task: order_rows(pool[task][0]) for task in ("niah_multivalue", "niah_multiquery")}
    return out


def order_rows(refs: list[str]) -> list[dict]:
    """40 rows scoring 21 x 1, 3 x 0.25 and 16 x 0 (four references): sum / 40 * 100 is 54.3749...,
    100 * sum / 40 is 54.375, so RULER's order of operations decides the rounding (54.37)."""
    assert len(refs) == 4
    preds = [" ".join(refs)] * 21 + [refs[0]] * 3 + ["none"] * 16
    return [{"index": i, "outputs": refs, "pred": pred} for i, pred in enumerate(preds)]


def load_predictions() -> dict:
    with gzip.open(EVAL / "predictions.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


NEMO_SHIM = '''import json


def read_manifest(manifest):
    with open(manifest, "r", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_manifest(output_path, target_manifest, ensure_ascii=True):
    with open(output_path, "w", encoding="utf-8") as f:
        for item in target_manifest:
            f.write(json.dumps(item, ensure_ascii=ensure_ascii) + "\\n")
'''


def score() -> dict:
    sets = load_predictions()
    results = {}
    with tempfile.TemporaryDirectory(prefix="ruler-eval-") as tmp:
        root = Path(tmp)
        ruler = root / "RULER"
        shutil.copytree(RULER_SRC, ruler, ignore=shutil.ignore_patterns(".git"))
        shim = root / "shim" / "nemo" / "collections" / "asr" / "parts" / "utils"
        shim.mkdir(parents=True)
        (shim / "manifest_utils.py").write_text(NEMO_SHIM, encoding="utf-8")
        (root / "nltk" / "tokenizers" / "punkt").mkdir(parents=True)
        env = {
            **os.environ,
            "PATH": f"{RULER_VENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": str(root / "shim"),
            "NLTK_DATA": str(root / "nltk"),
        }
        for folder, tasks in sets.items():
            data = root / "pred" / folder
            data.mkdir(parents=True)
            for task, rows in tasks.items():
                with open(data / f"{task}.jsonl", "w", encoding="utf-8") as f:
                    for row in rows:
                        record = {"index": row["index"], "pred": row["pred"], "input": "", **RECORD_REST}
                        f.write(json.dumps({**record, "outputs": row["outputs"]}) + "\n")
            done = subprocess.run(
                [str(RULER_VENV / "bin" / "python"), "evaluate.py", "--data_dir", str(data), *SYNTHETIC],
                cwd=ruler / "scripts" / "eval",
                env=env,
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                sys.exit(f"evaluate.py failed on {folder}:\n{done.stderr[-3000:]}")
            with open(data / "summary.csv", encoding="utf-8") as f:
                table = {row[0]: row[1:] for row in csv.reader(f)}
            results[folder] = {
                task: {"score": float(score), "nulls": nulls}
                for task, score, nulls in zip(table["Tasks"], table["Score"], table["Nulls"], strict=True)
            }
    return results


def main() -> None:
    if sys.argv[1:] == ["predictions"]:
        write_gzip(EVAL / "predictions.json.gz", json.dumps(make_predictions(), indent=0).encode("utf-8"))
    elif sys.argv[1:] == ["score"]:
        (EVAL / "scores.json").write_text(json.dumps(score(), indent=1) + "\n", encoding="utf-8")
    else:
        sys.exit(__doc__)
    print(sorted(p.name for p in EVAL.iterdir()))


if __name__ == "__main__":
    main()
