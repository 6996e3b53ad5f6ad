"""Every HELMET-derived task; each family module declares its own (``docs/helmet.md`` §1.2)."""

from __future__ import annotations

from . import alce, generated, icl, infbench, msmarco, multi_lexsum, narrativeqa, rag, recall

#: Family modules in the order their configs are listed (HELMET's categories: RAG, citation,
#: re-ranking, ICL, long-document QA, summarization, synthetic recall), then the recall generators.
FAMILIES = (rag, alce, msmarco, icl, narrativeqa, infbench, multi_lexsum, recall, generated)

TASKS = tuple(task for family in FAMILIES for task in family.TASKS)
