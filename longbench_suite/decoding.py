"""How upstream decodes a task's outputs: the :class:`Generation` a task declares.

Next to ``max_new_tokens`` and ``use_chat_template``, this is the rest of what makes a benchmark's
predictions comparable: where generation stops, and how tokens are chosen. ``longbench-suite predict``
sends it to the model as declared; nothing about it is stated anywhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FollowUp:
    """A second call upstream makes for every row, after the first reply (LongBench v2's chain of
    thought: its ``0shot_cot_ans`` call).

    ``prompt(row, first_reply)`` renders the second prompt from the row's columns and the first reply
    as the model gave it (the benchmark strips it where upstream does); it is sent in the row's mode
    (chat user turn or completion prompt) with ``max_new_tokens`` and the task's decoding. ``cut(text,
    tokenizer, budget)``, if given, cuts that prompt as the task's fit rule cuts the first one, at the
    config's token budget under its tokenizer (upstream cuts every prompt it sends); ``None``: sent
    whole. The row's prediction is the second reply; an empty first reply is not followed up (there is
    nothing to follow up on) and leaves the prediction empty, as upstream skips such a row.
    """

    prompt: Callable[[Mapping[str, Any], str], str]
    max_new_tokens: int
    cut: Callable[[str, Any, int], str] | None = None
    #: what the call is, for ``info`` and error messages
    name: str = "follow-up call"


@dataclass(frozen=True)
class Generation:
    """A task's decoding settings, as its upstream runner sets them.

    ``stop``: strings that end an output (not included in it), OpenAI's ``stop``; ``temperature`` 0 is
    greedy decoding; ``top_p`` as upstream passes it; ``seed`` what upstream sends to APIs that take
    one; ``system_message`` a system turn before the user turn in chat mode (``None``: none);
    ``follow_up`` a second call per row whose reply is the prediction (``None``: one call).
    """

    stop: tuple[str, ...] = ()
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None
    system_message: str | None = None
    follow_up: FollowUp | None = None

    @property
    def greedy(self) -> bool:
        return self.temperature == 0.0

    def describe(self) -> str:
        """One line for ``longbench-suite info``."""
        parts = ["greedy" if self.greedy else f"temperature {self.temperature}, top_p {self.top_p}"]
        if self.stop:
            parts.append("stop at " + " or ".join(repr(s) for s in self.stop))
        if self.system_message is not None:
            parts.append(f"system message {self.system_message!r}")
        if self.follow_up is not None:
            cut = ", cut at the budget" if self.follow_up.cut is not None else ""
            parts.append(f"then the {self.follow_up.name} ({self.follow_up.max_new_tokens} new tokens{cut})")
        return ", ".join(parts)


#: greedy decoding, no stop strings, no system turn: what most upstream runners do
GREEDY = Generation()
