"""HELMET's tasks at its five lengths, and the generator tasks (no listed configs: any length), with
what each length sets (``docs/helmet.md`` §1.1-§1.2). A task is one line; a length is one line."""

from __future__ import annotations

from typing import NamedTuple

from . import Spec


class Length(NamedTuple):
    tokens: int  # input_max_length L, K = 1024: the rows' max_length
    kilt_passages: int  # the k of the RAG files
    alce_docs: int  # the N of alce_asqa_N
    msmarco_passages: int
    json_kv_pairs: int


LENGTHS = {
    "8k": Length(8192, 50, 30, 50, 105),
    "16k": Length(16384, 105, 75, 130, 220),
    "32k": Length(32768, 220, 165, 285, 440),
    "64k": Length(65536, 440, 345, 600, 900),
    "128k": Length(131072, 1000, 700, 1000, 1800),
}
ALL = tuple(LENGTHS)

#: task -> its family (the module declaring it); the generators make their rows at any length
FAMILIES = {
    "nq": "rag",
    "triviaqa": "rag",
    "popqa": "rag",
    "hotpotqa": "rag",
    "alce_asqa": "alce",
    "alce_qampari": "alce",
    "msmarco": "msmarco",
    "trec_coarse": "icl",
    "trec_fine": "icl",
    "nlu": "icl",
    "banking77": "icl",
    "clinc150": "icl",
    "narrativeqa": "longdoc",
    "infbench_qa": "longdoc",
    "infbench_mc": "longdoc",
    "infbench_sum": "longdoc",
    "multi_lexsum": "longdoc",
    "json_kv": "recall",
    "ruler_mk_needle": "recall",
    "ruler_mk_uuid": "recall",
    "ruler_mv": "recall",
    "gen_json_kv": "generated",
    "gen_niah_single_1": "generated",
    "gen_niah_single_2": "generated",
    "gen_niah_single_3": "generated",
    "gen_niah_multikey_1": "generated",
    "gen_niah_multikey_2": "generated",
    "gen_niah_multikey_3": "generated",
    "gen_niah_multivalue": "generated",
    "gen_niah_multiquery": "generated",
}


def family(name: str) -> list[str]:
    """The tasks of one family, in declaration order."""
    return [task for task, kind in FAMILIES.items() if kind == name]


#: the tasks read from data.tar.gz's citation, re-ranking and recall members
ARCHIVE_TASKS = (*family("alce"), *family("msmarco"), *family("recall"))

SPEC = Spec(
    benchmark="helmet",
    tasks={task: () if kind == "generated" else ALL for task, kind in FAMILIES.items()},
)
