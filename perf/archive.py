"""Every HELMET config of every length from one multi-GB ``data.tar.gz`` served over loopback HTTP.

Run: ``python -m perf.archive [--padding-gb 2 --naive-configs 5]``.

The mirror holds HELMET's sources at demo scale, with ``data.tar.gz`` grown past ``--padding-gb`` by
members no config reads, spread between the ones configs read (generated once into the work
directory). It is served by ``tests/support/http_mirror.py``, which counts the bytes it sends.

* **the library**: ``prepare()`` of the configs that read the archive (``--all-configs``: every HELMET
  config, as ``longbench-suite build`` of them all), each prepared in full (Arrow files written); the bytes
  served for ``data.tar.gz``, the member copies written, and the time;
* **naive**: what a ``datasets`` script does per config — ``dl_manager.iter_archive(URL)`` in
  streaming mode, reading the whole tar stream for the config's members — for ``--naive-configs``
  configs spread over the task families (each costs a full pass), extrapolated to every config
  that reads the archive.

Targets: the archive is sent at most once (≤ 1.0x its size), and only the members the configs
read are written.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from perf.common import Timer, builders, gb, llama2_path, mb, offline_environment, table, workdir
from perf.workloads import cached, helmet_mirror


def archive_configs() -> dict[str, set[str]]:
    """Every HELMET config, with the archive members it reads (empty when it reads none)."""
    from longbench_suite import registry
    from longbench_suite.benchmarks.helmet.common import ARCHIVE
    from longbench_suite.source import Member

    bench = registry.benchmark("helmet")
    out = {}
    for config in bench.config_names:
        task, length = bench.lookup(config)
        out[config] = {
            s.path for s in task.sources(length).values() if isinstance(s, Member) and s.archive == ARCHIVE
        }
    return out


def files_under(directory: str) -> dict[str, int]:
    found = {}
    for folder, _, names in os.walk(directory):
        for name in names:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, directory)] = os.path.getsize(path)
    return found


def library(server, configs: list[str], tokenizer: str) -> dict:
    from longbench_suite import api

    server.bytes_sent.clear()
    with tempfile.TemporaryDirectory(dir=workdir()) as cache:
        built = builders(
            [f"helmet/{c}" for c in configs],
            cache,
            tokenizer=tokenizer,
            pretruncation_tokenizer=tokenizer,
            mirror=server.url,
        )
        with Timer() as timer:
            api.prepare(built)
        rows = sum(split.num_examples for b in built for split in b.info.splits.values())
        members = files_under(os.path.join(cache, "longbench_suite", "sources", "members"))
        downloads = files_under(os.path.join(cache, "downloads"))
    return {
        "wall": timer.wall,
        "rows": rows,
        "served": server.total_bytes("data.tar.gz"),
        "members": {name.split(os.sep, 1)[1].replace(os.sep, "/"): size for name, size in members.items()},
        "downloaded": sum(size for name, size in downloads.items() if not name.endswith((".json", ".lock"))),
    }


def naive(server, url: str, wanted: set[str]) -> dict:
    """``iter_archive`` over the streamed archive, as a ``datasets`` script's generator does."""
    from datasets import DownloadConfig
    from datasets.download.streaming_download_manager import StreamingDownloadManager

    server.bytes_sent.clear()
    manager = StreamingDownloadManager(download_config=DownloadConfig())
    found = {}
    with Timer() as timer:
        for path, f in manager.iter_archive(manager.download(url)):
            if path in wanted:
                found[path] = len(f.read())
    assert set(found) == wanted, f"naive run missed {wanted - set(found)}"
    return {"wall": timer.wall, "served": server.total_bytes("data.tar.gz")}


def sample(configs: dict[str, set[str]], n: int) -> list[str]:
    """``n`` archive-reading configs spread over the list (so over the task families)."""
    reading = [c for c, members in configs.items() if members]
    step = max(1, len(reading) // max(1, n))
    return reading[::step][:n]


def main(padding_gb: float = 2.0, naive_configs: int = 5, all_configs: bool = False) -> dict:
    offline_environment()
    from tests.support.http_mirror import MirrorServer

    params = {"padding_bytes": int(padding_gb * 1e9)}
    root = cached(
        workdir() / "helmet-padded", {**params, "v": 3}, lambda d: helmet_mirror(d / "mirror", **params)
    )
    mirror = root / "mirror"
    archive = next(mirror.rglob("data.tar.gz"))
    size = archive.stat().st_size
    configs = archive_configs()
    needed = set().union(*configs.values())
    reading = [c for c, m in configs.items() if m]
    tokenizer = llama2_path()
    print(
        f"data.tar.gz: {gb(size)}; {len(configs)} configs, {len(reading)} read {len(needed)} of its members"
    )
    with MirrorServer(str(mirror)) as server:
        built = list(configs) if all_configs else reading
        ours = library(server, built, tokenizer)
        url = f"{server.url}/{Path(os.path.relpath(archive, mirror)).as_posix()}"
        naive_runs = {c: naive(server, url, configs[c]) for c in sample(configs, naive_configs)}
    written = set(ours["members"])
    assert written == needed, f"members written {sorted(written ^ needed)[:5]} differ from those needed"
    per_config = sum(r["served"] for r in naive_runs.values()) / len(naive_runs)
    per_config_time = sum(r["wall"] for r in naive_runs.values()) / len(naive_runs)
    rows = [
        [
            f"library: prepare() of {len(built)} configs ({ours['rows']:,} rows)",
            gb(ours["served"]),
            f"{ours['served'] / size:.2f}x",
            f"{ours['wall']:.0f}",
        ],
        *[
            [f"naive iter_archive, {c}", gb(r["served"]), f"{r['served'] / size:.2f}x", f"{r['wall']:.0f}"]
            for c, r in naive_runs.items()
        ],
        [
            f"naive, extrapolated to the {len(reading)} configs reading it (archive only, no rows)",
            gb(per_config * len(reading)),
            f"{per_config * len(reading) / size:.1f}x",
            f"{per_config_time * len(reading):.0f}",
        ],
    ]
    print(table(rows, ["run", "data.tar.gz sent", "x archive", "time (s)"]))
    copies = mb(sum(ours["members"].values()))
    fewer = per_config * len(reading) / max(1, ours["served"])
    print(
        f"library wrote {len(written)} member copies ({copies}, exactly the members the configs read) and "
        f"kept one download of the archive ({gb(ours['downloaded'])}, in the datasets download cache); "
        f"it was sent {fewer:.0f}x fewer bytes than naive"
    )
    return {"size": size, "library": ours, "naive": naive_runs}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--padding-gb", type=float, default=2.0)
    parser.add_argument("--naive-configs", type=int, default=5)
    parser.add_argument(
        "--all-configs", action="store_true", help="also build the configs that read no archive member"
    )
    args = parser.parse_args()
    main(args.padding_gb, args.naive_configs, args.all_configs)
