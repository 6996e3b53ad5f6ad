"""HELMET's passage re-ranking task: MS MARCO (``docs/helmet.md`` §3.3).

A row of ``data/msmarco/test_reranking_data_k{K}_dep3.jsonl`` is a query with K candidate passages,
each with a relevance ``label``; the target is the passage ids ordered by label (stable, highest
first). HELMET evaluates the rows of ``random.seed(42); random.sample(sorted(qids), min(100, n))`` in
file order — every row, as there are fewer than 100 query ids. ``eval`` is the query ids of the first
40 of those rows (the seed's "first 40 instances", split by query id so that no query is in both
splits) with all their rows; ``dev`` is every other query id, one row each (chosen from the query id,
like the depth variants of the RAG tasks). Demonstrations come from the ``k10`` file exactly as HELMET
draws them; ``dev`` pools also lose every ``eval`` query.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from longbench_suite.errors import DataFormatError
from longbench_suite.instance import Instance, Plan
from longbench_suite.partition import sampling
from longbench_suite.records import TEXT, iter_jsonl, require, take
from longbench_suite.render import PromptTemplate
from longbench_suite.source import FileRef
from longbench_suite.task import BuildEnv

from .common import HelmetTask, archive_member, pick_dev_variant
from .lengths import LENGTHS

TEMPLATE = PromptTemplate(
    user=(
        "You are provided with a list of documents, each indicated by their ID. Rank each document based "
        "on their relevance to the question in descending order from most relelvant to least relevant "
        "texts. Include all documents in the rankings. Write your answer using the unique IDs, with the "
        "following format:\nRanking: ID3 > ID1 > ID2\n\n{demos}{context}\n\nQuery: {question}"
    ),
    answer_prefix="Ranking:",
    separator="\n",
)
PASSAGE_WITH_TITLE = "[ID: {id}] Document (Title: {title}): {text}"
PASSAGE = "[ID: {id}] Document: {text}"
DEMO = "{passages}\n\nQuery: {query}\nRanking: {ranking}\n\n"
PASSAGES_JOIN = "\n\n"
DEMO_FILE = "data/msmarco/test_reranking_data_k10_dep3.jsonl"
HELMET_QUERIES = 100  # HELMET's max_test_samples: how many query ids it samples
EVAL_ROWS = 40
SHOTS = 2


@dataclass(frozen=True)
class Ranking:
    """One re-ranking row: a query and its candidate passages (``id``, ``title``, ``text``, ``label``)."""

    qid: str
    query: str
    passages: tuple[dict, ...]
    titled: bool

    def render(self, titled: bool) -> str:
        """The passages, with titles when the row being prompted has them (HELMET uses that row's
        format for its demonstrations too). A passage without a title in a titled row shows
        ``None``, as HELMET's ``datasets``-loaded rows do."""
        template = PASSAGE_WITH_TITLE if titled else PASSAGE
        return PASSAGES_JOIN.join(template.format(**p) for p in self.passages)

    @property
    def gold(self) -> str:
        """Passage ids by label, highest first; equal labels keep file order (a stable sort)."""
        return " > ".join(p["id"] for p in sorted(self.passages, key=lambda p: p["label"], reverse=True))


def _label(value: object, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise DataFormatError(f"{where}: 'label' must be an integer relevance grade, got {value!r}")


def parse_ranking(record: dict, where: str) -> Ranking:
    require(record, ["qid", "query", "ctxs"], where)
    ctxs = record["ctxs"]
    if not isinstance(ctxs, list) or not ctxs:
        raise DataFormatError(f"{where}: 'ctxs' must be a non-empty list of passages")
    passages = []
    for i, ctx in enumerate(ctxs):
        at = f"{where}, passage {i}"
        if not isinstance(ctx, dict):
            raise DataFormatError(f"{at}: expected an object, got {type(ctx).__name__}")
        require(ctx, ["id", "text", "label"], at)
        passages.append(
            {
                "id": str(ctx["id"]),
                "title": ctx.get("title"),
                "text": ctx["text"],
                "label": _label(ctx["label"], at),
            }
        )
    return Ranking(str(record["qid"]), record["query"], tuple(passages), "title" in ctxs[0])


def pick_demos(pool: list[Ranking], qid: str, excluded: set[str]) -> list[int]:
    """HELMET: shuffle the pool without ``excluded`` queries with the query's seed, keep the first row per
    query, take two. Returns positions in ``pool``."""
    candidates = [i for i, d in enumerate(pool) if d.qid not in excluded]
    order = sampling.hf_shuffle_order(len(candidates), sampling.helmet_msmarco_seed(qid))
    return [candidates[i] for i in sampling.first_per_key(order, lambda i: pool[candidates[i]].qid, SHOTS)]


@dataclass(frozen=True)
class Partition:
    """Which rows go where, from the query ids alone."""

    helmet_qids: frozenset[str]  # the query ids HELMET evaluates
    helmet_rows: int  # how many rows HELMET evaluates (decides its demo-pool rule)
    eval_qids: frozenset[str]
    lines: frozenset[int]  # the rows of the split being built
    #: leakage keys of the queries the task's rule keeps out of ``dev`` (building ``dev`` only)
    dropped: tuple = ()


@dataclass(frozen=True, eq=False, kw_only=True)
class RerankTask(HelmetTask):
    test_file: str = ""  # with {k}: the length's candidate passages

    def sources(self, length: str) -> dict:
        return {
            "test": archive_member(self.test_file.format(k=LENGTHS[length].msmarco_passages)),
            "demos": archive_member(DEMO_FILE),
        }

    def facts(self, length: str) -> dict:
        return {**super().facts(length), "candidate passages": LENGTHS[length].msmarco_passages}

    def query_id(self, qid: str) -> str:
        return f"{self.name}-{qid}"

    def partition(self, split: str, test: FileRef) -> Partition:
        rows = []
        for line, record in iter_jsonl(test):
            where = f"{test.label}, line {line}"
            require(record, ["qid", "query"], where)
            rows.append((line, str(record["qid"]), take(record, "query", TEXT, where)))
        helmet_qids = frozenset(
            sampling.sample_keys([q for _, q, _ in rows], HELMET_QUERIES, sampling.HELMET_SEED)
        )
        helmet_rows = [(line, q, text) for line, q, text in rows if q in helmet_qids]
        eval_qids = frozenset(q for _, q, _ in helmet_rows[:EVAL_ROWS])
        dropped: list[dict[str, str]] = []
        if split == "eval":
            lines = {line for line, q, _ in helmet_rows if q in eval_qids}
        else:
            variants: dict[str, list[tuple[int, str]]] = {}
            for line, q, text in rows:
                if q not in eval_qids:
                    variants.setdefault(q, []).append((line, text))
            evaluated = [self.leakage_row(self.query_id(q), text) for _, q, text in rows if q in eval_qids]
            kept, dropped = self.leakage.split(
                evaluated, list(variants), lambda q: self.leakage_row(self.query_id(q), variants[q][0][1])
            )
            lines = {pick_dev_variant(self.query_id(q), [line for line, _ in variants[q]]) for q in kept}
        return Partition(helmet_qids, len(helmet_rows), eval_qids, frozenset(lines), tuple(dropped))

    def demo_pool(self, demos: FileRef, part: Partition) -> list[Ranking]:
        """HELMET's pool: without every evaluated query when the pool has more than twice as many rows
        as HELMET evaluates, else whole (each row then drops only its own query)."""
        pool = [parse_ranking(r, f"{demos.label}, line {line}") for line, r in iter_jsonl(demos)]
        if len(pool) > 2 * part.helmet_rows:
            pool = [d for d in pool if d.qid not in part.helmet_qids]
        return pool

    def plan(self, split: str, length: str, files: Mapping[str, FileRef], env: BuildEnv) -> Plan:
        """The split's rows (line numbers, in file order), sharing the partition and the demo pool."""
        part = self.partition(split, files["test"])
        return Plan(sorted(part.lines), (part, self.demo_pool(files["demos"], part)), part.dropped)

    def instances(self, split, length, files, plan, items, env) -> Iterator[Instance]:
        part, pool = plan.shared
        rendered: dict[tuple[int, bool], str] = {}
        for line, record in iter_jsonl(files["test"], only=set(items)):
            where = f"{files['test'].label}, line {line}"
            row = parse_ranking(record, where)
            excluded = {row.qid} | (part.eval_qids if split == "dev" else set())
            picked = pick_demos(pool, row.qid, excluded)
            if len(picked) < SHOTS:
                demos = files["demos"].label
                raise DataFormatError(
                    f"{where}: the demonstrations in {demos} hold fewer than {SHOTS} other queries"
                )
            for i in picked:
                if (i, row.titled) not in rendered:
                    demo = pool[i]
                    rendered[i, row.titled] = DEMO.format(
                        passages=demo.render(row.titled), query=demo.query, ranking=demo.gold
                    )
            yield Instance(
                query_id=self.query_id(row.qid),
                fields={
                    "demos": "".join(rendered[i, row.titled] for i in picked),
                    "context": row.render(row.titled),
                    "question": row.query,
                },
                output=row.gold,
                answers=[row.gold],
                columns=self.columns(
                    length,
                    question=row.query,
                    metadata={
                        "qid": row.qid,
                        "qrels": {p["id"]: p["label"] for p in row.passages},
                        "source_line": line,
                        "demo_qids": [pool[i].qid for i in picked],
                    },
                ),
            )


TASKS = (
    RerankTask(
        name="msmarco",
        helmet_name="msmarco_rerank_psg",
        description="MS MARCO passage re-ranking: order K candidate passages by relevance to a query.",
        template=TEMPLATE,
        max_new_tokens=200,
        use_chat_template=False,
        metric="msmarco_ndcg",
        category="Re-rank",
        test_file="data/msmarco/test_reranking_data_k{k}_dep3.jsonl",
        sizes={"dev": 83, "eval": 40},
    ),
)
