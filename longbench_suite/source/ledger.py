"""What each unpinned source looked like when a build from it last succeeded.

Most sources have no published checksum. A download of one that comes out short (a mirror serving a
cut file, a proxy ending the body early without a length) would otherwise build fewer rows silently,
and every later config in the cache would trust it. So the first build that *succeeds* on a download
records its size (and its sha256 where the build computed one) here, per canonical URL, in
``<cache>/longbench_suite/sources/ledger.json``; a later download of that URL into the cache — after
``force_redownload``, or once the download was deleted — must match it, or it is removed and the build
fails naming both. A longer copy is taken only when it begins with the recorded one (the copy that
built was cut short the first time): its recorded sha256 must be that of the new copy's start. Files
a user provides (``data_dir``, a mirror directory) are never judged: an edit there is a new source,
and rebuilds (the build cache keys them by size and mtime).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping

from filelock import FileLock

NAME = "ledger.json"


def _prefix_sha256(path: str, num_bytes: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        left = num_bytes
        while left and (block := f.read(min(left, 1 << 20))):
            digest.update(block)
            left -= len(block)
    return digest.hexdigest()


class Ledger:
    def __init__(self, cache_root: str) -> None:
        self.path = os.path.join(cache_root, NAME)

    def read(self) -> dict[str, dict]:
        try:
            with open(self.path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def mismatch(self, url: str, num_bytes: int, checksum: str | None, path: str | None = None) -> str | None:
        """Why a copy of ``url`` (the file at ``path``) differs from the one a build last succeeded with,
        or ``None``."""
        known = self.read().get(url)
        if not known:
            return None
        before = known["num_bytes"]
        if num_bytes < before:
            return f"it is {num_bytes} bytes, shorter than the {before} bytes a build succeeded with"
        if num_bytes > before:
            # The copy that built may itself have been short (cut at a line end the first time it was
            # seen, with no record count to tell): a longer copy that begins with it is that file whole.
            if known.get("checksum") and path and _prefix_sha256(path, before) == known["checksum"]:
                return None
            reason = (
                "does not begin with that copy"
                if known.get("checksum")
                else "has no recorded sha256 to compare its start with"
            )
            return (
                f"it is {num_bytes} bytes, longer than the {before} bytes a build succeeded with, which "
                f"{reason}; if that copy was the short one, delete the entry for {url} in {self.path}"
            )
        if checksum and known.get("checksum") and checksum != known["checksum"]:
            return f"its sha256 {checksum} is not the {known['checksum']} a build succeeded with"
        return None

    def record(self, entries: Mapping[str, dict]) -> None:
        """Record the copies a successful build read (``{url: {num_bytes, checksum}}``)."""
        if not entries:
            return
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        with FileLock(self.path + ".lock"):
            known = self.read()
            known.update(entries)
            with open(self.path + ".tmp", "w", encoding="utf-8") as f:
                json.dump(known, f, indent=1, sort_keys=True)
            os.replace(self.path + ".tmp", self.path)
