"""InfiniteBench English QA, multiple choice and summarization over novels (``docs/helmet.md`` §3.6-§3.7).

HELMET reads one JSON-Lines file per task (``id``, ``context``, ``input``, ``answer``, ``options``). Each
row's two demonstrations are the first two rows of ``shuffle(seed=42)`` over the other rows (file order,
the row's own ``id`` removed), rendered with ``[story text]`` in place of their book. Documents with
fewer than 65536 Llama-2 tokens are dropped (none upstream), the rest ordered by ``shuffle(seed=42)``:
``eval`` is the first 100 (Sum: the first 50), ``dev`` the rest, without demonstrations.

Multiple choice shows the options as ``A. …`` to ``D. …``; its answers are the gold letter and
``"<letter>. <option>"``, as HELMET scores them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from longbench_suite.errors import DataFormatError
from longbench_suite.partition import sampling
from longbench_suite.records import iter_jsonl, require
from longbench_suite.render import PromptTemplate
from longbench_suite.source import FileRef, RemoteFile, hub_url

from .common import archive_member
from .longdoc import Document, LongDocTask, Pretruncation, demo_block, read_keypoints, read_once

REPO = "xinrongzhang2022/InfiniteBench"
# main on 2024-08-21; the longbook files have not changed since 2024-08-08 (611fbbf).
REVISION = "1c51b11f47b164401bea55e2d60db47b6f9845fe"
KEYPOINTS = archive_member("data/infbench/longbook_sum_eng_keypoints.jsonl")
SHOTS = 2
#: how many rows HELMET evaluates (the head of its order; ``eval`` keeps ``eval_size`` of them)
HELMET_EVAL_SIZE = 100
DEMO_OPENING = "For example:\n\n"
DEMO_CLOSING = "\n\nNow, read the following story:\n\n"
LETTERS = "ABCD"


def _template(user: str, prefix: str = "Answer:") -> PromptTemplate:
    return PromptTemplate(user=user, answer_prefix=prefix, separator="\n\n")


QA_TEMPLATE = _template(
    "You are given a story and a question. Answer the question as concisely as you can, using a single "
    "phrase if possible.\n\n{demo}{context}\n\nQuestion: {question}"
)
MC_TEMPLATE = _template(
    "You are given a story and a question with multiple choices. Choose the best answer from the options "
    "provided. Only one of the following options is correct, output the answer using one single letter (A, "
    "B, C, or D). Don't say anything else.\n\n{demo}{context}\n\nQuestion: {question}\nOptions:\n{options}"
)
SUM_TEMPLATE = _template(
    "You are given a book and you are tasked to summarize it. Write a summary of about 1000 to 1200 words. "
    "Only write about the plot and characters of the story. Do not discuss the themes or background of "
    "the book. Do not provide any analysis or commentary.\n\n{demo}{context}\n\nNow summarize the book.",
    prefix="Summary:",
)
QA_DEMO = "[story text]\nQuestion: {question}\nAnswer: {answer}"
MC_DEMO = "[story text]\nQuestion: {question}\nOptions:\n{options}\nAnswer: {answer}"
SUM_DEMO = "[story text]\nSummary: {answer}"
OPTIONS = "A. {}\nB. {}\nC. {}\nD. {}"


@dataclass(frozen=True)
class Example:
    """One row after HELMET's ``process_example``; the book is kept apart (many rows share one)."""

    line: int
    id: object
    book: str  # digest of the context, a key into the books read
    question: str
    answers: list[str]
    options: list[str] = field(default_factory=list)

    @property
    def letter(self) -> str:
        return self.answers[0] if self.options else ""


def _strings(value, where: str, name: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataFormatError(f"{where}: {name!r} must be a string or a list of strings, got {value!r}")
    return value


@dataclass(frozen=True, eq=False, kw_only=True)
class InfBenchTask(LongDocTask):
    data_file: str = ""
    data_records: int | None = None  # rows of upstream's file (docs/helmet.md §3.6-§3.7)
    kind: str = "qa"  # "qa", "mc" or "sum"

    def sources(self, length: str) -> dict:
        return {"data": RemoteFile(hub_url(REPO, self.data_file, REVISION), records=self.data_records)}

    def split_sources(self, length: str) -> dict:
        # Only eval rows carry the judge's key points: dev never needs HELMET's 11 GB archive.
        return {"eval": {"keypoints": KEYPOINTS}} if self.kind == "sum" else {}

    def read(self, ref: FileRef) -> tuple[list[Example], dict[str, str]]:
        examples, books = [], {}
        for line, record in iter_jsonl(ref):
            where = f"{ref.label}, line {line}"
            require(record, ["id", "context", "input", "answer"], where)
            context = record["context"]
            if not isinstance(context, str) or not isinstance(record["input"], str):
                raise DataFormatError(f"{where}: 'context' and 'input' must be strings")
            answers = _strings(record["answer"], where, "answer")
            if not answers:
                raise DataFormatError(f"{where}: 'answer' is empty")
            book = _digest(context)
            books.setdefault(book, context)
            options = []
            if self.kind == "mc":
                options = _strings(record.get("options") or [], where, "options")
                if len(options) < len(LETTERS) or answers[0] not in options:
                    raise DataFormatError(
                        f"{where}: the answer {answers[0]!r} is not one of 4 options {options!r}"
                    )
                letter = chr(ord("A") + options.index(answers[0]))
                answers = [letter, f"{letter}. {answers[0]}"]
            examples.append(Example(line, record["id"], book, record["input"], answers, options))
        return examples, books

    def demo_item(self, example: Example) -> str:
        if self.kind == "mc":
            return MC_DEMO.format(
                question=example.question, options=self.options(example), answer=example.letter
            )
        if self.kind == "sum":
            return SUM_DEMO.format(answer=example.answers[0].strip())
        return QA_DEMO.format(question=example.question, answer=example.answers[0])

    def options(self, example: Example) -> str:
        return OPTIONS.format(*example.options)

    def demos(self, examples: list[Example], own: Example) -> str:
        """The other rows (file order), ``shuffle(seed=42)``, the first two."""
        others = [e for e in examples if e.id != own.id]
        picks = sampling.hf_shuffle_order(len(others), sampling.HELMET_SEED)[:SHOTS]
        if len(picks) < SHOTS:
            raise DataFormatError(f"{self.data_file}: fewer than {SHOTS + 1} rows, so no demonstrations")
        return demo_block([self.demo_item(others[i]) for i in picks], DEMO_OPENING, DEMO_CLOSING)

    def partition(self, examples: list[Example], books: Mapping, pretruncation: Pretruncation):
        kept = [e for e in examples if pretruncation.is_long(books[e.book], e.book)]
        ordered = sampling.hf_shuffle(kept, sampling.HELMET_SEED)
        evaluated = ordered[: self.eval_size]
        dev, dropped = self.leakage.split(
            [self._leakage_row(e) for e in evaluated], ordered[self.eval_size :], self._leakage_row
        )
        helmet = {e.id for e in ordered[:HELMET_EVAL_SIZE]}
        return {"eval": evaluated, "dev": dev, "dropped": dropped, "helmet": helmet}

    def _leakage_row(self, example: Example) -> dict[str, str]:
        return self.leakage_row(self.query_id(example), example.question)

    def facts(self, length: str) -> dict:
        facts = super().facts(length)
        if self.eval_size < HELMET_EVAL_SIZE:
            rest = HELMET_EVAL_SIZE - self.eval_size
            facts["overlap with HELMET"] = (
                f"eval is the first {self.eval_size} of the {HELMET_EVAL_SIZE} rows HELMET evaluates; the "
                f"other {rest} are the first {rest} dev rows (metadata in_helmet_eval): leave them out "
                "before training when you score on HELMET's own set"
            )
        return facts

    def query_id(self, example: Example) -> str:
        return f"{self.name}-{example.id}"

    def documents(self, split: str, files: Mapping[str, FileRef], pretruncation: Pretruncation):
        ref = files["data"]
        examples, books = read_once(f"{self.name}.data", [ref], self.name, lambda: self.read(ref))
        part = self.partition(examples, books, pretruncation)
        documents = self._documents(split, files, examples, books, part[split], part["helmet"])
        return documents, part["dropped"] if split == "dev" else []

    def _documents(self, split, files, examples, books, chosen, helmet: set) -> Iterator[Document]:
        keypoints = (
            read_keypoints(files["keypoints"], "keypoints") if self.kind == "sum" and split == "eval" else {}
        )
        for e in chosen:
            fields = {"demo": self.demos(examples, e) if split == "eval" else "", "question": e.question}
            metadata: dict[str, object] = {"id": e.id, "source_line": e.line}
            if self.kind == "mc":
                fields["options"] = self.options(e)
                metadata["options"] = e.options[: len(LETTERS)]
            if self.kind == "sum":
                metadata["keypoints"] = keypoints.get(str(e.id), [])
            if split == "dev":
                # Where eval keeps fewer rows than HELMET evaluates (Sum: 50 of 100), the rest of
                # HELMET's rows are in dev: flagged so a user can leave them out (docs/helmet-derived.md).
                metadata["in_helmet_eval"] = e.id in helmet
            yield Document(
                query_id=self.query_id(e),
                document=books[e.book],
                document_key=e.book,
                fields=fields,
                answers=e.answers,
                output=e.letter or e.answers[0],
                question=e.question,
                metadata=metadata,
            )


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


_COMMON = dict(use_chat_template=True, min_tokens=65536)

TASKS = (
    InfBenchTask(
        name="infbench_qa",
        helmet_name="infbench_qa_eng",
        helmet_prefix="infbench_qa_eng",
        description="InfiniteBench En.QA: free-form questions about novels with replaced key entities.",
        template=QA_TEMPLATE,
        max_new_tokens=10,
        truncation_offset=210,
        data_file="longbook_qa_eng.jsonl",
        data_records=351,
        metric="infbench_qa_rougel",
        kind="qa",
        sizes={"dev": 251, "eval": 100},
        **_COMMON,
    ),
    InfBenchTask(
        name="infbench_mc",
        helmet_name="infbench_choice_eng",
        helmet_prefix="infbench_choice_eng",
        description="InfiniteBench En.MC: four-way multiple choice about novels with replaced key entities.",
        template=MC_TEMPLATE,
        max_new_tokens=10,
        truncation_offset=210,
        data_file="longbook_choice_eng.jsonl",
        data_records=229,
        metric="infbench_mc_exact_match",
        kind="mc",
        sizes={"dev": 129, "eval": 100},
        **_COMMON,
    ),
    InfBenchTask(
        name="infbench_sum",
        helmet_name="infbench_sum_eng",
        helmet_prefix="infbench_sum_eng",
        description="InfiniteBench En.Sum: summarize a novel with replaced key entities (key-point judge).",
        template=SUM_TEMPLATE,
        max_new_tokens=1200,
        truncation_offset=1400,
        data_file="longbook_sum_eng.jsonl",
        data_records=103,
        metric="infbench_sum_judge",
        category="Summ",
        kind="sum",
        eval_size=50,
        sizes={"dev": 53, "eval": 50},
        **_COMMON,
    ),
)
