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
    ``reference`` names a task of the benchmark whose ``eval`` rows (the configs
    :meth:`Task.leakage_references <longbench_suite.task.Task.leakage_references>` names) this task's
    ``dev`` rows must share none of those with (a generator has no ``eval`` of its own).

    A task whose keys a regular expression cannot find declares ``extract`` instead of ``pattern``: a
    function of the row's ``scanned`` columns giving its keys.
    """

    columns: tuple[str, ...] = ("query_id", "question")
    reason: str = ""
    pattern: str = ""
    scanned: tuple[str, ...] = ("input",)
    reference: str = ""
    extract: Callable[[Mapping[str, Any]], Iterable[str]] | None = None

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
        """Every group of every :attr:`pattern` match in the row's :attr:`scanned` columns (with
        :attr:`extract`: what it gives for them)."""
        if self.extract is not None:
            return set(self.extract({c: row.get(c) for c in self.scanned}))
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


@dataclass(frozen=True)
class EvalReference:
    """One ``eval`` config a task's ``dev`` rows are held to (:attr:`LeakageRule.reference`): its length,
    the ``generate`` options its rows depend on, and whether it is built under the build's chat template."""

    length: str
    generate: tuple[tuple[str, Any], ...] = ()
    chat: bool = False

    def __str__(self) -> str:
        given = [f"{k}={v}" for k, v in self.generate] + (["the build's chat template"] if self.chat else [])
        return self.length + (f" ({', '.join(given)})" if given else "")


#: columns compared in :func:`normalise_question` form
NORMALISED = frozenset({"question"})

#: the rule of a task that declares none: the query id and the normalised question
DEFAULT_RULE = LeakageRule()
