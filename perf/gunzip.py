"""The archive's first pass with each gzip backend, on one synthetic multi-GB ``data.tar.gz``.

Run: ``python -m perf.gunzip [--gb 1.0 --repeats 2]``.

The archive (generated once into the work directory) holds JSON Lines members of KILT-like records
(random words of a 20k-word vocabulary, compressed at level 1 to about half), its compressed size at
least ``--gb``. Each backend installed (``longbench_suite.source.gzipfast``) runs the library's own
first pass (``archives.locate_members``: the tar stream read to the end of its gzip stream, the CRC
checked, two small members copied out) in a fresh member cache; the figure is compressed MB per
CPU-second of this process, the best of ``--repeats``, and the ratio is against the standard library's
``gzip`` in the same run. The copied members must be byte-identical across backends.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

from perf.common import Timer, gb, table, workdir
from perf.workloads import cached

WANTED = ("data/first.jsonl", "data/last.jsonl")


def _member_bytes(seed: int, size: int) -> bytes:
    import numpy as np

    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
    vocab = [bytes(letters[rng.integers(0, 26, rng.integers(2, 11))]) for _ in range(20_000)]
    lines, total, n = [], 0, 0
    while total < size:
        words = rng.integers(0, len(vocab), 120)
        text = b" ".join(vocab[w] for w in words).decode()
        line = json.dumps({"id": f"{seed}-{n}", "title": text[:40], "text": text, "score": n % 97}) + "\n"
        lines.append(line.encode())
        total += len(lines[-1])
        n += 1
    return b"".join(lines)


def make_archive(directory: Path, compressed_gb: float) -> None:
    """``data.tar.gz`` of ``first.jsonl``, 64 MB filler members until the gzip stream passes
    ``compressed_gb``, then ``last.jsonl`` (so the pass reads everything before its last member)."""
    from longbench_suite.source import gzipfast

    opener = {"isal": "isal.igzip", "zlib-ng": "zlib_ng.gzip_ng"}.get(gzipfast.backend(), "gzip")
    gzip_module = __import__(opener, fromlist=["open"])
    target = int(compressed_gb * 1e9)
    path = directory / "data.tar.gz"
    with (
        open(path, "wb") as raw,
        gzip_module.open(raw, "wb", compresslevel=1) as gz,
        tarfile.open(fileobj=gz, mode="w|") as tar,
    ):

        def add(name: str, data: bytes) -> None:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))

        add(WANTED[0], _member_bytes(0, 1 << 20))
        pool = [_member_bytes(seed, 64 << 20) for seed in range(1, 5)]
        k = 0
        while raw.tell() < target:
            add(f"data/filler-{k:05d}.jsonl", pool[k % len(pool)][k:] + pool[(k + 1) % len(pool)][:k])
            k += 1
        add(WANTED[1], _member_bytes(99, 1 << 20))


def first_pass(archive: str, backend: str) -> tuple[float, float, dict[str, str]]:
    """CPU and wall seconds of one first pass with ``backend``, and the members' sha256."""
    from longbench_suite.source import archives

    os.environ["LONGBENCH_SUITE_GZIP"] = backend
    cache = tempfile.mkdtemp(prefix="gunzip-pass-")
    try:
        with Timer() as t:
            found = archives.locate_members(
                archive, {m: (m,) for m in WANTED}, cache_root=cache, label="data.tar.gz"
            )
        digests = {m: hashlib.sha256(Path(found[m][0]).read_bytes()).hexdigest() for m in WANTED}
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        os.environ.pop("LONGBENCH_SUITE_GZIP", None)
    return t.cpu, t.wall, digests


def main(compressed_gb: float = 1.0, repeats: int = 2) -> None:
    from longbench_suite.source import gzipfast

    directory = cached(
        workdir() / f"gunzip-{compressed_gb:g}gb",
        {"gb": compressed_gb, "v": 1},
        lambda d: make_archive(d, compressed_gb),
    )
    archive = str(directory / "data.tar.gz")
    size = os.path.getsize(archive)
    with gzipfast.open_gzip(archive, "isal" if "isal" in gzipfast.available() else "stdlib") as f:
        inflated = sum(iter(lambda: len(f.read(1 << 24)), 0))
    rows, reference, base = [], None, None
    for backend in reversed(gzipfast.available()):  # stdlib first: it is the baseline
        best = min((first_pass(archive, backend) for _ in range(repeats)), key=lambda r: r[0])
        cpu, wall, digests = best
        if reference is None:
            reference, base = digests, cpu
        assert digests == reference, f"{backend} copied different members than stdlib"
        rows.append(
            [
                backend,
                f"{cpu:.1f}",
                f"{wall:.1f}",
                f"{size / 1e6 / cpu:.0f}",
                f"{inflated / 1e6 / cpu:.0f}",
                f"{base / cpu:.2f}x",
            ]
        )
    print(table(rows, ["backend", "CPU (s)", "wall (s)", "MB/CPU-s (gz)", "MB/CPU-s (tar)", "vs stdlib"]))
    print(f"data.tar.gz {gb(size)} compressed, {gb(inflated)} of tar stream; members byte-identical")
    print(f"default backend here: {gzipfast.backend()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    main(args.gb, args.repeats)
