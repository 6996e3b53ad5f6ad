"""The fit of generated rows: the generator already sized the prompt to the budget, exactly."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .rules import CutContextTail, Fitted

#: the instance field holding the :class:`GeneratedPrompt`
PROMPT_FIELD = "generated_prompt"


@dataclass(frozen=True)
class GeneratedPrompt:
    """The completion prompt a generator made, what it appended after the user turn, its tokens, and the
    identity of the chat template it rendered the user turn in (``None``: none)."""

    text: str
    suffix: str
    tokens: int
    chat_template: str | None = None


@dataclass(frozen=True)
class FitsByConstruction(CutContextTail):
    """HELMET's budget (``max_length − max_new_tokens``, or the user's ``max_input_tokens``), met by the
    generator itself: the prompt is taken as made, never cut, and its exact count kept."""

    def apply(self, template, fields: Mapping[str, Any], tokenizer, budget, what, chat=None) -> Fitted:
        made: GeneratedPrompt = fields[PROMPT_FIELD]
        if budget is not None and made.tokens > budget.limit:
            raise RuntimeError(f"{what}: a generated prompt of {made.tokens} tokens exceeds {budget.tokens}")
        return Fitted(made.text, made.suffix, fields, made.tokens, chat_template=made.chat_template)
