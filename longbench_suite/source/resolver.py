"""The :class:`SourceResolver`: the order a build looks for a source's bytes in (``data_dir``, a
mirror, the canonical URL), the downloads, and the checks a downloaded file must pass."""

from __future__ import annotations

import base64
import contextlib
import os
from collections.abc import Iterable, Mapping
from urllib.parse import unquote, urlsplit

from ..errors import (
    MissingDependencyError,
    SourceError,
    SourceNotProvidedError,
    SourceUnavailableError,
    StorageError,
    describe,
    local_cause,
)
from . import archives, download
from .declarations import HUB, UPSTREAM_ORIGIN, Member, RemoteFile, Source
from .ledger import Ledger
from .manifest import read_manifest
from .refs import REMOTE_PREFIXES, FileRef
from .samples import SampleRecords, read_sample_records

MIRROR_ENV = "LONGBENCH_SUITE_MIRROR"
#: What a failed download from the canonical host adds: the ways to build without that host.
OFFLINE_HINT = (
    "; without the network, give the files with --mirror DIR|URL (mirror=) or --data-dir DIR (data_dir=), "
    "or build from the offline sample data with --demo (demo=True)"
)


def mirrored(url: str, mirror: str) -> str:
    """``https://HOST/PATH`` -> ``MIRROR/HOST/PATH`` (a local path, or a URL under an http(s) base)."""
    parts = urlsplit(url)
    if mirror.startswith(("http://", "https://")):
        return f"{mirror.rstrip('/')}/{parts.netloc}{parts.path}"
    return os.path.join(mirror, parts.netloc, *[p for p in parts.path.split("/") if p])


def _with_endpoint(url: str) -> str:
    endpoint = os.environ.get("HF_ENDPOINT", "").rstrip("/")
    if endpoint and url.startswith(HUB + "/"):
        return endpoint + url[len(HUB) :]
    return url


def _redact(location: str) -> str:
    """Drop credentials from a URL before it goes into a message or a cache key."""
    parts = urlsplit(location)
    if parts.username or parts.password:
        return parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else "")).geturl()
    return location


def _basic_auth(url: str) -> str | None:
    """The ``Authorization`` header for the credentials in a URL (``https://user:secret@host/``), if any."""
    parts = urlsplit(url)
    if not (parts.username or parts.password):
        return None
    pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
    return "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")


class SourceResolver:
    """Resolves sources for one build, through one ``datasets`` download manager."""

    def __init__(
        self,
        dl_manager,
        *,
        cache_root: str,
        mirror: str | None = None,
        data_dir: str | None = None,
        streaming: bool = False,
    ) -> None:
        self.dl_manager = dl_manager
        self.cache_root = cache_root
        self.mirror = mirror if mirror is not None else (os.environ.get(MIRROR_ENV) or None)
        self.data_dir = data_dir
        # data_dir may name the archive itself (``data_dir="~/Downloads/data.zip"``), under any name.
        self.data_file = os.path.abspath(data_dir) if data_dir and os.path.isfile(data_dir) else None
        self.streaming = streaming
        self.checksums: dict[str, dict] = {}
        #: unpinned downloads this build read, for the ledger once it succeeds
        self.unpinned: dict[str, dict] = {}
        if (
            self.mirror
            and not self.mirror.startswith(("http://", "https://"))
            and not os.path.isdir(self.mirror)
        ):
            raise SourceError(f"mirror directory {self.mirror} does not exist")
        if self.data_dir and not self.data_file and not os.path.isdir(self.data_dir):
            raise SourceError(f"data_dir {self.data_dir} does not exist")
        if self.mirror and self.mirror.startswith(("http://", "https://")):
            self._send_credentials_as_header()
        self.samples = None if self.data_dir else read_manifest(self.mirror)
        self._sample_records: SampleRecords | bool | None = False  # False: not read yet
        config = self._config()
        if config is not None:  # streamed reads get the idle timeout, not aiohttp's 300 s in total
            config.storage_options = download.with_network_settings(config.storage_options)

    def _send_credentials_as_header(self) -> None:
        """Take the credentials out of an http(s) mirror's URL and send them as a header instead: a URL
        given to ``datasets`` shows in its log and in its download cache's metadata."""
        auth = _basic_auth(self.mirror)
        config = self._config()
        if auth is None or config is None:
            return
        self.mirror = _redact(self.mirror)
        protocol = urlsplit(self.mirror).scheme
        options = dict(config.storage_options.get(protocol, {}))
        options["headers"] = {**options.get("headers", {}), "Authorization": auth}
        config.storage_options = {**config.storage_options, protocol: options}

    # -- locations -------------------------------------------------------------------------------

    def _location(self, remote: RemoteFile) -> str:
        if self.mirror:
            location = mirrored(remote.url, self.mirror)
            if not location.startswith(("http://", "https://")) and not os.path.exists(location):
                raise SourceNotProvidedError(
                    f"{remote.url} is not in the mirror {_redact(self.mirror)} (expected the file {location})"
                )
            return location
        return _with_endpoint(remote.url)

    def _data_dir_candidates(self, relpath: str) -> list[str]:
        """Where ``relpath`` may be in ``data_dir``: under every tail of its path, longest first
        (``data/kilt/x.jsonl``, ``kilt/x.jsonl``, ``x.jsonl``; a GitHub file's ``prompts/x.json``)."""
        if self.data_file:
            return [self.data_file]
        parts = [p for p in relpath.split("/") if p]
        return [os.path.join(self.data_dir, *parts[i:]) for i in range(len(parts))]

    def _find_in_data_dir(self, relpaths: Iterable[str]) -> str | None:
        if self.data_file:
            return None
        for relpath in relpaths:
            for candidate in self._data_dir_candidates(relpath):
                if os.path.isfile(candidate):
                    return candidate
        return None

    @staticmethod
    def _url_path(remote: RemoteFile) -> str:
        parts = urlsplit(remote.url)
        return parts.netloc + parts.path

    def _remote_in_data_dir(self, remote: RemoteFile, archive: bool = False) -> str | None:
        if self.data_file:
            same_name = os.path.basename(self.data_file) == remote.name
            return self.data_file if archive or same_name else None
        return self._find_in_data_dir([self._url_path(remote)])

    def local_files(self, sources: Mapping[str, Source]) -> list[str]:
        """The files of ``data_dir`` or a local mirror that resolving ``sources`` would read (nothing
        for a remote mirror or canonical URLs, whose downloads the ``datasets`` cache keys)."""
        found = []
        for source in sources.values():
            remote = source if isinstance(source, RemoteFile) else source.archive
            while remote is not None:  # a file, then its fallback where the file is not there
                path = None
                if self.data_dir:
                    if isinstance(source, Member):
                        path = self._find_in_data_dir(source.paths)
                    path = path or self._remote_in_data_dir(remote, archive=isinstance(source, Member))
                elif self.mirror and not self.mirror.startswith(("http://", "https://")):
                    path = mirrored(remote.url, self.mirror)
                if path and os.path.isfile(path):
                    found.append(os.path.abspath(path))
                    break
                remote = remote.fallback
        return sorted(set(found))

    # -- downloads -------------------------------------------------------------------------------

    def _fetch(self, remote: RemoteFile, archive: bool = False) -> str:
        """Local path of ``remote`` (downloaded if needed), or its URL when streaming."""
        if self.data_dir:
            local = self._remote_in_data_dir(remote, archive)
            if local:
                return local
            raise SourceNotProvidedError(
                f"{remote.name} is not in data_dir {self.data_dir} (looked for "
                f"{', '.join(self._data_dir_candidates(self._url_path(remote)))})"
            )
        location = self._location(remote)
        if os.path.exists(location) or not self.streaming:
            try:
                local = self._download(location)
            except ImportError as exc:
                raise MissingDependencyError(
                    f"cannot download {_redact(location)}: {describe(exc)}"
                ) from None
            except Exception as exc:
                local = local_cause(exc)
                if local is not None:
                    raise StorageError(
                        f"cannot download {_redact(location)}: {local.strerror} "
                        f"({local.filename or 'the cache'}); free space or fix permissions, then run again"
                    ) from None
                hint = "" if self.mirror else OFFLINE_HINT
                raise SourceUnavailableError(
                    f"cannot download {_redact(location)}: {describe(exc)}{hint}"
                ) from None
            self._verify(remote, str(local), location)
            return str(local)
        return location

    def _download(self, location: str) -> str:
        """A local copy of ``location``: plain http(s) through :mod:`.download` (idle timeout,
        retries, resumption) into the download cache; Hub files through the download manager, which
        hands them to ``huggingface_hub`` (its own retries, resumption and per-read timeout, and the
        token for gated repos); anything else through the download manager too."""
        from datasets import config as datasets_config

        config = self._config()
        cache_dir = getattr(config, "cache_dir", None)
        hub_file = location.startswith(datasets_config.HF_ENDPOINT + "/") and "/resolve/" in location
        if location.startswith(("http://", "https://")) and cache_dir and not hub_file:
            protocol = urlsplit(location).scheme
            options = {protocol: config.storage_options.get(protocol, {})}
            return download.download(location, str(cache_dir), options, force=config.force_download)
        return self.dl_manager.download(location)

    def _in_download_cache(self, path: str) -> bool:
        cache = getattr(self.dl_manager.download_config, "cache_dir", None) or ""
        return bool(cache) and os.path.abspath(path).startswith(os.path.abspath(str(cache)) + os.sep)

    def discard(self, path: str) -> None:
        """Delete a downloaded file that proved bad, so no later run trusts it (never a user's file)."""
        if self._in_download_cache(path):
            for suffix in ("", ".json", ".lock"):
                with contextlib.suppress(OSError):
                    os.remove(path + suffix)

    def _verify(self, remote: RemoteFile, local: str, location: str) -> None:
        declared = self.samples.declared(location) if self.samples else None
        expected = declared["sha256"] if declared else remote.sha256
        if not (expected or remote.record_sha256):
            if not remote.sha256 and self._in_download_cache(local):
                self._check_ledger(remote, local, location, os.path.getsize(local), None)
            return
        if declared:
            self.samples.announce()
        digest, size = archives.sha256_of(local, self.cache_root)
        if expected and digest != expected:
            removed = self._in_download_cache(local)
            self.discard(local)
            fate = "the download was removed from the cache" if removed else "the file was left as it is"
            whose = f"its sample manifest {self.samples.path} declares" if declared else "expected"
            raise SourceError(
                f"sha256 mismatch for {_redact(location)}: {whose} {expected}, got {digest} ({fate})"
            )
        self.checksums[remote.url] = {"num_bytes": size, "checksum": digest}
        if not remote.sha256 and self._in_download_cache(local):
            self._check_ledger(remote, local, location, size, digest)

    def _check_ledger(self, remote: RemoteFile, local: str, location: str, size: int, digest) -> None:
        """An unpinned download must match the copy a build last succeeded with (:mod:`.ledger`)."""
        problem = Ledger(self.cache_root).mismatch(remote.url, size, digest, local)
        if problem:
            self.discard(local)
            raise SourceError(
                f"the download of {_redact(location)} is not the file that built before: {problem} "
                f"(recorded in {Ledger(self.cache_root).path}); it was removed from the cache. Run "
                "again once the source is whole; if upstream really changed, delete that entry"
            )
        self.unpinned[remote.url] = {"num_bytes": size, **({"checksum": digest} if digest else {})}

    # -- record counts ---------------------------------------------------------------------------

    def _declared_samples(self) -> SampleRecords | None:
        """The sample mirror's own record counts (:mod:`.samples`), read once; ``None`` off a mirror or
        ``data_dir`` (a canonical URL is upstream's file)."""
        if self._sample_records is False:
            # a data_dir that names one file has no root of its own, and then the mirror is not read
            root = (None if self.data_file else self.data_dir) if self.data_dir else self.mirror
            self._sample_records = read_sample_records(root, self._config()) if root else None
        return self._sample_records

    def _count(self, remote: RemoteFile, members: tuple[str, ...] = (), upstream: int | None = None) -> dict:
        """The ``records`` a file must hold and who says so: a sample mirror's declaration where it lists
        the file, else upstream's count (``{}``: none is known)."""
        declared = self._declared_samples()
        count = declared.count(remote.url, members) if declared is not None else None
        if count is not None:
            return {"records": count, "records_origin": f"as the sample mirror's {declared.path} declares"}
        if upstream is None:
            return {}
        return {"records": upstream, "records_origin": UPSTREAM_ORIGIN}

    # -- resolution ------------------------------------------------------------------------------

    def resolve(self, sources: Mapping[str, Source]) -> dict[str, FileRef]:
        """Resolve every source a build needs; archive members of one archive are read in one pass."""
        refs: dict[str, FileRef] = {}
        by_archive: dict[RemoteFile, dict[str, Member]] = {}
        for source in sources.values():
            for path in source.paths if isinstance(source, Member) else ():
                if not archives.safe_member(path):  # it would be looked up outside data_dir, too
                    raise ValueError(f"refusing an unsafe archive member path {path!r}")
        for name, source in sources.items():
            if isinstance(source, RemoteFile):
                try:
                    source, local = self._fetch_or_fallback(source)
                except SourceUnavailableError as exc:
                    if source.instead is None:
                        raise
                    raise type(exc)(f"{exc}; {source.instead}") from None
                refs[name] = FileRef(
                    local,
                    label=source.url,
                    download_config=self._config(),
                    cache_files=self._cached(local),
                    **self._count(source, upstream=source.records),
                )
                continue
            if self.data_dir:
                local = self._find_in_data_dir(source.paths)
                if local:
                    refs[name] = FileRef(
                        local,
                        label=f"{source.path} in {self.data_dir}",
                        **self._count(source.archive, source.paths, source.records),
                    )
                    continue
            by_archive.setdefault(source.archive, {})[name] = source
        for archive, members in by_archive.items():
            refs.update(self._resolve_members(archive, members))
        return refs

    def _fetch_or_fallback(self, remote: RemoteFile) -> tuple[RemoteFile, str]:
        """The file that served (``remote``, or its :attr:`~RemoteFile.fallback` when ``remote`` cannot
        be had) and its local path; a fallback that cannot be had either names both."""
        try:
            return remote, self._fetch(remote)
        except SourceUnavailableError as exc:
            if remote.fallback is None:
                raise
            try:
                return self._fetch_or_fallback(remote.fallback)
            except SourceUnavailableError as again:
                raise type(again)(f"{exc}; its fallback: {again}") from None

    def _config(self):
        return getattr(self.dl_manager, "download_config", None)

    def _cached(self, *paths: str) -> tuple[str, ...]:
        return tuple(p for p in paths if self._in_download_cache(p))

    def _resolve_members(self, archive: RemoteFile, members: Mapping[str, Member]) -> dict[str, FileRef]:
        if self.data_dir and not self._remote_in_data_dir(archive, archive=True):
            missing = ", ".join(m.path for m in members.values())
            raise SourceNotProvidedError(
                f"{missing} not in data_dir {self.data_dir}, and neither is {archive.name} (looked for "
                f"{', '.join(p for m in members.values() for p in self._data_dir_candidates(m.path))})"
            )
        location = self._fetch(archive, archive=True)
        label = archive.url
        if location.startswith(REMOTE_PREFIXES):  # streaming from a remote archive
            siblings = tuple(p for m in members.values() for p in m.paths)
            return {
                name: FileRef(
                    location,
                    label=f"{m.path} in {label}",
                    members=m.paths,
                    download_config=self._config(),
                    siblings=siblings,
                    **self._count(archive, m.paths, m.records),
                )
                for name, m in members.items()
            }
        try:
            found = archives.locate_members(
                location,
                {name: m.paths for name, m in members.items()},
                cache_root=os.path.join(self.cache_root, "members"),
                label=label,
            )
        except SourceError as exc:
            # A corrupt archive, or one without a member: a download of it is not trusted again (the
            # mirror may be fixed by the next run).
            self.discard(location)
            raise SourceError(str(exc)) from None
        return {
            name: FileRef(
                path,
                label=f"{members[name].path} in {label}",
                members=inner,
                cache_files=self._cached(location) + (() if inner else (path,)),
                **self._count(archive, members[name].paths, members[name].records),
            )
            for name, (path, inner) in found.items()
        }
