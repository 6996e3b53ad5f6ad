"""Every HELMET-derived task; each family module declares its own (``helmet.md`` §1.2)."""

from __future__ import annotations

from . import alce, msmarco, rag, recall

#: Family modules in the order their configs are listed.
FAMILIES = (rag, alce, msmarco, recall)

TASKS = tuple(task for family in FAMILIES for task in family.TASKS)
