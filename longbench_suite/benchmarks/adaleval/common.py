"""What TSort and BestAnswer share: settings, the hosted files, the eval/dev partition, row assembly.

Each (task, setting) is one plain JSON array served over plain HTTP with no checksums
(``docs/adaleval.md`` §1). ``eval`` is the prefix the official runner evaluates for open-source models — the
first 1000 rows below 32k, the first 200 from 32k up, in file order — and ``in_api_subset`` marks the
nested prefix it evaluates for API models (200 / 50 rows, §2.1). ``dev`` is every later row whose group
(BestAnswer: ``question_id``; TSort: ``book_id``, whose consecutive cases overlap) never occurs in
``eval``. The hosted files may hold only the evaluated prefix (§2.2); ``dev`` then does not exist, and
asking for it says how many rows the file had.
"""

from __future__ import annotations

import dataclasses
import logging
from abc import abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

import datasets

from longbench_suite.fit.rules import Fit, NoCut
from longbench_suite.instance import Instance, Plan
from longbench_suite.memo import Memo
from longbench_suite.records import IDENTIFIER, iter_json_records, take
from longbench_suite.row import features
from longbench_suite.source import FileRef, RemoteFile
from longbench_suite.task import SPLITS, BuildEnv, Task

from .lengths import LENGTHS

logger = logging.getLogger(__name__)

BASE_URL = "http://opencompass.openxlab.space/utils/AdaLEval"
#: the prefix naming another setting's file among a config's files (see ``AdaTask.dev_sources``)
OTHER_EVAL = "eval:"
#: ``docs/adaleval.md`` §8: settings and ``prompt_tokens_cl100k`` are counted in GPT-4's tokenizer.
DEFAULT_TOKENIZER = "cl100k_base"
CL100K_IDENTITY = "tiktoken:cl100k_base"
#: Ada-LEval measures whole prompts: nothing is ever cut
NEVER_CUT = NoCut(
    "Ada-LEval prompts are never cut (the benchmark measures whole prompts), so max_input_tokens does not "
    "apply; pick a shorter setting or filter rows by prompt_tokens_cl100k"
)


class PaperStats(NamedTuple):
    """Table 1 of the paper for one setting: cases built, max and mean prompt tokens (cl100k)."""

    total_built: int
    max_tokens: int
    avg_tokens: int


def setting_k(length: str) -> int:
    """``"128k"`` -> 128, as the official loader reads a setting (``int(setting[:-1])``)."""
    return int(length[:-1])


def setting_tokens(length: str) -> int:
    """The setting in tokens. K = 1000: TSort's bounds are exactly 2000 … 64000 and 127800 ≤ 128000."""
    return LENGTHS[length].tokens


def eval_rows(length: str) -> int:
    """Rows the official runner evaluates for open-source models (``mode='normal'``)."""
    return LENGTHS[length].eval_rows


def api_rows(length: str) -> int:
    """Rows it evaluates for API models (``mode='less'``): a prefix of the ``eval`` prefix."""
    return LENGTHS[length].api_rows


SHARED_COLUMNS = dict(
    official_index=datasets.Value("string"),
    row_index=datasets.Value("int32"),
    in_api_subset=datasets.Value("bool"),
    prompt_tokens_cl100k=datasets.Value("int32"),
)


def ada_features(**task_columns: datasets.features.FeatureType) -> datasets.Features:
    """The common columns, a task's own, then the columns both Ada-LEval tasks have."""
    return features(**task_columns, **SHARED_COLUMNS)


# -- the partition ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileScan:
    """What one pass over a hosted file found: its rows, and which of them ``dev`` gets."""

    num_rows: int
    dev_indices: tuple[int, ...]

    @property
    def dev_rows(self) -> int:
        return len(self.dev_indices)


@dataclass(frozen=True, eq=False, kw_only=True)
class AdaTask(Task):
    """One Ada-LEval task. A family subclass says which field groups rows and how a record becomes a row."""

    file_stem: str
    paper: Mapping[str, PaperStats]
    #: settings hosted upstream that the paper does not report
    not_in_paper: tuple[str, ...] = ()
    #: every setting in the paper or hosted beside it, smallest first (not declared: derived)
    lengths: tuple[str, ...] = field(init=False)
    # Ada-LEval's defaults for the declaration fields
    default_tokenizer: str = DEFAULT_TOKENIZER
    fit: Fit = NEVER_CUT
    #: the official runner sends every prompt as one user turn
    use_chat_template: bool = True
    #: the runner's API setting: ``max_tokens`` 1024 (capped by the context window), temperature 0
    max_new_tokens: int = 1024

    token_count_columns: ClassVar[Mapping[str, str]] = {"prompt_tokens_cl100k": CL100K_IDENTITY}

    #: the field whose value ties rows together (no group may be in both splits)
    group_field: ClassVar[str] = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "lengths", tuple(sorted({*self.paper, *self.not_in_paper}, key=setting_k)))
        super().__post_init__()

    def file_name(self, length: str) -> str:
        return f"{self.file_stem}_{length}.json"

    def max_length(self, length: str) -> int:
        return setting_tokens(length)

    def sources(self, length: str) -> dict[str, RemoteFile]:
        return {"data": self._remote(length)}

    def _remote(self, length: str) -> RemoteFile:
        return RemoteFile(f"{BASE_URL}/{self.file_name(length)}", record_sha256=True)

    dev_sources_purpose = "a question or book another setting evaluates is kept out of dev"

    def dev_sources(self, length: str) -> dict[str, RemoteFile]:
        """The other settings' files: a question (book) one of them evaluates stays out of ``dev``."""
        return {f"{OTHER_EVAL}{other}": self._remote(other) for other in self.lengths if other != length}

    def expected_sizes(self, length: str) -> Mapping[str, int]:
        return {"eval": eval_rows(length)}

    def card_columns(self) -> dict[str, str]:
        return {"upstream files": f"`{self.file_stem}_<setting>.json`"}

    def facts(self, length: str) -> dict[str, Any]:
        facts: dict[str, Any] = {
            "upstream file": self.file_name(length),
            "eval": f"the first {eval_rows(length)} rows (what the paper runs on open-source models)",
            "in_api_subset": f"the first {api_rows(length)} eval rows (what it runs on API models)",
            "dev": f"later rows whose {self.group_field} is not in eval, if the file has any",
        }
        stats = self.paper.get(length)
        facts["paper (Table 1)"] = (
            f"{stats.total_built} cases built; max {stats.max_tokens}, avg {stats.avg_tokens} cl100k tokens"
            if stats
            else "not in the paper (hosted upstream and accepted by the official runner only)"
        )
        return facts

    # -- records --------------------------------------------------------------------------------

    def group(self, record: dict, where: str) -> str:
        return take(record, self.group_field, IDENTIFIER, where)

    @abstractmethod
    def instance(self, record: dict, where: str) -> Instance:
        """The instance of one record: its template fields, gold answer, query id and own columns."""

    def partition(
        self, ref: FileRef, length: str, elsewhere: frozenset[str] = frozenset()
    ) -> Iterator[tuple[int, dict, str | None, str]]:
        """``(index, record, split or None, where)`` for every row, in file order.

        A row after the evaluated prefix goes to ``dev`` unless its group is in this file's ``eval`` or
        in ``elsewhere`` (the groups other settings evaluate).
        """
        n_eval = eval_rows(length)
        eval_groups: set[str] = set()
        for index, record in iter_json_records(ref):
            where = f"{ref.label}, row {index}"
            group = self.group(record, where)
            if index < n_eval:
                eval_groups.add(group)
                yield index, record, "eval", where
            else:
                taken = group in eval_groups or group in elsewhere
                yield index, record, None if taken else "dev", where

    def evaluated_elsewhere(self, files: Mapping[str, FileRef]) -> frozenset[str]:
        """The groups the other settings' ``eval`` prefixes hold (files named by :meth:`dev_sources`)."""
        groups: set[str] = set()
        for name, ref in files.items():
            if name.startswith(OTHER_EVAL):
                length = name[len(OTHER_EVAL) :]
                groups |= _EVAL_GROUPS.get(
                    (self.name, length), [ref], lambda ref=ref, length=length: _eval_groups(self, ref, length)
                )
        return frozenset(groups)

    def scan(self, files: Mapping[str, FileRef], length: str) -> FileScan:
        ref = files["data"]
        elsewhere = self.evaluated_elsewhere(files)
        return _SCANS.get(
            (self.name, length, tuple(sorted(elsewhere))), [ref], lambda: _scan(self, ref, length, elsewhere)
        )

    # -- splits ---------------------------------------------------------------------------------

    def splits(self, length: str, files: Mapping[str, FileRef] | None = None) -> tuple[str, ...]:
        if files is None:  # undecided until the file is read
            return SPLITS
        scan = self.scan(files, length)
        if scan.num_rows < eval_rows(length):
            logger.warning(
                "%s holds %d rows, fewer than the %d the paper evaluates at %s",
                files["data"].label,
                scan.num_rows,
                eval_rows(length),
                length,
            )
        return SPLITS if scan.dev_rows else ("eval",)

    def source_facts(self, length: str, files: Mapping[str, FileRef]) -> Mapping[str, Mapping[str, Any]]:
        scan = self.scan(files, length)
        return {"data": {"num_rows": scan.num_rows}}

    def missing_split_reason(self, split: str, length: str, info: datasets.DatasetInfo | None = None) -> str:
        config, n_eval = self.config_name(length), eval_rows(length)
        if split != "dev":
            return super().missing_split_reason(split, length, info)
        url = self.sources(length)["data"].url
        num_rows = ((info.download_checksums or {}).get(url) or {}).get("num_rows") if info else None
        file = self.file_name(length)
        if num_rows is None:
            return (
                f"adaleval/{config} has no 'dev' split: {file} holds no row after the evaluated prefix "
                f"(the first {n_eval}) whose {self.group_field} is not in eval"
            )
        if num_rows <= n_eval:
            return (
                f"adaleval/{config} has no 'dev' split: the hosted {file} holds {num_rows} rows and the "
                f"paper evaluates the first {n_eval}, so no row is left after the evaluated prefix"
            )
        return (
            f"adaleval/{config} has no 'dev' split: the hosted {file} holds {num_rows} rows, but every row "
            f"after the evaluated prefix (the first {n_eval}) shares its {self.group_field} with an eval row "
            "of this or another setting"
        )

    # -- rows -----------------------------------------------------------------------------------

    def plan(self, split: str, length: str, files: Mapping[str, FileRef], env: BuildEnv) -> Plan:
        """The split's row indices in the file: ``eval`` the evaluated prefix, ``dev`` what the scan kept."""
        scan = self.scan(files, length)
        if split == "eval":
            return Plan(list(range(min(eval_rows(length), scan.num_rows))))
        return Plan(list(scan.dev_indices))

    def instances(self, split, length, files, plan, items, env) -> Iterator[Instance]:
        wanted, last = set(items), max(items, default=-1)
        ref = files["data"]
        for index, record in iter_json_records(ref):
            if index > last:
                break  # the rest of the file holds none of this piece's rows (eval: past the prefix)
            if index in wanted:
                instance = self.instance(record, f"{ref.label}, row {index}")
                columns = {**instance.columns, "row_index": index, "in_api_subset": index < api_rows(length)}
                yield dataclasses.replace(instance, columns=columns)


#: what one pass over a hosted file found, and the groups of each setting's ``eval`` prefix
_SCANS: Memo[FileScan] = Memo("adaleval-scan", entries=8)
_EVAL_GROUPS: Memo[frozenset[str]] = Memo("adaleval-eval-groups", entries=32)


def _scan(task: AdaTask, ref: FileRef, length: str, elsewhere: frozenset[str]) -> FileScan:
    # Split generation asks for the splits and for the facts to record: read the file once for both.
    num_rows, dev = 0, []
    for index, _record, split, _where in task.partition(ref, length, elsewhere):
        num_rows += 1
        if split == "dev":
            dev.append(index)
    return FileScan(num_rows, tuple(dev))


def _eval_groups(task: AdaTask, ref: FileRef, length: str) -> frozenset[str]:
    """The groups of a setting's ``eval`` prefix; the file is read no further than that prefix."""
    groups = set()
    for index, record in iter_json_records(ref):
        if index >= eval_rows(length):
            break
        groups.add(task.group(record, f"{ref.label}, row {index}"))
    return frozenset(groups)
