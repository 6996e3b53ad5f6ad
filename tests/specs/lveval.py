"""LV-Eval's 11 datasets at its five length levels, with the rows per level and the generation length
of its ``config.py`` (``docs/lveval.md`` §2). A dataset is one line."""

from __future__ import annotations

from . import Spec

LEVELS = ("16k", "32k", "64k", "128k", "256k")

#: dataset -> (eval rows at every level, max_new_tokens)
LINES = {
    "hotpotwikiqa_mixup": (124, 64),
    "loogle_SD_mixup": (160, 64),
    "loogle_CR_mixup": (99, 64),
    "loogle_MIR_mixup": (139, 64),
    "multifieldqa_en_mixup": (101, 64),
    "multifieldqa_zh_mixup": (133, 64),
    "factrecall_en": (200, 16),
    "factrecall_zh": (200, 16),
    "cmrc_mixup": (200, 64),
    "lic_mixup": (197, 64),
    "dureader_mixup": (176, 64),
}

DATASETS = tuple(LINES)

SPEC = Spec(
    benchmark="lveval",
    tasks=dict.fromkeys(LINES, LEVELS),
    declared={name: {"max_new_tokens": tokens} for name, (_, tokens) in LINES.items()},
    eval_rows={name: rows for name, (rows, _) in LINES.items()},
)
