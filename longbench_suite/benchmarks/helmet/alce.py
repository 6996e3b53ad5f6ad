"""HELMET's generation-with-citations family: ALCE ASQA and QAMPARI (``docs/helmet.md`` §3.2).

Each row of ``data/alce/{asqa,qampari}_eval_gtr_top2000.json`` (one JSON list) is a question with 2000
retrieved documents; a config puts the first N of them in the context, numbered from 1 in HELMET's
citation style. The instruction, the document format and the four demonstrations come from HELMET's
prompt files in its GitHub repository. HELMET draws 2 of the 4 demonstrations for every row, in file
order and before any subsetting, with the global ``random`` seeded 42; one ``random.Random(42)``
consumed row by row reproduces that. ``eval`` is the head of HELMET's ``shuffle(seed=42)`` order.

ALCE has no cited reference answer, so ``output`` is the best reference there is (ASQA's long answer,
QAMPARI's answers); the dataset card says ``dev`` is not meant for fine-tuning.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from longbench_suite.errors import DataFormatError
from longbench_suite.instance import Instance
from longbench_suite.partition import sampling
from longbench_suite.records import ANSWERS, check, iter_json_records, read_json, require, take
from longbench_suite.render import PromptTemplate, render
from longbench_suite.source import FileRef, RemoteFile, github_raw_url

from .common import archive_member, digest_id, read_passages
from .lengths import LENGTHS
from .shuffled import RowKey, ShuffledTask

TEMPLATE = PromptTemplate(
    user="{demo_text}{instruction}\n\nQuestion: {question}\n\n{context}",
    answer_prefix="Answer:",
    separator="\n\n",
)
DEMO_JOIN = "\n\n\n"
DOCS_JOIN = "\n\n"
SHOTS = 2
EVAL_SIZE = 100

#: HELMET's GitHub snapshot the specs were written from; the prompt files are read at this commit
HELMET_REPO = "princeton-nlp/HELMET"
HELMET_COMMIT = "4526dfbdc512bd9ff721da336bff4e3e75ecfd27"
PROMPT_FIELDS = ("instruction", "demo_prompt", "doc_prompt", "demos")


def prompt_file(name: str) -> RemoteFile:
    """A prompt file of HELMET's repository (``prompts/<name>``) at the pinned commit.

    The URL names a commit, so its bytes cannot change; their sha256 goes into the dataset info.
    """
    return RemoteFile(github_raw_url(HELMET_REPO, HELMET_COMMIT, f"prompts/{name}"), record_sha256=True)


@dataclass(frozen=True)
class Prompts:
    """A parsed prompt file: the instruction, the document format and the rendered demonstrations."""

    instruction: str
    doc_prompt: str
    demos: tuple[str, ...]


def render_docs(doc_prompt: str, docs: list[dict], where: str) -> str:
    """Documents in citation style: ``doc_prompt`` filled with each document and its 1-based ``ID``."""
    try:
        return DOCS_JOIN.join(render(doc_prompt, {**d, "ID": i + 1}) for i, d in enumerate(docs))
    except KeyError as exc:
        raise DataFormatError(f"{where}: {exc.args[0]}") from None


def read_prompts(ref: FileRef) -> Prompts:
    data = read_json(ref)
    where = ref.label
    if not isinstance(data, dict):
        raise DataFormatError(f"{where}: expected a JSON object with {', '.join(PROMPT_FIELDS)}")
    require(data, PROMPT_FIELDS, where)
    demos = []
    for i, demo in enumerate(data["demos"]):
        at = f"{where}, demo {i}"
        require(demo, ["question", "answer", "docs"], at)
        context = render_docs(data["doc_prompt"], read_passages(demo, at, "docs"), at)
        try:
            demos.append(
                render(data["demo_prompt"], {**demo, "instruction": data["instruction"], "context": context})
            )
        except KeyError as exc:
            raise DataFormatError(f"{at}: {exc.args[0]}") from None
    if len(demos) < SHOTS:
        raise DataFormatError(f"{where}: {len(demos)} demonstrations, HELMET draws {SHOTS}")
    return Prompts(data["instruction"], data["doc_prompt"], tuple(demos))


@dataclass(frozen=True)
class Reference:
    """The gold side of a row: the training target, the answers and what the scorer reads."""

    output: str
    answers: list[str]
    metadata: dict


def asqa_reference(record: dict, where: str) -> Reference:
    """ASQA: the long answer (``answer``, else the first annotation's), and the short-answer pairs."""
    require(record, ["qa_pairs"], where)
    if isinstance(record.get("answer"), str) and record["answer"]:
        answer = record["answer"]
    else:
        annotations = record.get("annotations") or []
        if not annotations or not isinstance(annotations[0], dict) or "long_answer" not in annotations[0]:
            raise DataFormatError(
                f"{where}: the record has no 'answer' and no annotation with a 'long_answer'"
            )
        answer = annotations[0]["long_answer"]
    qa_pairs = []
    for i, pair in enumerate(record["qa_pairs"]):
        at = f"{where}, qa_pairs[{i}]"
        require(pair, ["question", "short_answers"], at)
        qa_pairs.append(
            {
                "question": pair["question"],
                "short_answers": take(pair, "short_answers", ANSWERS, at),
            }
        )
    return Reference(answer, [answer], {"qa_pairs": qa_pairs})


def qampari_reference(record: dict, where: str) -> Reference:
    """QAMPARI: one cluster of aliases per answer; the target lists each cluster's first alias."""
    require(record, ["answers"], where)
    if not isinstance(record["answers"], list) or not record["answers"]:
        raise DataFormatError(f"{where}: 'answers' must be a non-empty list of answer clusters")
    clusters = [
        check(c, ANSWERS, f"{where}, answers[{i}]", "answers") for i, c in enumerate(record["answers"])
    ]
    return Reference(
        ", ".join(c[0] for c in clusters),
        [alias for c in clusters for alias in c],
        {"answer_clusters": clusters},
    )


@dataclass(frozen=True, eq=False, kw_only=True)
class AlceTask(ShuffledTask):
    test_file: str = ""
    prompts: RemoteFile | None = None
    id_field: str = ""
    reference: Callable[[dict, str], Reference] = field(default=asqa_reference)

    def dataset_name(self, length: str) -> str:
        return f"{self.helmet_name}_{LENGTHS[length].alce_docs}"

    def sources(self, length: str) -> dict:
        return {"test": archive_member(self.test_file), "prompts": self.prompts}

    def facts(self, length: str) -> dict:
        return {**super().facts(length), "documents in context": LENGTHS[length].alce_docs}

    def records(self, files: Mapping[str, FileRef]) -> Iterator[tuple[str, dict]]:
        for index, record in iter_json_records(files["test"]):
            number = index + 1
            yield f"{files['test'].label}, record {number}", record

    def key(self, record: dict, where: str) -> RowKey:
        require(record, ["question"], where)
        ident = record.get(self.id_field)
        query_id = f"{self.name}-{ident}" if ident is not None else digest_id(self.name, record["question"])
        return RowKey(query_id, record["question"])

    def prepare(self, files: Mapping[str, FileRef], n_rows: int) -> tuple[Prompts, list[list[str]]]:
        """The demonstrations of every row: HELMET's ``random.sample(demos, 2)`` per row, in file order."""
        prompts = read_prompts(files["prompts"])
        rng = sampling.python_rng(sampling.HELMET_SEED)
        return prompts, [rng.sample(prompts.demos, SHOTS) for _ in range(n_rows)]

    def build(self, record: dict, where: str, index: int, length: str, state) -> Instance:
        prompts, draws = state
        docs = read_passages(record, where, "docs")[: LENGTHS[length].alce_docs]
        reference = self.reference(record, where)
        return Instance(
            query_id=self.key(record, where).query_id,
            fields={
                "demo_text": DEMO_JOIN.join(draws[index]) + DEMO_JOIN,
                "instruction": prompts.instruction,
                "question": record["question"],
                "context": render_docs(prompts.doc_prompt, docs, where),
            },
            output=reference.output,
            answers=reference.answers,
            columns=self.columns(
                length,
                question=record["question"],
                metadata={"source_row": index + 1, "docs": docs, **reference.metadata},
            ),
        )


_COMMON = dict(
    template=TEMPLATE, max_new_tokens=300, use_chat_template=True, eval_size=EVAL_SIZE, category="Cite"
)

TASKS = (
    AlceTask(
        name="alce_asqa",
        helmet_name="alce_asqa",
        description="ALCE ASQA: long answers to ambiguous questions, citing the first N retrieved documents.",
        test_file="data/alce/asqa_eval_gtr_top2000.json",
        prompts=prompt_file("asqa_revised.json"),
        id_field="sample_id",
        reference=asqa_reference,
        metric="alce_asqa",
        sizes={"dev": 848, "eval": 100},
        **_COMMON,
    ),
    AlceTask(
        name="alce_qampari",
        helmet_name="alce_qampari",
        description="ALCE QAMPARI: lists of answers, each citing one of the first N retrieved documents.",
        test_file="data/alce/qampari_eval_gtr_top2000.json",
        prompts=prompt_file("qampari_revised.json"),
        id_field="id",
        reference=qampari_reference,
        metric="alce_qampari",
        sizes={"dev": 900, "eval": 100},
        **_COMMON,
    ),
)
