"""What a failed build left in a cache that a later build would trust.

A later build trusts a finished Arrow build (a build directory holding ``dataset_info.json``), a download
in ``<cache>/downloads/`` and an archive member's copy under ``<cache>/longbench_suite/sources/members/``.
Temporary files (``*.incomplete`` downloads, ``*.part-<pid>`` member copies, ``*.incomplete`` build
directories) are never trusted: the next build writes them again.
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import zipfile


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _members(data: bytes) -> list[bytes]:
    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return [zf.read(name) for name in zf.namelist()]
    if data[:2] == b"\x1f\x8b":
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            return [tar.extractfile(m).read() for m in tar.getmembers() if m.isreg()]
    return []


def good_digests(mirror_dir: str) -> set[str]:
    """sha256 of every file of a pristine mirror and of every member of its archives."""
    digests = set()
    for directory, _, files in os.walk(mirror_dir):
        for name in files:
            with open(os.path.join(directory, name), "rb") as f:
                data = f.read()
            digests.add(_digest(data))
            digests.update(_digest(member) for member in _members(data))
    return digests


def trusted_leftovers(cache_dir: str, good: set[str]) -> list[str]:
    """Finished builds, and downloads or member copies whose bytes are not those of a good source."""
    found = []
    downloads = os.path.join(cache_dir, "downloads")
    members = os.path.join(cache_dir, "longbench_suite", "sources", "members")
    for directory, _, files in os.walk(cache_dir):
        if "dataset_info.json" in files and not directory.endswith(".incomplete"):
            found.append(f"a finished build in {directory}")
        for name in files:
            path = os.path.join(directory, name)
            in_downloads = directory == downloads and not name.endswith((".json", ".lock", ".incomplete"))
            in_members = directory.startswith(members + os.sep) and ".part-" not in name
            if in_downloads or in_members:
                with open(path, "rb") as f:
                    if _digest(f.read()) not in good:
                        found.append(f"bad bytes kept in {path}")
    return found
