"""LongBench v2's prompt modes at its prompt-token budgets (``docs/longbench-v2.md`` §4): upstream's
``pred.py`` modes (``0shot``, ``cot``, ``no_context``), its ``model2maxlen`` budget of 120000 at 128k,
its decoding (temperature 0.1; 128 new tokens, 1024 for CoT's first call) and the 503 questions of
``data.json``. A mode is one line."""

from __future__ import annotations

from typing import NamedTuple

from . import Spec


class Length(NamedTuple):
    window: int | None  # the rows' max_length (K = 1024); None: uncut
    prompt_budget: int | None  # the rows' input_budget; 128k is config/model2maxlen.json's 120000


LENGTHS = {
    "16k": Length(16384, 15000),
    "32k": Length(32768, 30000),
    "64k": Length(65536, 60000),
    "128k": Length(131072, 120000),
    "256k": Length(262144, 240000),
    "full": Length(None, None),
}
#: data.json's records (README: "503 challenging multiple-choice questions")
EVAL_ROWS = 503
#: mode -> (its lengths, max_new_tokens)
LINES = {
    "0shot": (tuple(LENGTHS), 128),
    "cot": (tuple(LENGTHS), 1024),
    "no_context": (("full",), 128),
}

SPEC = Spec(
    benchmark="longbench_v2",
    tasks={name: lengths for name, (lengths, _) in LINES.items()},
    declared={name: {"max_new_tokens": tokens} for name, (_, tokens) in LINES.items()},
    eval_rows=dict.fromkeys(LINES, EVAL_ROWS),
)
