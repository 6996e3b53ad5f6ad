"""Where every source file comes from, and how a build gets its bytes.

A source is a :class:`RemoteFile` (one canonical upstream URL, pinned to a revision where the host
allows it, with its sha256 where known) or a :class:`Member` of such a file when it is an archive.
:class:`SourceResolver` turns the sources a config needs into :class:`FileRef` handles, in this order:

1. ``data_dir=``: files the user already has, in their upstream layout (an extracted folder, the
   archive itself, or a flat folder of the member files);
2. a mirror (``mirror=`` or ``LONGBENCH_SUITE_MIRROR``): ``https://HOST/PATH`` is read from
   ``MIRROR/HOST/PATH`` — the layout ``wget -x`` creates — where MIRROR is a directory or an
   ``http(s)://`` base URL;
3. the canonical URL (Hub URLs honour ``HF_ENDPOINT``).

Downloads go into the ``datasets`` download cache: http(s) ones through :mod:`.download` (an idle
timeout, retries with backoff, resumption), the rest through the ``datasets`` download manager; an
unpinned download must match the copy a build last succeeded with (:mod:`.ledger`). Archive members
are read without extracting what no config needs: zip members are opened in place; tar members are
copied once into a member cache next to the download cache (see :mod:`longbench_suite.source.archives`).
"""

from .declarations import HUB, UPSTREAM_ORIGIN, Member, RemoteFile, Source, github_raw_url, hub_url
from .refs import FileRef, forget, local_identity
from .resolver import MIRROR_ENV, SourceResolver, mirrored

__all__ = [
    "HUB",
    "MIRROR_ENV",
    "UPSTREAM_ORIGIN",
    "FileRef",
    "Member",
    "RemoteFile",
    "Source",
    "SourceResolver",
    "forget",
    "github_raw_url",
    "hub_url",
    "local_identity",
    "mirrored",
]
