"""LongBench v2's 465 MB ``data.json``: the first streamed row and a prepared build's peak memory.

Run: ``python -m perf.longbench_v2 [--mb 465] [--tokenizer PATH] [--all-builds]``.

Generates (once, into the work directory) a ``data.json`` in the Hub repo's layout — one JSON array of
503 records with upstream's twelve fields — whose contexts follow upstream's length labels (180 short,
215 medium, 108 long; the long ones up to ~9 MB) and add up to about ``--mb`` megabytes. Then, each in a
fresh process reading it as ``data_dir``, with the Llama-2 tokenizer; every build child counts the
parses of ``data.json`` (calls of ``iter_json_records`` for its records), and "copy off" turns off the
Arrow copy of the parsed records (``records/stored.py``), which is how every config read the file
before the copy:

* **stream**: ``load_dataset("longbench_v2", "0shot_full", streaming=True)`` and its first row (the
  uncut prompt of record 0), timed from the call (imports apart, torch's too, as ``perf.streaming``
  does: ``datasets`` imports it for the first ``IterableDataset``), from a cache without the copy and
  from one holding it; baseline: ``json.load`` of the whole file, as ``pred.py``'s commented-out loader
  reads it, before its first record can be had;
* **prepare**: ``0shot_128k`` prepared (all 503 rows cut to 120000 tokens, Arrow written, the copy
  kept), its wall and CPU time and peak resident memory; then ``cot_128k`` in a later process of the
  same cache (read from the copy: no parse); baseline: the peak memory of ``json.load`` alone;
* **together**: ``0shot_128k`` and ``cot_128k`` prepared in one process (``prepare([...])``, as
  ``longbench-suite build A B`` does), copy off and on;
* **reads**: what the 12 ``0shot``/``cot`` configs read of the file (``tasks.records``, one after the
  other, nothing else), copy off and on; with ``--all-builds`` also the 12 configs built in one process;
* **parse**: ``iter_json_records`` over the whole file alone.

The streamed first row is the best of three runs. Asserts that it is ``pred.py``'s prompt for the
first record (the same from the copy) and that every prepared split holds every ``_id`` in file order.
Targets: first row < 2 s, prepared peak RSS < 1 GB, one parse of the file per cache.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from longbench_suite.benchmarks.longbench_v2.lengths import LENGTHS
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

#: counts the parses of data.json (``iter_json_records`` calls for its records); argv "off" turns the copy
#: of the parsed records off, which is how every config read the file before the copy existed
PARSES = r"""
import resource
from longbench_suite.records import stored
parse, parses = stored.iter_json_records, []
def counted(ref, *args, **kwargs):
    parses.append(ref.location)
    return parse(ref, *args, **kwargs)
stored.iter_json_records = counted
if sys.argv[-1] == "off":
    stored.COPIES.file_path = lambda *args, **kwargs: None
def cpu_s():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
"""

PREPARE = r"""
import json, resource, sys, time
from longbench_suite import load_dataset
""" + PARSES + r"""
folder, tokenizer, cache, config = sys.argv[1:5]
start, cpu = time.perf_counter(), cpu_s()
rows = load_dataset("longbench_v2", config, split="eval", data_dir=folder, tokenizer=tokenizer,
                    cache_dir=cache)
done = time.perf_counter()
print(json.dumps({"build_s": done - start, "cpu_s": cpu_s() - cpu, "parses": len(parses),
                  "ids": list(rows["_id"]), "cut": sum(rows["input_truncated"]),
                  "max_input_tokens": max(rows["input_tokens"]),
                  "self_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

TOGETHER = r"""
import json, resource, sys, time
from longbench_suite import get_builder, prepare
""" + PARSES + r"""
folder, tokenizer, cache, configs = sys.argv[1:5]
start, cpu = time.perf_counter(), cpu_s()
built = prepare([get_builder(f"longbench_v2/{c}", data_dir=folder, tokenizer=tokenizer, cache_dir=cache)
                 for c in configs.split(",")])
done = time.perf_counter()
ids = [list(b.as_dataset(split="eval")["_id"]) for b in built]
print(json.dumps({"build_s": done - start, "cpu_s": cpu_s() - cpu, "parses": len(parses), "ids": ids,
                  "self_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

#: what each of ``configs`` builds reads of data.json (``tasks.records``), one config after the other
READS = r"""
import json, resource, sys, time
from longbench_suite.benchmarks.longbench_v2.tasks import DATA_RECORDS, records
from longbench_suite.source import FileRef
""" + PARSES + r"""
path, cache, configs = sys.argv[1:4]
ref = FileRef(path, label="data.json", records=DATA_RECORDS)
start, cpu = time.perf_counter(), cpu_s()
ids = [[record["_id"] for _, record in records(ref, None, cache)] for _ in configs.split(",")]
print(json.dumps({"read_s": time.perf_counter() - start, "cpu_s": cpu_s() - cpu, "parses": len(parses),
                  "ids": ids, "self_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
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


def main(total_mb: int = 465, tokenizer: str | None = None, all_builds: bool = False) -> dict:
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
    cache = workdir() / f"longbench-v2-cache-{os.getpid()}"
    whole = run_child(WHOLE, str(data))
    parse = run_child(PARSE, str(data))
    assert parse["ids"] == whole["ids"], "the record-by-record parse differs from json.load"
    streams = [run_child(STREAM, str(folder), tokenizer, str(cache / "stream")) for _ in range(3)]
    stream = min(streams, key=lambda r: r["first_row_s"])
    assert stream["input"] == pred_py_prompt(ZERO_SHOT_TEXT, whole["first"]), "the streamed row differs"
    shared = str(cache / "shared")  # one cache: the first build parses and keeps the copy, later ones read it
    prepared = run_child(PREPARE, str(folder), tokenizer, shared, "0shot_128k", "on")
    assert prepared["ids"] == whole["ids"], "the prepared split is not every record in file order"
    later = run_child(PREPARE, str(folder), tokenizer, shared, "cot_128k", "on")
    assert later["ids"] == whole["ids"] and later["parses"] == 0, "a later process parsed data.json again"
    copied = [run_child(STREAM, str(folder), tokenizer, shared) for _ in range(3)]
    from_copy = min(copied, key=lambda r: r["first_row_s"])
    assert from_copy["input"] == stream["input"], "the row streamed from the copy differs"
    pair = "0shot_128k,cot_128k"
    together = {
        copy: run_child(TOGETHER, str(folder), tokenizer, str(cache / f"together-{copy}"), pair, copy)
        for copy in ("off", "on")
    }
    all_configs = ",".join(f"{task}_{length}" for task in ("0shot", "cot") for length in LENGTHS)
    reads = {
        copy: run_child(READS, str(data), str(cache / f"reads-{copy}"), all_configs, copy)
        for copy in ("off", "on")
    }
    for run in (*together.values(), *reads.values()):
        assert all(ids == whole["ids"] for ids in run["ids"]), "a config did not read every record in order"
    built_all = {}
    if all_builds:
        built_all = {
            copy: run_child(TOGETHER, str(folder), tokenizer, str(cache / f"all-{copy}"), all_configs, copy)
            for copy in ("off", "on")
        }

    def line(name: str, run: dict, seconds: str = "build_s") -> list[str]:
        cpu = f"{run['cpu_s']:.1f}" if "cpu_s" in run else "-"
        parses = str(run["parses"]) if "parses" in run else "-"
        return [name, f"{run[seconds]:.2f}", cpu, f"{run['peak_rss_mb']:.0f}", parses]

    rows = [
        line("first row: streaming (0shot_full)", stream, "first_row_s"),
        line("first row: streaming, from the copy", from_copy, "first_row_s"),
        line("first row: json.load of the file", whole, "first_row_s"),
        line("prepared 0shot_128k (parses, keeps copy)", prepared),
        line("prepared cot_128k, later process", later),
        line("0shot_128k + cot_128k, copy off (before)", together["off"]),
        line("0shot_128k + cot_128k, copy on (after)", together["on"]),
        line("reads of the 12 0shot/cot configs, off", reads["off"], "read_s"),
        line("reads of the 12 0shot/cot configs, on", reads["on"], "read_s"),
        *(line(f"all 12 configs built, copy {copy}", run) for copy, run in built_all.items()),
        line("parse data.json alone, record by record", parse, "parse_s"),
    ]
    print(table(rows, ["measurement", "seconds", "CPU s", "peak RSS MB", "parses"]))
    print(
        f"first row {whole['first_row_s'] / stream['first_row_s']:.1f}x sooner than json.load's; prepared "
        f"peak {prepared['peak_rss_mb'] / whole['peak_rss_mb']:.2f}x json.load's; "
        f"{prepared['cut']} rows cut, at most {prepared['max_input_tokens']} input tokens (budget 120000)"
    )
    print(
        f"two configs together: {together['on']['build_s']:.1f} s with the copy, "
        f"{together['off']['build_s']:.1f} s without; the 12 configs' reads: {reads['on']['read_s']:.1f} s "
        f"({reads['on']['parses']} parse) against {reads['off']['read_s']:.1f} s "
        f"({reads['off']['parses']} parses)"
    )
    return {"stream": stream["first_row_s"], "prepared_rss_mb": prepared["peak_rss_mb"]}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=465, help="size of the generated data.json")
    parser.add_argument("--tokenizer", help="tokenizer.json (default: the Llama-2 fixture)")
    parser.add_argument(
        "--all-builds", action="store_true", help="also build all 12 configs, with and without the copy"
    )
    args = parser.parse_args()
    main(args.mb, args.tokenizer, args.all_builds)
