"""Records THUDM/LongBench's unchanged LongBench v2 ``extract_answer`` (``pred.py``) and ``result.py`` on
synthetic predictions, for ``tests/test_metrics_longbench_v2.py``'s parity test.

    python tests/upstream/record_longbench_v2_result.py CHECKOUT COMMIT \
        > tests/upstream/longbench_v2_result.json

CHECKOUT holds upstream's ``pred.py`` and ``result.py`` at COMMIT (recorded in the output). ``pred.py``
imports torch, transformers and an OpenAI client at module level, so only its ``extract_answer``
function is taken from its source (by its syntax tree, unchanged) and run; ``result.py`` needs nothing
but the standard library and runs as a script, unchanged, in a scratch directory holding ``results/``.

Each "model" file answers every item with one of a set of responses (tricky extractions included)
chosen by a fixed seed; an empty response is not written, as ``pred.py`` skips an item whose call
returned ``''``. Every file has a row of every difficulty and length, because result.py divides by
zero otherwise.
"""

from __future__ import annotations

import ast
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

RESPONSES = [
    "The correct answer is ({letter})",
    "**The correct answer is ({letter})**",
    "The correct answer is {letter}.",
    "Reasoning... The correct answer is *({letter})*",
    "the correct answer is ({letter})",
    "The correct answer is  ({letter})",
    "The correct answer is (E)",
    "I cannot tell.",
    "The correct answer is A, no wait. The correct answer is ({letter})",
    "The correct answer is ({letter}) or The correct answer is (A)",
    "",
    "   ",
]
LETTERS = "ABCD"
LENGTH_LABELS = ["short", "medium", "long", "Long", "very long"]  # result.py: anything else is long


def extract_answer_of(pred_py: str):
    tree = ast.parse(pred_py)
    (function,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "extract_answer"]
    namespace: dict = {}
    module = ast.fix_missing_locations(ast.Module([ast.Import([ast.alias("re")]), function], []))
    exec(compile(module, "pred.py", "exec"), namespace)
    return namespace["extract_answer"]


def items(rng: random.Random, n: int) -> list[dict]:
    out = []
    for i in range(n):
        out.append(
            {
                "_id": f"id{i:03d}",
                "difficulty": "easy" if i % 2 == 0 else "hard",
                "length": LENGTH_LABELS[i % len(LENGTH_LABELS) if i >= 6 else i % 3],
                "answer": rng.choice(LETTERS),
            }
        )
    return out


def main(checkout: str, commit: str) -> None:
    root = Path(checkout)
    extract_answer = extract_answer_of((root / "pred.py").read_text(encoding="utf-8"))
    rng = random.Random(30)
    files = {}
    for model, n in (("model-a", 40), ("model-b", 57), ("model-c", 13)):
        rows = []
        for item in items(rng, n):
            letter = item["answer"] if rng.random() < 0.6 else rng.choice(LETTERS)
            response = rng.choice(RESPONSES).format(letter=letter)
            pred = extract_answer(response.strip())
            rows.append({**item, "response": response, "pred": pred, "judge": pred == item["answer"]})
        files[model] = rows
    with tempfile.TemporaryDirectory() as scratch:
        results = Path(scratch, "results")
        results.mkdir()
        for model, rows in files.items():
            with open(results / f"{model}.jsonl", "w", encoding="utf-8") as f:
                for row in rows:
                    if row["response"] != "":  # pred.py writes no item whose reply was ''
                        f.write(json.dumps(row, ensure_ascii=False) + "\n")
        subprocess.run([sys.executable, str(root / "result.py")], cwd=scratch, check=True)
        table = Path(scratch, "result.txt").read_text(encoding="utf-8")
    json.dump({"commit": commit, "files": files, "result_txt": table}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
