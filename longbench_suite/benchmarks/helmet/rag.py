"""HELMET's retrieval-augmented QA family: NQ, TriviaQA, PopQA, HotpotQA (``docs/helmet.md`` §3.1).

One row of a KILT file is one question at one depth (gold-passage position). ``eval`` is HELMET's
selection: ``random.seed(42); random.sample(sorted(set(keys)), 100)``, then every row of those keys in
file order (PopQA: among rows with ``log10(s_pop) < 3``). ``dev`` is every other question, one depth
variant each, chosen by :func:`dev_variant` from the query id, so the same variant is chosen at every
length. Demos come from the matching ``k3`` file exactly as HELMET draws them; for ``dev`` rows the
pool also loses every ``eval`` question.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from longbench_suite.instance import Instance, Plan
from longbench_suite.memo import Codec, Memo
from longbench_suite.partition import sampling
from longbench_suite.records import ANSWERS, TEXT, iter_jsonl, require, take
from longbench_suite.render import PromptTemplate
from longbench_suite.source import FileRef
from longbench_suite.task import BuildEnv

from .common import HelmetTask, archive_member, digest_id, pick_dev_variant, read_passages
from .lengths import LENGTHS

TEMPLATE = PromptTemplate(
    user=(
        "Use the given documents to write a concise and short answer to the question. Write your answer "
        "in the following format:\nAnswer: [answer]\n\n{demos}{context}\n\nQuestion: {question}"
    ),
    answer_prefix="Answer:",
    separator="\n",
)
PASSAGE = "Document (Title: {title}): {text}"
DEMO = "{documents}\n\nQuestion: {question}\nAnswer: {answer}"
EVAL_QUESTIONS = 100
SHOTS = 2


def render_passages(ctxs: list[dict]) -> str:
    return "\n\n".join(PASSAGE.format(title=c["title"], text=c["text"]) for c in ctxs)


@dataclass(frozen=True)
class KiltRecord:
    """The fields of one KILT row that the partition and demos need (kept small for big files)."""

    line: int
    key: object
    depth: float | None
    popular: bool
    question: str  # what the leakage rule compares (PopQA's key is its id, not the question)


def dev_variant(query_id: str, variants: list[KiltRecord]) -> KiltRecord:
    """The one depth variant of a non-eval question that goes to ``dev``.

    Variants are ordered by ``depth`` when the file has it (so the choice is the same depth at every
    length whatever the row order) and by file order otherwise (HotpotQA); the index is
    ``derived_seed("helmet-dev-variant", query_id) % len(variants)``.
    """
    ordered = sorted(variants, key=lambda r: (r.depth is None, r.depth if r.depth is not None else 0, r.line))
    return pick_dev_variant(query_id, ordered)


#: the scans of KILT files, kept on disk (see :mod:`longbench_suite.memo`)
_SCANS: Memo[list[KiltRecord]] = Memo(
    "helmet-rag-scan-2",
    codec=Codec(
        dump=lambda records: [[r.line, r.key, r.depth, r.popular, r.question] for r in records],
        load=lambda rows: [KiltRecord(*row) for row in rows],
    ),
)


@dataclass(frozen=True, eq=False, kw_only=True)
class RagTask(HelmetTask):
    test_file: str = ""  # with {k}: the length's KILT passages
    demo_file: str = ""
    key_field: str = "question"
    popularity_threshold: float | None = None

    def sources(self, length: str) -> dict:
        return {
            "test": archive_member(self.test_file.format(k=LENGTHS[length].kilt_passages)),
            "demos": archive_member(self.demo_file),
        }

    def facts(self, length: str) -> dict:
        return {**super().facts(length), "passages in context": LENGTHS[length].kilt_passages}

    # -- records -------------------------------------------------------------------------------

    def _key(self, record: dict, where: str):
        if self.key_field == "question":
            return take(record, "question", TEXT, where)
        require(record, [self.key_field], where)
        return record[self.key_field]

    def _popular(self, record: dict, where: str) -> bool:
        """True when the popularity filter drops the row (``log10(s_pop) >= threshold``)."""
        if self.popularity_threshold is None:
            return False
        require(record, ["s_pop"], where)
        return math.log10(record["s_pop"]) >= self.popularity_threshold

    def query_id(self, key) -> str:
        if self.key_field == "question":
            return digest_id(self.name, key)
        return f"{self.name}-{key}"

    def _scan(self, ref: FileRef, cache_root: str | None = None) -> list[KiltRecord]:
        """What the partition needs of every row; kept on disk per file (a 128k KILT file holds GBs,
        and a stream's first row should not wait for a read of all of it each time)."""
        what = (self.key_field, self.popularity_threshold)
        return _SCANS.get(what, [ref], lambda: self._read_scan(ref), cache_root=cache_root)

    def _read_scan(self, ref: FileRef) -> list[KiltRecord]:
        scanned = []
        for line, record in iter_jsonl(ref):
            where = f"{ref.label}, line {line}"
            depth = record.get("depth")
            scanned.append(
                KiltRecord(
                    line,
                    self._key(record, where),
                    None if depth is None else float(depth),
                    self._popular(record, where),
                    take(record, "question", TEXT, where),
                )
            )
        return scanned

    def partition(self, scanned: list[KiltRecord]) -> tuple[set, dict[int, str], list[dict[str, str]]]:
        """``(eval keys, {line: split})`` for every row that goes to a split, and the leakage keys of
        the questions the task's :attr:`leakage` rule keeps out of ``dev`` (PopQA: another id asking
        an ``eval`` question)."""
        eligible = [r.key for r in scanned if not r.popular]
        eval_keys = set(sampling.sample_keys(eligible, EVAL_QUESTIONS, sampling.HELMET_SEED))
        evaluated = [r for r in scanned if r.key in eval_keys and not r.popular]
        chosen = {r.line: "eval" for r in evaluated}
        by_key: dict = {}
        for r in scanned:
            if r.key not in eval_keys:
                by_key.setdefault(r.key, []).append(r)
        kept, dropped = self.leakage.split(
            [self._leakage_row(r) for r in evaluated],
            list(by_key.values()),
            lambda v: self._leakage_row(v[0]),
        )
        for variants in kept:
            chosen[dev_variant(self.query_id(variants[0].key), variants).line] = "dev"
        return eval_keys, chosen, dropped

    def _leakage_row(self, record: KiltRecord) -> dict[str, str]:
        return self.leakage_row(self.query_id(record.key), record.question)

    # -- demos -------------------------------------------------------------------------------

    def _demo_pool(self, ref: FileRef) -> list[dict]:
        pool = []
        for line, record in iter_jsonl(ref):
            where = f"{ref.label}, line {line}"
            if self._popular(record, where):
                continue
            require(record, ["question", "answers", "ctxs"], where)
            pool.append(
                {
                    "key": self._key(record, where),
                    "text": DEMO.format(
                        documents=render_passages(read_passages(record, where, "ctxs")),
                        question=take(record, "question", TEXT, where),
                        answer=take(record, "answers", ANSWERS, where)[0],
                    ),
                }
            )
        return pool

    def _demos(self, pool: list[dict], key) -> tuple[str, list]:
        """HELMET: shuffle the pool with the key's seed, keep the first row per key, take two."""
        order = sampling.hf_shuffle_order(len(pool), sampling.helmet_rag_seed(key))
        picked = sampling.first_per_key(order, lambda i: pool[i]["key"], SHOTS)
        text = "\n\n".join(pool[i]["text"] for i in picked) + "\n\n"
        return text, [pool[i]["key"] for i in picked]

    # -- rows ---------------------------------------------------------------------------------

    def plan(self, split: str, length: str, files: Mapping[str, FileRef], env: BuildEnv) -> Plan:
        """The split's rows (KILT line numbers, in file order), sharing the split's demo pool."""
        eval_keys, chosen, dropped = self.partition(self._scan(files["test"], env.cache_root))
        pool = self._demo_pool(files["demos"])
        if split == "dev":
            pool = [d for d in pool if d["key"] not in eval_keys]
        lines = sorted(line for line, s in chosen.items() if s == split)
        return Plan(lines, pool, dropped if split == "dev" else ())

    def instances(self, split, length, files, plan, items, env) -> Iterator[Instance]:
        pool = plan.shared
        demo_cache: dict = {}
        for line, record in iter_jsonl(files["test"], only=set(items)):
            where = f"{files['test'].label}, line {line}"
            require(record, ["question", "answers", "ctxs"], where)
            key = self._key(record, where)
            if key not in demo_cache:
                # HELMET drops the row's own question from the pool only for PopQA (whose pool is its
                # test set); dev rows always drop it.
                own = self.popularity_threshold is not None or split == "dev"
                candidates = [d for d in pool if d["key"] != key] if own else pool
                demo_cache[key] = self._demos(candidates, key)
            demos, demo_keys = demo_cache[key]
            answers = take(record, "answers", ANSWERS, where)
            depth = record.get("depth")
            yield Instance(
                query_id=self.query_id(key),
                fields={
                    "demos": demos,
                    "context": render_passages(read_passages(record, where, "ctxs")),
                    "question": take(record, "question", TEXT, where),
                },
                output=answers[0],
                answers=answers,
                columns=self.columns(
                    length,
                    question=take(record, "question", TEXT, where),
                    depth=None if depth is None else float(depth),
                    positive_ctxs=read_passages(record, where, "positive_ctxs"),
                    metadata={
                        "source_line": line,
                        "passages": len(record["ctxs"]),
                        "demo_query_ids": [self.query_id(k) for k in demo_keys],
                    },
                ),
            )


_COMMON = dict(
    template=TEMPLATE, max_new_tokens=20, use_chat_template=False, metric="rag_subem", category="RAG"
)

TASKS = (
    RagTask(
        name="nq",
        helmet_name="kilt_nq",
        description="Natural Questions over KILT Wikipedia passages, gold passage at 6 depths.",
        test_file="data/kilt/nq-dev-multikilt_1000_k{k}_dep6.jsonl",
        demo_file="data/kilt/nq-train-multikilt_1000_k3_dep6.jsonl",
        sizes={"dev": 893, "eval": 600},
        **_COMMON,
    ),
    RagTask(
        name="triviaqa",
        helmet_name="kilt_triviaqa",
        description="TriviaQA over KILT Wikipedia passages, gold passage at 6 depths.",
        test_file="data/kilt/triviaqa-dev-multikilt_1000_k{k}_dep6.jsonl",
        demo_file="data/kilt/triviaqa-train-multikilt_1000_k3_dep6.jsonl",
        sizes={"dev": 876, "eval": 600},
        **_COMMON,
    ),
    RagTask(
        name="popqa",
        helmet_name="kilt_popqa_3",
        description="PopQA long-tail entity questions (eval: subject popularity below 10^3), 6 depths.",
        test_file="data/kilt/popqa_test_1000_k{k}_dep6.jsonl",
        demo_file="data/kilt/popqa_test_1000_k3_dep6.jsonl",
        key_field="id",
        popularity_threshold=3.0,
        sizes={"dev": 192, "eval": 600},
        **_COMMON,
    ),
    RagTask(
        name="hotpotqa",
        helmet_name="kilt_hotpotqa",
        description="HotpotQA multi-hop questions over KILT passages, 3 placements of the two gold passages.",
        test_file="data/kilt/hotpotqa-dev-multikilt_1000_k{k}_dep3.jsonl",
        demo_file="data/kilt/hotpotqa-train-multikilt_1000_k3_dep3.jsonl",
        sizes={"eval": 300},
        **_COMMON,
    ),
)
