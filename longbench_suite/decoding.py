"""How upstream decodes a task's outputs: the :class:`Generation` a task declares.

Next to ``max_new_tokens`` and ``use_chat_template``, this is the rest of what makes a benchmark's
predictions comparable: where generation stops, and how tokens are chosen. ``longbench-suite predict``
sends it to the model as declared; nothing about it is stated anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Generation:
    """A task's decoding settings, as its upstream runner sets them.

    ``stop``: strings that end an output (not included in it), OpenAI's ``stop``; ``temperature`` 0 is
    greedy decoding; ``top_p`` as upstream passes it; ``seed`` what upstream sends to APIs that take
    one; ``system_message`` a system turn before the user turn in chat mode (``None``: none).
    """

    stop: tuple[str, ...] = ()
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None
    system_message: str | None = None

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
        return ", ".join(parts)


#: greedy decoding, no stop strings, no system turn: what most upstream runners do
GREEDY = Generation()
