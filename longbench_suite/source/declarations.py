"""What a source is: an upstream file at its canonical URL (:class:`RemoteFile`), or a :class:`Member`
of one that is an archive, and the canonical URLs of the hosts sources live on."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from urllib.parse import urlsplit

HUB = "https://huggingface.co"

#: who declares a count that is upstream's (as opposed to a sample mirror's declaration)
UPSTREAM_ORIGIN = "upstream's file holds that many"


@dataclass(frozen=True)
class RemoteFile:
    """One upstream file at its canonical URL."""

    url: str
    sha256: str | None = None
    record_sha256: bool = False  # hash what was downloaded into the dataset info (hosts without checksums)
    #: what the docs say of its size ("about 11.3 GB"), shown before a build downloads it
    size: str | None = field(default=None, compare=False)
    #: how many records upstream's file holds, where that is known (:mod:`longbench_suite.records.count`)
    records: int | None = None
    #: where the same data is read when this URL cannot be had (a dead host): a pinned copy, with its
    #: own checksum, tried after this file in ``data_dir``, the mirror or on the network
    fallback: RemoteFile | None = None
    #: what a user can give instead when neither this file nor its fallback can be had (the error says it)
    instead: str | None = field(default=None, compare=False)

    @property
    def name(self) -> str:
        return posixpath.basename(urlsplit(self.url).path)

    @property
    def label(self) -> str:
        """How messages name the file."""
        return self.name


@dataclass(frozen=True)
class Member:
    """A file inside an archive; ``paths`` are alternative member paths, the first that exists wins."""

    archive: RemoteFile
    paths: tuple[str, ...]
    records: int | None = None  # how many records upstream's member holds, where known

    def __post_init__(self) -> None:
        if isinstance(self.paths, str):
            object.__setattr__(self, "paths", (self.paths,))

    @property
    def path(self) -> str:
        return self.paths[0]

    @property
    def label(self) -> str:
        return f"{self.path} (in {self.archive.name})"


Source = RemoteFile | Member


def hub_url(repo_id: str, filename: str, revision: str = "main", repo_type: str = "dataset") -> str:
    """The canonical ``huggingface.co`` resolve URL of a file in a Hub repo."""
    prefix = "datasets/" if repo_type == "dataset" else ""
    return f"{HUB}/{prefix}{repo_id}/resolve/{revision}/{filename}"


def github_raw_url(repo: str, commit: str, path: str) -> str:
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"
