"""What every HELMET task shares: the data archive, the row schema, the fit and HELMET's own columns."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import datasets

from longbench_suite.decoding import Generation
from longbench_suite.errors import DataFormatError
from longbench_suite.fit.rules import CutContextTail, Fit
from longbench_suite.partition import sampling
from longbench_suite.row import features, query_id
from longbench_suite.source import Member, RemoteFile, hub_url
from longbench_suite.task import Task

from .lengths import LENGTHS

T = TypeVar("T")

DEFAULT_TOKENIZER = "meta-llama/Llama-2-7b-hf"

# The Hub repo's only data commit ("data upload", 2024-10-07); "main" has not moved since (HEAD c5b85e7).
ARCHIVE_REVISION = "main"
ARCHIVE = RemoteFile(
    hub_url("princeton-nlp/HELMET", "data.tar.gz", revision=ARCHIVE_REVISION),
    size="about 11.3 GB; about 34 GB unpacked, but it is read as a stream and never unpacked",
)


def archive_member(path: str) -> Member:
    """A file of HELMET's ``data.tar.gz`` (paths start with ``data/``)."""
    return Member(ARCHIVE, (path,))


#: HELMET's model-side fit: the completion prompt within ``max_length − max_new_tokens``, context cut
CUT_CONTEXT_TAIL = CutContextTail()

PASSAGE = datasets.List({"title": datasets.Value("string"), "text": datasets.Value("large_string")})

FEATURES = features(
    task=datasets.Value("string"),
    question=datasets.Value("large_string"),
    max_new_tokens=datasets.Value("int32"),
    depth=datasets.Value("float64"),
    positive_ctxs=PASSAGE,
    metadata=datasets.Value("large_string"),
    chat_template=datasets.Value("string"),
)


#: HELMET's decoding everywhere: ``do_sample`` off forces temperature 0, ``top_p`` 1.0, ``--seed`` 42 sent
#: to the APIs, no system message; no stop strings, as the yamls' ``stop_new_line`` is never read
#: (``docs/helmet.md`` §6)
HELMET_GENERATION = Generation(temperature=0.0, top_p=1.0, seed=sampling.HELMET_SEED)


@dataclass(frozen=True, eq=False, kw_only=True)
class HelmetTask(Task):
    """A HELMET task: its prompt, generation length (HELMET's ``generation_max_length``) and chat-mode
    default (``docs/helmet.md`` §1.2-§1.3)."""

    helmet_name: str
    #: ``dev`` sizes count the candidates before this rule's drops (``docs/helmet-derived.md``)
    sizes: Mapping[str, int] = field(default_factory=dict)
    # HELMET's defaults for the declaration fields
    lengths: tuple[str, ...] = tuple(LENGTHS)
    default_tokenizer: str = DEFAULT_TOKENIZER
    fit: Fit = CUT_CONTEXT_TAIL
    generation: Generation = HELMET_GENERATION

    def window(self, length: str) -> int:
        return LENGTHS[length].tokens

    def max_length(self, length: str) -> int:
        return LENGTHS[length].tokens

    def expected_sizes(self, length: str) -> Mapping[str, int]:
        return self.sizes

    def dataset_name(self, length: str) -> str:
        """HELMET's name of this config's dataset (some carry a length parameter: ``alce_asqa_30``)."""
        return self.helmet_name

    def columns(
        self,
        length: str,
        *,
        question: str,
        depth: float | None = None,
        positive_ctxs: list[dict] | None = None,
        metadata: Mapping[str, object] | None = None,
    ) -> dict:
        """HELMET's own columns of a row (``task`` and ``max_new_tokens`` come from the declaration)."""
        return {
            "question": question,
            "depth": depth,
            "positive_ctxs": positive_ctxs or [],
            "metadata": json.dumps(
                {"helmet_name": self.dataset_name(length), **(metadata or {})}, ensure_ascii=False
            ),
        }

    def card_columns(self) -> dict[str, str]:
        return {"HELMET name": f"`{self.dataset_name(self.lengths[0])}` at {self.lengths[0]}"}

    def facts(self, length: str) -> dict:
        rule = " or ".join(self.leakage.columns)
        return {
            "helmet name": self.dataset_name(length),
            "dev leakage rule": f"no dev row shares a {rule} with an eval row"
            + (f" ({self.leakage.reason})" if self.leakage.reason else ""),
        }

    def leakage_row(self, query_id: str, question: str = "") -> dict[str, str]:
        """A candidate's columns as :attr:`leakage` compares them."""
        return {"query_id": query_id, "question": question}


# -- pieces several families share --------------------------------------------------------------


def digest_id(task: str, *parts: object) -> str:
    """A query id made from the text that identifies a question–answer pair."""
    return query_id(task, *parts)


def pick_dev_variant(query_id: str, variants: Sequence[T]) -> T:
    """The one variant of a question that ``dev`` keeps: ``derived_seed("helmet-dev-variant", id)``
    modulo the number of variants, so the same position is chosen at every length."""
    return variants[sampling.derived_seed("helmet-dev-variant", query_id) % len(variants)]


def read_passages(record: dict, where: str, field: str) -> list[dict]:
    """``title``/``text`` of each passage; other keys vary between passages and are ignored (#31)."""
    passages = []
    for i, ctx in enumerate(record.get(field) or []):
        if not isinstance(ctx, dict) or "text" not in ctx or "title" not in ctx:
            raise DataFormatError(f"{where}: passage {i} of {field!r} has no 'title' and 'text'")
        passages.append({"title": ctx["title"], "text": ctx["text"]})
    return passages
