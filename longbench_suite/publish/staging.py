"""An export folder changes whole or not at all.

:func:`staged` prepares the new folder next to the target (``.<name>.partial-XXXX`` in the same
parent): what the target already holds is linked in (hard links, a copy where the filesystem has
none), the export writes into the staging folder, and only a complete export replaces the target, by
renames. A failure at any step removes the staging folder and leaves the target as it was (or absent,
when it did not exist). Files in the staging folder must be written through :func:`replace_file` so
a linked file is replaced, never written through to the target's copy.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator

from ..errors import OptionError, StorageError, SuiteError, describe


def check_writable(target: str, option: str) -> None:
    """Refuse, before anything is built, a ``target`` folder that cannot be staged: one under a file, or
    beside which nothing can be written (a read-only mount, no permission)."""
    target = os.path.abspath(target)
    existing = os.path.dirname(target)  # where the staging folder is made (and its missing parents)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise OptionError(f"{option} {target}: {existing} is a file, so no folder can be made under it")
    try:  # a real probe: permission bits say nothing of a read-only mount, nor to root
        os.rmdir(tempfile.mkdtemp(prefix=".longbench-suite-probe-", dir=existing))
    except OSError as exc:
        raise StorageError(
            f"{option} {target}: cannot write in {existing} ({describe(exc)}); an export is written "
            "beside its folder first, then renamed into place"
        ) from None


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


@contextlib.contextmanager
def staged(target: str, *, leave_out: tuple[str, ...] = ()) -> Iterator[str]:
    """Yield a staging folder holding ``target``'s files (but its top-level entries ``leave_out``);
    on a clean exit, it becomes ``target``."""
    target = os.path.abspath(target)
    parent, name = os.path.split(target)
    os.makedirs(parent, exist_ok=True)
    staging = _new_folder(parent, f".{name}.partial-")
    try:
        if os.path.isdir(target):
            for entry in os.listdir(target):
                if entry in leave_out:
                    continue
                source, copy = os.path.join(target, entry), os.path.join(staging, entry)
                if os.path.isdir(source) and not os.path.islink(source):
                    shutil.copytree(source, copy, symlinks=True, copy_function=_link_or_copy)
                elif os.path.islink(source):
                    os.symlink(os.readlink(source), copy)
                else:
                    _link_or_copy(source, copy)
        yield staging
        _swap(staging, target)
    except OSError as exc:
        if isinstance(exc, SuiteError):
            raise
        message = f"cannot write the export {target}: {describe(exc)}; it was left as it was"
        raise StorageError(message) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _new_folder(parent: str, prefix: str) -> str:
    """A new empty folder in ``parent`` with the permissions any folder made there gets (``mkdtemp``'s
    are private to the user, and the staging folder becomes the export)."""
    while True:
        path = os.path.join(parent, f"{prefix}{os.getpid()}-{secrets.token_hex(4)}")
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            continue


def _swap(staging: str, target: str) -> None:
    if not os.path.exists(target):
        os.rename(staging, target)
        return
    retired = tempfile.mkdtemp(prefix=f".{os.path.basename(target)}.old-", dir=os.path.dirname(target))
    os.rmdir(retired)
    os.rename(target, retired)
    try:
        os.rename(staging, target)
    except OSError:
        os.rename(retired, target)
        raise
    shutil.rmtree(retired, ignore_errors=True)


def replace_file(path: str, write) -> None:
    """Write ``path`` by calling ``write(temporary_path)``, then renaming over ``path``."""
    tmp = f"{path}.tmp-{os.getpid()}{os.path.splitext(path)[1]}"
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
