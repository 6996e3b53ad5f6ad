"""NarrativeQA over whole books and movie scripts (``docs/helmet.md`` §3.5).

HELMET: ``test.shuffle(seed=42)``, keep rows whose document has more than 131072 Llama-2 tokens, take
the first 100 — the same rows at every length. ``dev`` is every other kept row, never with the query id
(document and question) of an ``eval`` row. Each row gets two demonstrations from ``train``:
``train.shuffle(seed=(sha256(document id) + 42) % 2**31)``, first two — the per-example seed of
HELMET's PR #44, where HELMET ≤ Apr 2025 shuffled without a seed.

Sources: the Parquet files of ``deepmind/narrativeqa`` (the repo's own conversion of its loading
script, which ``load_dataset("narrativeqa")`` reads).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from longbench_suite.errors import DataFormatError
from longbench_suite.partition import sampling
from longbench_suite.records import iter_parquet
from longbench_suite.render import PromptTemplate
from longbench_suite.source import FileRef, RemoteFile, hub_url

from .longdoc import Document, LongDocTask, Pretruncation, demo_block, example_seeded_picks, read_once

REPO = "deepmind/narrativeqa"
REVISION = "2e643e7363944af1c33a652d1c87320d0871c4e4"  # "Convert dataset to Parquet (#6)"
SHARDS = {"test": 8, "train": 24}
SHOTS = 2
TEMPLATE = PromptTemplate(
    user=(
        "You are given a story, which can be either a novel or a movie script, and a question. Answer the "
        "question as concisely as you can, using a single phrase if possible.\n\n{demo}{context}\n\n"
        "Question: {question}"
    ),
    answer_prefix="Answer:",
    separator="\n",
)
DEMO = "Question: {question}\nAnswer: {answer}"
DEMO_OPENING = "For example:\n\n"
DEMO_CLOSING = "\n\nNow, use the following story to answer the question:\n\n"


def shard_files(split: str) -> dict[str, RemoteFile]:
    n = SHARDS[split]
    return {
        f"{split}-{i:05d}": RemoteFile(hub_url(REPO, f"data/{split}-{i:05d}-of-{n:05d}.parquet", REVISION))
        for i in range(n)
    }


def _shards(files: Mapping[str, FileRef], split: str) -> list[FileRef]:
    return [files[f"{split}-{i:05d}"] for i in range(SHARDS[split])]


@dataclass(frozen=True)
class Question:
    index: int  # row position in the test split
    document_key: tuple[str, int]  # (document id, length of its text)
    question: str
    answers: list[str]


def _answers(record: dict, where: str) -> list[str]:
    answers = [a.get("text") for a in record.get("answers") or [] if isinstance(a, dict)]
    if not answers or not all(isinstance(a, str) for a in answers):
        raise DataFormatError(f"{where}: 'answers' must be a non-empty list of {{'text': str}}")
    return answers


def _question(record: dict, where: str) -> str:
    question = (record.get("question") or {}).get("text")
    if not isinstance(question, str):
        raise DataFormatError(f"{where}: the record has no 'question.text' string")
    return question


@dataclass(frozen=True, eq=False, kw_only=True)
class NarrativeQATask(LongDocTask):
    def sources(self, length: str) -> dict:
        return {**shard_files("test"), **shard_files("train")}

    def read_test(self, files: Mapping[str, FileRef], pretruncation: Pretruncation):
        """The test questions, and the text of every document long enough to keep."""
        depends = (self.name, pretruncation.counter.identity, pretruncation.min_tokens)
        refs = _shards(files, "test")
        return read_once("narrativeqa.test", refs, depends, lambda: self._read_test(refs, pretruncation))

    def _read_test(self, refs: list[FileRef], pretruncation: Pretruncation):
        questions: list[Question] = []
        long_documents: dict[tuple[str, int], str] = {}
        is_long: dict[tuple[str, int], bool] = {}
        for ref in refs:
            columns = ["document.id", "document.text", "question.text", "answers"]
            for row, record in iter_parquet(ref, columns, batch_size=16):
                where = f"{ref.label}, row {row}"
                document = record.get("document") or {}
                doc_id, text = document.get("id"), document.get("text")
                if not isinstance(doc_id, str) or not isinstance(text, str):
                    raise DataFormatError(f"{where}: the record has no 'document.id' and 'document.text'")
                key = (doc_id, len(text))
                if key not in is_long:
                    is_long[key] = pretruncation.is_long(text, key)
                    if is_long[key]:
                        long_documents[key] = text
                questions.append(
                    Question(len(questions), key, _question(record, where), _answers(record, where))
                )
        return questions, long_documents

    def read_demo_pool(self, files: Mapping[str, FileRef]) -> list[str]:
        refs = _shards(files, "train")
        return read_once("narrativeqa.train", refs, self.name, lambda: self._read_demo_pool(refs))

    def _read_demo_pool(self, refs: list[FileRef]) -> list[str]:
        pool = []
        for ref in refs:
            for row, record in iter_parquet(ref, ["question.text", "answers"]):
                where = f"{ref.label}, row {row}"
                pool.append(DEMO.format(question=_question(record, where), answer=_answers(record, where)[0]))
        return pool

    def query_id(self, q: Question) -> str:
        digest = hashlib.sha256(q.question.encode("utf-8")).hexdigest()[:12]
        return f"{self.name}-{q.document_key[0]}-{digest}"

    def partition(self, questions: list[Question], long_documents: Mapping) -> dict[str, list[Question]]:
        shuffled = sampling.hf_shuffle(questions, sampling.HELMET_SEED)
        kept = [q for q in shuffled if q.document_key in long_documents]
        evaluated = kept[: self.eval_size]
        dev, dropped = self.leakage.split(
            [self._leakage_row(q) for q in evaluated], kept[self.eval_size :], self._leakage_row
        )
        return {"eval": evaluated, "dev": dev, "dropped": dropped}

    def _leakage_row(self, q: Question) -> dict[str, str]:
        return self.leakage_row(self.query_id(q), q.question)

    def documents(self, split: str, files: Mapping[str, FileRef], pretruncation: Pretruncation):
        questions, long_documents = self.read_test(files, pretruncation)
        part = self.partition(questions, long_documents)
        return self._documents(files, part[split], long_documents), part["dropped"] if split == "dev" else []

    def _documents(self, files, chosen, long_documents) -> Iterator[Document]:
        pool = self.read_demo_pool(files)
        for q in chosen:
            doc_id = q.document_key[0]
            picks = example_seeded_picks(len(pool), doc_id, SHOTS)  # "its id": the document's
            yield Document(
                query_id=self.query_id(q),
                document=long_documents[q.document_key],
                fields={
                    "demo": demo_block([pool[i] for i in picks], DEMO_OPENING, DEMO_CLOSING),
                    "question": q.question,
                },
                answers=q.answers,
                output=q.answers[0],
                question=q.question,
                metadata={"document_id": doc_id, "source_index": q.index, "demo_train_indices": picks},
                document_key=q.document_key,
            )


TASKS = (
    NarrativeQATask(
        name="narrativeqa",
        helmet_name="narrativeqa",
        helmet_prefix="narrativeqa",
        description="NarrativeQA: questions about whole books and movie scripts (> 128k Llama-2 tokens).",
        template=TEMPLATE,
        max_new_tokens=100,
        use_chat_template=True,
        metric="narrativeqa_judge",
        truncation_offset=300,
        min_tokens=131073,
        sizes={"eval": 100},
    ),
)
