"""LongBench's tasks and LongBench-E's, declared from ``tasks.json`` and ``prompts.py``.

A config is one task at one prompt-token budget. ``eval`` is the task's own file, every row in file
order. ``dev`` is the sibling set's rows that this set does not hold (``qasper``'s dev: the rows of
``qasper_e.jsonl`` absent from ``qasper.jsonl``, and the other way round); rows are matched by content
(``input``, ``context``, ``answers``) and by ``_id``. Tasks without a LongBench-E counterpart have no
``dev``. Every prompt is ``template.format(**record)``, cut in the middle as ``pred.py`` does when it
exceeds the budget (``docs/longbench.md`` §5-§6).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources

import datasets

from longbench_suite.decoding import Generation
from longbench_suite.fit.rules import CutMiddle, Fit
from longbench_suite.instance import Instance, Plan
from longbench_suite.records import (
    INTEGER,
    TEXT,
    TEXTS,
    iter_jsonl,
    jsonl_line_numbers,
    list_of,
    nullable,
    take_all,
)
from longbench_suite.row import digest, features
from longbench_suite.source import FileRef, Member, RemoteFile, hub_url
from longbench_suite.task import BuildEnv, Task

from .lengths import LENGTHS, length_bucket
from .prompts import TEMPLATES

DEFAULT_TOKENIZER = "meta-llama/Llama-2-7b-hf"

#: "Upload data.zip" of 2023-08-29: the current data (LongBench-E added, SAMSum and MultiNews in).
DATA_REVISION = "4a90f81c8db79f60c15f77dcd207a1099038c775"
ARCHIVE = RemoteFile(
    hub_url("THUDM/LongBench", "data.zip", revision=DATA_REVISION), record_sha256=True, size="about 114 MB"
)

FEATURES = features(
    question=datasets.Value("large_string"),
    context=datasets.Value("large_string"),
    length=datasets.Value("int32"),
    dataset=datasets.Value("string"),
    language=datasets.Value("string"),
    all_classes=datasets.List(datasets.Value("string")),
    _id=datasets.Value("string"),
    length_bucket=datasets.Value("string"),
    max_new_tokens=datasets.Value("int32"),
)

#: The fields of a record and what they hold, in upstream order (``docs/longbench.md`` §3); other keys
#: are ignored.
FIELDS = {
    "input": TEXT,
    "context": TEXT,
    "answers": TEXTS,
    "length": INTEGER,
    "dataset": TEXT,
    "language": TEXT,
    "all_classes": nullable(list_of(TEXT, nonempty=False)),
    "_id": TEXT,
}

E_SUFFIX = "_e"

#: ``pred.py``'s middle cut to the length's prompt budget
MIDDLE_CUT = CutMiddle(budgets=LENGTHS.column("prompt_budget"))


def archive_member(config: str) -> Member:
    return Member(ARCHIVE, (f"data/{config}.jsonl",))


def content_digest(record: Mapping) -> str:
    """sha256 of a record's ``input``, ``context`` and ``answers``: what makes two rows the same."""
    return digest(record["input"], record["context"], record["answers"], serial="json", chars=64)


def records(ref: FileRef, only: Collection[int] | None = None) -> Iterator[tuple[int, dict]]:
    """``(line, checked record)`` of one ``data/<config>.jsonl``, in file order (``only``: these lines)."""
    for line, record in iter_jsonl(ref, only):
        yield line, take_all(record, FIELDS, f"{ref.label}, line {line}")


@dataclass(frozen=True, eq=False, kw_only=True)
class LongBenchTask(Task):
    """One LongBench or LongBench-E config name (``qasper``, ``qasper_e``) at every budget."""

    base: str
    sibling: str | None
    language: str
    eval_rows: int
    # LongBench's defaults for the declaration fields
    lengths: tuple[str, ...] = tuple(LENGTHS)
    default_tokenizer: str = DEFAULT_TOKENIZER
    fit: Fit = MIDDLE_CUT

    @property
    def missing_split_reasons(self) -> Mapping[str, str]:
        if self.sibling:
            return {}
        return {
            "dev": f"LongBench publishes evaluation data only for {self.name} (it has no LongBench-E "
            "counterpart, so there are no rows outside the evaluation set to make a dev split from)"
        }

    def splits(self, length: str, files: Mapping[str, FileRef] | None = None) -> tuple[str, ...]:
        """``dev`` exists when the task has a sibling set and, given the files, that set adds rows."""
        declared = super().splits(length)
        if files is None or "sibling" not in files or "dev" not in declared:
            return declared  # undecided until dev's own file is read
        return declared if next(self._dev_records(files), None) is not None else ("eval",)

    def missing_split_reason(self, split: str, length: str, info: datasets.DatasetInfo | None = None) -> str:
        if split == "dev" and self.sibling:
            return (
                f"{self.config_name(length)} has no dev split: every row of data/{self.sibling}.jsonl also "
                f"occurs in data/{self.name}.jsonl (same input, context and answers, or same _id)"
            )
        return super().missing_split_reason(split, length, info)

    def max_length(self, length: str) -> int | None:
        return LENGTHS[length].window

    dev_sources_purpose = "dev's rows are the sibling set's rows this set lacks"

    def sources(self, length: str) -> dict[str, Member]:
        return {"eval": archive_member(self.name)}

    def dev_sources(self, length: str) -> dict[str, Member]:
        return {"sibling": archive_member(self.sibling)} if self.sibling else {}

    def expected_sizes(self, length: str) -> Mapping[str, int]:
        return {"eval": self.eval_rows}

    def card_columns(self) -> dict[str, str]:
        return {
            "language": self.language,
            "first line only": "yes" if self.first_line else "no",
            "dev from": f"`{self.sibling}`" if self.sibling else "—",
        }

    def facts(self, length: str) -> dict:
        return {
            "language": self.language,
            "first line only": self.first_line,
            "dev comes from": f"data/{self.sibling}.jsonl" if self.sibling else "(no dev split)",
        }

    # -- rows -------------------------------------------------------------------------------------

    def _dev_records(self, files: Mapping[str, FileRef]) -> Iterator[tuple[int, dict]]:
        """``(line, record)`` of the sibling file's rows whose content and ``_id`` both differ from every
        row of this set."""
        digests, ids = set(), set()
        for _, record in records(files["eval"]):
            digests.add(content_digest(record))
            ids.add(record["_id"])
        for line, record in records(files["sibling"]):
            if record["_id"] not in ids and content_digest(record) not in digests:
                yield line, record

    def plan(self, split: str, length: str, files: Mapping[str, FileRef], env: BuildEnv) -> Plan:
        """The lines of the split's rows in their file (``eval``: this set's, ``dev``: the sibling's)."""
        if split == "eval":
            return Plan(jsonl_line_numbers(files["eval"]))
        return Plan([line for line, _ in self._dev_records(files)])

    def instances(self, split, length, files, plan, items, env) -> Iterator[Instance]:
        source = files["eval"] if split == "eval" else files["sibling"]
        for _, record in records(source, only=set(items)):
            yield Instance(
                query_id=f"{self.base}-{content_digest(record)[:16]}",
                fields=record,
                output=record["answers"][0],
                answers=record["answers"],
                columns={
                    "question": record["input"],
                    "context": record["context"],
                    "length": record["length"],
                    "dataset": record["dataset"],
                    "language": record["language"],
                    "all_classes": record["all_classes"],
                    "_id": record["_id"],
                    "length_bucket": length_bucket(record["length"]),
                },
            )


def _declare() -> tuple[LongBenchTask, ...]:
    """LongBench's tasks in ``pred.py`` order, then LongBench-E's (the order of the Hub script's configs)."""
    table = json.loads(resources.files(__package__).joinpath("tasks.json").read_text(encoding="utf-8"))
    longbench, longbench_e = [], []
    for entry in table:
        base, rows_e = entry["name"], entry["eval_rows_e"]
        common = dict(
            base=base,
            template=TEMPLATES[base],
            category=entry["category"],
            language=entry["language"],
            metric=entry["metric"],
            first_line=entry["first_line"],
            max_new_tokens=entry["max_new_tokens"],
            use_chat_template=entry["use_chat_template"],
            generation=Generation(stop=tuple(entry.get("stop", ()))),
        )
        sibling = base + E_SUFFIX if rows_e is not None else None
        longbench.append(
            LongBenchTask(
                name=base,
                sibling=sibling,
                eval_rows=entry["eval_rows"],
                description=f"LongBench {base} ({entry['category']}, {entry['language']})",
                **common,
            )
        )
        if sibling:
            longbench_e.append(
                LongBenchTask(
                    name=sibling,
                    sibling=base,
                    eval_rows=rows_e,
                    description=f"LongBench-E {base} ({entry['category']}, {entry['language']}), "
                    "uniform over 0-4k/4-8k/8k+",
                    **common,
                )
            )
    return (*longbench, *longbench_e)


TASKS = _declare()
