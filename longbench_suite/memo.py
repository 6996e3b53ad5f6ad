"""The library's one cache of results derived from source files and texts.

Everything that is computed from a source and used again — a split's row plan shared by the shards
one process yields, a scan of a KILT file, a parse of NarrativeQA's Parquet shards, a document's cut
offsets, a tokenized piece of text — goes through a :class:`Memo` and the :class:`LRU` behind it.

**Key rule.** A result is stored under ``(memo name, what, inputs)``:

- ``what`` names everything the result depends on besides its inputs: the task's fields, thresholds,
  the tokenizer's identity. The library version and :data:`FORMAT` are part of every key.
- ``inputs`` are source files and texts. A local file stands for its absolute path, size,
  modification time and archive member (as ``datasets`` keys its own caches), so an edited file is read
  again; a remote file stands for its URL and is taken as unchanged for the life of the process; a
  text stands for its sha256.

**Tiers.** Each memo keeps its last ``entries`` results in memory. A memo given a :class:`Codec` also
keeps results on disk (JSON under ``<cache_root>/memo/<name>/``), but only results whose inputs all
have a durable identity (no remote file); a stored result that cannot be read is computed again, and
writes are atomic. A result too large for JSON is kept as a file of its own under the same key rule
(:meth:`Memo.file_path`; e.g. :mod:`.records.stored`'s Arrow copies of parsed JSON arrays).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ._version import __version__
from .source import FileRef

T = TypeVar("T")

#: bump when the layout of a stored result changes
FORMAT = 2


class LRU:
    """Values by key, the least recently used dropped beyond a total ``max_cost``; thread-safe.

    ``cost(key, value)`` is an entry's share of the budget (1 by default); an entry costing more than
    an eighth of the budget is not kept. ``digest`` keys text by a 128-bit BLAKE2 digest instead of the
    text itself, so an entry stays small however long its text.
    """

    def __init__(
        self, max_cost: int, *, cost: Callable[[Any, Any], int] | None = None, digest: bool = False
    ) -> None:
        self._data: OrderedDict[Hashable, tuple[int, Any]] = OrderedDict()
        self._total, self._max, self._cost, self._digest = 0, max_cost, cost, digest
        self._lock = threading.Lock()

    def _key(self, key: Hashable) -> Hashable:
        if self._digest and isinstance(key, str):
            return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        return key

    def get(self, key: Hashable, default: Any = None) -> Any:
        key = self._key(key)
        with self._lock:
            entry = self._data.get(key)
            if entry is None:
                return default
            self._data.move_to_end(key)
            return entry[1]

    def put(self, key: Hashable, value: Any) -> None:
        cost = self._cost(key, value) if self._cost else 1
        if cost > max(self._max // 8, 1):
            return
        key = self._key(key)
        with self._lock:
            if key in self._data:
                self._total -= self._data.pop(key)[0]
            self._data[key] = (cost, value)
            self._total += cost
            while self._total > self._max:
                _, (old, _) = self._data.popitem(last=False)
                self._total -= old

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._total = 0

    def __len__(self) -> int:
        return len(self._data)

    # A copy (a stream handed to DataLoader workers, datasets deep-copying a builder) starts empty.
    def __getstate__(self) -> dict:
        return {"max_cost": self._max, "cost": self._cost, "digest": self._digest}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["max_cost"], cost=state["cost"], digest=state["digest"])


def text_length(key: Any, value: Any) -> int:
    """An entry's cost: the length of its text key (an :class:`LRU` ``cost``)."""
    return len(key)


@dataclass(frozen=True)
class Codec(Generic[T]):
    """How a result goes to JSON and back, for a memo that keeps results on disk."""

    dump: Callable[[T], Any] = lambda value: value
    load: Callable[[Any], T] = lambda data: data


def file_identity(ref: FileRef) -> str | None:
    """``path|size|mtime|members`` of a local file, or ``None`` when it cannot be stat'ed."""
    try:
        stat = os.stat(ref.location)
    except OSError:
        return None
    members = "|".join(ref.members)
    return f"{os.path.abspath(ref.location)}|{stat.st_size}|{stat.st_mtime_ns}|{members}"


def _identity(item: object) -> tuple[str, bool]:
    """``(identity, durable)`` of one input: a file's (see :func:`file_identity`) or a text's sha256."""
    if isinstance(item, FileRef):
        if item.is_remote:
            return f"remote:{item.location}|{'|'.join(item.members)}", False
        identity = file_identity(item)
        return (f"file:{identity}", True) if identity else (f"missing:{item.location}", False)
    if isinstance(item, str):
        return "text:" + hashlib.sha256(item.encode("utf-8", "surrogatepass")).hexdigest(), True
    raise TypeError(f"a memo input must be a FileRef or a text, got {type(item).__name__}")


class Memo(Generic[T]):
    """One kind of result (``name``), computed once per key (see the module's key rule)."""

    def __init__(self, name: str, *, entries: int = 8, codec: Codec[T] | None = None) -> None:
        self.name = name
        self.codec = codec
        self._memory = LRU(entries)

    def get(
        self,
        what: Hashable,
        inputs: Sequence[object],
        compute: Callable[[], T],
        *,
        cache_root: str | None = None,
    ) -> T:
        """The result for ``what`` over ``inputs``: from memory, from disk, or ``compute()``."""
        key, path = self._locate(what, inputs, cache_root)
        value = self._lookup(key, path)
        if value is _MISSING:
            value = compute()
            if path:
                self._write(path, value)
            self._memory.put(key, value)
        return value

    def stored(self, what: Hashable, inputs: Sequence[object], *, cache_root: str | None = None) -> T | None:
        """The result already computed for ``what`` over ``inputs``, in memory or on disk (then kept in
        memory), or ``None``: never computes (a caller may skip reading what ``compute`` would read)."""
        value = self._lookup(*self._locate(what, inputs, cache_root))
        return None if value is _MISSING else value

    def _locate(self, what: Hashable, inputs: Sequence[object], cache_root: str | None) -> tuple:
        """The key of ``what`` over ``inputs``, and its file when it may be kept on disk."""
        identities = [_identity(item) for item in inputs]
        key = self._key(what, identities)
        durable = all(durable for _, durable in identities)
        return key, self._path(key, cache_root) if durable else None

    def _lookup(self, key: str, path: str | None) -> Any:
        """The result in memory, else on disk (then kept in memory), else :data:`_MISSING`."""
        found = self._memory.get(key, _MISSING)
        if found is not _MISSING or not path:
            return found
        value = self._read(path)
        if value is not _MISSING:
            self._memory.put(key, value)
        return value

    def peek(self, what: Hashable, inputs: Sequence[object]) -> T | None:
        """The result this process holds in memory for ``what`` over ``inputs``, or ``None``."""
        return self._memory.get(self._key(what, [_identity(item) for item in inputs]))

    def _key(self, what: Hashable, identities: list[tuple[str, bool]]) -> str:
        return hashlib.sha256(
            repr((FORMAT, __version__, self.name, what, [i for i, _ in identities])).encode("utf-8")
        ).hexdigest()

    def clear(self) -> None:
        """Forget what this process holds in memory (what is on disk stays)."""
        self._memory.clear()

    def file_path(
        self, what: Hashable, inputs: Sequence[object], *, cache_root: str | None, suffix: str
    ) -> str | None:
        """Where a result kept as a file of its own (``<key>.<suffix>``, written and read by the caller,
        e.g. an Arrow file too large for JSON) is stored for ``what`` over ``inputs``; ``None`` when it
        may not be kept on disk (no cache root, or an input without a durable identity)."""
        identities = [_identity(item) for item in inputs]
        if not cache_root or not all(durable for _, durable in identities):
            return None
        key = self._key(what, identities)
        return os.path.join(cache_root, "memo", self.name, key[:2], f"{key}.{suffix}")

    def _path(self, key: str, cache_root: str | None) -> str | None:
        if self.codec is None or not cache_root:
            return None
        return os.path.join(cache_root, "memo", self.name, key[:2], key + ".json")

    def _read(self, path: str) -> Any:
        unreadable = (OSError, ValueError, KeyError, TypeError, IndexError)
        with contextlib.suppress(*unreadable), open(path, encoding="utf-8") as f:
            return self.codec.load(json.load(f))
        return _MISSING

    def _write(self, path: str, value: T) -> None:
        with contextlib.suppress(OSError):  # a cache that cannot be written is only a slower build
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.tmp-{os.getpid()}-{threading.get_ident()}"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(self.codec.dump(value), f)
            os.replace(tmp, path)


_MISSING = object()
