"""LongBench v2's prompt modes as tasks (``docs/longbench-v2.md``): ``0shot``, ``cot`` and ``no_context``.

A config is one mode at one prompt-token budget. ``eval`` is every record of ``data.json`` in file
order; upstream publishes no ``dev``. A prompt is upstream's template filled as ``pred.py`` fills it
(:mod:`.prompts`), and the whole prompt is cut in the middle as ``pred.py``'s ``query_llm`` cuts it
(§4). Rows keep upstream's labels and add the uncut prompt's token count and its token bucket (§5).

The source, one JSON array of 465 MB, is read one record at a time: a split's plan is the record
count the file is declared to hold (upstream's 503, or a sample mirror's own), so no row waits for a
scan; a shard of it parses the file from its start up to its own last record, the first row is ready
once the first record is parsed, and memory holds one record. The first whole read of a file keeps
its checked records in the memo as Arrow, so every other config built from it reads them from there
instead of parsing the JSON again (§2).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import datasets
import pyarrow as pa

from longbench_suite.decoding import FollowUp, Generation
from longbench_suite.errors import OptionError
from longbench_suite.fit.rules import CutMiddle, Fit, NoCut
from longbench_suite.fit.truncation import keep_middle
from longbench_suite.instance import Instance, Plan
from longbench_suite.records import TEXT, one_of, take_all
from longbench_suite.records.stored import stored_json_records
from longbench_suite.render import ReplacingTemplate
from longbench_suite.row import features, query_id
from longbench_suite.source import FileRef, RemoteFile, hub_url
from longbench_suite.task import BuildEnv, Task

from .lengths import LENGTHS, token_bucket
from .prompts import COT, COT_ANSWER, NO_CONTEXT, ZERO_SHOT

BENCHMARK_NAME = "longbench_v2"
HUB_REPO = "THUDM/LongBench-v2"
#: the Hub repo's main branch, commit "Update README.md" (the repo is also reachable as zai-org/LongBench-v2)
DATA_REVISION = "2b48e494f2c7a2f0af81aae178e05c7e1dde0fe9"
#: the sha256 of that revision's ``data.json`` (its LFS object id, 465,490,535 bytes) as third parties
#: pin it; the revision fixes the bytes, and every build records the digest of the file it read
#: (``docs/longbench-v2.md`` §1 says why it is not declared as ``sha256=``)
DATA_SHA256 = "15d61c22d92c96900b3c4948b6aeea218d3214b676a65df48e7b8555604c7fe2"
DATA_RECORDS = 503
DATA = RemoteFile(
    hub_url(HUB_REPO, "data.json", revision=DATA_REVISION),
    record_sha256=True,
    size="465 MB",
    records=DATA_RECORDS,
)

#: an ungated 128k model from ``pred.py``'s ``config/model2path.json``
DEFAULT_TOKENIZER = "Qwen/Qwen2.5-7B-Instruct"
#: ``pred.py`` samples every call at temperature 0.1
SAMPLING = Generation(temperature=0.1)

LABELS = ("easy", "hard"), ("short", "medium", "long"), ("A", "B", "C", "D")
DIFFICULTIES, LENGTH_LABELS, LETTERS = LABELS
CHOICES = tuple(f"choice_{x}" for x in LETTERS)

#: a record's fields and what they hold, in ``pred.py``'s order (``data_all``); other keys are ignored
FIELDS = {
    "_id": TEXT,
    "domain": TEXT,
    "sub_domain": TEXT,
    "difficulty": one_of(*DIFFICULTIES),
    "length": one_of(*LENGTH_LABELS),
    "question": TEXT,
    "choice_A": TEXT,
    "choice_B": TEXT,
    "choice_C": TEXT,
    "choice_D": TEXT,
    "answer": one_of(*LETTERS),
    "context": TEXT,
}
#: the upstream fields a row keeps as they are (the context is in ``input``)
KEPT = tuple(name for name in FIELDS if name != "context")

FEATURES = features(
    **{name: datasets.Value("large_string" if name == "question" else "string") for name in KEPT},
    prompt_tokens=datasets.Value("int32"),
    length_bucket_tokens=datasets.Value("string"),
    max_new_tokens=datasets.Value("int32"),
)

#: ``pred.py``'s cut of the whole prompt: ``ids[:b//2] + ids[-b//2:]``, decoded once
V2_MIDDLE_CUT = CutMiddle(
    budgets=LENGTHS.column("prompt_budget"),
    rule="model2maxlen, pred.py middle cut",
    extra_tail=True,
    decode_once=True,
)
NO_DOCUMENT = NoCut(
    "the no_context prompt holds no document (only the question and choices), so there is nothing to "
    "cut and max_input_tokens does not apply"
)

NO_DEV = (
    "LongBench v2 publishes evaluation data only (the 503 questions of data.json), so {config} has no "
    "'dev' split; its rows are all in 'eval', and none are ever resampled into a dev split"
)


#: a checked record as its Arrow copy holds it (:mod:`longbench_suite.records.stored`)
RECORD_SCHEMA = pa.schema([(name, pa.large_string()) for name in FIELDS])


def records(
    ref: FileRef, only: Sequence[int] | None = None, cache_root: str | None = None
) -> Iterator[tuple[int, dict]]:
    """``(index, checked record)`` of ``data.json`` in file order, one record at a time; ``only``: these
    indices (ascending). The first read of a file parses it (stopping after the last index unless it is
    the file's last record) and keeps the checked records under ``cache_root``; every later read of the
    same file, by any config, reads them from there (``docs/longbench-v2.md`` §2)."""
    return stored_json_records(
        ref,
        lambda index, record: take_all(record, FIELDS, f"{ref.label}, record {index}"),
        RECORD_SCHEMA,
        (BENCHMARK_NAME, "data.json", tuple(FIELDS)),
        cache_root=cache_root,
        only=only,
    )


def template_fields(record: Mapping[str, str]) -> dict[str, str]:
    """What ``pred.py`` puts into a template: the document, question and choices, each ``.strip()``-ed."""
    return {name: record[name].strip() for name in ("context", "question", *CHOICES)}


def gold_output(letter: str) -> str:
    """The answer in the form every prompt asks for (what ``pred.py``'s regex reads back)."""
    return f"The correct answer is ({letter})"


@dataclass(frozen=True, eq=False, kw_only=True)
class LongBenchV2Task(Task):
    """One prompt mode (an upstream prompt file) at its budgets."""

    #: the upstream prompt file, and ``pred.py``'s output file suffix for the mode
    prompt_file: str
    output_suffix: str
    #: whether the prompt holds the document (``no_context``'s does not: no token bucket)
    has_document: bool = True
    # LongBench v2's defaults for the declaration fields
    category: str = "Multiple choice"
    metric: str = "longbench_v2_accuracy"
    use_chat_template: bool = True  # one user message
    default_tokenizer: str = DEFAULT_TOKENIZER
    generation: Generation = SAMPLING
    fit: Fit = V2_MIDDLE_CUT

    missing_split_reasons: ClassVar[Mapping[str, str]] = {"dev": NO_DEV}

    def missing_split_reason(self, split: str, length: str, info=None) -> str:
        reason = self.missing_split_reasons.get(split)
        if reason is None:
            return super().missing_split_reason(split, length, info)
        return reason.format(config=f"{self.benchmark_name}/{self.config_name(length)}")

    def max_length(self, length: str) -> int | None:
        return LENGTHS[length].window

    def uses_tokenizer(self, max_input_tokens: int | None, length: str) -> bool:
        return True  # every row counts its uncut prompt (``prompt_tokens``), even where nothing is cut

    def sources(self, length: str) -> dict[str, RemoteFile]:
        return {"data": DATA}

    def expected_sizes(self, length: str) -> Mapping[str, int]:
        return {"eval": DATA_RECORDS}

    def check_generate(self, options, length=None) -> None:
        if options:
            raise OptionError(f"{self.name} reads its rows from data.json; it takes no generate options")

    def card_columns(self) -> dict[str, str]:
        return {"upstream prompt": f"`prompts/{self.prompt_file}`"}

    def facts(self, length: str) -> dict:
        facts = {
            "source": f"{HUB_REPO} data.json at {DATA_REVISION[:12]}",
            "sha256 (third-party pin)": DATA_SHA256,
            "upstream prompt": f"prompts/{self.prompt_file}",
            "pred.py output": f"<model>{self.output_suffix}.jsonl",
        }
        follow_up = self.generation.follow_up
        if follow_up is not None:
            facts["second call"] = (
                f"{follow_up.name} with the first call's response, no document, "
                f"{follow_up.max_new_tokens} new tokens"
            )
        return facts

    # -- rows -------------------------------------------------------------------------------------

    def plan(self, split: str, length: str, files: Mapping[str, FileRef], env: BuildEnv) -> Plan:
        """Every record, by index, from the count the file is declared to hold (nothing is read); a
        file holding another count fails once a shard reads to its end."""
        count = files["data"].records
        return Plan(None if count is None else range(count))

    def instances(self, split, length, files, plan, items, env) -> Iterator[Instance]:
        template: ReplacingTemplate = self.template  # type: ignore[assignment]
        for _index, record in records(files["data"], items, env.cache_root):
            fields = template_fields(record)
            prompt_tokens = env.tokenizer.count(template.render_user(fields))
            yield Instance(
                query_id=query_id(BENCHMARK_NAME, record["_id"]),
                fields=fields,
                output=gold_output(record["answer"]),
                answers=[record["answer"]],
                columns={
                    **{name: record[name] for name in KEPT},
                    "prompt_tokens": prompt_tokens,
                    "length_bucket_tokens": token_bucket(prompt_tokens) if self.has_document else None,
                },
            )


def cot_answer_prompt(row: Mapping[str, object], first_reply: str) -> str:
    """The CoT mode's second prompt (``prompts/0shot_cot_ans.txt``): the row's question and choices and
    the first reply, each stripped as ``pred.py`` strips them; no document."""
    fields = {name: str(row[name]).strip() for name in ("question", *CHOICES)}
    return COT_ANSWER.render_user({**fields, "cot_response": first_reply.strip()})


def cut_as_pred_py(text: str, tokenizer, budget: int) -> str:
    """``pred.py`` cuts every prompt it sends, the second call's too, by the first call's rule."""
    return keep_middle(
        text, tokenizer, budget, extra_tail=V2_MIDDLE_CUT.extra_tail, decode_once=V2_MIDDLE_CUT.decode_once
    )


#: the CoT mode: the first call at temperature 0.1, then the answer call with 128 new tokens
COT_SAMPLING = Generation(
    temperature=0.1,
    follow_up=FollowUp(
        cot_answer_prompt, 128, cut=cut_as_pred_py, name="answer call (prompts/0shot_cot_ans.txt)"
    ),
)


TASKS = (
    LongBenchV2Task(
        name="0shot",
        lengths=tuple(LENGTHS),
        description="LongBench v2, answered directly (prompts/0shot.txt)",
        template=ZERO_SHOT,
        prompt_file="0shot.txt",
        output_suffix="",
        max_new_tokens=128,
    ),
    LongBenchV2Task(
        name="cot",
        lengths=tuple(LENGTHS),
        description=(
            "LongBench v2 with chain-of-thought (prompts/0shot_cot.txt, then 0shot_cot_ans.txt with the "
            "first call's response and no document)"
        ),
        template=COT,
        generation=COT_SAMPLING,
        prompt_file="0shot_cot.txt",
        output_suffix="_cot",
        max_new_tokens=1024,
    ),
    LongBenchV2Task(
        name="no_context",
        lengths=("full",),
        description="LongBench v2 without the document (prompts/0shot_no_context.txt)",
        template=NO_CONTEXT,
        prompt_file="0shot_no_context.txt",
        output_suffix="_no_context",
        has_document=False,
        max_new_tokens=128,
        fit=NO_DOCUMENT,
    ),
)
