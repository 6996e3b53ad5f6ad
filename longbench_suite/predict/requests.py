"""What one row asks of a model: its prompt in the task's upstream mode, generation length, stop
strings and decoding, all read from the task's declaration (``use_chat_template``, ``max_new_tokens``,
``generation``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..decoding import Generation
from ..task import Task
from ..training.formats import user_turn


@dataclass(frozen=True)
class Request:
    """One row's generation request.

    ``chat``: the prompt is the user turn of a chat (upstream's chat-template mode); otherwise it is a
    raw completion prompt (the row's ``input``, answer prefix included).
    """

    index: int
    query_id: str
    chat: bool
    prompt: str
    max_tokens: int
    generation: Generation

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
