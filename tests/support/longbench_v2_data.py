"""A ``data_dir`` for LongBench v2 laid out like the Hub repo: ``data.json`` at its root."""

from __future__ import annotations

import json
import os

from longbench_suite.benchmarks.longbench_v2.tasks import DATA
from longbench_suite.source.samples import declare_sample_records, key


def write_data_dir(folder: str, data: list[dict] | bytes) -> str:
    """``folder/data.json`` holding ``data`` (records, or the file's bytes), with its record count declared
    beside it (a test's file need not hold upstream's 503 records). Returns the file's path."""
    raw = data if isinstance(data, bytes) else json.dumps(data, ensure_ascii=False, indent=4).encode("utf-8")
    path = os.path.join(folder, "data.json")
    os.makedirs(folder, exist_ok=True)
    with open(path, "wb") as f:
        f.write(raw)
    declare_sample_records(folder, {key(DATA.url): len(json.loads(raw))})
    return path
