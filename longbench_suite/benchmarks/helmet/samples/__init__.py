"""Synthetic HELMET sources in the exact upstream layout, for ``longbench-suite demo`` and the tests.

The citation, re-ranking and recall members (and ALCE's prompt files from HELMET's GitHub repository)
come from :mod:`.samples_archive`; the RAG members are written here.

``data.tar.gz`` holds ``data/kilt/*.jsonl`` with the fields of ``docs/helmet.md`` §3.1: one row per question
and depth, ``ctxs`` with the mixed key sets of issue #31 (inserted gold passages keep DPR keys,
retrieved ones carry ``has_answer``), ``positive_ctxs``/``hard_negative_ctxs`` for NQ, TriviaQA and
HotpotQA, ``depth`` in the dep6 files, and PopQA's entity fields with popularities on both sides of
the threshold. Ordinary rows hold a few short passages; the rows of a few questions hold many long
ones, so that every budget below 128k cuts them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from longbench_suite.samplefiles import TextMaker, json_bytes, jsonl_bytes, tar_gz_bytes, write_to_mirror

from ..alce import TASKS as ALCE_TASKS
from ..common import ARCHIVE
from ..lengths import LENGTHS
from . import archive as samples_archive
from . import hub as samples_hub

DEP6 = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


@dataclass(frozen=True)
class Scale:
    nq: int = 993
    triviaqa: int = 976
    popqa: int = 292
    popqa_low: int = 160  # PopQA queries with log10(s_pop) < 3
    hotpotqa: int = 987
    train_questions: int = 60
    passages: int = 2
    passage_words: int = 20
    long_questions: int = 2
    long_passages: int = 250
    long_words: int = 60
    # citation, re-ranking and recall (samples_archive): rows per file, and their size
    alce_asqa: int = 948
    alce_qampari: int = 1000
    alce_docs: int = 3  # documents of an ordinary row (HELMET's have 2000)
    alce_long_docs: int = 720  # documents of a row that overflows every budget
    msmarco: int = 123
    msmarco_passages: int = 6  # candidates of an ordinary row (HELMET's have K)
    msmarco_words: int = 3
    json_kv: int = 600
    json_kv_pairs: int = 3
    ruler: int = 100
    ruler_filler: int = 6
    long_rows: int = 1  # rows per file that overflow every budget (the first in eval, then one in dev)
    hub: samples_hub.HubScale = samples_hub.FULL  # ICL, long-document QA and summarization sources


FULL = Scale()
DEMO = Scale(
    nq=108,
    triviaqa=104,
    popqa=130,
    popqa_low=112,
    hotpotqa=106,
    train_questions=12,
    long_questions=1,
    long_passages=160,
    alce_asqa=110,
    alce_qampari=110,
    alce_long_docs=40,
    msmarco=50,
    json_kv=110,
    ruler=50,
    hub=samples_hub.DEMO,
)
DEMO_CONFIGS = (
    "nq_8k",
    "popqa_16k",
    "hotpotqa_32k",
    "alce_asqa_8k",
    "msmarco_8k",
    "json_kv_8k",
    "ruler_mv_8k",
    "trec_coarse_8k",
    "multi_lexsum_8k",
)
#: generated configs the demo shows, with their ``generate`` options: a few rows at a small length, on
#: the built-in needle haystack and JSON pairs (no essay file, no download)
DEMO_GENERATED = {
    "gen_niah_multikey_2_2k": {"rows": 5},
    "gen_json_kv_2k": {"rows": 5},
}


def _question(text: TextMaker, task: str, i: int) -> tuple[str, list[str]]:
    noun = text.choice(["painter", "captain", "author", "merchant", "scholar", "pilot"])
    question = (
        f"who {text.choice(['built', 'painted', 'founded', 'discovered'])} the {text.words(2)} {task} {i}"
    )
    answer = f"{noun.title()} {text.words(1).title()} {i}"
    return question, [answer, answer.lower()]


def _retrieved(text: TextMaker, n: int, words: int, start: int) -> list[dict]:
    return [
        {
            "id": str(start + j),
            "title": text.words(2).title(),
            "text": text.paragraph(1, words),
            "score": f"{80 - j * 0.01:.2f}",
            "has_answer": False,
        }
        for j in range(n)
    ]


def _gold(text: TextMaker, answer: str, words: int, pid: int) -> dict:
    return {
        "title": answer,
        "text": f"{text.words(words // 2)} {answer} {text.words(words // 2)}.",
        "score": 1000,
        "title_score": 1,
        "passage_id": str(pid),
    }


def _kilt_rows(
    task: str,
    n_questions: int,
    scale: Scale,
    n_passages: int,
    depths,
    seed: str,
    extra: Callable[[int, TextMaker], dict] | None = None,
    dpr: bool = True,
) -> list[dict]:
    """Rows of one KILT file: every question at every depth; ``depths=None`` means dep3 without a field.

    Questions and entity fields depend only on ``seed``, so files of one task at different K (and
    PopQA's k3 demo file) hold the same questions, as upstream.
    """
    questions, entities, text = TextMaker(f"{seed}:q"), TextMaker(f"{seed}:e"), TextMaker(f"{seed}:p")
    rows = []
    for i in range(n_questions):
        question, answers = _question(questions, task, i)
        long_row = i < scale.long_questions
        count = scale.long_passages if long_row else n_passages
        words = scale.long_words if long_row else scale.passage_words
        golds = [_gold(text, answers[0], scale.passage_words, 10_000 + i)]
        if depths is None:
            golds.append(_gold(text, answers[0], scale.passage_words, 20_000 + i))
        entity = extra(i, entities) if extra else {}
        variants = depths if depths is not None else (None, None, None)
        for v, depth in enumerate(variants):
            ctxs = _retrieved(text, count, words, start=i * 1000)
            if depth is None:  # HotpotQA: two gold passages at three different placements
                ctxs.insert(min(v, len(ctxs)), golds[0])
                ctxs.insert(len(ctxs) - v, golds[1])
            else:
                ctxs.insert(round(depth * count), golds[0])
            row = {"question": question, "answers": answers, "ctxs": ctxs}
            if dpr:
                row["positive_ctxs"] = golds
                row["hard_negative_ctxs"] = _retrieved(text, 2, scale.passage_words, start=i * 1000 + 500)
            if depth is not None:
                row["depth"] = depth
            rows.append({**entity, **row})
    return rows


def _popqa_fields(scale: Scale) -> Callable[[int, TextMaker], dict]:
    def fields(i: int, text: TextMaker) -> dict:
        popularity = 10 + (i * 37) % 900 if i < scale.popqa_low else 1000 + i * 131
        subject = text.words(2).title()
        return {
            "id": 4_000_000 + i,
            "subj": subject,
            "prop": "occupation",
            "obj": text.words(1),
            "subj_id": 100 + i,
            "prop_id": 22,
            "obj_id": 900 + i,
            "s_aliases": [],
            "o_aliases": [],
            "s_uri": f"http://www.wikidata.org/entity/Q{100 + i}",
            "o_uri": f"http://www.wikidata.org/entity/Q{900 + i}",
            "s_wiki_title": subject,
            "o_wiki_title": text.words(1),
            "s_pop": popularity,
            "o_pop": 5000 + i,
        }

    return fields


def rag_members(scale: Scale) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    popqa = _popqa_fields(scale)
    for k in LENGTHS.column("kilt_passages").values():
        # The same seed per task at every K: the question sets agree across lengths, as upstream.
        members[f"data/kilt/nq-dev-multikilt_1000_k{k}_dep6.jsonl"] = jsonl_bytes(
            _kilt_rows("nq", scale.nq, scale, scale.passages, DEP6, "nq-dev")
        )
        members[f"data/kilt/triviaqa-dev-multikilt_1000_k{k}_dep6.jsonl"] = jsonl_bytes(
            _kilt_rows("triviaqa", scale.triviaqa, scale, scale.passages, DEP6, "triviaqa-dev")
        )
        members[f"data/kilt/popqa_test_1000_k{k}_dep6.jsonl"] = jsonl_bytes(
            _kilt_rows(
                "popqa", scale.popqa, scale, scale.passages, DEP6, "popqa-test", extra=popqa, dpr=False
            )
        )
        members[f"data/kilt/hotpotqa-dev-multikilt_1000_k{k}_dep3.jsonl"] = jsonl_bytes(
            _kilt_rows("hotpotqa", scale.hotpotqa, scale, scale.passages, None, "hotpotqa-dev")
        )
    demo_scale = Scale(long_questions=0)
    members["data/kilt/nq-train-multikilt_1000_k3_dep6.jsonl"] = jsonl_bytes(
        _kilt_rows("nq train", scale.train_questions, demo_scale, 3, DEP6, "nq-train")
    )
    members["data/kilt/triviaqa-train-multikilt_1000_k3_dep6.jsonl"] = jsonl_bytes(
        _kilt_rows("triviaqa train", scale.train_questions, demo_scale, 3, DEP6, "triviaqa-train")
    )
    members["data/kilt/hotpotqa-train-multikilt_1000_k3_dep3.jsonl"] = jsonl_bytes(
        _kilt_rows("hotpotqa train", scale.train_questions, demo_scale, 3, None, "hotpotqa-train")
    )
    members["data/kilt/popqa_test_1000_k3_dep6.jsonl"] = jsonl_bytes(
        _kilt_rows("popqa", scale.popqa, demo_scale, 3, DEP6, "popqa-test", extra=popqa, dpr=False)
    )
    return members


#: Each task family adds the archive members it reads.
ARCHIVE_MEMBERS: list[Callable[[Scale], dict[str, bytes]]] = [
    rag_members,
    samples_archive.alce_members,
    samples_archive.msmarco_members,
    samples_archive.json_kv_members,
    samples_archive.ruler_members,
    lambda scale: samples_hub.archive_members(scale.hub),
]


def archive_members(scale: Scale) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    for generate in ARCHIVE_MEMBERS:
        members.update(generate(scale))
    return members


def write_samples(mirror_dir: str, scale: Scale = DEMO) -> list[str]:
    """Write HELMET's sources for ``scale`` under ``mirror_dir``; returns the files written."""
    written = [write_to_mirror(mirror_dir, ARCHIVE.url, tar_gz_bytes(archive_members(scale)))]
    for task in ALCE_TASKS:
        kind = task.name.removeprefix("alce_")
        written.append(
            write_to_mirror(
                mirror_dir, task.prompts.url, json_bytes(samples_archive.alce_prompt_file(kind), indent=4)
            )
        )
    return [*written, *samples_hub.write_hub_files(mirror_dir, scale.hub)]


def _question_counts(scale: Scale) -> dict[str, tuple[int, int]]:
    """Tasks whose dev is every sample question eval does not take: (questions, depth variants each)."""
    ruler = (scale.ruler, 1)
    return {
        "nq": (scale.nq, len(DEP6)),
        "triviaqa": (scale.triviaqa, len(DEP6)),
        "popqa": (scale.popqa, len(DEP6)),
        "hotpotqa": (scale.hotpotqa, 3),
        "alce_asqa": (scale.alce_asqa, 1),
        "alce_qampari": (scale.alce_qampari, 1),
        "msmarco": (scale.msmarco, 1),
        "json_kv": (scale.json_kv, 1),
        "ruler_mk_needle": ruler,
        "ruler_mk_uuid": ruler,
        "ruler_mv": ruler,
    }


def declared_sizes(scale: Scale = DEMO) -> dict[str, dict[str, int]]:
    """The split sizes the files of ``scale`` give each config.

    Every test pool holds at least the spec's eval size (TREC's test file: all of it), so eval has the
    spec's size; dev is declared where it is simply the questions eval does not take (the ICL and
    long-document tasks' dev depends on the tokenizer's filters and duplicate texts: not declared).
    """
    from ..tasks import TASKS

    counts = _question_counts(scale)
    sizes = {}
    for task in TASKS:
        for length in task.lengths:
            spec = task.expected_sizes(length)
            declared = {"eval": spec["eval"]}
            if task.name.startswith("trec_"):
                declared["eval"] = min(spec["eval"], scale.hub.trec_test)
            if task.name in counts:
                questions, variants = counts[task.name]
                declared["dev"] = questions - spec["eval"] // variants
            sizes[task.config_name(length)] = declared
    return sizes
