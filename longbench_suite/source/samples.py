"""What a sample mirror declares of its own files' record counts.

Upstream's record counts (``RemoteFile(..., records=N)``) hold for upstream's files only: the library's
sample files (``longbench_suite.samplefiles.write_to_mirror``, used by every benchmark's ``samples``
module and by the demo sandbox) hold fewer. So the writer declares, beside the files it writes, how
many records each holds (``MIRROR/longbench-suite-records.json``: ``HOST/PATH`` and
``HOST/PATH#MEMBER`` -> records). A resolver reading from a mirror (a directory or an http(s) base) or
a ``data_dir`` that holds such a declaration compares a file it lists with the declared count; a file
it does not list, and any download from the canonical URL, is held to upstream's count. The
declaration is the mirror's own claim, trusted as the mirror is trusted for its bytes. A member of an
archive the declaration lists is held to the count declared for it, else to upstream's.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from filelock import FileLock

from ..errors import SourceError, describe

RECORDS_NAME = "longbench-suite-records.json"


def key(url: str, member: str | None = None) -> str:
    """How the declaration names the file at ``url`` (``HOST/PATH``), or one member of it."""
    parts = urlsplit(url)
    base = parts.netloc + parts.path
    return f"{base}#{member}" if member else base


@dataclass(frozen=True)
class SampleRecords:
    path: str  # where the declaration was read (a file or a URL)
    counts: Mapping[str, int]

    def count(self, url: str, members: Iterable[str] = ()) -> int | None:
        """The declared records of ``url`` (or of the first of ``members`` it declares)."""
        members = tuple(members)
        if not members:
            return self.counts.get(key(url))
        return next((self.counts[key(url, m)] for m in members if key(url, m) in self.counts), None)


def _parse(text: bytes, where: str) -> SampleRecords:
    try:
        document = json.loads(text)
        counts = {str(k): v for k, v in document.items() if v is not None}
    except (ValueError, AttributeError) as exc:
        raise SourceError(f"sample record declaration {where} is unreadable: {exc}") from None
    bad = next((k for k, v in counts.items() if type(v) is not int or v < 0), None)
    if bad is not None:
        raise SourceError(
            f"sample record declaration {where}: {bad!r} must map to a record count (an integer >= 0), "
            f"not {counts[bad]!r}"
        )
    return SampleRecords(where, counts)


def read_sample_records(root: str | None, download_config=None) -> SampleRecords | None:
    """The declaration at the root of a mirror directory, ``data_dir`` or http(s) mirror, if any."""
    if not root:
        return None
    if root.startswith(("http://", "https://")):
        from .download import read_small

        url = f"{root.rstrip('/')}/{RECORDS_NAME}"
        options = getattr(download_config, "storage_options", None) or {}
        try:
            text = read_small(url, options)
        except Exception as exc:  # aiohttp's and fsspec's errors share no base class but Exception
            # Unread, the mirror's sample files would be held to upstream's counts: a confusing error.
            raise SourceError(
                f"cannot read the sample record declaration {url}: {describe(exc)}; run again once the "
                "mirror answers"
            ) from None
        return None if text is None else _parse(text, url)  # none: a mirror of upstream's files
    path = os.path.join(root, RECORDS_NAME)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            return _parse(handle.read(), path)
    except OSError as exc:
        raise SourceError(f"cannot read the sample record declaration {path}: {describe(exc)}") from None


def declare_sample_records(mirror: str, counts: Mapping[str, int | None]) -> None:
    """Add ``counts`` (``key(...)`` -> records) to the declaration of the sample mirror ``mirror``."""
    path = os.path.join(mirror, RECORDS_NAME)
    os.makedirs(mirror, exist_ok=True)
    # the lock lives outside the mirror (never in a user's folder) and is never removed (a removed lock
    # file lets a third writer lock a new inode while a second holds the old one)
    name = hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:16]
    lock = os.path.join(tempfile.gettempdir(), f"longbench-suite-records-{name}.lock")
    with FileLock(lock):
        known = read_sample_records(mirror)
        merged = {
            **(dict(known.counts) if known else {}),
            **{k: v for k, v in counts.items() if v is not None},
        }
        tmp = f"{path}.tmp-{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(merged, handle, indent=1, sort_keys=True)
        os.replace(tmp, path)
