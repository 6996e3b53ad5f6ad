"""STAND-IN until rqa's ``sources.py`` is merged: the one source the NIAH tasks read (the essay
haystack), under the names ``sources.py`` gives it (``SOURCES["essays"]``, ``read_essays``). The lead
deletes this file and points ``tasks.py`` at ``sources`` (one import line)."""

from __future__ import annotations

import io

from longbench_suite.errors import DataFormatError
from longbench_suite.source import FileRef, RemoteFile, hub_url

ESSAYS = RemoteFile(
    hub_url(
        "baber/paul_graham_essays", "essays.parquet", revision="792d672b77d1a67720f7e9820d646358fc18792e"
    ),
    sha256="825448033be010042ffd6fc77c32bbcab61f2ef63196f0fc4bfbf5b388a1660e",
)
SOURCES = {"essays": ESSAYS}


def read_essays(file: FileRef) -> str:
    """The essays' ``text`` column, in row order, joined with a space."""
    import pyarrow.parquet as pq

    with file.open() as handle:
        table = pq.read_table(io.BytesIO(handle.read()))
    if "text" not in table.column_names:
        raise DataFormatError(f"{file.label}: has no column 'text'")
    return " ".join(table.column("text").to_pylist())


#: each source's reader, by its name in :data:`SOURCES`
READERS = {"essays": read_essays}
