"""Writing what the user asked for without ever leaving half a file or touching one of theirs.

A file is written aside (``NAME.partial-<pid>`` in its folder) and moved over ``NAME`` only when
complete, so a failed write leaves the previous file as it was. An output may not be a folder, nor
lie inside the ``data_dir`` or mirror directory a build reads (a later build would trust it).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable, Iterator, Sequence

from .errors import OptionError, StorageError, describe, local_cause


def check_output_file(
    path: str, suffixes: tuple[str, ...], readonly: Iterable[str | None] = (), option: str = "--output"
) -> None:
    """``path`` as ``option`` may name it: a file (not a folder) in a folder that exists, outside the
    build's sources."""
    if os.path.isdir(path):
        raise OptionError(f"{option} {path} is a directory; name a file ending in {' or '.join(suffixes)}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        missing = "is a file" if os.path.exists(folder) else "does not exist"
        raise OptionError(f"{option} {path}: the folder {folder} {missing}")
    target = os.path.realpath(path)
    for folder in readonly:
        if folder and not folder.startswith(("http://", "https://")):
            root = os.path.realpath(folder)
            if target == root or target.startswith(root.rstrip(os.sep) + os.sep):
                raise OptionError(
                    f"{option} {path} is inside {folder}, which the build reads its sources from; "
                    "write it elsewhere"
                )


@contextlib.contextmanager
def written_aside(path: str) -> Iterator[str]:
    """A temporary name next to ``path`` to write to; moved over ``path`` once the block succeeds."""
    with written_aside_together([path]) as (partial,):
        yield partial


@contextlib.contextmanager
def written_aside_together(paths: Sequence[str]) -> Iterator[list[str]]:
    """Temporary names next to each of ``paths`` (files that belong together, such as a run's reports)
    to write to; moved over them only once the block succeeded for all, so a failure leaves every one
    as it was, never new files beside old ones."""
    partials = []
    for path in paths:
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise OptionError(f"cannot write {path}: the folder {folder} does not exist")
        partials.append(os.path.join(folder, f".{os.path.basename(path)}.partial-{os.getpid()}"))
    try:
        yield partials
        for partial, path in zip(partials, paths, strict=True):
            os.replace(partial, path)
    except OSError as exc:
        if local_cause(exc) is None:
            raise
        left = "the file there was left as it was"
        if len(paths) > 1:
            left = "the files there were left as they were"
        raise StorageError(f"cannot write {', '.join(paths)}: {describe(exc)}; {left}") from None
    finally:
        for partial in partials:
            # only what was made: removing a missing name fails too on a read-only filesystem (EROFS)
            if os.path.lexists(partial):
                os.remove(partial)

def new_file_beside(path: str, prefix: str) -> tuple[int, str]:
    """A new file (its descriptor, open for writing, and its name) in ``path``'s folder, to be renamed
    over ``path``: with the permissions any file made there gets (``mkstemp``'s are private to the
    user, and this file becomes the user's output)."""
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        name = os.path.join(folder, f"{prefix}{os.getpid()}-{secrets.token_hex(4)}")
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), name
        except FileExistsError:
            continue
