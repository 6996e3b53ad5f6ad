"""What one row asks of a model: its prompt in the task's upstream mode, generation length, stop
strings and decoding, all read from the task's declaration (``use_chat_template``, ``max_new_tokens``,
``generation``), and the second call a task may declare after the first reply
(:class:`~longbench_suite.decoding.FollowUp`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..decoding import Generation
from ..errors import DataFormatError
from ..task import Task
from ..training.formats import user_turn


@dataclass(frozen=True)
class Request:
    """One row's generation request.

    ``chat``: the prompt is the user turn of a chat (upstream's chat-template mode); otherwise it is a
    raw completion prompt (the row's ``input``, answer prefix included). ``call`` names a call other
    than the row's first (its task's follow-up call), for messages.
    """

    index: int
    query_id: str
    chat: bool
    prompt: str
    max_tokens: int
    generation: Generation
    call: str = ""

    @property
    def where(self) -> str:
        """``row 3 (query_id q3)``, with the call named where it is not the row's first."""
        where = f"row {self.index} (query_id {self.query_id})"
        return f"{where}, {self.call}" if self.call else where

    def messages(self) -> list[dict[str, str]]:
        """The chat turns: the declared system message, if any, then the user turn."""
        turns = []
        if self.generation.system_message is not None:
            turns.append({"role": "system", "content": self.generation.system_message})
        turns.append({"role": "user", "content": self.prompt})
        return turns


def request_for(task: Task, index: int, row: Mapping[str, Any]) -> Request:
    """The request of one row of ``task``'s split; the row says the mode, the declaration the rest. A row
    whose ``max_new_tokens`` column differs from the declaration (a RULER row in ``prompt="user"`` mode,
    sized for a reasoning model's budget) is asked for that many tokens."""
    chat = bool(row["use_chat_template"])
    return Request(
        index=index,
        query_id=str(row["query_id"]),
        chat=chat,
        prompt=user_turn(dict(row)) if chat else row["input"],
        max_tokens=int(row.get("max_new_tokens") or task.max_new_tokens),
        generation=task.generation,
    )


def requests_for(task: Task, rows: Sequence[Mapping[str, Any]]) -> list[Request]:
    return [request_for(task, i, row) for i, row in enumerate(rows)]


#: a config's cut of a follow-up prompt (the task's declared cut at the config's budget), or ``None``
PromptCut = Callable[[str], str] | None


def follow_up_request(first: Request, row: Mapping[str, Any], reply: str, cut: PromptCut = None) -> Request:
    """The second call of a row whose task declares a follow-up, after the first call's ``reply``:
    the declared prompt rendered from the row and the reply, cut by ``cut``, sent in the row's mode
    with the follow-up's generation length and the task's decoding."""
    follow_up = first.generation.follow_up
    if follow_up is None:
        raise ValueError(f"{first.where}: its task declares no follow-up call")
    try:
        prompt = follow_up.prompt(row, reply)
    except KeyError as missing:
        raise DataFormatError(
            f"{first.where}: the {follow_up.name} needs the column {missing.args[0]!r}, which the row "
            "does not have"
        ) from None
    return replace(
        first,
        prompt=prompt if cut is None else cut(prompt),
        max_tokens=follow_up.max_new_tokens,
        call=follow_up.name,
    )


def follow_up_cut(
    task: Task, length: str | None, max_input_tokens: int | None, tokenizer: Callable[[], Any]
) -> PromptCut:
    """How a config cuts its follow-up prompts: the task's declared cut at the config's budget (the
    one its first prompts fit) under the config's tokenizer (``tokenizer()``, asked for only when
    there is something to cut with it); ``None`` where the task declares no cut or the config has no
    budget (``full``)."""
    follow_up = task.generation.follow_up
    if follow_up is None or follow_up.cut is None or length is None:
        return None
    budget = task.budget_rule(length, max_input_tokens)
    if budget is None:
        return None
    cut, tokens, counter = follow_up.cut, budget.tokens, tokenizer()
    return lambda prompt: cut(prompt, counter, tokens)
