"""Synthetic LongBench sources in the exact upstream layout, for ``longbench-suite demo`` and the tests.

``data.zip`` holds ``data/<task>.jsonl`` for every task, one JSON object per line with the eight
upstream fields and types (``docs/longbench.md`` §3): ``answers`` a list of strings, ``length`` an int
(words of input + context + answers for English and code, characters for Chinese), ``all_classes``
a list for trec/lsht and null elsewhere, ``_id`` 48 hex digits. Records look like their task's
(passages, few-shot demos, numbered paragraphs, code). Each task draws its records from one pool: the
LongBench file takes some, the LongBench-E file others, and a few records are in both (identical,
as LongBench's maintainers describe the overlap), so every task with a LongBench-E sibling has a dev
split. Some records are long enough to be cut at 4k and to fill LongBench-E's 4-8k and 8k+ buckets.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from longbench_suite.samplefiles import TextMaker, jsonl_bytes, write_to_mirror, zip_bytes

from .tasks import ARCHIVE, TASKS


@dataclass(frozen=True)
class Scale:
    short: int = 150  # length units (words, or characters for Chinese) of a short record
    medium: int = 4200  # LongBench-E's 4-8k bucket; longer than the 4k budget
    long: int = 8300  # LongBench-E's 8k+ bucket; longer than the 8k budget
    #: the sizes of one task's pool of records
    pool: tuple[str, ...] = ("short", "short", "short", "medium", "short", "medium", "long")
    longbench: tuple[int, ...] = (0, 1, 2, 3)  # pool indices in the LongBench file, in file order
    longbench_e: tuple[int, ...] = (4, 1, 5, 3, 6)  # and in the LongBench-E file
    #: ``True``: each file holds as many rows as the published one (LongBench's ``task.md``), the pool
    #: repeated as needed, with ``shared`` rows in both files; the index tuples above are then unused
    published_sizes: bool = False
    shared: int = 10


DEMO = Scale()
#: The published row counts, for checks of the specs' sizes (``longbench-suite check``).
FULL = Scale(published_sizes=True)
DEMO_CONFIGS = ("qasper_4k", "hotpotqa_e_8k", "lsht_full")

ZH_WORDS = (  # noqa: SIM905
    "会议 项目 公司 城市 学生 老师 研究 发展 经济 政府 文化 历史 技术 市场 社会 问题 方法 "
    "今天 我们 他们 已经 需要 进行 重要 新的 主要 可以 通过 关于 表示 认为 提出 完成"
).split()
TREC_CLASSES = [f"Type {k}" for k in range(50)]
LSHT_CLASSES = [f"类别{k}" for k in range(24)]


class Text:
    """English and Chinese pseudo-text from one seed."""

    def __init__(self, seed: str) -> None:
        self.en = TextMaker(seed)

    def zh(self, n: int) -> str:
        return self.en.chinese(n, ZH_WORDS) + "。"

    def code_line(self, k: int) -> str:
        return f"    value_{k} = compute_{self.en.words(1)}(value_{k - 1}, {self.en.randint(0, 99)})"


def units(language: str, text: str) -> int:
    """LongBench's ``length`` unit: characters for Chinese, ``str.split`` words otherwise."""
    return len(text) if language == "zh" else len(text.split())


def fill(make: Callable[[int], str], joiner: str, target: int, language: str) -> tuple[str, int]:
    """Pieces ``make(1), make(2), ...`` joined until ``target`` units; returns the text and the count."""
    pieces: list[str] = []
    total = 0
    while total < target or not pieces:
        pieces.append(make(len(pieces) + 1))
        total += units(language, pieces[-1])
    return joiner.join(pieces), len(pieces)


# -- one function per kind of record: (text, index, size) -> input, context, answers --------------


def single_doc(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, _ = fill(lambda k: t.en.paragraph(3), "\n\n", size, "en")
    return f"What did the {t.en.words(2)} study {i}?", context, [t.en.words(3), t.en.words(2)]


def multi_doc(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, _ = fill(
        lambda k: f"Passage {k}:\n{t.en.words(2).title()}\n{t.en.paragraph(2)}", "\n", size, "en"
    )
    return f"Who founded the {t.en.words(2)} of case {i}?", context, [t.en.words(2).title()]


def zh_doc(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, _ = fill(lambda k: t.zh(20), "\n", size, "zh")
    return f"第{i}个{t.zh(4)}是什么？", context, [t.zh(3)]


def summary(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, _ = fill(lambda k: t.en.paragraph(4), "\n", size, "en")
    return "", context, [t.en.paragraph(3)]


def query_summary(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, _ = fill(lambda k: f"Speaker {k % 4}: {t.en.sentence(10)}", "\n", size, "en")
    return f"What did the group decide about the {t.en.words(2)}?", context, [t.en.paragraph(2)]


def zh_summary(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, _ = fill(lambda k: t.zh(25), "", size, "zh")
    return "", context, [t.zh(30)]


def trec(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, _ = fill(
        lambda k: f"Question: {t.en.words(6)} ?\nType: {t.en.choice(TREC_CLASSES)}\n", "", size, "en"
    )
    return f"Question: {t.en.words(7)} ?\nType:", context, [t.en.choice(TREC_CLASSES)]


def triviaqa(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, _ = fill(
        lambda k: f"Passage: {t.en.paragraph(3)}\nQuestion: {t.en.words(6)}?\nAnswer: {t.en.words(2)}",
        "\n\n",
        size,
        "en",
    )
    answer = t.en.words(2)
    return (
        f"Passage: {t.en.paragraph(3)}\nQuestion: {t.en.words(6)}?\nAnswer:",
        context,
        [answer, answer.title()],
    )


def samsum(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    def dialogue() -> str:
        return "\r\n".join(f"{name}: {t.en.sentence(6)}" for name in ("Anna", "Ben", "Anna"))

    context, _ = fill(lambda k: f"Dialogue: {dialogue()}\nSummary: {t.en.sentence(8)}", "\n\n", size, "en")
    return f"Dialogue: {dialogue()}\nSummary: ", context, [t.en.sentence(9)]


def lsht(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, _ = fill(lambda k: f"新闻：{t.zh(30)}\n类别：{t.en.choice(LSHT_CLASSES)}\n", "", size, "zh")
    return f"新闻：{t.zh(30)}\n类别：", context, [t.en.choice(LSHT_CLASSES)]


def passage_count(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    distinct = [t.en.paragraph(2) for _ in range(1 + i % 5)]
    context, _ = fill(lambda k: f"Paragraph {k}: {distinct[(k * 7) % len(distinct)]}", "\n\n", size, "en")
    return "", context, [str(len(distinct))]


def passage_retrieval(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, n = fill(lambda k: f"Paragraph {k}: {t.en.paragraph(3)}", "\n\n", size, "en")
    return t.en.paragraph(2), context, [f"Paragraph {1 + i % n}"]


def passage_retrieval_zh(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, n = fill(lambda k: f"段落{k}：{t.zh(40)}", "\n\n", size, "zh")
    return t.zh(30), context, [f"段落{1 + i % n}"]


def lcc(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, n = fill(t.code_line, "\n", size, "en")
    return "", f"def run_{i}(value_0):\n{context}\n", [t.code_line(n + 1).strip()]


def repobench(t: Text, i: int, size: int) -> tuple[str, str, list[str]]:
    context, _ = fill(lambda k: f"# Path: pkg/module_{k}.py\n{t.code_line(k)}", "\n", size, "en")
    prefix = f"import pkg.module_{i}\n\ndef main():\n{t.code_line(1)}\n"
    return prefix, f"{context}\n", [t.code_line(2).strip()]


KINDS: dict[str, Callable[[Text, int, int], tuple[str, str, list[str]]]] = {
    "narrativeqa": single_doc,
    "qasper": single_doc,
    "multifieldqa_en": single_doc,
    "multifieldqa_zh": zh_doc,
    "hotpotqa": multi_doc,
    "2wikimqa": multi_doc,
    "musique": multi_doc,
    "dureader": zh_doc,
    "gov_report": summary,
    "qmsum": query_summary,
    "multi_news": summary,
    "vcsum": zh_summary,
    "trec": trec,
    "triviaqa": triviaqa,
    "samsum": samsum,
    "lsht": lsht,
    "passage_count": passage_count,
    "passage_retrieval_en": passage_retrieval,
    "passage_retrieval_zh": passage_retrieval_zh,
    "lcc": lcc,
    "repobench-p": repobench,
}
CLASSES = {"trec": TREC_CLASSES, "lsht": LSHT_CLASSES}
CODE_LANGUAGES = ("python", "java", "csharp")


def record(task: str, language: str, i: int, size: int) -> dict:
    """Record ``i`` of ``task``'s pool, with its fields in upstream order."""
    text = Text(f"longbench:{task}:{i}")
    question, context, answers = KINDS[task](text, i, size)
    row_language = CODE_LANGUAGES[i % (2 if task == "repobench-p" else 3)] if language == "code" else language
    length = units(language, question) + units(language, context) + sum(units(language, a) for a in answers)
    return {
        "input": question,
        "context": context,
        "answers": answers,
        "length": length,
        "dataset": task,
        "language": row_language,
        "all_classes": CLASSES.get(task),
        "_id": hashlib.sha256(f"longbench-sample:{task}:{i}".encode()).hexdigest()[:48],
    }


def archive_members(scale: Scale = DEMO) -> dict[str, bytes]:
    """``data/<task>.jsonl`` for every task."""
    sizes = {"short": scale.short, "medium": scale.medium, "long": scale.long}
    members: dict[str, bytes] = {}
    by_name = {task.name: task for task in TASKS}
    for task in TASKS:
        if task.name != task.base:
            continue
        if scale.published_sizes:
            n, m = task.eval_rows, by_name[task.sibling].eval_rows if task.sibling else 0
            shared = min(scale.shared, n, m)
            kinds = [scale.pool[i % len(scale.pool)] for i in range(n + m - shared)]
            in_longbench, in_longbench_e = range(n), range(n - shared, n + m - shared)
        else:
            kinds, in_longbench, in_longbench_e = list(scale.pool), scale.longbench, scale.longbench_e
        pool = [record(task.base, task.language, i, sizes[kind]) for i, kind in enumerate(kinds)]
        members[f"data/{task.name}.jsonl"] = jsonl_bytes(pool[i] for i in in_longbench)
        if task.sibling:
            members[f"data/{task.sibling}.jsonl"] = jsonl_bytes(pool[i] for i in in_longbench_e)
    return members


def write_samples(mirror_dir: str, scale: Scale = DEMO) -> list[str]:
    """Write LongBench's ``data.zip`` for ``scale`` under ``mirror_dir``; returns the files written."""
    return [write_to_mirror(mirror_dir, ARCHIVE.url, zip_bytes(archive_members(scale)))]


def declared_sizes(scale: Scale = DEMO) -> dict[str, dict[str, int]]:
    """The eval sizes the files of ``scale`` give each config: the task's whole file, at every length."""
    sizes = {}
    for task in TASKS:
        if scale.published_sizes:
            rows = task.eval_rows
        else:
            rows = len(scale.longbench if task.name == task.base else scale.longbench_e)
        sizes.update({task.config_name(length): {"eval": rows} for length in task.lengths})
    return sizes
