"""How a task's rendered prompt is fitted to its token budget: a task declares one :class:`Fit`.

- :class:`CutContextTail` (HELMET): the completion-mode prompt must fit
  ``max_length − max_new_tokens`` tokens exactly; only the ``context`` field is cut, from its end.
- :class:`CutMiddle` (LongBench, LongBench v2, LV-Eval): the rendered prompt keeps its first and last
  halves of the budget, decoded and joined, as ``pred.py`` does (LongBench v2's: decoded as one
  sequence, an odd budget's extra token from the tail); the re-encoded text may overshoot a little.
- :class:`NoCut` (Ada-LEval): prompts are never cut, and a user budget is an error.

A user's ``max_input_tokens`` replaces the task's own budget in every rule that cuts.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import OptionError, SuiteError
from ..render import PromptTemplate
from .chat import ChatTemplate
from .tokenizers import TokenCounter
from .truncation import MIDDLE_CUT_TOLERANCE, SINGLE_CUT_TOLERANCE, fit_by_cutting_context, keep_middle

if TYPE_CHECKING:
    from ..task import Task


@dataclass(frozen=True)
class InputBudget:
    """How many tokens an ``input`` may have under the config's tokenizer (specials included).

    ``tolerance`` is how far over ``tokens`` the benchmark's own cutting rule may leave a prompt: 0 for
    cuts that count the final text (HELMET), a few tokens for the middle cut, which decodes the kept
    tokens and so re-encodes to a slightly different count. ``rule`` says where the number comes from.
    """

    tokens: int
    rule: str
    tolerance: int = 0

    @property
    def limit(self) -> int:
        return self.tokens + self.tolerance


#: the smallest ``max_input_tokens``: the middle cut keeps half of it from each end, and upstream's
#: ``tokens[-0:]`` with a budget of 1 keeps the whole prompt instead of cutting it
MIN_INPUT_TOKENS = 2


def check_max_input_tokens(value: object) -> None:
    """Refuse a ``max_input_tokens`` no rule can cut to (see :data:`MIN_INPUT_TOKENS`)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_INPUT_TOKENS:
        raise OptionError(
            f"max_input_tokens must be an integer of at least {MIN_INPUT_TOKENS} (the middle cut keeps "
            f"half of it from each end), got {value!r}"
        )


def chat_budget(budget: InputBudget, chat: ChatTemplate) -> InputBudget:
    """What a user turn templated by ``chat`` fits: the same budget, with HELMET's single-cut tolerance."""
    return InputBudget(budget.tokens, f"{budget.rule}, templated by {chat.identity}", SINGLE_CUT_TOLERANCE)


def user_budget(max_input_tokens: int, tolerance: int = 0, rule: str = "max_input_tokens") -> InputBudget:
    return InputBudget(max_input_tokens, rule=rule, tolerance=tolerance)


@dataclass(frozen=True)
class Fitted:
    """A fitted prompt: the ``input`` column, what completion mode appended (``answer_prefix``), the
    template fields it was rendered from (``context`` as cut), its token count when the fit made it
    (``None``: not counted), whether the fit cut anything (the row's ``input_truncated``), and the
    identity of the chat template the user turn was fitted under (``None``: the completion prompt was).
    With a chat template, ``tokens`` counts the templated prompt."""

    prompt: str
    answer_prefix: str
    fields: Mapping[str, Any]
    tokens: int | None = None
    truncated: bool = False
    chat_template: str | None = None


class Fit(ABC):
    """A task's fitting rule; ``fits_chat_templates``: it can fit a chat-mode user turn under a chat
    template (``apply(..., chat=...)``)."""

    fits_chat_templates = False

    @abstractmethod
    def budget(self, task: Task, length: str, max_input_tokens: int | None) -> InputBudget | None:
        """The budget every ``input`` of the config fits, or ``None`` where nothing is cut."""

    @abstractmethod
    def apply(
        self,
        template: PromptTemplate,
        fields: Mapping[str, Any],
        tokenizer: TokenCounter | None,
        budget: InputBudget | None,
        what: str,
        chat: ChatTemplate | None = None,
    ) -> Fitted:
        """Render ``fields`` and fit the prompt to ``budget`` (``what`` names the row in errors); with
        ``chat`` (only where :attr:`fits_chat_templates`), fit the templated user turn instead."""

    def needs_tokenizer(self, task: Task, length: str, max_input_tokens: int | None) -> bool:
        return self.budget(task, length, max_input_tokens) is not None


@dataclass(frozen=True)
class CutContextTail(Fit):
    """HELMET's model-side fit: the completion-mode prompt within ``max_length − max_new_tokens``; or,
    given a chat template, the user turn rendered with it (and counted without added special tokens),
    cut once, exactly as HELMET fits chat-mode prompts (:func:`chat_budget`). ``input`` is the user
    turn plus the suffix either way."""

    fits_chat_templates = True

    def budget(self, task: Task, length: str, max_input_tokens: int | None) -> InputBudget:
        if max_input_tokens is not None:
            return user_budget(max_input_tokens)
        return InputBudget(task.window(length) - task.max_new_tokens, rule="max_length − max_new_tokens")

    def apply(self, template, fields, tokenizer, budget, what, chat=None) -> Fitted:
        def render(context: str) -> str:
            if chat is not None:
                return chat.render(template.render_user({**fields, "context": context}), budget.tokens)
            return template.render_completion({**fields, "context": context})

        whole = str(fields["context"])
        _, context, tokens = fit_by_cutting_context(
            render, whole, tokenizer, budget.tokens, what=what, special=chat is None, once=chat is not None
        )
        fitted = {**fields, "context": context}
        return Fitted(
            template.render_completion(fitted),
            template.render_suffix(fitted),
            fitted,
            tokens,
            truncated=len(context) < len(whole),
            chat_template=chat.identity if chat is not None else None,
        )


@dataclass(frozen=True)
class CutMiddle(Fit):
    """LongBench's, LongBench v2's and LV-Eval's middle cut of the whole prompt.

    ``budgets`` are the task's own prompt budgets by length (LongBench's ``model2maxlen``; ``None`` at a
    length that is not cut); without them (LV-Eval) only the user's ``max_input_tokens`` cuts.
    """

    budgets: Mapping[str, int | None] | None = None
    rule: str = "model2maxlen, middle cut"
    #: an odd budget keeps one extra token from the tail (LongBench v2's ``ids[-max_len//2:]``) instead
    #: of ``int(budget / 2)`` at each end (:func:`~longbench_suite.fit.truncation.middle_cut_ends`)
    extra_tail: bool = False
    #: the kept head and tail are decoded as one sequence of ids (LongBench v2), not each alone and joined
    decode_once: bool = False

    def budget(self, task: Task, length: str, max_input_tokens: int | None) -> InputBudget | None:
        if max_input_tokens is not None:
            return user_budget(max_input_tokens, MIDDLE_CUT_TOLERANCE, "max_input_tokens, middle cut")
        tokens = self.budgets.get(length) if self.budgets else None
        return None if tokens is None else InputBudget(tokens, self.rule, MIDDLE_CUT_TOLERANCE)

    def apply(self, template, fields, tokenizer, budget, what, chat=None) -> Fitted:
        whole = template.render_user(fields)
        prompt = (
            whole
            if budget is None
            else keep_middle(
                whole, tokenizer, budget.tokens, extra_tail=self.extra_tail, decode_once=self.decode_once
            )
        )
        truncated = prompt is not whole and prompt != whole
        return Fitted(prompt, template.render_suffix(fields), fields, truncated=truncated)


@dataclass(frozen=True)
class NoCut(Fit):
    """Prompts are used whole; ``reason`` says why a user budget does not apply."""

    reason: str = field(default="this benchmark's prompts are never cut")

    def budget(self, task: Task, length: str, max_input_tokens: int | None) -> None:
        if max_input_tokens is not None:
            raise SuiteError(f"{task.benchmark_name}/{task.config_name(length)}: {self.reason}")
        return None

    def apply(self, template, fields, tokenizer, budget, what, chat=None) -> Fitted:
        return Fitted(template.render_user(fields), template.render_suffix(fields), fields)
