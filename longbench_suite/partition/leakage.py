"""What a ``dev`` row and an ``eval`` row may never share: the leakage rule the builder follows and
``longbench-suite check`` verifies."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

_WHITESPACE = re.compile(r"\s+")


def normalise_question(text: str) -> str:
    """The form in which two questions count as the same.

    NFKC, case-folded, every punctuation character (Unicode category P*) replaced by a space, runs of
    whitespace collapsed to one space, ends stripped: ``"Who wrote  'Emma'?"`` and ``"who wrote emma"``
    are the same question; ``"2+2"`` and ``"2-2"`` are not (``+`` is a symbol, ``-`` punctuation).
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    text = "".join(" " if unicodedata.category(c).startswith("P") else c for c in text)
    return _WHITESPACE.sub(" ", text).strip()


@dataclass(frozen=True)
class LeakageRule:
    """What a ``dev`` row may never share with an ``eval`` row of its task: one declaration per task,
    read by the builder (which drops such ``dev`` candidates) and by ``longbench-suite check`` (which
    verifies that no built ``dev`` row shares one, and that every drop the builder reports was one).

    ``columns`` are the row columns compared (``question`` in :func:`normalise_question` form; an empty
    value is never compared); ``reason`` says why, for the documentation and ``info``.

    A task whose rows hide many keys in their text (a generator's needles and JSON pairs) declares
    ``pattern``: every group of every match in the ``scanned`` columns is a key too (:meth:`strings`).
    ``reference`` names another task of the benchmark whose ``eval`` rows, at every length it has, this
    task's ``dev`` rows must share none of those with (a generator has no ``eval`` of its own).
    """

    columns: tuple[str, ...] = ("query_id", "question")
    reason: str = ""
    pattern: str = ""
    scanned: tuple[str, ...] = ("input",)
    reference: str = ""

    def keys(self, row: Mapping[str, Any]) -> dict[str, str]:
        """The row's keys by column: ``{"query_id": …, "question": "who wrote emma"}``."""
        keys = {}
        for column in self.columns:
            value = row.get(column)
            if value is None or value == "":
                continue
            keys[column] = normalise_question(value) if column in NORMALISED else str(value)
        return keys

    def strings(self, row: Mapping[str, Any]) -> set[str]:
        """Every group of every :attr:`pattern` match in the row's :attr:`scanned` columns."""
        if not self.pattern:
            return set()
        found: set[str] = set()
        compiled = re.compile(self.pattern)
        for column in self.scanned:
            value = row.get(column)
            for text in value if isinstance(value, list | tuple) else [value]:
                for match in compiled.finditer(text or ""):
                    found.update(g for g in match.groups() if g)
        return found

    def split(
        self, evaluated: Iterable[Mapping[str, Any]], candidates: Sequence[T], row: Callable[[T], Mapping]
    ) -> tuple[list[T], list[dict[str, str]]]:
        """``(kept candidates, keys of the dropped ones)``: a candidate sharing any key with an
        ``evaluated`` row is dropped. ``row(candidate)`` gives its columns."""
        taken: dict[str, set[str]] = {}
        for e in evaluated:
            for column, key in self.keys(e).items():
                taken.setdefault(column, set()).add(key)
        kept, dropped = [], []
        for candidate in candidates:
            keys = self.keys(row(candidate))
            if any(key in taken.get(column, ()) for column, key in keys.items()):
                dropped.append(keys)
            else:
                kept.append(candidate)
        return kept, dropped


#: columns compared in :func:`normalise_question` form
NORMALISED = frozenset({"question"})

#: the rule of a task that declares none: the query id and the normalised question
DEFAULT_RULE = LeakageRule()
