"""Multi-LexSum: summarize the legal documents of a civil-rights case (``docs/helmet.md`` §3.8).

HELMET (config ``v20230518``, rows whose ``summary/short`` is not null): ``eval`` is the validation
cases whose documents, joined with ``"\\n\\n"``, have at least 65536 Llama-2 tokens — in file order, then
``shuffle(seed=42)`` and the first 100 when more than 100 remain. ``dev`` (``docs/helmet-derived.md``) is the
test cases with such long documents, in file order. Each row gets two short summaries of ``train`` as
demonstrations: ``train.shuffle(seed=(sha256(case id) + 42) % 2**31)``, first two — the per-example
seed of HELMET's PR #44 (HELMET ≤ Apr 2025 shuffled without a seed).

Sources: the release files of ``allenai/multi_lexsum`` its loading script reads — JSON-Lines cases
(``case_id``, ``case_documents``, ``summary/long|short|tiny``) and ``sources.json``, one JSON object
``{document id: {"doc_text": …}}`` (2.2 GB, streamed); the judge's key points come from HELMET's
archive.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from longbench_suite.errors import DataFormatError
from longbench_suite.partition import sampling
from longbench_suite.records import iter_json_object, iter_jsonl, require
from longbench_suite.render import PromptTemplate
from longbench_suite.source import FileRef, RemoteFile, hub_url

from .common import archive_member
from .longdoc import Document, LongDocTask, Pretruncation, demo_block, example_seeded_picks, read_keypoints

REPO = "allenai/multi_lexsum"
REVISION = "8e0586b2190bcb588fdc923d15d81ab66a6fb3ed"  # "Add v20230518 release file"
RELEASE = "releases/v20230518"
FILES = {"train": "train.json", "validation": "dev.json", "test": "test.json", "sources": "sources.json"}
KEYPOINTS = archive_member("data/multi_lexsum/multi_lexsum_val.jsonl")
SHOTS = 2
TEMPLATE = PromptTemplate(
    user=(
        "You are given the legal documents in a civil rights lawsuit, and you are tasked to summarize the "
        "case. Write a concise summary of one paragraph (200 to 250 words). The summary should contain a "
        "short description of the background, the parties involved, and the outcomes of the case.\n\n"
        "{demo}Legal documents:\n{context}\n\nNow please summarize the case."
    ),
    answer_prefix="Summary:",
    separator="\n\n",
)
DEMO = "Summary: {summary}"
DEMO_OPENING = "Example summaries:\n\n"
DEMO_CLOSING = "\n\nNow, write a summary of the following legal documents.\n"
SPLIT_SOURCES = {"eval": "validation", "dev": "test"}


@dataclass(frozen=True)
class Case:
    id: str
    line: int
    documents: list[str]
    summary_short: str
    summary_long: str | None


def read_cases(ref: FileRef) -> list[Case]:
    """Cases with a short summary, in file order."""
    cases = []
    for line, record in iter_jsonl(ref):
        where = f"{ref.label}, line {line}"
        require(record, ["case_id", "case_documents", "summary/short"], where)
        short = record["summary/short"]
        if short is None:
            continue
        documents = record["case_documents"]
        if not isinstance(short, str) or not isinstance(documents, list):
            raise DataFormatError(f"{where}: 'summary/short' must be a string and 'case_documents' a list")
        long = record.get("summary/long")
        cases.append(Case(str(record["case_id"]), line, [str(d) for d in documents], short, long))
    return cases


def context(case: Case, texts: Mapping[str, str]) -> str:
    """HELMET's context: the case's documents joined with a blank line."""
    return "\n\n".join(texts[d] for d in case.documents)


@dataclass(frozen=True, eq=False, kw_only=True)
class MultiLexSumTask(LongDocTask):
    def sources(self, length: str) -> dict:
        files = {
            name: RemoteFile(hub_url(REPO, f"{RELEASE}/{filename}", REVISION))
            for name, filename in FILES.items()
        }
        return files

    def split_sources(self, length: str) -> dict:
        # Only eval rows carry the judge's key points: dev never needs HELMET's 11 GB archive.
        return {"eval": {"keypoints": KEYPOINTS}}

    def texts(self, files: Mapping[str, FileRef], cases: list[Case]) -> dict[str, str]:
        wanted = {d for case in cases for d in case.documents}
        texts = {}
        ref = files["sources"]
        for doc_id, value in iter_json_object(ref, wanted):
            text = value.get("doc_text") if isinstance(value, dict) else None
            if not isinstance(text, str):
                raise DataFormatError(f"{ref.label}: document {doc_id!r} has no 'doc_text' string")
            texts[doc_id] = text
        missing = sorted(wanted - texts.keys())
        if missing:
            raise DataFormatError(f"{ref.label}: no document {missing[0]!r} ({len(missing)} missing)")
        return texts

    def select(self, split: str, cases: list[Case], texts: Mapping[str, str], pretruncation: Pretruncation):
        kept = [c for c in cases if pretruncation.is_long(context(c, texts), tuple(c.documents))]
        if split == "eval" and len(kept) > self.eval_size:
            return sampling.hf_shuffle(kept, sampling.HELMET_SEED)[: self.eval_size]
        return kept

    def documents(self, split: str, files: Mapping[str, FileRef], pretruncation: Pretruncation):
        # dev and eval come from different upstream splits (test and validation), whose case ids are
        # disjoint: nothing is dropped here, and `check` verifies the rule on the built rows.
        return self._documents(split, files, pretruncation), []

    def _documents(self, split, files, pretruncation) -> Iterator[Document]:
        train = read_cases(files["train"])
        if len(train) < SHOTS:
            raise DataFormatError(
                f"{files['train'].label}: {len(train)} cases; {SHOTS} demonstrations are needed"
            )
        cases = read_cases(files[SPLIT_SOURCES[split]])
        texts = self.texts(files, cases)
        keypoints = read_keypoints(files["keypoints"], "summary/short_keypoints") if split == "eval" else {}
        for case in self.select(split, cases, texts, pretruncation):
            picks = example_seeded_picks(len(train), case.id, SHOTS)
            demos = [DEMO.format(summary=train[i].summary_short) for i in picks]
            yield Document(
                query_id=f"{self.name}-{case.id}",
                document=context(case, texts),
                document_key=tuple(case.documents),
                fields={"demo": demo_block(demos, DEMO_OPENING, DEMO_CLOSING), "question": ""},
                answers=[case.summary_short],
                output=case.summary_short,
                question="",
                metadata={
                    "id": case.id,
                    "source_split": SPLIT_SOURCES[split],
                    "keypoints": keypoints.get(case.id, []),
                    "summary_long": case.summary_long or "",
                    "demo_case_ids": [train[i].id for i in picks],
                },
            )


TASKS = (
    MultiLexSumTask(
        name="multi_lexsum",
        helmet_name="multi_lexsum",
        helmet_prefix="multi_lexsum",
        description="Multi-LexSum: a one-paragraph summary of a civil-rights case's legal documents.",
        template=TEMPLATE,
        max_new_tokens=400,
        use_chat_template=True,
        metric="multi_lexsum_judge",
        category="Summ",
        truncation_offset=700,
        min_tokens=65536,
        sizes={"dev": 355, "eval": 100},
    ),
)
