"""A resolved source: the picklable :class:`FileRef` a task reads, what a bad one leaves behind
(:func:`forget`), and the identity of local source files (:func:`local_identity`)."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import MissingDependencyError, SourceError, describe
from . import archives

REMOTE_PREFIXES = ("http://", "https://", "hf://")


@dataclass(frozen=True)
class FileRef:
    """A resolved, picklable handle on one source file.

    ``location`` is a local path or a URL; ``members`` name the file inside it (alternatives, first
    found wins) when it is an archive member read in place. ``label`` is what error messages call the file.
    """

    location: str
    label: str
    members: tuple[str, ...] = ()
    download_config: object = field(default=None, compare=False, repr=False)
    #: files of our caches this file is read from (a download, an archive member's copy): what
    #: :func:`forget` deletes when the file proves bad, so that no later build trusts them
    cache_files: tuple[str, ...] = field(default=(), compare=False, repr=False)
    #: every member the build reads from the same archive (a remote tar is read once for them all)
    siblings: tuple[str, ...] = field(default=(), compare=False, repr=False)
    #: the records the file must hold (``None``: no count is known), and who declares it
    records: int | None = field(default=None, compare=False)
    records_origin: str = field(default="", compare=False, repr=False)

    @property
    def is_remote(self) -> bool:
        """Read over the network on every open (streaming without a cached copy)."""
        return self.location.startswith(REMOTE_PREFIXES)

    def open(self):
        """A binary file object with the file's bytes."""
        if self.members:
            return archives.open_member(
                self.location,
                self.members,
                label=self.label,
                download_config=self.download_config,
                siblings=self.siblings,
            )
        if os.path.exists(self.location):
            return open(self.location, "rb")
        from datasets.utils.file_utils import xopen

        try:
            return xopen(self.location, "rb", download_config=self.download_config)
        except ImportError as exc:
            raise MissingDependencyError(f"cannot open {self.label}: {describe(exc)}") from None
        except Exception as exc:
            raise SourceError(f"cannot open {self.label}: {describe(exc)}") from None


def forget(refs: Iterable[FileRef]) -> list[str]:
    """Delete the cache files ``refs`` were read from (never a user's file); returns what was deleted."""
    deleted = []
    for path in {p for ref in refs for p in ref.cache_files}:
        for suffix in ("", ".json", ".lock"):
            with contextlib.suppress(OSError):
                os.remove(path + suffix)
                deleted.append(path + suffix)
    return deleted


def local_identity(paths: Iterable[str]) -> str:
    """A digest of local files by path, size and modification time (as ``datasets`` keys local data
    files): an edited mirror or ``data_dir`` file gives a new build."""
    h = hashlib.sha256()
    for path in paths:
        stat = os.stat(path)
        h.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]
