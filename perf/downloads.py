"""Downloads over a loopback server: our downloader against ``datasets``' own, on the same file.

Run: ``python -m perf.downloads [--mb 200]``.

* **clean**: MB/s of ``datasets``' ``DownloadManager.download`` (one fsspec ``get_file``) and of
  ``longbench_suite.source.download`` (one streamed GET, resumed by ranges) for the same file; the
  copies must be byte-identical.
* **dropped**: the first response is cut after 5 MB (with its full ``Content-Length``): ``datasets``
  fails (it neither retries nor resumes); ours asks again for the range it lost, and the bytes the
  server sent in all are reported against the file's size.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import time
from pathlib import Path

from perf.common import offline_environment, table, workdir


def _digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def main(mb: int = 200) -> dict:
    offline_environment()
    import datasets
    from datasets.download.download_config import DownloadConfig
    from datasets.download.download_manager import DownloadManager

    from longbench_suite.source import download
    from tests.support.http_mirror import Fault, MirrorServer

    datasets.config.HF_HUB_OFFLINE = False
    root = workdir() / "downloads"
    shutil.rmtree(root, ignore_errors=True)
    (root / "mirror" / "files").mkdir(parents=True)
    source = root / "mirror" / "files" / "big.bin"
    with open(source, "wb") as f:
        for _ in range(mb):
            f.write(os.urandom(1 << 20))
    size = source.stat().st_size
    want = _digest(str(source))
    rows, figures = [], {}
    with MirrorServer(str(root / "mirror")) as server:
        url = f"{server.url}/files/big.bin"

        def theirs(cache: Path) -> str:
            config = DownloadConfig(cache_dir=str(cache), disable_tqdm=True)
            return DownloadManager(download_config=config).download(url)

        def ours(cache: Path) -> str:
            return download.download(url, str(cache))

        for name, fn in (("datasets DownloadManager.download", theirs), ("longbench_suite download", ours)):
            start = time.perf_counter()
            path = fn(root / name.split()[0])
            wall = time.perf_counter() - start
            assert _digest(path) == want, name
            figures[name] = size / wall / 1e6
            rows.append([name, "clean", f"{figures[name]:.0f} MB/s", "ok"])
        for name, fn in (("datasets DownloadManager.download", theirs), ("longbench_suite download", ours)):
            server.faults["files/big.bin"] = Fault(cut_after=5 << 20, times=1)
            before = server.total_bytes("big.bin")
            try:
                path = fn(root / (name.split()[0] + "-dropped"))
                outcome = "ok" if _digest(path) == want else "WRONG BYTES"
            except Exception as exc:  # the baseline fails: that is the figure
                outcome = f"failed: {type(exc).__name__}"
            sent = server.total_bytes("big.bin") - before
            rows.append([name, "dropped after 5 MB", f"{sent / size:.2f}x the file sent", outcome])
    ratio = figures["longbench_suite download"] / figures["datasets DownloadManager.download"]
    print(table(rows, ["downloader", "network", "figure", "outcome"]))
    print(f"clean throughput ratio, ours / datasets': {ratio:.2f}x")
    shutil.rmtree(root, ignore_errors=True)
    return {"ratio": ratio, **figures}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200)
    main(parser.parse_args().mb)
