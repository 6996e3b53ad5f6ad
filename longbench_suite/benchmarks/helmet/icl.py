"""HELMET's many-shot in-context learning: TREC coarse/fine, NLU, BANKING77, CLINC150.

See ``docs/helmet.md`` §3.4.

``eval`` is HELMET's selection: the test pool when it has at most 500 rows (TREC), else
``test.shuffle(seed=42)`` then ``balance(500, seed=42)``. Every instance gets its own label-balanced
demonstrations (``balance(demo pool, shots, seed)``) and its own random relabelling of the classes
(``Random(seed).shuffle(range(num_labels))``), both seeded with ``(sha256(text) + 42) % 2**31``.

``dev`` (``docs/helmet-derived.md``): for TREC, 1000 training questions — the first 1000 of
``train.shuffle(seed=42)``, skipping a text that is a test text or was already taken (at most half the
distinct questions, which only matters for a small train file) — with shots from the rest of train;
for the others, the rest of the test pool. A ``dev`` row never has the text of an ``eval`` row, and
``dev`` demonstrations never have the text of any ``eval`` or ``dev`` row.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from longbench_suite.errors import DataFormatError, SourceError
from longbench_suite.instance import Instance, Plan
from longbench_suite.partition import sampling
from longbench_suite.records import iter_parquet, read_lines
from longbench_suite.render import PromptTemplate
from longbench_suite.source import FileRef, RemoteFile, github_raw_url, hub_url
from longbench_suite.task import BuildEnv

from .common import HelmetTask
from .lengths import LENGTHS

TEMPLATE = PromptTemplate(
    user=(
        'Use the provided mapping from the text to label to assign a label to the text. Only output "label: '
        '{{label}}" and nothing else. \n\n{context}\n\n{question}'
    ),
    answer_prefix="label:",
    separator="\n",
)
DEMO = "{text}\nlabel: {label}"
EVAL_SIZE = 500
TREC_DEV_SIZE = 1000


class Labeled(NamedTuple):
    """One classification example: its text, label id, and where it sits upstream."""

    text: str
    label: int
    split: str  # the upstream split it comes from
    index: int  # its position in that split


Reader = Callable[[Mapping[str, FileRef]], tuple[list[Labeled], list[Labeled]]]


@dataclass(frozen=True, eq=False, kw_only=True)
class IclTask(HelmetTask):
    """One ICL dataset: how to read its (demo pool, test pool), its classes and shots per length."""

    dataset: str = ""  # HELMET's name inside icl_{dataset}_{shots}shot_balance
    files: Mapping[str, RemoteFile] = field(default_factory=dict)
    read: Reader | None = None
    num_labels: int = 0
    dev_from_train: int = 0  # TREC: dev is this many train rows; 0: dev is the rest of the test pool

    def sources(self, length: str) -> dict:
        return dict(self.files)

    def shots(self, length: str) -> int:
        """Demonstrations per prompt: the length table's ``<task>_shots``."""
        return getattr(LENGTHS[length], f"{self.name}_shots")

    def dataset_name(self, length: str) -> str:
        return f"icl_{self.dataset}_{self.shots(length)}shot_balance"

    def facts(self, length: str) -> dict:
        return {**super().facts(length), "shots": self.shots(length), "classes": self.num_labels}

    # -- partition ------------------------------------------------------------------------------

    def eval_rows(self, test: list[Labeled]) -> list[Labeled]:
        """HELMET: the whole test pool if it has at most 500 rows, else shuffle(42) then balance(500, 42)."""
        if len(test) <= EVAL_SIZE:
            return list(test)
        shuffled = sampling.hf_shuffle(test, sampling.HELMET_SEED)
        return sampling.balance_labels(
            shuffled, EVAL_SIZE, sampling.python_rng(sampling.HELMET_SEED), label_of=_label
        )

    def dev_rows(
        self, train: list[Labeled], test: list[Labeled], eval_rows: list[Labeled]
    ) -> tuple[list[Labeled], list[dict[str, str]]]:
        """``(dev rows, leakage keys of the candidates the task's rule dropped)``."""
        if self.dev_from_train:
            test_texts = {r.text for r in test}
            order = sampling.hf_shuffle_order(len(train), sampling.HELMET_SEED)
            eligible = [i for i in order if train[i].text not in test_texts]
            distinct = sampling.first_per_key(eligible, lambda i: train[i].text, len(eligible))
            # never more than half the questions, so the rest of train can supply the shots
            return [train[i] for i in distinct[: min(self.dev_from_train, len(distinct) // 2)]], []
        chosen = {(r.split, r.index) for r in eval_rows}
        candidates = [r for r in test if (r.split, r.index) not in chosen]
        return self.leakage.split([self._leakage_row(r) for r in eval_rows], candidates, self._leakage_row)

    def _leakage_row(self, row: Labeled) -> dict[str, str]:
        return self.leakage_row(self.query_id(row), row.text)

    def query_id(self, row: Labeled) -> str:
        return f"{self.name}-{row.split}-{row.index}"

    def partition(
        self, split: str, files: Mapping[str, FileRef]
    ) -> tuple[list[Labeled], list[Labeled], list[dict[str, str]]]:
        """``(instances, demo pool, dropped dev candidates' leakage keys)`` of ``split``."""
        train, test = self.read(files)
        eval_rows = self.eval_rows(test)
        if split == "eval":
            return eval_rows, train, []
        dev, dropped = self.dev_rows(train, test, eval_rows)
        taken = {(r.split, r.index) for r in dev}
        banned = {r.text for r in eval_rows} | {r.text for r in dev}
        pool = [r for r in train if (r.split, r.index) not in taken and r.text not in banned]
        return dev, pool, dropped

    # -- rows -----------------------------------------------------------------------------------

    def plan(self, split: str, length: str, files: Mapping[str, FileRef], env: BuildEnv) -> Plan:
        """The split's instances, sharing the demonstration pool grouped by label."""
        instances, pool, dropped = self.partition(split, files)
        if not pool:
            raise DataFormatError(
                f"{env.config_name}: the {split!r} split has no demonstrations to draw from"
            )
        return Plan(instances, sampling.group_by_label(pool, _label), dropped)

    def instances(self, split, length, files, plan, items, env) -> Iterator[Instance]:
        groups, shots = plan.shared, self.shots(length)
        for row in items:
            seed = sampling.helmet_icl_seed(row.text)
            demos = sampling.balance_groups(groups, shots, sampling.python_rng(seed))
            permutation = list(range(self.num_labels))
            sampling.python_rng(seed).shuffle(permutation)
            answer = str(permutation[row.label])
            context = "\n\n".join(DEMO.format(text=d.text, label=permutation[d.label]) for d in demos)
            yield Instance(
                query_id=self.query_id(row),
                fields={
                    "context": context,
                    "question": row.text,
                },
                output=answer,
                answers=[answer],
                columns=self.columns(
                    length,
                    question=row.text,
                    metadata={
                        "label_permutation": permutation,
                        "original_label": row.label,
                        "source": {"split": row.split, "index": row.index},
                    },
                ),
            )


def _label(row: Labeled) -> int:
    return row.label


def _checked(label: int, num_labels: int, where: str) -> int:
    if not isinstance(label, int) or not 0 <= label < num_labels:
        raise DataFormatError(f"{where}: label {label!r} is not a class id below {num_labels}")
    return label


# -- TREC: the label files CogComp/trec's loading script downloads ---------------------------------

# CogComp/trec (revision eb1e45c1ba990fecca7cf84b67ce845edbcf49bf) is a loading script only; these
# are the files it reads and its ClassLabel name orders (after datasets PR #4801, which HELMET's
# 6/50-class configs need), so label ids equal what HELMET saw.
# Record counts: docs/helmet.md §3.4 (5452 train and 500 test questions).
TREC_TRAIN = RemoteFile(
    "https://cogcomp.seas.upenn.edu/Data/QA/QC/train_5500.label", record_sha256=True, records=5452
)
TREC_TEST = RemoteFile(
    "https://cogcomp.seas.upenn.edu/Data/QA/QC/TREC_10.label", record_sha256=True, records=500
)
TREC_COARSE = ("ABBR", "ENTY", "DESC", "HUM", "LOC", "NUM")
# fmt: off
TREC_FINE = (
    "ABBR:abb", "ABBR:exp", "ENTY:animal", "ENTY:body", "ENTY:color", "ENTY:cremat", "ENTY:currency",
    "ENTY:dismed", "ENTY:event", "ENTY:food", "ENTY:instru", "ENTY:lang", "ENTY:letter", "ENTY:other",
    "ENTY:plant", "ENTY:product", "ENTY:religion", "ENTY:sport", "ENTY:substance", "ENTY:symbol",
    "ENTY:techmeth", "ENTY:termeq", "ENTY:veh", "ENTY:word", "DESC:def", "DESC:desc", "DESC:manner",
    "DESC:reason", "HUM:gr", "HUM:ind", "HUM:title", "HUM:desc", "LOC:city", "LOC:country", "LOC:mount",
    "LOC:other", "LOC:state", "NUM:code", "NUM:count", "NUM:date", "NUM:dist", "NUM:money", "NUM:ord",
    "NUM:other", "NUM:period", "NUM:perc", "NUM:speed", "NUM:temp", "NUM:volsize", "NUM:weight",
)
# fmt: on


def read_trec_file(ref: FileRef, split: str, granularity: str) -> list[Labeled]:
    """Rows of a TREC label file, parsed as the loading script does (``"FINE:label text"`` per line)."""
    rows = []
    for line_number, raw in read_lines(ref):
        # One byte of the train file is not UTF-8 ("sister\xf0city"); the script replaces it with a space.
        raw = raw.replace(b"\xf0", b" ").strip()
        if not raw:
            continue
        where = f"{ref.label}, line {line_number}"
        try:
            fine, _, text = raw.decode("utf-8").partition(" ")
        except UnicodeDecodeError as exc:
            raise DataFormatError(f"{where}: not UTF-8 ({exc})") from None
        coarse = fine.split(":")[0]
        if fine not in TREC_FINE:
            raise DataFormatError(f"{where}: unknown TREC label {fine!r}")
        label = TREC_COARSE.index(coarse) if granularity == "coarse" else TREC_FINE.index(fine)
        rows.append(Labeled(text, label, split, len(rows)))
    return rows


def trec_reader(granularity: str) -> Reader:
    def read(files: Mapping[str, FileRef]) -> tuple[list[Labeled], list[Labeled]]:
        return (
            read_trec_file(files["train"], "train", granularity),
            read_trec_file(files["test"], "test", granularity),
        )

    return read


# -- BANKING77 and CLINC150: Parquet files with a ClassLabel column ------------------------------------

# The repos' own Parquet conversions of their loading scripts keep the scripts' ClassLabel ids.
BANKING77_REVISION = "796a4623935746f71378f0ebd435635a8ce08e50"
CLINC_REVISION = "155b9c710419136e17307b80d0a13e68cd46b4ec"


def read_parquet_split(ref: FileRef, split: str, label_column: str, num_labels: int) -> list[Labeled]:
    rows = []
    for index, record in iter_parquet(ref, ["text", label_column]):
        where = f"{ref.label}, row {index}"
        text = record["text"]
        if not isinstance(text, str):
            raise DataFormatError(f"{where}: 'text' is not a string")
        rows.append(Labeled(text, _checked(record[label_column], num_labels, where), split, index))
    return rows


def parquet_reader(label_column: str, num_labels: int, test_split: str) -> Reader:
    def read(files: Mapping[str, FileRef]) -> tuple[list[Labeled], list[Labeled]]:
        return (
            read_parquet_split(files["train"], "train", label_column, num_labels),
            read_parquet_split(files[test_split], test_split, label_column, num_labels),
        )

    return read


# -- NLU: the CSV xingkunliuxtracta/nlu_evaluation_data's loading script downloads ----------------------

# The script reads this file from the repo's master branch; f6071b4 is master's head, and the file has
# not changed since 6e495bf (2019-04-30; git blob ed024e09ccc3ffc3c10c10626a6f45e4575b936c).
NLU_COMMIT = "f6071b496b17d71e6eb43f543af0707f4ff30557"
NLU_CSV = RemoteFile(
    github_raw_url(
        "xliuhw/NLU-Evaluation-Data", NLU_COMMIT, "AnnotatedData/NLU-Data-Home-Domain-Annotated-All.csv"
    )
)
NLU_COLUMNS = 11
NLU_ANNOTATION = re.compile(r"\[(.+?)\s+\:+\s(.+?)\]")
# The script's ClassLabel names: "{scenario}_{intent}", in its order.
# fmt: off
NLU_LABELS = (
    "alarm_query", "alarm_remove", "alarm_set", "audio_volume_down", "audio_volume_mute",
    "audio_volume_other", "audio_volume_up", "calendar_query", "calendar_remove", "calendar_set",
    "cooking_query", "cooking_recipe", "datetime_convert", "datetime_query", "email_addcontact",
    "email_query", "email_querycontact", "email_sendemail", "general_affirm", "general_commandstop",
    "general_confirm", "general_dontcare", "general_explain", "general_greet", "general_joke",
    "general_negate", "general_praise", "general_quirky", "general_repeat", "iot_cleaning", "iot_coffee",
    "iot_hue_lightchange", "iot_hue_lightdim", "iot_hue_lightoff", "iot_hue_lighton", "iot_hue_lightup",
    "iot_wemo_off", "iot_wemo_on", "lists_createoradd", "lists_query", "lists_remove", "music_dislikeness",
    "music_likeness", "music_query", "music_settings", "news_query", "play_audiobook", "play_game",
    "play_music", "play_podcasts", "play_radio", "qa_currency", "qa_definition", "qa_factoid", "qa_maths",
    "qa_stock", "recommendation_events", "recommendation_locations", "recommendation_movies", "social_post",
    "social_query", "takeaway_order", "takeaway_query", "transport_query", "transport_taxi",
    "transport_ticket", "transport_traffic", "weather_query",
)
# fmt: on


def read_nlu_csv(ref: FileRef) -> list[Labeled]:
    """The script's rows: ``;``-separated, ``answer_annotation == "null"`` skipped, entity markup removed."""
    rows = []
    try:
        with ref.open() as f:
            text = io.TextIOWrapper(f, encoding="utf-8")
            reader = csv.reader(
                text, quotechar='"', delimiter=";", quoting=csv.QUOTE_ALL, skipinitialspace=True
            )
            next(reader, None)
            for line_number, record in enumerate(reader, start=2):
                where = f"{ref.label}, record {line_number - 1}"
                if len(record) != NLU_COLUMNS:
                    raise DataFormatError(f"{where}: expected {NLU_COLUMNS} fields, got {len(record)}")
                scenario, intent, annotation = record[2], record[3], record[5]
                if annotation == "null":
                    continue
                name = f"{scenario}_{intent}"
                if name not in NLU_LABELS:
                    raise DataFormatError(f"{where}: unknown intent {name!r}")
                rows.append(
                    Labeled(NLU_ANNOTATION.sub(r"\2", annotation), NLU_LABELS.index(name), "train", len(rows))
                )
    except (DataFormatError, SourceError):
        raise
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise SourceError(f"cannot read {ref.label}: {exc.__class__.__name__}: {exc}") from None
    return rows


def read_nlu(files: Mapping[str, FileRef]) -> tuple[list[Labeled], list[Labeled]]:
    """HELMET: ``train_test_split(test_size=0.1, seed=42)`` of the one split; rows in the split's order."""
    rows = read_nlu_csv(files["train"])
    train, test = sampling.hf_train_test_split(len(rows), 0.1, sampling.HELMET_SEED)
    return [rows[i] for i in train], [rows[i] for i in test]


# -- declarations -------------------------------------------------------------------------------------


_COMMON = dict(
    template=TEMPLATE, max_new_tokens=20, use_chat_template=False, metric="icl_exact_match", category="ICL"
)
_TREC = {"train": TREC_TRAIN, "test": TREC_TEST}


def _parquet_files(repo: str, revision: str, paths: Sequence[tuple[str, str, int]]) -> dict[str, RemoteFile]:
    return {split: RemoteFile(hub_url(repo, path, revision=revision), records=n) for split, path, n in paths}


TASKS = (
    IclTask(
        name="trec_coarse",
        helmet_name="icl_trec_coarse_balance",
        description="TREC question classification, 6 coarse classes, many-shot with relabelled classes.",
        dataset="trec_coarse",
        files=_TREC,
        read=trec_reader("coarse"),
        num_labels=6,
        dev_from_train=TREC_DEV_SIZE,
        sizes={"dev": TREC_DEV_SIZE, "eval": EVAL_SIZE},
        **_COMMON,
    ),
    IclTask(
        name="trec_fine",
        helmet_name="icl_trec_fine_balance",
        description="TREC question classification, 50 fine classes, many-shot with relabelled classes.",
        dataset="trec_fine",
        files=_TREC,
        read=trec_reader("fine"),
        num_labels=50,
        dev_from_train=TREC_DEV_SIZE,
        sizes={"dev": TREC_DEV_SIZE, "eval": EVAL_SIZE},
        **_COMMON,
    ),
    IclTask(
        name="nlu",
        helmet_name="icl_nlu_balance",
        description="NLU Evaluation Data intent classification, 68 classes, many-shot.",
        dataset="nlu",
        files={"train": NLU_CSV},
        read=read_nlu,
        num_labels=68,
        sizes={"eval": EVAL_SIZE},
        **_COMMON,
    ),
    IclTask(
        name="banking77",
        helmet_name="icl_banking77_balance",
        description="BANKING77 banking intent classification, 77 classes, many-shot.",
        dataset="banking77",
        files=_parquet_files(
            "PolyAI/banking77",
            BANKING77_REVISION,
            # rows: docs/helmet.md §3.4
            [
                ("train", "data/train-00000-of-00001.parquet", 10003),
                ("test", "data/test-00000-of-00001.parquet", 3080),
            ],
        ),
        read=parquet_reader("label", 77, "test"),
        num_labels=77,
        sizes={"dev": 2580, "eval": EVAL_SIZE},
        **_COMMON,
    ),
    IclTask(
        name="clinc150",
        helmet_name="icl_clinic150_balance",
        description="CLINC150 (plus) intent classification, 150 intents and out-of-scope, many-shot.",
        dataset="clinic150",
        files=_parquet_files(
            "clinc/clinc_oos",
            CLINC_REVISION,
            [
                ("train", "plus/train-00000-of-00001.parquet", 15250),  # rows: docs/helmet.md §3.4
                ("validation", "plus/validation-00000-of-00001.parquet", 3100),
            ],
        ),
        read=parquet_reader("intent", 151, "validation"),
        num_labels=151,
        sizes={"dev": 2600, "eval": EVAL_SIZE},
        **_COMMON,
    ),
)
