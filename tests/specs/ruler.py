"""RULER's tasks (``scripts/synthetic.yaml`` at c3f5e3b) at the lengths ``scripts/config_tasks.sh`` runs
(4k to 128k, K = 1024), and per task the facts RULER's ``constants.py`` states: its script and
``tokens_to_generate``, and its metric (``scripts/eval/synthetic/constants.py``). A task is one line.
"""

from __future__ import annotations

from typing import NamedTuple

from . import Spec

LENGTHS = ("4k", "8k", "16k", "32k", "64k", "128k")


class Line(NamedTuple):
    script: str  # the RULER script (its constants.py key)
    max_new_tokens: int  # tokens_to_generate
    metric: str


LINES = {
    "niah_single_1": Line("niah", 128, "string_match_all"),
    "niah_single_2": Line("niah", 128, "string_match_all"),
    "niah_single_3": Line("niah", 128, "string_match_all"),
    "niah_multikey_1": Line("niah", 128, "string_match_all"),
    "niah_multikey_2": Line("niah", 128, "string_match_all"),
    "niah_multikey_3": Line("niah", 128, "string_match_all"),
    "niah_multivalue": Line("niah", 128, "string_match_all"),
    "niah_multiquery": Line("niah", 128, "string_match_all"),
    "vt": Line("variable_tracking", 30, "string_match_all"),
    "cwe": Line("common_words_extraction", 120, "string_match_all"),
    "fwe": Line("freq_words_extraction", 50, "string_match_all"),
    "qa_1": Line("qa", 32, "string_match_part"),
    "qa_2": Line("qa", 32, "string_match_part"),
}

SPEC = Spec(
    benchmark="ruler",
    tasks={name: LENGTHS for name in LINES},
    declared={name: line._asdict() for name, line in LINES.items()},
    eval_rows={name: 500 for name in LINES},
)
