"""The predictions file, written so that a killed run resumes from it.

While a run goes, every finished row is appended as one whole JSON line; the rows that finished
together are then fsynced together (one fsync per batch, not per line). A crash can therefore leave
at most a partial last line (no newline yet), which a resume cuts off and asks again. Rows already
in the file (matched by ``index`` and ``query_id``) are never asked again nor written twice. When
every row is in, the file is rewritten in row order through a temporary file and an atomic rename,
so a resumed run ends with the same bytes as an uninterrupted one. Each line is a record
``longbench-suite score`` reads: ``{"index", "query_id", "prediction", "output_tokens"}``, plus
``first_prediction`` and ``first_output_tokens`` (the first reply) where the task declares a follow-up
call (:class:`~longbench_suite.decoding.FollowUp`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from ..errors import PredictionError, StorageError, describe
from ..outputs import new_file_beside


def _line(record: Mapping[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


def record(index: int, query_id: str, prediction: str, output_tokens: int | None) -> dict[str, Any]:
    return {"index": index, "query_id": query_id, "prediction": prediction, "output_tokens": output_tokens}


class Journal:
    """The predictions file of one split, whose rows have ``query_ids`` in order."""

    def __init__(self, path: str, query_ids: Sequence[str]) -> None:
        self.path = path
        self.query_ids = list(query_ids)
        self.done: dict[int, dict[str, Any]] = {}

    def load(self) -> dict[int, dict[str, Any]]:
        """The rows the file already holds, by index; a partial last line is cut off the file."""
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return self.done
        except OSError as exc:
            raise PredictionError(f"cannot read predictions {self.path}: {exc}") from None
        end = data.rfind(b"\n") + 1
        if end < len(data):
            try:
                with open(self.path, "r+b") as f:
                    f.truncate(end)
                    os.fsync(f.fileno())
            except OSError as exc:
                raise self.storage_error(exc) from None
        for number, raw in enumerate(data[:end].splitlines(), start=1):
            if raw.strip():
                self._take(number, raw)
        return self.done

    def _take(self, number: int, raw: bytes) -> None:
        where = f"{self.path}, line {number}"
        try:
            entry = json.loads(raw)
        except ValueError as exc:
            raise PredictionError(
                f"{where}: malformed JSON ({exc}); not a predictions file of this run"
            ) from None
        if not isinstance(entry, dict) or not isinstance(entry.get("prediction"), str):
            raise PredictionError(f"{where}: expected an object with a string 'prediction'")
        index = entry.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(self.query_ids):
            raise PredictionError(
                f"{where}: index {index!r} is not a row of the split ({len(self.query_ids)} rows)"
            )
        if entry.get("query_id") != self.query_ids[index]:
            raise PredictionError(
                f"{where}: row {index} has query_id {self.query_ids[index]!r}, the file says "
                f"{entry.get('query_id')!r}: the file belongs to another config or split"
            )
        if index in self.done:
            raise PredictionError(f"{where}: row {index} is in the file twice")
        self.done[index] = entry

    def storage_error(self, exc: OSError) -> StorageError:
        """A failed write of the file (a full disk, a read-only folder) as one line saying what is kept."""
        return StorageError(
            f"cannot write predictions {self.path}: {describe(exc)}; the {len(self.done)} rows written "
            "before are kept: free space or make the folder writable, then run the same command to resume"
        )

    @contextmanager
    def appender(self) -> Iterator[Appender]:
        """Appends finished rows; :meth:`Appender.sync` makes the ones appended so far durable."""
        try:
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        except OSError as exc:
            raise self.storage_error(exc) from None
        appender = Appender(self, fd)
        try:
            yield appender
        except BaseException:
            with suppress(StorageError):  # the error on its way out says more than a failed sync
                appender.sync()
            raise
        else:
            appender.sync()
        finally:
            os.close(fd)

    @property
    def complete(self) -> bool:
        return len(self.done) == len(self.query_ids)

    def finish(self) -> None:
        """Rewrite the complete file in row order, atomically."""
        if not self.complete:
            raise PredictionError(
                f"{self.path}: {len(self.query_ids) - len(self.done)} rows are not predicted"
            )
        tmp = None
        try:
            fd, tmp = new_file_beside(self.path, ".predictions-")
            with os.fdopen(fd, "wb") as f:
                for index in range(len(self.query_ids)):
                    f.write(_line(self.done[index]))
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException as exc:
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)
            if isinstance(exc, OSError):
                raise self.storage_error(exc) from None
            raise

    def predictions(self) -> list[str]:
        return [self.done[i]["prediction"] for i in range(len(self.query_ids))]


class Appender:
    """Whole lines into an open predictions file, one ``os.write`` each (unbuffered: a row counts as
    written once the system took its line); :meth:`sync` fsyncs them."""

    def __init__(self, journal: Journal, fd: int) -> None:
        self.journal = journal
        self.fd = fd
        self.unsynced = 0

    def append(self, entry: dict[str, Any]) -> None:
        if entry["index"] in self.journal.done:
            raise PredictionError(f"{self.journal.path}: row {entry['index']} would be written twice")
        data = memoryview(_line(entry))
        try:
            while data:
                data = data[os.write(self.fd, data) :]
        except OSError as exc:
            # A line cut short is a partial last line, which the resume cuts off and asks again.
            raise self.journal.storage_error(exc) from None
        self.journal.done[entry["index"]] = entry
        self.unsynced += 1

    def sync(self) -> None:
        if self.unsynced:
            try:
                os.fsync(self.fd)
            except OSError as exc:
                raise self.journal.storage_error(exc) from None
            self.unsynced = 0
