"""Every HELMET-derived task; each family module declares its own (``helmet.md`` §1.2)."""

from __future__ import annotations

from . import icl, infbench, multi_lexsum, narrativeqa, rag

#: Family modules in the order their configs are listed.
FAMILIES = (
    rag,
    icl,
    narrativeqa,
    infbench,
    multi_lexsum,
)

TASKS = tuple(task for family in FAMILIES for task in family.TASKS)
