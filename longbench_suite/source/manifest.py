"""The manifest of a sample mirror: what the library's sample writer put into a mirror directory.

Sample files can never match the sha256 digests pinned for upstream's files (LV-Eval's zips), and
their split sizes are not the specs'. The writer (:func:`longbench_suite.demo.write_sandbox`) puts,
last and atomically, ``MIRROR/longbench-suite-samples.json`` beside the files it wrote, declaring each
file's sha256 and size and each config's split sizes. A resolver reading from a mirror *directory*
with such a manifest checks the files the manifest lists against the manifest's digests instead of the
pinned ones (a changed sample file still fails), says once that the data are samples, and ``check``
compares sizes with the manifest's. Everything else — files the manifest does not list, http(s)
mirrors, ``data_dir``, canonical URLs — keeps the pinned digests (``docs/architecture.md`` §7).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import SourceError

logger = logging.getLogger("longbench_suite")

MANIFEST_NAME = "longbench-suite-samples.json"
KIND = "longbench_suite sample data"
_announced: set[str] = set()


@dataclass(frozen=True)
class SampleManifest:
    path: str
    scale: str
    writer: str  # digest of the sample-writing code that wrote the mirror
    files: Mapping[str, Mapping[str, object]]  # mirror-relative path (``HOST/PATH``) -> sha256, size
    sizes: Mapping[str, Mapping[str, int]]  # ``benchmark/config`` -> split -> rows

    @property
    def mirror(self) -> str:
        return os.path.dirname(self.path)

    def declared(self, location: str) -> Mapping[str, object] | None:
        """What the manifest declares of the mirror file at ``location``, if it lists it."""
        relative = os.path.relpath(os.path.abspath(location), os.path.abspath(self.mirror))
        return self.files.get(relative.replace(os.sep, "/"))

    def announce(self) -> None:
        """Say once per process that builds from this mirror read sample data."""
        if self.path not in _announced:
            _announced.add(self.path)
            logger.warning(
                "%s holds sample data (%s scale), not upstream's: its files are checked against the "
                "digests its manifest declares",
                self.mirror,
                self.scale,
            )


def read_manifest(mirror: str | None) -> SampleManifest | None:
    """The manifest of a mirror directory, or ``None`` (an http(s) mirror, or a mirror without one)."""
    if not mirror or mirror.startswith(("http://", "https://")):
        return None
    path = os.path.join(mirror, MANIFEST_NAME)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        if document.get("kind") != KIND:
            raise ValueError(f"'kind' is not {KIND!r}")
        return SampleManifest(
            path=path,
            scale=str(document["scale"]),
            writer=str(document["writer"]),
            files={str(k): dict(v) for k, v in document["files"].items()},
            sizes={str(k): {s: int(n) for s, n in v.items()} for k, v in document["sizes"].items()},
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SourceError(f"sample manifest {path} is unreadable: {exc}") from None


def file_digest(path: str) -> tuple[str, int]:
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest(), os.path.getsize(path)


def write_manifest(
    mirror: str,
    written: Iterable[str],
    *,
    scale: str,
    writer: str,
    sizes: Mapping[str, Mapping[str, int]],
) -> SampleManifest:
    """Declare the files ``written`` under ``mirror`` (their digests and sizes) and the configs' sizes."""
    files = {}
    for path in sorted(set(written)):
        digest, size = file_digest(path)
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(mirror)).replace(os.sep, "/")
        files[relative] = {"sha256": digest, "size": size}
    document = {
        "kind": KIND,
        "scale": scale,
        "writer": writer,
        "files": files,
        "sizes": {k: dict(v) for k, v in sorted(sizes.items())},
    }
    path = os.path.join(mirror, MANIFEST_NAME)
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1, sort_keys=True)
    os.replace(tmp, path)
    return read_manifest(mirror)
