"""Ada-LEval's two tasks at the settings its hosted files exist for (``docs/adaleval.md`` §2): TSort has
no 6k or 12k file. A task is one line."""

from __future__ import annotations

from typing import NamedTuple

from . import Spec


class Setting(NamedTuple):
    tokens: int  # K = 1000: the rows' max_length
    eval_rows: int  # the official runner evaluates the first eval_rows for open-source models
    api_rows: int  # and the first api_rows for API models


SETTINGS = {
    "1k": Setting(1000, 1000, 200),
    "2k": Setting(2000, 1000, 200),
    "4k": Setting(4000, 1000, 200),
    "6k": Setting(6000, 1000, 200),
    "8k": Setting(8000, 1000, 200),
    "12k": Setting(12000, 1000, 200),
    "16k": Setting(16000, 1000, 200),
    "32k": Setting(32000, 200, 50),
    "64k": Setting(64000, 200, 50),
    "128k": Setting(128000, 200, 50),
}

SPEC = Spec(
    benchmark="adaleval",
    tasks={
        "tsort": ("1k", "2k", "4k", "8k", "16k", "32k", "64k", "128k"),
        "bestanswer": ("1k", "2k", "4k", "6k", "8k", "12k", "16k", "32k", "64k", "128k"),
    },
)
