"""Every reach into ``datasets``' internals outside the builder's own overrides, in one place.

``datasets`` has no public name for these; each function names the private attribute it reads, so a
``datasets`` release that renames one breaks here alone. The builder (:mod:`longbench_suite.builder`)
also overrides private hooks of ``datasets.GeneratorBasedBuilder`` — ``_create_builder_config``
(generator configs at unlisted lengths), ``_prepare_split`` (the plan made before the workers fork),
``_download_and_prepare`` (the source ledger) and ``_save_info`` (the sources' checksums) — besides the
documented ``_info``, ``_split_generators`` and ``_generate_examples``.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Iterator
from typing import Any


def cache_root(builder) -> str:
    """The cache directory a builder writes under: its ``cache_dir``, else the ``datasets`` cache
    (``DatasetBuilder._cache_dir_root``)."""
    return builder._cache_dir_root


def download_cache(builder) -> str:
    """Where the builder's download manager keeps downloads (``DatasetBuilder._cache_downloaded_dir``)."""
    return builder._cache_downloaded_dir


def split_generators(builder, dl_manager) -> list:
    """The builder's split generators, as ``download_and_prepare`` asks for them (another engine builds
    their shards elsewhere: :mod:`longbench_suite.distributed`)."""
    return builder._split_generators(dl_manager)


def shard_rows(builder, gen_kwargs: dict[str, Any]) -> Iterator[dict]:
    """The rows ``_generate_examples`` yields for one split generator's keywords, without their keys."""
    for _, row in builder._generate_examples(**gen_kwargs):
        yield row


def is_prepared(builder) -> bool:
    """Whether the builder's Arrow files are complete in the cache (its ``dataset_info.json`` is
    written last; ``DatasetBuilder._fs`` and ``_output_dir``)."""
    from datasets import config

    return builder._fs.exists(f"{builder._output_dir}/{config.DATASET_INFO_FILENAME}")


class _NoLock:
    """Stands in for ``datasets``' file lock in a cache nobody can write to (so nothing to race)."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def __enter__(self) -> _NoLock:
        return self

    def __exit__(self, *exc) -> None:
        return None


class _AttributeSwap:
    """``module.name`` replaced by ``value`` while any thread is inside :meth:`applied`, and the original
    put back when the last one leaves: nested and concurrent users share one swap (a save-and-restore
    per user would let two overlapping users leave the replacement in place for good)."""

    def __init__(self, module: str, name: str, value: object) -> None:
        self._module, self._name, self._value = module, name, value
        self._lock = threading.Lock()
        self._users = 0
        self._original: object = None

    @contextlib.contextmanager
    def applied(self) -> Iterator[None]:
        module = importlib.import_module(self._module)
        with self._lock:
            if self._users == 0:
                self._original = getattr(module, self._name)
                setattr(module, self._name, self._value)
            self._users += 1
        try:
            yield
        finally:
            with self._lock:
                self._users -= 1
                if self._users == 0:
                    setattr(module, self._name, self._original)
                    self._original = None


_NO_FILE_LOCKS = _AttributeSwap("datasets.builder", "FileLock", _NoLock)


def without_file_locks() -> contextlib.AbstractContextManager[None]:
    """``datasets.builder`` taking no file locks (it locks even to load a finished build, and a lock
    file cannot be created in a read-only cache): ``datasets.builder.FileLock`` replaced meanwhile."""
    return _NO_FILE_LOCKS.applied()
