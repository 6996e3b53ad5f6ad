"""Upstream prompt templates, rendered with exact ``str.format`` semantics.

Upstream benchmarks fill their templates with ``template.format(**record)``. A :class:`PromptTemplate`
does exactly that, so braces inside field values are never interpreted and doubled braces in the
template (HELMET's ``"label: {{label}}"``) become single braces, as upstream.

HELMET splits a prompt into a *user* part and an *answer prefix* (its ``system_template``, e.g.
``"Answer:"``) joined by a separator. Completion mode renders ``user + separator + prefix``; chat mode
puts only the user part in the single user turn (``docs/helmet.md`` §1.3). Benchmarks without an answer
prefix (LongBench, LV-Eval, Ada-LEval) have ``answer_prefix=""`` and both renderings are the same text.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass

_FORMATTER = string.Formatter()


def template_fields(template: str) -> frozenset[str]:
    """The names of the replacement fields in ``template`` (``"{a} {b[0]}"`` -> ``{"a", "b"}``)."""
    names = set()
    for _literal, field, _spec, _conversion in _FORMATTER.parse(template):
        if field is None:
            continue
        root = field.split(".", 1)[0].split("[", 1)[0]
        if not root or root.isdigit():
            raise ValueError(f"template uses a positional field {{{field}}}; only named fields are allowed")
        names.add(root)
    return frozenset(names)


def render(template: str, fields: Mapping[str, object], *, what: str = "template") -> str:
    """``template.format(**fields)``, with an error that names the missing field."""
    try:
        return template.format_map(fields)
    except KeyError as missing:
        raise KeyError(
            f"{what} needs the field {missing.args[0]!r}, which the record does not have"
        ) from None


@dataclass(frozen=True)
class PromptTemplate:
    """One upstream prompt: a user template, and optionally a separator plus an answer prefix."""

    user: str
    answer_prefix: str = ""
    separator: str = ""

    def __post_init__(self) -> None:
        # Parse once at declaration time so a malformed template fails on import, not mid-build.
        template_fields(self.user)
        template_fields(self.answer_prefix)
        if self.separator and not self.answer_prefix:
            raise ValueError("a separator without an answer prefix has no meaning")

    @property
    def fields(self) -> frozenset[str]:
        return template_fields(self.user) | template_fields(self.answer_prefix)

    def render_user(self, fields: Mapping[str, object]) -> str:
        """The user turn: the filled user template (chat mode puts this, and only this, in the turn)."""
        return render(self.user, fields, what="user template")

    def render_suffix(self, fields: Mapping[str, object]) -> str:
        """What completion mode appends to the user turn: separator + filled answer prefix."""
        if not self.answer_prefix:
            return ""
        return self.separator + render(self.answer_prefix, fields, what="answer prefix")

    def render_completion(self, fields: Mapping[str, object]) -> str:
        """The completion-mode prompt, identical to upstream's ``(user + sep + prefix).format(**fields)``."""
        return self.render_user(fields) + self.render_suffix(fields)


@dataclass(frozen=True)
class ReplacingTemplate(PromptTemplate):
    """A prompt filled by a chain of ``str.replace`` calls, one placeholder after the other, as
    LongBench v2's ``pred.py`` fills its ``prompts/*.txt`` (``$DOC$``, then ``$Q$``, ...).

    ``placeholders`` pairs each placeholder with the field that replaces it, in upstream's order. The
    order matters: a field's value that holds a later placeholder (a document quoting ``$Q$``) has it
    replaced too, exactly as upstream's chain does. Braces mean nothing here, and there is no answer
    prefix.
    """

    placeholders: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.answer_prefix or self.separator:
            raise ValueError("a replacing template has no answer prefix")
        missing = [p for p, _ in self.placeholders if p not in self.user]
        if missing:
            raise ValueError(f"the template does not hold the placeholders {missing}")

    @property
    def fields(self) -> frozenset[str]:
        return frozenset(name for _, name in self.placeholders)

    def render_user(self, fields: Mapping[str, object]) -> str:
        text = self.user
        for placeholder, name in self.placeholders:
            if name not in fields:
                raise KeyError(f"user template needs the field {name!r}, which the record does not have")
            text = text.replace(placeholder, str(fields[name]))
        return text

    def render_suffix(self, fields: Mapping[str, object]) -> str:
        return ""
