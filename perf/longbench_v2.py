"""LongBench v2's 465 MB ``data.json``: the first streamed row and a prepared build's peak memory.

Run: ``python -m perf.longbench_v2 [--mb 465] [--tokenizer PATH]``.

Generates (once, into the work directory) a ``data.json`` in the Hub repo's layout — one JSON array of
503 records with upstream's twelve fields — whose contexts follow upstream's length labels (180 short,
215 medium, 108 long; the long ones up to ~9 MB) and add up to about ``--mb`` megabytes. Then, each in a
fresh process reading it as ``data_dir``, with the Llama-2 tokenizer:

* **stream**: ``load_dataset("longbench_v2", "0shot_full", streaming=True)`` and its first row (the
  uncut prompt of record 0), timed from the call (imports apart, torch's too, as ``perf.streaming``
  does: ``datasets`` imports it for the first ``IterableDataset``); baseline: ``json.load`` of the
  whole file, as ``pred.py``'s commented-out loader reads it, before its first record can be had;
* **prepare**: ``0shot_128k`` prepared (all 503 rows cut to 120000 tokens, Arrow written), its wall time
  and peak resident memory; baseline: the peak memory of ``json.load`` alone;
* **together**: ``0shot_128k`` and ``cot_128k`` prepared in one process (``prepare([...])``, as
  ``longbench-suite build A B`` does): each reads ``data.json`` itself, but the tokenizer's cache of
  piece counts holds every piece of the file, so the second config counts its documents from it; the
  time against the one config alone;
* **parse**: ``iter_json_records`` over the whole file alone, what each config's build spends reading it.

The streamed first row is the best of three runs. Asserts that it is ``pred.py``'s prompt for the
first record and that every prepared split holds every ``_id`` in file order. Targets: first row
< 2 s, prepared peak RSS < 1 GB.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from perf.common import llama2_path, offline_environment, run_child, table, workdir

LABELS = ("short",) * 180 + ("medium",) * 215 + ("long",) * 108
#: relative context size of each label (short < 32k words, medium 32k-128k, long above)
WEIGHT = {"short": 1.0, "medium": 4.0, "long": 19.0}

STREAM = r"""
import importlib.util, json, resource, sys, time
start = time.perf_counter()
from longbench_suite import load_dataset
import datasets.arrow_dataset, datasets.iterable_dataset
if importlib.util.find_spec("torch"):  # datasets imports it for the first IterableDataset
    import torch
imported = time.perf_counter()
folder, tokenizer, cache = sys.argv[1:4]
stream = load_dataset("longbench_v2", "0shot_full", split="eval", streaming=True, data_dir=folder,
                      tokenizer=tokenizer, cache_dir=cache)
row = next(iter(stream))
done = time.perf_counter()
print(json.dumps({"import_s": imported - start, "first_row_s": done - imported, "input": row["input"],
                  "self_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

PREPARE = r"""
import json, resource, sys, time
from longbench_suite import load_dataset
folder, tokenizer, cache = sys.argv[1:4]
start = time.perf_counter()
rows = load_dataset("longbench_v2", "0shot_128k", split="eval", data_dir=folder, tokenizer=tokenizer,
                    cache_dir=cache)
done = time.perf_counter()
print(json.dumps({"build_s": done - start, "ids": list(rows["_id"]), "cut": sum(rows["input_truncated"]),
                  "max_input_tokens": max(rows["input_tokens"]),
                  "self_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

TOGETHER = r"""
import json, resource, sys, time
from longbench_suite import get_builder, prepare
folder, tokenizer, cache = sys.argv[1:4]
start = time.perf_counter()
built = prepare([get_builder(f"longbench_v2/{c}", data_dir=folder, tokenizer=tokenizer, cache_dir=cache)
                 for c in ("0shot_128k", "cot_128k")])
done = time.perf_counter()
ids = [list(b.as_dataset(split="eval")["_id"]) for b in built]
print(json.dumps({"build_s": done - start, "ids": ids,
                  "self_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

PARSE = r"""
import json, resource, sys, time
from longbench_suite.records import iter_json_records
from longbench_suite.source import FileRef
start = time.perf_counter()
ids = [record["_id"] for _, record in iter_json_records(FileRef(sys.argv[1], label="data.json"))]
print(json.dumps({"parse_s": time.perf_counter() - start, "ids": ids,
                  "self_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

WHOLE = r"""
import json, resource, sys, time
start = time.perf_counter()
with open(sys.argv[1], encoding="utf-8") as f:
    data = json.load(f)
first = data[0]
done = time.perf_counter()
print(json.dumps({"first_row_s": done - start, "first": first, "ids": [r["_id"] for r in data],
                  "self_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def pred_py_prompt(template: str, item: dict) -> str:
    """``pred.py``'s filling (``docs/longbench-v2.md`` §3), the reference for the streamed row."""
    return (
        template.replace("$DOC$", item["context"].strip())
        .replace("$Q$", item["question"].strip())
        .replace("$C_A$", item["choice_A"].strip())
        .replace("$C_B$", item["choice_B"].strip())
        .replace("$C_C$", item["choice_C"].strip())
        .replace("$C_D$", item["choice_D"].strip())
    )


def make_data_json(path: Path, total_mb: int) -> None:
    """Write the file record by record (never held whole): contexts are windows of one long text."""
    from longbench_suite.samplefiles import TextMaker

    text = TextMaker("perf-longbench-v2")
    base = "\n\n".join(text.paragraph(6, 14) for _ in range(3000))  # ~1.3 MB of prose
    unit = total_mb * 1e6 / sum(WEIGHT[label] for label in LABELS)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("[")
        for i, label in enumerate(LABELS):
            size = int(unit * WEIGHT[label] * (0.5 + (i * 37 % 100) / 100))
            start = (i * 7919) % len(base)
            context = (base[start:] + "\n\n" + base * (size // len(base) + 1))[:size]
            if i % 10 == 3:
                context = "会议纪要：第一章。" + context + "\nLet’s note: 😀"
            record = {
                "_id": f"66{i:022x}",
                "domain": "Single-Document QA",
                "sub_domain": "Academic",
                "difficulty": ("easy", "hard")[i % 5 < 3],
                "length": label,
                "question": text.sentence(12),
                **{f"choice_{x}": text.sentence(8) for x in "ABCD"},
                "answer": "ABCD"[i % 4],
                "context": context,
            }
            f.write(("" if i == 0 else ", ") + json.dumps(record, ensure_ascii=False, indent=4))
        f.write("]")
    os.replace(tmp, path)


def main(total_mb: int = 465, tokenizer: str | None = None) -> dict:
    offline_environment()
    from longbench_suite.benchmarks.longbench_v2.prompts import ZERO_SHOT_TEXT

    tokenizer = tokenizer or llama2_path()
    folder = workdir() / f"longbench-v2-{total_mb}mb"
    data = folder / "data.json"
    if not data.exists():
        folder.mkdir(parents=True, exist_ok=True)
        make_data_json(data, total_mb)
    size_mb = data.stat().st_size / 1e6
    print(f"data.json: {size_mb:.0f} MB, {len(LABELS)} records ({data})")
    cache = workdir() / "longbench-v2-cache"
    whole = run_child(WHOLE, str(data))
    parse = run_child(PARSE, str(data))
    assert parse["ids"] == whole["ids"], "the record-by-record parse differs from json.load"
    streams = [run_child(STREAM, str(folder), tokenizer, str(cache / "stream")) for _ in range(3)]
    stream = min(streams, key=lambda r: r["first_row_s"])
    assert stream["input"] == pred_py_prompt(ZERO_SHOT_TEXT, whole["first"]), "the streamed row differs"
    prepared = run_child(PREPARE, str(folder), tokenizer, str(cache / f"prepare-{os.getpid()}"))
    assert prepared["ids"] == whole["ids"], "the prepared split is not every record in file order"
    together = run_child(TOGETHER, str(folder), tokenizer, str(cache / f"together-{os.getpid()}"))
    assert together["ids"] == [whole["ids"]] * 2, "a config built together is not every record in order"
    rows = [
        ["first row: streaming (0shot_full)", f"{stream['first_row_s']:.2f}", f"{stream['peak_rss_mb']:.0f}"],
        ["first row: json.load of the file", f"{whole['first_row_s']:.2f}", f"{whole['peak_rss_mb']:.0f}"],
        ["prepared 0shot_128k (503 rows)", f"{prepared['build_s']:.1f}", f"{prepared['peak_rss_mb']:.0f}"],
        ["0shot_128k + cot_128k together", f"{together['build_s']:.1f}", f"{together['peak_rss_mb']:.0f}"],
        ["parse data.json alone, record by record", f"{parse['parse_s']:.1f}", f"{parse['peak_rss_mb']:.0f}"],
    ]
    print(table(rows, ["measurement", "seconds", "peak RSS MB"]))
    print(
        f"first row {whole['first_row_s'] / stream['first_row_s']:.1f}x sooner than json.load's; prepared "
        f"peak {prepared['peak_rss_mb'] / whole['peak_rss_mb']:.2f}x json.load's; "
        f"{prepared['cut']} rows cut, at most {prepared['max_input_tokens']} input tokens (budget 120000)"
    )
    print(
        f"two configs together: {together['build_s'] / prepared['build_s']:.2f}x the time of one alone; "
        f"parsing the file is {parse['parse_s'] / prepared['build_s']:.1%} of one config's build"
    )
    return {"stream": stream["first_row_s"], "prepared_rss_mb": prepared["peak_rss_mb"]}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=465, help="size of the generated data.json")
    parser.add_argument("--tokenizer", help="tokenizer.json (default: the Llama-2 fixture)")
    args = parser.parse_args()
    main(args.mb, args.tokenizer)
