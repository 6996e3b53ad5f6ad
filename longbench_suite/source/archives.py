"""Reading single members of zip and tar archives without extracting the rest.

* zip: members are opened in place (``zipfile`` locally; ``zip://member::URL`` with HTTP range reads
  when streaming), so nothing is extracted.
* tar / tar.gz: gzip has no random access, so a tar member is read by one sequential pass. Members a
  build needs are copied, in one pass for all of them, into a member cache keyed by the archive's
  identity (path, size, mtime); later builds read the copies. Only requested regular files are
  written, only below the cache directory, so absolute paths, ``..`` and links in an archive can never
  write anywhere else. The first pass over an archive file reads it to the end of its compressed
  stream (checking the gzip CRC), and member copies are trusted only after such a pass. When
  streaming and a member is not cached, it is read from the tar stream and nothing is written: a
  stream checks what it reads (tar header checksums, inflation), not the rest of the archive.

A truncated or corrupt archive raises :class:`CorruptArchiveError`, and the member copies of that
archive are removed, so no later run trusts them.
"""

from __future__ import annotations

import atexit
import bz2
import contextlib
import difflib
import gzip
import hashlib
import io
import logging
import lzma
import os
import shutil
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Mapping, Sequence

from ..errors import (
    CorruptArchiveError,
    MissingDependencyError,
    SourceError,
    StorageError,
    describe,
    local_cause,
)
from . import gzipfast

VERIFIED_SUFFIX = ".sha256-verified"
_CORRUPTION = (
    tarfile.TarError,
    zlib.error,
    *gzipfast.errors(),
    EOFError,
    zipfile.BadZipFile,
    lzma.LZMAError,
    OSError,
)
# What reading a member raises when the archive's bytes are bad (a zip's CRC is checked as it is read).
_BAD_BYTES = (
    tarfile.TarError,
    zlib.error,
    *gzipfast.errors(),
    EOFError,
    zipfile.BadZipFile,
    lzma.LZMAError,
    gzip.BadGzipFile,
)
#: Zips up to this size have every member's CRC checked when first opened; larger ones are checked as
#: their members are read (a bad CRC then fails the read).
CRC_PRECHECK_MAX_BYTES = 64 << 20
# What opening a remote archive raises when it cannot be had at all (HTTP errors, refused connections).
_UNREACHABLE = (FileNotFoundError, ConnectionError, TimeoutError, PermissionError)

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


def safe_member(name: str) -> bool:
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
            if not safe_member(member):
                raise ValueError(f"refusing an unsafe archive member path {member!r}")
    if zipfile.is_zipfile(archive_path):
        return _locate_in_zip(archive_path, wanted, label)
    return _extract_from_tar(archive_path, wanted, cache_root, label)


def _locate_in_zip(path: str, wanted: Mapping[str, Sequence[str]], label: str):
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            bad = zf.testzip() if os.path.getsize(path) <= CRC_PRECHECK_MAX_BYTES else None
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
    # Written once a pass has read this archive file to the end of its compressed stream, which checks
    # the gzip CRC and length: member copies are trusted only after that (a cut or a flipped byte past
    # the members a build needs is still a broken archive, and inside them it may not fail to inflate).
    checked = dest + ".complete"
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    missing: dict[str, Sequence[str]] = {}
    for name, alternatives in wanted.items():
        cached = next((m for m in alternatives if os.path.isfile(_dest_path(dest, m))), None)
        if cached is None or not os.path.exists(checked):
            missing[name] = alternatives
        else:
            found[name] = (_dest_path(dest, cached), ())
    if not missing:
        return found
    needed = {m for alternatives in missing.values() for m in alternatives}
    verified = os.path.exists(checked)
    logger.info(
        "reading %s for %d member(s)%s", label, len(missing), "" if verified else ", to its end (first pass)"
    )
    # A member stored twice is read as tar extracts it: the last copy wins, so a pass may stop early
    # only when none of the members it needs is stored twice (the first pass records which are).
    doubled = _doubled(checked) if verified else set()
    seen: list[str] = []
    try:
        with (
            _decompressed(path) as raw,
            tarfile.open(fileobj=raw, mode="r|") as stream,
            _pass_progress(path, label) as progress,
        ):
            for info in stream:
                seen.append(info.name)
                progress.update(info.offset_data + info.size - progress.n)
                if info.name in needed and info.isreg():
                    _copy_member(stream, info, _dest_path(dest, info.name))
                    for name in [n for n, alts in missing.items() if info.name in alts]:
                        found[name] = (_dest_path(dest, info.name), ())
                        del missing[name]
                    if not missing and verified and not needed & doubled:
                        break
            else:
                # tarfile stops quietly at a cut between members; the compressed stream does not.
                while raw.read(1 << 20):
                    pass
    except _CORRUPTION as exc:
        shutil.rmtree(dest, ignore_errors=True)
        if local_cause(exc):  # a full disk or a read-only cache: the archive itself is fine
            raise StorageError(
                f"cannot copy members of {label} into {cache_root}: {describe(exc)}; the download is "
                "kept: free space (or make the cache writable) and run again"
            ) from None
        with contextlib.suppress(OSError):
            os.remove(checked)
        raise CorruptArchiveError(f"archive {label} is corrupt or truncated: {describe(exc)}") from None
    if not verified:
        os.makedirs(os.path.dirname(checked), exist_ok=True)
        twice = sorted({name for name in seen if seen.count(name) > 1})
        _atomic_write_text(
            checked, "read to the end of its compressed stream\n" + "".join(f"{n}\n" for n in twice)
        )
    if missing:
        raise SourceError(_missing_message(label, next(iter(missing.values())), seen))
    return found


#: archives at least this large show a progress bar while they are read (HELMET's is 11.3 GB)
PROGRESS_MIN_BYTES = 64 << 20


def _pass_progress(path: str, label: str):
    """A bar over the bytes of tar stream read (``datasets``' own bars: silenced with theirs)."""
    from datasets.utils import tqdm

    name = label.rsplit("/", 1)[-1]
    return tqdm(
        unit="B",
        unit_scale=True,
        desc=f"Reading {name} (members this build needs)",
        disable=os.path.getsize(path) < PROGRESS_MIN_BYTES or None,
    )


logger = logging.getLogger(__name__)

def _doubled(checked: str) -> set[str]:
    """The members an archive stores more than once, as its first full pass recorded them."""
    with open(checked, encoding="utf-8") as f:
        return set(f.read().splitlines()[1:])


# Each opener takes a path or a binary reader; gzip goes through the fastest installed backend.
_MAGIC = {b"\x1f\x8b": gzipfast.open_gzip, b"BZh": bz2.BZ2File, b"\xfd7zXZ\x00": lzma.LZMAFile}


def _decompressed(path: str):
    """The archive's tar stream: decompressed when gzip/bzip2/xz, so truncation is detected."""
    with open(path, "rb") as f:
        head = f.read(6)
    for magic, opener in _MAGIC.items():
        if head.startswith(magic):
            return opener(path)
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
    """A read-only member reader that closes its owners when closed, and reports bad archive bytes met
    while reading (a zip member's CRC, a gzip stream cut short) as :class:`CorruptArchiveError`."""

    def __init__(self, inner, *owners, label: str) -> None:
        self._inner, self._owners, self._label = inner, owners, label

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        try:
            data = self._inner.read(len(buffer))
        except _BAD_BYTES as exc:
            raise CorruptArchiveError(
                f"archive {self._label} is corrupt or truncated: {describe(exc)}"
            ) from None
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            for owner in (self._inner, *self._owners):
                with contextlib.suppress(Exception):
                    owner.close()
        super().close()


def open_member(
    location: str,
    members: Sequence[str],
    *,
    label: str,
    download_config=None,
    siblings: Sequence[str] = (),
):
    """A binary reader of the first of ``members`` that exists in the archive at ``location``.

    ``siblings``: the other members a build reads from the same archive; a remote tar is read once
    per process for all of them."""
    try:
        if os.path.exists(location):
            if zipfile.is_zipfile(location):
                zf = zipfile.ZipFile(location)
                present = set(zf.namelist())
                member = next((m for m in members if m in present), None)
                if member is None:
                    zf.close()
                    raise SourceError(_missing_message(label, members, sorted(present)))
                return io.BufferedReader(_Closing(zf.open(member), zf, label=label), 1 << 20)
            return _open_tar_member(open(location, "rb"), members, label)
        from datasets.utils.file_utils import xopen

        if location.split("?")[0].endswith(".zip"):
            for member in members:
                try:
                    inner = xopen(f"zip://{member}::{location}", "rb", download_config=download_config)
                except (FileNotFoundError, KeyError) as exc:
                    # the member is missing, not the archive (older fsspec lets zipfile's KeyError out)
                    if isinstance(exc, KeyError) or exc.args[:1] == (member,):
                        continue
                    raise
                return io.BufferedReader(_Closing(inner, label=label), 1 << 20)
            raise SourceError(f"archive {label} has no member {' or '.join(members)}")
        return open(_streamed_copy(location, members, siblings, label, download_config), "rb")
    except SourceError:
        raise
    except ImportError as exc:
        raise MissingDependencyError(f"cannot read {label}: {describe(exc)}") from None
    except _UNREACHABLE as exc:
        raise SourceError(f"cannot read {label}: {describe(exc)}") from None
    except _CORRUPTION as exc:
        if local_cause(exc):
            raise StorageError(f"cannot copy {label} out of its archive: {describe(exc)}") from None
        raise CorruptArchiveError(
            f"archive {label} is corrupt or truncated: {exc.__class__.__name__}: {exc}"
        ) from None


#: remote tar archive -> (the members one pass looked for, {member: its copy}), in this process
_STREAMED: dict[str, tuple[frozenset[str], dict[str, str]]] = {}
_STREAM_DIRS: dict[int, str] = {}


def _stream_dir() -> str:
    """This process's folder of member copies read from remote archives (removed at exit)."""
    pid = os.getpid()
    if pid not in _STREAM_DIRS:
        _STREAM_DIRS[pid] = tempfile.mkdtemp(prefix="longbench-suite-stream-")
        atexit.register(shutil.rmtree, _STREAM_DIRS[pid], True)
    return _STREAM_DIRS[pid]


def _streamed_copy(location: str, members: Sequence[str], siblings: Sequence[str], label: str, config) -> str:
    """The copy of a remote tar's member, read in one pass for it and its siblings (to the end: the
    last copy of a member stored twice wins, and the compressed stream's checksum is checked)."""
    looked, copies = _STREAMED.get(location, (frozenset(), {}))
    if not set(members) <= looked:
        looked = looked | set(members) | set(siblings)
        copies = _stream_pass(location, looked, label, config)
        _STREAMED[location] = (looked, copies)
    member = next((m for m in members if m in copies), None)
    if member is None:
        raise SourceError(f"archive {label} has no member {' or '.join(members)}")
    return copies[member]


def _stream_pass(location: str, wanted: frozenset[str], label: str, config) -> dict[str, str]:
    from datasets.utils.file_utils import xopen

    dest = os.path.join(_stream_dir(), hashlib.sha256(location.encode("utf-8")).hexdigest()[:24])
    copies: dict[str, str] = {}
    with xopen(location, "rb", download_config=config, block_size=0) as remote:
        raw = io.BufferedReader(remote, 1 << 20)
        with _plain_stream(raw) as plain, tarfile.open(fileobj=plain, mode="r|") as tar:
            for info in tar:
                if info.name in wanted and info.isreg():
                    copies[info.name] = _dest_path(dest, info.name)
                    _copy_member(tar, info, copies[info.name])
            while plain.read(1 << 20):  # to the end of the compressed stream, checking it
                pass
    return copies


def _plain_stream(raw: io.BufferedReader):
    """The tar stream read from ``raw``: decompressed (by the same backends as the first pass) when
    its first bytes say gzip, bzip2 or xz. Closing it leaves ``raw`` open."""
    head = raw.peek(6)[:6]
    opener = next((o for magic, o in _MAGIC.items() if head.startswith(magic)), None)
    return opener(raw) if opener else _Unclosed(raw)


class _Unclosed(io.BufferedReader):
    """``raw`` itself, read through a reader whose ``close`` leaves it open."""

    def __init__(self, raw) -> None:
        super().__init__(raw, 1 << 20)

    def close(self) -> None:
        pass


def _open_tar_member(raw, members: Sequence[str], label: str):
    plain = _plain_stream(raw)
    stream = tarfile.open(fileobj=plain, mode="r|")  # noqa: SIM115 (closed by the returned reader)
    wanted = set(members)
    for info in stream:
        if info.name in wanted and info.isreg():
            reader = _Closing(stream.extractfile(info), stream, plain, raw, label=label)
            return io.BufferedReader(reader, 1 << 20)
    stream.close()
    plain.close()
    raw.close()
    raise SourceError(f"archive {label} has no member {' or '.join(members)}")
