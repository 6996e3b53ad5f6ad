"""HELMET's synthetic-recall family: JSON KV and RULER's MK needle, MK UUID, MV.

See ``docs/helmet.md`` §3.9-§3.10.

Both read pre-generated JSON-Lines files whose rows carry the whole haystack in ``context``. ``eval``
is the head of HELMET's ``shuffle(seed=42)`` order (JSON KV: 100 rows; RULER: the first 40 of the 100
HELMET evaluates); ``dev`` is every other row, in file order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from longbench_suite.errors import DataFormatError
from longbench_suite.instance import Instance
from longbench_suite.partition.leakage import LeakageRule
from longbench_suite.records import ANSWERS, iter_jsonl, require, take
from longbench_suite.render import PromptTemplate
from longbench_suite.source import FileRef

from .common import archive_member, digest_id
from .lengths import LENGTHS
from .shuffled import RowKey, ShuffledTask

JSON_KV_TEMPLATE = PromptTemplate(
    user=(
        "{context}\n\nExtract the value corresponding to the specified key in the JSON object below."
        "\n\n{demos}Key: {question}"
    ),
    answer_prefix="Corresponding value:",
    separator="\n",
)
JSON_KV_DEMO = "Key: {key}\nCorresponding value:{value}"
SHOTS = 2

# RULER's templates as HELMET uses them; MV has its own wording since HELMET's 2025-02-06 fix.
RULER_MK_TEMPLATE = PromptTemplate(
    user=(
        "A special magic {type_needle_v} is hidden within the following text. Make sure to memorize it. "
        "I will quiz you about the {type_needle_v} afterwards.\n{context}\nWhat is the special magic "
        "{type_needle_v} for {query} mentioned in the provided text?"
    ),
    answer_prefix="The special magic {type_needle_v} for {query} mentioned in the provided text is",
    separator="\n",
)
RULER_MV_TEMPLATE = PromptTemplate(
    user=(
        "Some special magic {type_needle_v} are hidden within the following text. Make sure to memorize "
        "it. I will quiz you about the {type_needle_v} afterwards.\n{context}\nWhat are all the special "
        "magic {type_needle_v} for {query} mentioned in the provided text?"
    ),
    answer_prefix="The special magic {type_needle_v} for {query} mentioned in the provided text are",
    separator="\n",
)


@dataclass(frozen=True, eq=False, kw_only=True)
class JsonlTask(ShuffledTask):
    """A recall task read from one JSON-Lines file per length (``{n}`` in ``test_file``)."""

    test_file: str = ""

    def file_parameter(self, length: str) -> int:
        raise NotImplementedError

    def sources(self, length: str) -> dict:
        return {"test": archive_member(self.test_file.format(n=self.file_parameter(length)))}

    def records(self, files: Mapping[str, FileRef]) -> Iterator[tuple[str, dict]]:
        for line, record in iter_jsonl(files["test"]):
            yield f"{files['test'].label}, line {line}", record


@dataclass(frozen=True, eq=False, kw_only=True)
class JsonKvTask(JsonlTask):
    def file_parameter(self, length: str) -> int:
        return LENGTHS[length].json_kv_pairs

    def facts(self, length: str) -> dict:
        return {**super().facts(length), "key-value pairs": LENGTHS[length].json_kv_pairs}

    def key(self, record: dict, where: str) -> RowKey:
        require(record, ["context", "question", "answer", "demos"], where)
        return RowKey(
            digest_id(self.name, record["question"], *take(record, "answer", ANSWERS, where)),
            record["question"],
        )

    def demos(self, record: dict, where: str) -> str:
        """The row's own first two pairs, each ``Key: k\\nCorresponding value: v``."""
        pairs = record["demos"][:SHOTS] if isinstance(record["demos"], list) else None
        if pairs is None or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs
        ):
            raise DataFormatError(f"{where}: 'demos' must be a list of [key, value] string pairs")
        return "\n\n".join(JSON_KV_DEMO.format(key=k, value=" " + v) for k, v in pairs) + "\n\n"

    def build(self, record: dict, where: str, index: int, length: str, state: object) -> Instance:
        answers = take(record, "answer", ANSWERS, where)
        depth = record.get("depth")
        return Instance(
            query_id=self.key(record, where).query_id,
            fields={
                "context": record["context"],
                "demos": self.demos(record, where),
                "question": record["question"],
            },
            output=answers[0],
            answers=answers,
            columns=self.columns(
                length,
                question=record["question"],
                depth=None if depth is None else float(depth),
                metadata={"source_row": index + 1, "num_kvs": record.get("num_kvs")},
            ),
        )


@dataclass(frozen=True, eq=False, kw_only=True)
class RulerTask(JsonlTask):
    def file_parameter(self, length: str) -> int:
        return LENGTHS[length].tokens

    @staticmethod
    def query(record: dict, where: str) -> str:
        """HELMET's question: ``query``, else ``question``."""
        for name in ("query", "question"):
            if name in record:
                return record[name]
        raise DataFormatError(f"{where}: the record has no field 'query' (it has {sorted(record)})")

    @staticmethod
    def answers(record: dict, where: str) -> list[str]:
        """``answer`` when present, else ``outputs``; always a list (HELMET's recall iterates it)."""
        name = "answer" if "answer" in record else "outputs"
        require(record, [name], where)
        return take(record, name, ANSWERS, where)

    def key(self, record: dict, where: str) -> RowKey:
        require(record, ["context", "type_needle_v"], where)
        query = self.query(record, where)
        return RowKey(digest_id(self.name, query, *self.answers(record, where)), query)

    def build(self, record: dict, where: str, index: int, length: str, state: object) -> Instance:
        answers = self.answers(record, where)
        query = self.query(record, where)
        return Instance(
            query_id=self.key(record, where).query_id,
            fields={"type_needle_v": record["type_needle_v"], "query": query, "context": record["context"]},
            output=", ".join(answers),
            answers=answers,
            columns=self.columns(
                length, question=query, metadata={"source_row": index + 1, "index": record.get("index")}
            ),
        )


_RECALL = dict(use_chat_template=False, category="Recall")
#: A RULER question names a random key whose values differ per row: the same key drawn again, in this
#: file or another length's, with other values gives nothing away. The item is the query id (question
#: and answers).
RULER_LEAKAGE = LeakageRule(
    ("query_id",), reason="a needle key drawn again comes with other values and reveals nothing"
)
_RULER = dict(
    eval_size=40, leakage=RULER_LEAKAGE, sizes={"dev": 60, "eval": 40}, metric="ruler_recall", **_RECALL
)

TASKS = (
    JsonKvTask(
        name="json_kv",
        helmet_name="json_kv",
        description="JSON KV: find the value of a UUID key in a JSON object of N UUID pairs.",
        template=JSON_KV_TEMPLATE,
        max_new_tokens=100,
        metric="json_kv_subem",
        test_file="data/json_kv/test_k{n}_dep6.jsonl",
        eval_size=100,
        sizes={"dev": 500, "eval": 100},
        **_RECALL,
    ),
    RulerTask(
        name="ruler_mk_needle",
        helmet_name="ruler_niah_mk_2",
        description="RULER multi-key needle in a haystack of other needles: recall a 7-digit number.",
        template=RULER_MK_TEMPLATE,
        max_new_tokens=50,
        test_file="data/ruler/niah_multikey_2/validation_{n}.jsonl",
        **_RULER,
    ),
    RulerTask(
        name="ruler_mk_uuid",
        helmet_name="ruler_niah_mk_3",
        description="RULER multi-key needle with UUID keys and values in a haystack of other needles.",
        template=RULER_MK_TEMPLATE,
        max_new_tokens=100,
        test_file="data/ruler/niah_multikey_3/validation_{n}.jsonl",
        **_RULER,
    ),
    RulerTask(
        name="ruler_mv",
        helmet_name="ruler_niah_mv",
        description="RULER multi-value needle: recall the four numbers hidden for one key in an essay.",
        template=RULER_MV_TEMPLATE,
        max_new_tokens=50,
        test_file="data/ruler/niah_multivalue/validation_{n}.jsonl",
        **_RULER,
    ),
)
