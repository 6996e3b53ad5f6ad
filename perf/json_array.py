"""Incremental JSON-array parsing vs ``json.load`` of the whole file (what the official runner does).

Run: ``python -m perf.json_array``. Builds a TSort-128k-like file (200 records of ~600 KB
prompts, ~120 MB) and prints, for both methods, the best-of-N time to read every record and the
peak traced memory (``tracemalloc``), with their ratios; asserts both read the same records.
Targets: at most 1.5x slower than ``json.load``, and a small fraction of its peak memory.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import tracemalloc

from longbench_suite.records import iter_json_records
from longbench_suite.samplefiles import TextMaker
from longbench_suite.source import FileRef


def make_file(path: str, records: int = 200, chars: int = 600_000) -> None:
    text = TextMaker("benchmark-json-array")
    block = "\n\n".join(text.paragraph(6, 14) for _ in range(60))
    prompt = (block * (chars // len(block) + 1))[:chars]
    rows = [
        {"prompt": prompt, "answer": [4, 1, 3, 2], "book_id": i, "para_offset": [i, i + 5]}
        for i in range(records)
    ]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=4, ensure_ascii=False)


def whole(path: str) -> int:
    with open(path, encoding="utf-8") as f:
        return sum(len(r["prompt"]) for r in json.load(f))


def incremental(path: str) -> int:
    return sum(len(r["prompt"]) for _, r in iter_json_records(FileRef(path, label=path)))


def measure(fn, path: str, repeats: int) -> tuple[float, int, int]:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(path)
        best = min(best, time.perf_counter() - start)
    tracemalloc.start()
    fn(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return best, peak, out


def main(repeats: int = 3) -> None:
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "textsort_128k.json")
        make_file(path)
        print(f"file: {os.path.getsize(path) / 1e6:.0f} MB")
        t_whole, m_whole, a = measure(whole, path, repeats)
        t_inc, m_inc, b = measure(incremental, path, repeats)
        assert a == b, "the two readers disagree"
        print(f"{'method':>12} {'time (s)':>9} {'peak MB':>8}")
        print(f"{'json.load':>12} {t_whole:>9.2f} {m_whole / 1e6:>8.0f}")
        print(f"{'incremental':>12} {t_inc:>9.2f} {m_inc / 1e6:>8.0f}")
        print(f"time ratio {t_inc / t_whole:.2f}x, memory ratio {m_inc / m_whole:.3f}x")


if __name__ == "__main__":
    main()
