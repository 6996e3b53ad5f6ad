"""Exporting to any fsspec URL (``s3://``, ``gs://``, ``hf://``, ``memory://``): the export is made in
a local staging folder that first receives what the target's card is made from (its ``README.md`` and
every config's ``token_counts.json``), then uploaded through ``fsspec``.

An object store has no atomic rename, so the order is what keeps a reader safe: the exported configs'
files first, then the files of re-exported configs that the new export no longer writes are deleted,
then the card (it is what lists the configs; its ``<config>/<split>-*`` globs then never match old and
new shards together). A failure before the card is uploaded leaves the old card over the new shards of
the configs re-exported (and, if it came before the deletion, their old shards as well). Nothing else
of the target's is read or rewritten.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import tempfile
from collections.abc import Callable, Iterator, Sequence

import fsspec
from fsspec.implementations.dirfs import DirFileSystem
from fsspec.implementations.local import LocalFileSystem

from ..errors import OptionError, StorageError, SuiteError, describe
from . import card as cards


def remote_target(output: str) -> tuple[fsspec.AbstractFileSystem, str] | None:
    """The filesystem and root of an export target that is not a local folder; ``None`` for a local
    one (a path, or a ``file://`` URL)."""
    if "://" not in output and "::" not in output:
        return None
    try:
        fs, root = fsspec.core.url_to_fs(output)
    except (ImportError, ValueError) as exc:
        raise OptionError(f"export --output {output}: fsspec cannot open it ({exc})") from None
    if isinstance(fs, DirFileSystem) and root == fs.path:
        # ``dir::URL``: fsspec roots the filesystem at URL's path and returns that path as well, so
        # paths under it would be rooted twice; the target is that path on the filesystem underneath
        fs = fs.fs
    if isinstance(fs, LocalFileSystem):
        return None
    return fs, root.rstrip("/")


def local_path(output: str) -> str:
    """A local target as a path (a ``file://`` or ``dir::`` URL without its scheme)."""
    return fsspec.core.url_to_fs(output)[1] if "://" in output or "::" in output else output


def _relative(fs, root: str, path: str) -> str:
    return posixpath.relpath(fs._strip_protocol(path), root)


@contextlib.contextmanager
def staged_upload(
    fs: fsspec.AbstractFileSystem,
    root: str,
    output: str,
    configs: Sequence[str],
    refuse_foreign: Callable[[str, Sequence[str]], None],
) -> Iterator[str]:
    """Yield a local folder holding the target's card files; on a clean exit upload what the export
    wrote into it and delete what it replaced. ``refuse_foreign(where, names)`` raises when a config
    folder about to be replaced holds a file an export does not write."""
    with _failing_as_one_line(output, "reading", root):
        if fs.isfile(root):
            raise OptionError(f"export --output {output} is a file; name a folder")
        for config in configs:
            folder = f"{root}/{config}"
            if fs.isdir(folder):
                refuse_foreign(
                    f"{output.rstrip('/')}/{config}", [_relative(fs, folder, p) for p in fs.find(folder)]
                )
    with tempfile.TemporaryDirectory(prefix="longbench-suite-export-") as scratch:
        local = os.path.join(scratch, "export")
        os.makedirs(local)
        with _failing_as_one_line(output, "reading", root):
            before = _fetch_card_files(fs, root, local) if fs.isdir(root) else set()
        yield local
        written = set()
        for current, _dirs, names in os.walk(local):
            written.update(
                os.path.relpath(os.path.join(current, n), local).replace(os.sep, "/") for n in names
            )
        exported = {f for f in written if f.split("/")[0] in configs}
        top = {f for f in written if "/" not in f} - {cards.README}
        with _failing_as_one_line(output, "writing", root):
            stale = [f for f in _target_files(fs, root, configs, before) if f not in written]
            for name in sorted(exported) + sorted(top):
                fs.put_file(os.path.join(local, *name.split("/")), f"{root}/{name}")
            # the old shards go before the card that lists the new ones: the card's globs
            # (``<config>/<split>-*``) never match both
            for name in stale:
                fs.rm_file(f"{root}/{name}")
            fs.put_file(os.path.join(local, cards.README), f"{root}/{cards.README}")


@contextlib.contextmanager
def _failing_as_one_line(output: str, doing: str, root: str) -> Iterator[None]:
    """A failure of the target's filesystem as one ``StorageError`` line. fsspec's backends raise their
    clients' own errors (botocore's ``EndpointConnectionError``, aiohttp's), not ``OSError`` alone."""
    try:
        yield
    except SuiteError:
        raise
    except Exception as exc:
        raise StorageError(f"export --output {output}: {doing} {root} failed: {describe(exc)}") from None


def _fetch_card_files(fs, root: str, local: str) -> set[str]:
    """Copy what the target's card is made from (its README and the configs' token counts) into
    ``local``; nothing else of the target's is read or written back."""
    fetched = set()
    for path in fs.find(root):
        name = _relative(fs, root, path)
        parts = name.split("/")
        if name == cards.README or (len(parts) == 2 and parts[1] == cards.TOKEN_COUNTS):
            os.makedirs(os.path.join(local, *parts[:-1]), exist_ok=True)
            fs.get_file(path, os.path.join(local, *parts))
            fetched.add(name)
    return fetched


def _target_files(fs, root: str, configs: Sequence[str], top: set[str]) -> list[str]:
    """The target's files an export may delete: the re-exported configs' and the top-level ones it had."""
    found = [name for name in top if "/" not in name]
    for config in configs:
        if fs.isdir(f"{root}/{config}"):
            found += [_relative(fs, root, p) for p in fs.find(f"{root}/{config}")]
    return sorted(found)
