"""How many records a source file holds, and the check that it holds what it is declared to hold.

An unpinned source served short but still well-formed (a JSON-Lines file cut at a line end, a JSON
array closed early, ``[]``) parses cleanly and would build fewer rows. A source may therefore declare
its record count (``RemoteFile(..., records=N)``, ``Member(..., records=N)``); the resolver puts the
count that applies on the :class:`~longbench_suite.source.FileRef` (upstream's, or a sample mirror's
own, see :mod:`longbench_suite.source.samples`), and the parsers of :mod:`.parse` compare it with what
they found once they have read the whole file.

What a record is depends only on the file's format, here and in the parsers alike: a non-blank line of
a JSON-Lines or text file, an element of a JSON array, a row of a Parquet file.
"""

from __future__ import annotations

import io
import json
import posixpath

from ..errors import ShortSourceError
from ..source import UPSTREAM_ORIGIN, FileRef
from ..source.samples import RECORDS_NAME

LINE_FORMATS = (".jsonl", ".label", ".txt")


def check_count(ref: FileRef, found: int) -> None:
    """Raise :class:`ShortSourceError` when ``ref`` declares a record count other than ``found``."""
    expected = getattr(ref, "records", None)  # readers also take plain file handles without counts
    if expected is None or expected == found:
        return
    fewer = "fewer than" if found < expected else "not"
    origin = getattr(ref, "records_origin", "")
    subset = (
        f"; a mirror or data_dir that holds a subset on purpose declares its own counts in {RECORDS_NAME} "
        "at its root (docs/architecture.md §5)"
        if origin == UPSTREAM_ORIGIN
        else ""
    )
    raise ShortSourceError(
        f"{ref.label}: holds {found} records, {fewer} the {expected} it is declared to hold "
        f"({origin}); the copy is short or not the file expected — fix the mirror or download, then "
        f"run again{subset}"
    )


def count_records(name: str, data: bytes) -> int | None:
    """Records in the bytes of a file called ``name``, by its format (``None``: not a record file)."""
    suffix = posixpath.splitext(name)[1].lower()
    if suffix in LINE_FORMATS:
        return sum(1 for line in data.split(b"\n") if line.strip())
    if suffix == ".json":
        try:
            document = json.loads(data)
        except ValueError:
            return None
        return len(document) if isinstance(document, list) else None
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.ParquetFile(io.BytesIO(data)).metadata.num_rows
    return None
