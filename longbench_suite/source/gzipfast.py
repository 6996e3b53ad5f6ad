"""The gzip reader of an archive's first pass: the fastest backend installed, the standard library's
otherwise.

All three inflate the same DEFLATE stream and check the same CRC-32 and length trailer, so members
are byte-identical whichever reads them; only the speed differs (``perf/gunzip.py``: ISA-L's
``isal.igzip`` ≈2.5x, ``zlib_ng.gzip_ng`` ≈2x the standard library, per CPU-second). The
``fast`` extra installs ``isal`` (``pip install "longbench-suite[fast]"``).

``LONGBENCH_SUITE_GZIP`` names one backend (``isal``, ``zlib-ng`` or ``stdlib``) to force it; a
name not installed falls back to the standard library.
"""

from __future__ import annotations

import functools
import gzip
import importlib
import os
import zlib
from collections.abc import Callable
from typing import IO

from ..errors import UnknownNameError

#: Backends by preference: (name, module, the exception its inflater raises on bad bytes).
BACKENDS: tuple[tuple[str, str, str], ...] = (
    ("isal", "isal.igzip", "isal.isal_zlib"),
    ("zlib-ng", "zlib_ng.gzip_ng", "zlib_ng.zlib_ng"),
    ("stdlib", "gzip", "zlib"),
)
ENV = "LONGBENCH_SUITE_GZIP"


@functools.cache
def _load(name: str) -> tuple[Callable[..., IO[bytes]], type[Exception]] | None:
    for known, module, errors in BACKENDS:
        if known == name:
            try:
                return importlib.import_module(module).open, importlib.import_module(errors).error
            except ImportError:
                return None
    raise UnknownNameError(
        f"{ENV}={name!r} names no gzip backend; choose from {', '.join(b[0] for b in BACKENDS)}"
    )


def available() -> list[str]:
    """The installed backends, fastest first (``stdlib`` always)."""
    return [name for name, _, _ in BACKENDS if _load(name) is not None]


def backend(name: str | None = None) -> str:
    """The backend used: ``name``, else ``$LONGBENCH_SUITE_GZIP``, else the fastest installed."""
    wanted = name or os.environ.get(ENV)
    if wanted:
        return wanted if _load(wanted) is not None else "stdlib"
    return available()[0]


def open_gzip(source: str | IO[bytes], name: str | None = None) -> IO[bytes]:
    """A binary reader of the decompressed stream of the gzip file at ``source`` (a path, or a binary
    reader, which closing the result leaves open)."""
    opener, _ = _load(backend(name)) or (gzip.open, zlib.error)
    return opener(source, "rb")


def errors() -> tuple[type[Exception], ...]:
    """What the installed backends raise on bad compressed bytes (besides ``EOFError``/``BadGzipFile``)."""
    return tuple({loaded[1] for name in available() if (loaded := _load(name)) is not None})
