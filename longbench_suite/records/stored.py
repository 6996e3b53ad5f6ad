"""The records of a large JSON array, parsed once per file and then read from an Arrow copy.

:func:`stored_json_records` parses a file holding one JSON array of objects with
:func:`.parse.iter_json_records`, checks each record with the caller's function and, while it yields
them, writes the checked records into an Arrow IPC file, one record batch per record. Once the parse
reaches the array's end (its record count checked), the copy is moved into place in the memo
(``<cache_root>/memo/json-records/``, keyed by :meth:`Memo.file_path`'s rule: the file's path, size and
modification time, the declared record count, the schema and the caller's ``what``). A later read of
the same file, in this process or another one using the same cache, reads the copy instead: record
by record, any record directly by its index, never the JSON again.

A read that stops early (a shard ending before the file's last record), fails (a bad record, a short
file) or cannot write (a read-only cache) leaves no copy; a file without a durable identity (a
remote URL, streamed) or a build without a cache root is parsed every time, as before. The copy is
read through ordinary reads, not a memory map, so a build holds one record at a time either way.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence

import pyarrow as pa

from ..memo import Memo
from ..source import FileRef
from .count import check_count
from .parse import iter_json_records

#: the Arrow copies of parsed JSON arrays (only :meth:`Memo.file_path` is used: the copy is its own file)
COPIES: Memo[None] = Memo("json-records", entries=1)


def stored_json_records(
    ref: FileRef,
    check: Callable[[int, dict], dict],
    schema: pa.Schema,
    what: Hashable,
    *,
    cache_root: str | None,
    only: Sequence[int] | None = None,
) -> Iterator[tuple[int, dict]]:
    """``(index, check(index, record))`` for the records of ``ref`` (one JSON array of objects), in file
    order; ``only``: these indices (ascending), and a parse stops after the last of them unless it is
    the file's last record. ``check`` returns the record as ``schema`` holds it (the fields it keeps);
    ``what`` names ``check`` (it is part of the copy's key)."""
    path = COPIES.file_path((what, ref.records, str(schema)), [ref], cache_root=cache_root, suffix="arrow")
    copy = _open_copy(path) if path and os.path.isfile(path) else None
    if copy is None:
        yield from _parse(ref, check, schema, path, only)
        return
    source, reader = copy
    with source:
        check_count(ref, reader.num_record_batches)  # the copy was made under this count: always equal
        for index in range(reader.num_record_batches) if only is None else only:
            yield index, reader.get_batch(index).to_pylist()[0]


def _open_copy(path: str) -> tuple[pa.NativeFile, pa.ipc.RecordBatchFileReader] | None:
    """The stored copy opened for reading, or ``None`` when it cannot be read (then the file is parsed)."""
    try:
        source = pa.OSFile(path)
    except OSError:
        return None
    try:
        return source, pa.ipc.open_file(source)
    except (OSError, pa.ArrowException):
        source.close()
        return None


def _parse(
    ref: FileRef,
    check: Callable[[int, dict], dict],
    schema: pa.Schema,
    path: str | None,
    only: Sequence[int] | None,
) -> Iterator[tuple[int, dict]]:
    wanted = None if only is None else set(only)
    last = only[-1] if only else None
    stop_after = last if last is not None and ref.records is not None and last < ref.records - 1 else None
    copy = _Copy.open(path, schema) if path else None
    try:
        for index, record in iter_json_records(ref):
            checked = check(index, record)
            if copy:
                copy.add(checked)
            if wanted is None or index in wanted:
                yield index, checked
            if stop_after is not None and index >= stop_after:
                return
        if copy:
            copy.commit()
    finally:
        if copy:
            copy.abandon()


class _Copy:
    """An Arrow IPC file being written beside its final path, moved there only when whole."""

    def __init__(self, path: str, tmp: str, sink: pa.NativeFile, schema: pa.Schema) -> None:
        self.path, self.tmp, self.sink, self.schema = path, tmp, sink, schema
        self.writer = pa.ipc.new_file(sink, schema)
        self.done = self.failed = False

    @classmethod
    def open(cls, path: str, schema: pa.Schema) -> _Copy | None:
        """A copy started at ``path``'s temporary name, or ``None`` when the cache cannot be written
        (then the records are only parsed)."""
        tmp = f"{path}.tmp-{os.getpid()}-{threading.get_ident()}"
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            return cls(path, tmp, pa.OSFile(tmp, "wb"), schema)
        except (OSError, pa.ArrowException):
            with contextlib.suppress(OSError):
                os.remove(tmp)
            return None

    def add(self, record: dict) -> None:
        if self.failed:
            return
        try:
            self.writer.write_batch(pa.RecordBatch.from_pylist([record], schema=self.schema))
        except OSError:  # a full disk: the records are still parsed and yielded, only not kept
            self.failed = True
            self.abandon()

    def commit(self) -> None:
        if self.failed:
            return
        with contextlib.suppress(OSError, pa.ArrowException):  # a copy not kept is only a slower next build
            self.writer.close()
            self.sink.close()
            os.replace(self.tmp, self.path)
            self.done = True

    def abandon(self) -> None:
        """Remove the unfinished copy (idempotent; nothing once it is in place)."""
        if self.done:
            return
        self.done = True
        with contextlib.suppress(OSError, pa.ArrowException):
            self.writer.close()
        with contextlib.suppress(OSError, pa.ArrowException):
            self.sink.close()
        with contextlib.suppress(OSError):
            os.remove(self.tmp)
