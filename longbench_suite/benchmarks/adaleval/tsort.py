"""TSort (upstream ``textsort``): put four shuffled book segments back in order.

See ``docs/adaleval.md`` §4, §5.2.

The hosted record carries the complete prompt, which the official runner sends unchanged, so ``input``
is ``prompt`` verbatim. ``answer`` (the part numbers in their true order, e.g. ``[4, 1, 3, 2]``) may be
stored as a list or as a JSON string; both become a list of ints. Consecutive cases overlap (a stride
of 64 or 128 paragraphs), so rows of one ``book_id`` never straddle ``eval`` and ``dev``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import datasets

from longbench_suite.instance import Instance
from longbench_suite.records import IDENTIFIER, INTEGER, TEXT, WHOLE_NUMBER, list_of, require, take
from longbench_suite.render import PromptTemplate

from .common import AdaTask, PaperStats, ada_features

#: the hosted record carries the whole prompt, sent unchanged
PROMPT = PromptTemplate(user="{prompt}")
#: the true order of the parts, stored as a list or as a JSON string of one
ORDER = list_of(INTEGER, json_string=True)
#: the parts' paragraph offsets in the book, which only name the case (its ``official_index``)
OFFSETS = list_of(WHOLE_NUMBER, nonempty=False)

FEATURES = ada_features(
    answer=datasets.List(datasets.Value("int32")),
    book_id=datasets.Value("string"),
    para_offset=datasets.List(datasets.Value("int64")),
)


class TSortTask(AdaTask):
    features = FEATURES
    group_field = "book_id"
    # Consecutive cases of a book overlap, so a book is what dev and eval may never share, and what a
    # hold-out of dev keeps on one side.
    leakage_columns = ("query_id", "book_id")
    holdout_key = "book_id"

    def leakage_keys(self, row: Mapping[str, Any]) -> dict[str, str]:
        return {**super().leakage_keys(row), "book_id": row["book_id"]}

    def instance(self, record: dict, where: str) -> Instance:
        require(record, ["prompt", "answer", "book_id", "para_offset"], where)
        answer = take(record, "answer", ORDER, where)
        book_id = take(record, "book_id", IDENTIFIER, where)
        # upstream only joins the offsets into the index, so any list of them (empty, 3.0) is accepted
        offsets = take(record, "para_offset", OFFSETS, where)
        official_index = f"{book_id}_{'_'.join(str(x) for x in offsets)}"
        para_offset = [int(x) for x in offsets]
        output = json.dumps(answer)
        return Instance(
            query_id=f"{self.name}-{official_index}",
            fields={"prompt": take(record, "prompt", TEXT, where)},
            output=output,
            answers=[output],
            columns={
                "official_index": official_index,
                "answer": answer,
                "book_id": book_id,
                "para_offset": para_offset,
            },
        )


PAPER = {
    "2k": PaperStats(5123, 2000, 1816),
    "4k": PaperStats(5451, 4000, 3724),
    "8k": PaperStats(5324, 8000, 7663),
    "16k": PaperStats(4957, 16000, 15662),
    "32k": PaperStats(2206, 32000, 31226),
    "64k": PaperStats(1658, 64000, 62407),
    "128k": PaperStats(782, 127800, 121488),
}

TASK = TSortTask(
    name="tsort",
    template=PROMPT,
    metric="tsort_accuracy",
    category="TSort",
    file_stem="textsort",
    paper=PAPER,
    not_in_paper=("1k",),
    description=(
        "TSort: four contiguous book segments (Booksum / Project Gutenberg) shown shuffled between their "
        "neighbouring paragraphs; the model gives their original order, e.g. [4, 1, 3, 2]. tsort_1k is "
        "hosted upstream but not reported in the paper."
    ),
)
