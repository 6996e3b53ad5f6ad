"""Downloading an http(s) source into the ``datasets`` download cache, as real networks need.

``datasets`` downloads a file with one fsspec ``get_file`` under aiohttp's default timeout, which is
300 s *in total* (a slow but steady transfer of a large archive is cancelled), retries nothing and
restarts from zero. Neither fsspec's HTTP filesystem nor ``datasets`` has a setting for retries or
resumption, and ``huggingface_hub``'s resumable ``http_get`` refuses every URL while
``HF_HUB_OFFLINE`` is set (even a local mirror's). So this module keeps fsspec's HTTP filesystem
and adds what it lacks, around it:

* an idle timeout instead of a total one (aiohttp's own ``ClientTimeout(total=None, sock_read=…)``,
  also given to streamed reads through the download config's storage options);
* the file is streamed into ``<cache file>.incomplete``; after a dropped connection, a reset or a
  timeout a ``Range`` request resumes where the bytes stopped (a server that ignores ranges sends
  it whole again); a partial file left by a killed run is resumed only if the server still reports
  the same size and ``Last-Modified`` (and ETag, which names the cache file);
* retries with exponential backoff on 408/425/429/5xx, resets and timeouts, waiting what a
  ``Retry-After`` header asks; the count starts again whenever bytes arrive.

The cache file is where ``datasets`` would put it (``hash_url_to_filename(url, etag)``, with its
``.json`` metadata), so either can reuse the other's downloads.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable
from typing import TypeVar

from ..errors import ShortBodyError, SourceError

#: seconds without a byte (or a connection) before a request counts as failed
IDLE_TIMEOUT = float(os.environ.get("LONGBENCH_SUITE_IDLE_TIMEOUT", "60"))
#: failed attempts in a row (no byte of progress in between) before a download gives up
MAX_ATTEMPTS = int(os.environ.get("LONGBENCH_SUITE_DOWNLOAD_ATTEMPTS", "6"))
#: the first wait between attempts, doubled each time up to the second figure (seconds)
BACKOFF = (1.0, 30.0)
#: the longest ``Retry-After`` honoured (seconds)
MAX_RETRY_AFTER = 600.0
#: bytes read (and written) at a time
CHUNK = 1 << 20
RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})

T = TypeVar("T")
_sleep = time.sleep  # the waits between attempts (tests record them instead)


def client_timeout():
    """aiohttp's timeout: none in total, :data:`IDLE_TIMEOUT` to connect and between bytes."""
    import aiohttp

    return aiohttp.ClientTimeout(total=None, sock_connect=IDLE_TIMEOUT, sock_read=IDLE_TIMEOUT)


def with_network_settings(storage_options: dict) -> dict:
    """``storage_options`` (as a download config holds them, by protocol) with the idle timeout."""
    try:
        timeout = client_timeout()
    except ImportError:  # no aiohttp: the download itself says what to install
        return storage_options
    options = dict(storage_options)
    for protocol in ("http", "https"):
        entry = dict(options.get(protocol, {}))
        client_kwargs = dict(entry.get("client_kwargs", {}))
        client_kwargs.setdefault("timeout", timeout)
        entry["client_kwargs"] = client_kwargs
        options[protocol] = entry
    return options


_DROPPED = (asyncio.TimeoutError, TimeoutError, ConnectionResetError, ConnectionAbortedError)


def _chain(exc: BaseException):
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        yield cause
        cause = cause.__cause__ or cause.__context__


def _transient(exc: BaseException) -> bool:
    """A failure worth another attempt (fsspec reports an HTTP error as ``FileNotFoundError`` whose
    cause holds the response's status)."""
    import aiohttp

    for cause in _chain(exc):
        if isinstance(cause, aiohttp.ClientResponseError):
            return cause.status in RETRY_STATUS
        if isinstance(cause, (*_DROPPED, aiohttp.ClientPayloadError, aiohttp.ClientConnectionError)):
            return True
    return False


def _wait(exc: BaseException, attempt: int) -> float:
    response = next((c for c in _chain(exc) if getattr(c, "headers", None) is not None), None)
    headers = getattr(response, "headers", None) or {}
    retry_after = headers.get("Retry-After") if hasattr(headers, "get") else None
    if retry_after is not None and str(retry_after).strip().isdigit():
        return min(float(retry_after), MAX_RETRY_AFTER)
    first, longest = BACKOFF
    return min(first * 2 ** (attempt - 1), longest)


class _Attempts:
    """Counts failed attempts since the last progress and sleeps between them."""

    def __init__(self) -> None:
        self.failed = 0

    def run(self, call: Callable[[], T]) -> T:
        while True:
            try:
                return call()
            except Exception as exc:
                self.failed_with(exc)

    def failed_with(self, exc: Exception) -> None:
        """Count a failure; raise it when it is permanent or the attempts are spent, else wait."""
        if not _transient(exc):
            raise exc
        self.failed += 1
        if self.failed >= MAX_ATTEMPTS:
            raise exc
        _sleep(_wait(exc, self.failed))

    def progressed(self) -> None:
        self.failed = 0


def _filesystem(url: str, storage_options: dict):
    import fsspec

    protocol = url.split("://", 1)[0]
    options = dict(with_network_settings(storage_options).get(protocol, {}))
    options["client_kwargs"] = {"trust_env": True, **options.get("client_kwargs", {})}
    return fsspec.filesystem(protocol, skip_instance_cache=True, **options)


#: what a server answers for a file it does not have (an S3 bucket without list permission says 403)
ABSENT_STATUS = frozenset({401, 403, 404, 410})


def read_small(url: str, storage_options: dict | None = None) -> bytes | None:
    """The bytes of a small file at ``url``, with a download's retries; ``None`` when the server says it
    has no such file (:data:`ABSENT_STATUS`). Any other failure raises."""
    import aiohttp

    fs = _filesystem(url, storage_options or {})
    try:
        return _Attempts().run(lambda: fs.cat_file(url))
    except (FileNotFoundError, aiohttp.ClientResponseError) as exc:
        # fsspec raises a bare FileNotFoundError for 404, the response's error otherwise (older
        # releases wrap that in a FileNotFoundError too)
        statuses = {c.status for c in _chain(exc) if isinstance(c, aiohttp.ClientResponseError)}
        if statuses - ABSENT_STATUS:
            raise
        return None


def download(url: str, cache_dir: str, storage_options: dict | None = None, force: bool = False) -> str:
    """The cached copy of ``url`` under ``cache_dir``, downloaded (or its partial download resumed)."""
    from datasets import config
    from datasets.utils.file_utils import hash_url_to_filename
    from filelock import FileLock

    if config.HF_HUB_OFFLINE:
        from huggingface_hub.errors import OfflineModeIsEnabled

        raise OfflineModeIsEnabled(f"Offline mode is enabled. Tried to reach {url}")
    fs = _filesystem(url, storage_options or {})
    attempts = _Attempts()
    info = attempts.run(lambda: fs.info(url))
    etag = info.get("ETag") or info.get("etag")
    os.makedirs(cache_dir, exist_ok=True)
    path = os.path.join(cache_dir, hash_url_to_filename(url, etag))
    if os.path.exists(path) and not force:
        return path
    with FileLock(path + ".lock"):
        if os.path.exists(path) and not force:
            return path
        partial = path + ".incomplete"
        if force or not _same_source(partial, info):
            with contextlib.suppress(FileNotFoundError):
                os.remove(partial)
        _remember_source(partial, info)
        _fetch(fs, url, partial, info.get("size"), attempts)
        os.replace(partial, path)
        with contextlib.suppress(FileNotFoundError):
            os.remove(partial + ".json")
        meta = path + ".json"
        with open(meta + ".tmp", "w", encoding="utf-8") as f:
            json.dump({"url": url, "etag": etag}, f)
        os.replace(meta + ".tmp", meta)
    return path


#: what identifies the bytes a partial download holds (the ETag is in the cache file's name already)
_IDENTITY = ("size", "Last-Modified", "Content-MD5", "Digest")


def _same_source(partial: str, info: dict) -> bool:
    """Whether a partial download left by an earlier attempt holds bytes of the file served now."""
    try:
        with open(partial + ".json", encoding="utf-8") as f:
            return json.load(f) == {k: info.get(k) for k in _IDENTITY}
    except (OSError, ValueError):
        return False


def _remember_source(partial: str, info: dict) -> None:
    with open(partial + ".json.tmp", "w", encoding="utf-8") as f:
        json.dump({k: info.get(k) for k in _IDENTITY}, f)
    os.replace(partial + ".json.tmp", partial + ".json")


def _fetch(fs, url: str, partial: str, size: int | None, attempts: _Attempts) -> None:
    """Fill ``partial`` with the bytes of ``url``, resuming from what it already holds."""
    if size is None:  # no length announced: no ranges either; whole reads until one succeeds
        attempts.run(lambda: fs.get_file(url, partial))
        return
    done = os.path.getsize(partial) if os.path.exists(partial) else 0
    if done > size:
        done = 0
    with open(partial, "r+b" if done else "wb") as out:
        out.truncate(done)
        out.seek(done)
        while done < size:
            try:
                with attempts.run(lambda start=done: _stream(fs, url, start, size)) as body:
                    if done and getattr(body.r, "status", 206) == 200:  # the server ignores ranges
                        out.seek(0)
                        out.truncate(0)
                        done = 0
                    while chunk := body.read(CHUNK):
                        out.write(chunk)
                        done += len(chunk)
                        attempts.progressed()
                if done != size:
                    raise ShortBodyError(f"the body of {url} ended after {done} of its {size} bytes")
            except Exception as exc:
                attempts.failed_with(exc)
                done = min(done, size)
        read = out.tell()
        if read != size:  # a body that ran past the announced length: never keep such a file
            out.truncate(0)
            raise SourceError(f"the body of {url} ran past its announced {size} bytes ({read} read)")


def _stream(fs, url: str, start: int, size: int):
    """A streamed GET of ``url`` from byte ``start`` on (a ``Range`` request past the first byte).
    ``size`` is known, so fsspec asks no ``HEAD`` again."""
    headers = dict(fs.kwargs.get("headers") or {})
    if start:
        headers["Range"] = f"bytes={start}-"
    return fs.open(url, "rb", block_size=0, size=size, headers=headers)
