"""Step 2 of the flow, the one field validator: what a record's field must hold, said once.

A task reads a field with :func:`take` (or several with :func:`take_all`) and a :class:`Kind`; a value
of the wrong type is a :class:`~longbench_suite.errors.DataFormatError` naming the file, the row and the
field, in one form for every benchmark:
``data/qasper.jsonl in …, line 3: field 'answers' must be a non-empty list of strings, got 'x'``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import DataFormatError


@dataclass(frozen=True)
class Kind:
    """What a field may hold: ``convert(value)`` returns the value to use, or raises ``ValueError``."""

    description: str
    convert: Callable[[Any], Any]


def _exact(kind: type) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, kind):
            raise ValueError
        return value

    return convert


def _identifier(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError
    return str(value)


TEXT = Kind("a string", _exact(str))
INTEGER = Kind("an integer", _exact(int))
#: an id stored as a string or an integer, used as a string (what upstream prints)
IDENTIFIER = Kind("a string or an integer", _identifier)


def _whole_number(value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise ValueError
    return value


#: an integer, or a float with nothing after the point (``3.0``), kept as given (``str`` differs)
WHOLE_NUMBER = Kind("an integer or a whole-number float", _whole_number)


def _plural(description: str) -> str:
    return {
        "a string": "strings",
        "an integer": "integers",
        "a string or an integer": "strings or integers",
        "an integer or a whole-number float": "integers or whole-number floats",
    }.get(description, description)


def list_of(item: Kind, *, nonempty: bool = True, single: bool = False, json_string: bool = False) -> Kind:
    """A list of ``item`` s; ``single``: a bare item counts as a list of one; ``json_string``: the list
    may also be written as a JSON string (``"[4, 1, 3, 2]"``)."""

    def convert(value: Any) -> list:
        if json_string and isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                raise ValueError from None
        if single and not isinstance(value, list):
            value = [value]
        if not isinstance(value, list) or (nonempty and not value):
            raise ValueError
        return [item.convert(v) for v in value]

    words = ("a non-empty list of " if nonempty else "a list of ") + _plural(item.description)
    if single:
        words = f"{item.description} or {words}"
    if json_string:
        words += " (or that list as a JSON string)"
    return Kind(words, convert)


def nullable(kind: Kind, *, empty_is_null: bool = False) -> Kind:
    """``kind`` or null (``None``); ``empty_is_null`` also reads ``""`` as null."""

    def convert(value: Any) -> Any:
        if value is None or (empty_is_null and value == ""):
            return None
        return kind.convert(value)

    return Kind(f"null or {kind.description}", convert)


def one_of(*values: str) -> Kind:
    """A string that is one of ``values`` (a label such as LongBench v2's ``difficulty``)."""

    def convert(value: Any) -> str:
        if not isinstance(value, str) or value not in values:
            raise ValueError
        return value

    return Kind("one of " + ", ".join(repr(v) for v in values), convert)


TEXTS = list_of(TEXT)
#: one answer or several: a bare string is a list of one (upstream files differ in which they use)
ANSWERS = list_of(TEXT, single=True)


def require(record: Mapping, names: Sequence[str], where: str) -> None:
    """Raise a :class:`DataFormatError` naming the first of ``names`` that ``record`` lacks."""
    for name in names:
        if name not in record:
            raise DataFormatError(f"{where}: the record has no field {name!r} (it has {sorted(record)})")


def take(record: Mapping, name: str, kind: Kind, where: str, *, default: Any = ...) -> Any:
    """``record[name]`` as ``kind`` says; ``default`` (when given) stands in for an absent field."""
    if name not in record:
        if default is not ...:
            return default
        require(record, [name], where)
    return check(record[name], kind, where, name)


def check(value: Any, kind: Kind, where: str, name: str) -> Any:
    """``value`` (called ``name`` in messages) as ``kind`` says."""
    try:
        return kind.convert(value)
    except (ValueError, TypeError):
        raise DataFormatError(
            f"{where}: field {name!r} must be {kind.description}, got {value!r:.120}"
        ) from None


def take_all(record: Mapping, kinds: Mapping[str, Kind], where: str) -> dict[str, Any]:
    """Every field of ``kinds``, checked; the record's other keys are ignored."""
    require(record, list(kinds), where)
    return {name: take(record, name, kind, where) for name, kind in kinds.items()}
