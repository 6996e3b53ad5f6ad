"""Reading single members of zip and tar archives without extracting the rest.

* zip: members are opened in place (``zipfile`` locally; ``zip://member::URL`` with HTTP range reads
  when streaming), so nothing is extracted.
* tar / tar.gz: gzip has no random access, so a tar member is read by one sequential pass. Members a
  build needs are copied, in one pass for all of them, into a member cache keyed by the archive's
  identity (path, size, mtime); later builds read the copies. Only requested regular files are
  written, only below the cache directory, so absolute paths, ``..`` and links in an archive can never
  write anywhere else. When streaming and a member is not cached, it is read from the tar stream and
  nothing is written.

A truncated or corrupt archive raises :class:`CorruptArchiveError`, and the member copies of that
archive are removed, so no later run trusts them.
"""

from __future__ import annotations

import bz2
import contextlib
import difflib
import gzip
import hashlib
import io
import lzma
import os
import shutil
import tarfile
import zipfile
import zlib
from collections.abc import Mapping, Sequence

from .errors import SourceError

VERIFIED_SUFFIX = ".sha256-verified"
_CORRUPTION = (tarfile.TarError, zlib.error, EOFError, zipfile.BadZipFile, lzma.LZMAError, OSError)


class CorruptArchiveError(SourceError):
    """An archive that cannot be read to the end."""


def sha256_of(path: str, cache_dir: str | None = None) -> tuple[str, int]:
    """sha256 and size of a file, remembered (by path, size and mtime) under ``cache_dir``."""
    stat = os.stat(path)
    marker = None
    if cache_dir:
        key = hashlib.sha256(os.path.abspath(path).encode("utf-8")).hexdigest()[:24]
        marker = os.path.join(cache_dir, "verified", key + VERIFIED_SUFFIX)
        try:
            with open(marker, encoding="utf-8") as f:
                size, mtime, digest = f.read().split()
            if int(size) == stat.st_size and int(mtime) == stat.st_mtime_ns:
                return digest, stat.st_size
        except (OSError, ValueError):
            pass
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    digest = h.hexdigest()
    if marker:
        os.makedirs(os.path.dirname(marker), exist_ok=True)
        _atomic_write_text(marker, f"{stat.st_size} {stat.st_mtime_ns} {digest}")
    return digest, stat.st_size


def _atomic_write_text(path: str, text: str) -> None:
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def _safe_member(name: str) -> bool:
    parts = name.split("/")
    return bool(name) and not name.startswith("/") and ".." not in parts and "\\" not in name


def _missing_message(label: str, wanted: Sequence[str], names: Sequence[str]) -> str:
    close = difflib.get_close_matches(wanted[0], names, n=3, cutoff=0.6)
    hint = f"; close matches: {', '.join(close)}" if close else ""
    alternatives = " or ".join(wanted)
    return f"archive {label} has no member {alternatives}{hint}"


def _archive_key(path: str) -> str:
    stat = os.stat(path)
    ident = f"{os.path.abspath(path)}|{stat.st_size}|{stat.st_mtime_ns}"
    return hashlib.sha256(ident.encode("utf-8")).hexdigest()[:24]


def locate_members(
    archive_path: str,
    wanted: Mapping[str, Sequence[str]],
    *,
    cache_root: str,
    label: str,
) -> dict[str, tuple[str, tuple[str, ...]]]:
    """For each name, where to read its member: ``(path, ())`` for a cached copy, or
    ``(zip path, (member,))`` for a zip member opened in place."""
    for alternatives in wanted.values():
        for member in alternatives:
            if not _safe_member(member):
                raise ValueError(f"refusing an unsafe archive member path {member!r}")
    if zipfile.is_zipfile(archive_path):
        return _locate_in_zip(archive_path, wanted, label)
    return _extract_from_tar(archive_path, wanted, cache_root, label)


def _locate_in_zip(path: str, wanted: Mapping[str, Sequence[str]], label: str):
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            bad = zf.testzip() if os.path.getsize(path) < (64 << 20) else None
    except _CORRUPTION as exc:
        raise CorruptArchiveError(f"archive {label} is corrupt or truncated: {exc}") from None
    if bad is not None:
        raise CorruptArchiveError(f"archive {label} is corrupt: member {bad} fails its CRC check")
    present = set(names)
    found = {}
    for name, alternatives in wanted.items():
        member = next((m for m in alternatives if m in present), None)
        if member is None:
            raise SourceError(_missing_message(label, alternatives, names))
        found[name] = (path, (member,))
    return found


def _extract_from_tar(path: str, wanted: Mapping[str, Sequence[str]], cache_root: str, label: str):
    dest = os.path.join(cache_root, _archive_key(path))
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    missing: dict[str, Sequence[str]] = {}
    for name, alternatives in wanted.items():
        cached = next((m for m in alternatives if os.path.isfile(_dest_path(dest, m))), None)
        if cached is None:
            missing[name] = alternatives
        else:
            found[name] = (_dest_path(dest, cached), ())
    if not missing:
        return found
    needed = {m for alternatives in missing.values() for m in alternatives}
    seen: list[str] = []
    try:
        with _decompressed(path) as raw, tarfile.open(fileobj=raw, mode="r|") as stream:
            for info in stream:
                seen.append(info.name)
                if info.name in needed and info.isreg():
                    _copy_member(stream, info, _dest_path(dest, info.name))
                    for name in [n for n, alts in missing.items() if info.name in alts]:
                        found[name] = (_dest_path(dest, info.name), ())
                        del missing[name]
                    if not missing:
                        break
            else:
                # tarfile stops quietly at a cut between members; the compressed stream does not.
                while raw.read(1 << 20):
                    pass
    except _CORRUPTION as exc:
        shutil.rmtree(dest, ignore_errors=True)
        raise CorruptArchiveError(
            f"archive {label} is corrupt or truncated: {exc.__class__.__name__}: {exc}"
        ) from None
    if missing:
        raise SourceError(_missing_message(label, next(iter(missing.values())), seen))
    return found


_MAGIC = {b"\x1f\x8b": gzip.open, b"BZh": bz2.open, b"\xfd7zXZ\x00": lzma.open}


def _decompressed(path: str):
    """The archive's tar stream: decompressed when gzip/bzip2/xz, so truncation is detected."""
    with open(path, "rb") as f:
        head = f.read(6)
    for magic, opener in _MAGIC.items():
        if head.startswith(magic):
            return opener(path, "rb")
    return open(path, "rb")


def _dest_path(dest: str, member: str) -> str:
    path = os.path.join(dest, *member.split("/"))
    if not os.path.abspath(path).startswith(os.path.abspath(dest) + os.sep):
        raise ValueError(f"refusing an unsafe archive member path {member!r}")
    return path


def _copy_member(stream: tarfile.TarFile, info: tarfile.TarInfo, target: str) -> None:
    os.makedirs(os.path.dirname(target), exist_ok=True)
    tmp = f"{target}.part-{os.getpid()}"
    try:
        source = stream.extractfile(info)
        with open(tmp, "wb") as out:
            shutil.copyfileobj(source, out, 1 << 20)
        if os.path.getsize(tmp) != info.size:
            raise EOFError(f"member {info.name} ended after {os.path.getsize(tmp)} of {info.size} bytes")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


class _Closing(io.RawIOBase):
    """A read-only file object that closes its owners when closed."""

    def __init__(self, inner, *owners) -> None:
        self._inner, self._owners = inner, owners

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._inner.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            for owner in (self._inner, *self._owners):
                with contextlib.suppress(Exception):
                    owner.close()
        super().close()


def open_member(location: str, members: Sequence[str], *, label: str, download_config=None):
    """A binary reader of the first of ``members`` that exists in the archive at ``location``."""
    try:
        if os.path.exists(location):
            if zipfile.is_zipfile(location):
                zf = zipfile.ZipFile(location)
                present = set(zf.namelist())
                member = next((m for m in members if m in present), None)
                if member is None:
                    zf.close()
                    raise SourceError(_missing_message(label, members, sorted(present)))
                return io.BufferedReader(_Closing(zf.open(member), zf), 1 << 20)
            return _open_tar_member(open(location, "rb"), members, label)
        from datasets.utils.file_utils import xopen

        if location.split("?")[0].endswith(".zip"):
            last_error = None
            for member in members:
                try:
                    return xopen(f"zip://{member}::{location}", "rb", download_config=download_config)
                except FileNotFoundError as exc:
                    last_error = exc
            raise SourceError(f"archive {label} has no member {' or '.join(members)} ({last_error})")
        raw = xopen(location, "rb", download_config=download_config, block_size=0)
        return _open_tar_member(raw, members, label)
    except SourceError:
        raise
    except _CORRUPTION as exc:
        raise CorruptArchiveError(
            f"archive {label} is corrupt or truncated: {exc.__class__.__name__}: {exc}"
        ) from None


def _open_tar_member(raw, members: Sequence[str], label: str):
    stream = tarfile.open(fileobj=raw, mode="r|*")  # noqa: SIM115 (closed by the returned reader)
    wanted = set(members)
    for info in stream:
        if info.name in wanted and info.isreg():
            return io.BufferedReader(_Closing(stream.extractfile(info), stream, raw), 1 << 20)
    stream.close()
    raw.close()
    raise SourceError(f"archive {label} has no member {' or '.join(members)}")
