"""What every LV-Eval dataset shares: levels, the zips on the Hub, the row schema, record parsing and
the one task class (``docs/lveval.md`` §1-§6).

A config is one dataset at one length level. Its ``eval`` split is every row of the level's
JSON-Lines file, in file order; LV-Eval publishes nothing else, so there is no ``dev``. The prompt is
``DATASET_PROMPT[dataset].format(**record)``, used whole: the level is the length, and nothing is cut
unless the user sets ``max_input_tokens``, which applies LV-Eval's middle truncation
(``prediction.py``) to the rendered prompt.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import ClassVar

import datasets

from longbench_suite.fit.rules import CutMiddle, Fit
from longbench_suite.instance import Instance, Plan
from longbench_suite.records import INTEGER, TEXT, TEXTS, iter_jsonl, list_of, nullable, take, take_all
from longbench_suite.row import digest, features
from longbench_suite.source import FileRef, Member, RemoteFile, hub_url
from longbench_suite.task import BuildEnv, Task

from .lengths import LENGTHS

#: Upstream's length levels (nominal word counts, characters for Chinese), in upstream order.
LEVELS = tuple(LENGTHS)

REPO = "Infinigence/LVEval"
# main as crawled ("Update README.md", 2024-02-10); the zips have not changed since "init repo" (c96adcc).
REVISION = "86a3b0e6f2266281d481bcb46a0bda5b511cffb0"

#: LFS sha256 of each dataset zip, from its Hub file page; the three missing were not published
#: where we could read them, so those downloads are hashed into the dataset info instead.
ARCHIVE_SHA256 = {
    "cmrc_mixup": "bb5cd2ee324f0a9fc407d38eebf9622c29596cffeac1c75b57e2faaab280aeda",
    "dureader_mixup": "7e05c042bad3106436c261e1c088ff2ede36b00eb467e800be0f68175931dfdb",
    "hotpotwikiqa_mixup": "e274aac22f6f4537817117e48ef613bde9943fb3b269008ad8d03c8fc3e912be",
    "lic_mixup": "5bc281081242cfe0c746fd8ea466408867f5fe467e7f16dabb4066c939d21923",
    "loogle_CR_mixup": "dcc6c1e7e85a943dc0f761cde6cdfd10640d3f29af0461226928c03de83feb57",
    "loogle_MIR_mixup": "82373fa091abe7d93a1991c4bd98d76f1eb6af693aafbc34e4ee667e93a8b207",
    "loogle_SD_mixup": "8375934ba1737a7ec2fe2c7ea4a6972e6cbe25777658a6e5539eb1c5939a4ac8",
    "multifieldqa_zh_mixup": "bddda1fe0ab33a20f265f9de41bf86b0bf831baa225fe968c55c85e3da34f259",
}

DEFAULT_TOKENIZER = "meta-llama/Llama-2-7b-hf"

NO_DEV = (
    "LV-Eval publishes evaluation data only (one test file per config), so {config} has no 'dev' "
    "split; its rows are all in 'eval', and none are ever resampled into a dev split"
)

FEATURES = features(
    question=datasets.Value("large_string"),
    context=datasets.Value("large_string"),
    length=datasets.Value("int32"),
    dataset=datasets.Value("string"),
    language=datasets.Value("string"),
    answer_keywords=datasets.Value("large_string"),
    confusing_facts=datasets.List(datasets.Value("large_string")),
    max_new_tokens=datasets.Value("int32"),
)

def archive(dataset: str) -> RemoteFile:
    """The zip of one dataset; its five level configs share it (and its download)."""
    return RemoteFile(
        hub_url(REPO, f"{dataset}.zip", revision=REVISION),
        sha256=ARCHIVE_SHA256.get(dataset),
        record_sha256=True,
    )


def pair_digest(question: str, answers: list[str]) -> str:
    """A digest of one QA pair (question and answers), whatever its position in a level file."""
    return digest(question, answers, serial="json")


def query_id(dataset: str, digest: str, occurrence: int) -> str:
    """``<dataset>-<pair digest>-<occurrence>``: the QA pair, and which repetition of it this is.

    The digest does not depend on where a pair sits in a level file (the order of pairs across
    levels is not documented). ``occurrence`` counts earlier rows of the same file with the same
    pair: 0 for a pair that appears once, and the row's position for factrecall, whose 200 rows per
    level all hold one pair.
    """
    return f"{dataset}-{digest}-{occurrence}"


#: the fields of a level file's record (``docs/lveval.md`` §3); ``confusing_facts`` may be one string or
#: a list (its JSON type is unverified), absent or empty in datasets without it
FIELDS = {
    "input": TEXT,
    "context": TEXT,
    "answers": TEXTS,
    "length": INTEGER,
    "dataset": TEXT,
    "language": TEXT,
}
ANSWER_KEYWORDS = nullable(TEXT)
CONFUSING_FACTS = nullable(list_of(TEXT, nonempty=False, single=True), empty_is_null=True)

#: LV-Eval's prompts are used whole unless the user sets ``max_input_tokens`` (``prediction.py``'s cut)
USER_MIDDLE_CUT = CutMiddle()


@dataclass(frozen=True, eq=False, kw_only=True)
class LvevalDataset(Task):
    """One LV-Eval dataset (``docs/lveval.md`` §2), as five level configs."""

    language: str
    qa_pairs: int  # rows per level (factrecall: 200 rows of one pair)
    # The HF script's groups: GOLDEN* datasets have answer_keywords, *DISTRACTOR ones confusing_facts.
    has_answer_keywords: bool
    has_confusing_facts: bool
    licence: str
    # LV-Eval's defaults for the declaration fields
    lengths: tuple[str, ...] = LEVELS
    default_tokenizer: str = DEFAULT_TOKENIZER
    fit: Fit = USER_MIDDLE_CUT
    use_chat_template: bool = True
    missing_split_reasons: ClassVar[Mapping[str, str]] = {"dev": NO_DEV}
    # A plan would read every 256k-word line before the first row; a split is built in one pass.
    shardable: ClassVar[bool] = False

    def max_length(self, length: str) -> None:
        # Levels count words (characters for Chinese), not tokens.
        return None

    def missing_split_reason(self, split: str, length: str, info=None) -> str:
        reason = self.missing_split_reasons.get(split)
        if reason is None:
            return super().missing_split_reason(split, length, info)
        return reason.format(config=self.config_name(length))

    def expected_sizes(self, length: str) -> Mapping[str, int]:
        return {"eval": self.qa_pairs}

    def sources(self, length: str) -> dict:
        config = self.config_name(length)
        paths = (f"{self.name}/{config}.jsonl", f"{config}.jsonl")
        # every level holds the dataset's QA pairs (LV-Eval's README; the per-dataset figures, summing to
        # 1,729, are ``qa_pairs`` in tasks.py, as docs/lveval.md §2 says)
        return {"data": Member(archive(self.name), paths, records=self.qa_pairs)}

    def extra_fields(self) -> str:
        extra = (("answer_keywords", self.has_answer_keywords), ("confusing_facts", self.has_confusing_facts))
        return ", ".join(name for name, on in extra if on) or "none"

    def card_columns(self) -> dict[str, str]:
        digest = ARCHIVE_SHA256.get(self.name)
        return {
            "language": self.language,
            "extra fields": self.extra_fields(),
            "zip sha256": f"`{digest[:8]}…`" if digest else "not published",
            "licence": self.licence,
        }

    def facts(self, length: str) -> dict:
        return {
            "language": self.language,
            "extra fields": self.extra_fields(),
            "licence": self.licence,
            "sha256": ARCHIVE_SHA256.get(self.name, "not published (recorded on download)"),
        }

    def plan(self, split: str, length: str, files: Mapping[str, FileRef], env: BuildEnv) -> Plan:
        return Plan(None)

    def instances(self, split, length, files, plan, items, env) -> Iterator[Instance]:
        ref = files["data"]
        occurrences: Counter[str] = Counter()
        for line, record in iter_jsonl(ref):
            where = f"{ref.label}, line {line}"
            fields = take_all(record, FIELDS, where)
            question, answers = fields["input"], fields["answers"]
            pair = pair_digest(question, answers)
            yield Instance(
                query_id=query_id(self.name, pair, occurrences[pair]),
                fields=record,
                output=answers[0],
                answers=answers,
                columns={
                    "question": question,
                    "context": fields["context"],
                    "length": fields["length"],
                    "dataset": fields["dataset"],
                    "language": fields["language"],
                    "answer_keywords": take(record, "answer_keywords", ANSWER_KEYWORDS, where, default=None),
                    "confusing_facts": take(record, "confusing_facts", CONFUSING_FACTS, where, default=[])
                    or [],
                },
            )
            occurrences[pair] += 1
