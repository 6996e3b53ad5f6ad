"""Synthetic LV-Eval sources in the exact upstream layout, for ``longbench-suite demo`` and the tests.

One zip per dataset, at the dataset's canonical URL in the mirror, holding
``<dataset>/<dataset>_<level>.jsonl`` for the five levels. Records carry the base fields
(``input, context, answers, length, dataset, language``) plus the fields of the dataset's group in
the HF script: ``answer_keywords`` (a string) for the GOLDEN groups, ``confusing_facts`` for the
DISTRACTOR groups — as a list of strings for the mixup datasets, as one string for factrecall (the
JSON type is unverified upstream, so the samples use both) and empty for ``cmrc_mixup``. English
mixup contexts are ``### Passage N`` sections, Chinese ones ``文章 N`` sections with title and body.
Every level holds the same QA pairs in a different order (upstream does not document the order);
factrecall repeats one pair in every row with the needle at different positions. Contexts grow
with the level but stay small: these files exercise layout and parsing, not length.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from longbench_suite.samplefiles import ChineseText, TextMaker, jsonl_bytes, write_to_mirror, zip_bytes

from .common import LEVELS, archive
from .tasks import TASKS

ZH_WORDS = (  # noqa: SIM905
    "城市 河流 山脉 图书馆 学校 医院 公园 火车 飞机 老师 学生 医生 作家 画家 科学家 历史 文化 经济 "
    "技术 研究 发展 北方 南方 古老 安静 美丽 重要 建立 发现 记录 描述 影响 参加 组织 会议 报告 "
    "问题 方法 结果 时间 地方 人们 今天 以后 之前"
).split()


@dataclass(frozen=True)
class Scale:
    qa_pairs: int = 3  # distinct QA pairs per level of a mixup dataset
    factrecall_rows: int = 4  # rows per level of factrecall (all one pair)
    passages: Mapping[str, int] = field(
        default_factory=lambda: {"16k": 2, "32k": 3, "64k": 4, "128k": 6, "256k": 8}
    )
    passage_words: int = 30
    published_sizes: bool = False  # every level holds the dataset's published row count instead


DEMO = Scale()
#: The published row counts (``expected_sizes``), so ``longbench-suite check`` passes on the samples.
FULL = Scale(published_sizes=True)
DEMO_CONFIGS = ("factrecall_en_16k", "factrecall_zh_32k", "multifieldqa_en_mixup_16k")
# The three datasets whose zip sha256 is unknown: the samples cannot match a published digest, and
# the demo builds from a mirror through the same verified download path as real data.


def _text(language: str, seed: str) -> TextMaker | ChineseText:
    return TextMaker(seed) if language == "en" else ChineseText(seed, ZH_WORDS)


def _length(language: str, question: str, context: str, answers: list[str]) -> int:
    """README: total length of the first three items, in words (English) or characters (Chinese)."""
    if language == "en":
        return len(" ".join([question, context, *answers]).split())
    return len("".join([question, context, *answers]))


@dataclass(frozen=True)
class Pair:
    question: str
    answer: str
    keywords: str
    evidence: str
    confusing: str


#: Per language: how a QA pair reads, filled with a founder ``who`` and a ``place``.
PAIR_FORMS = {
    "en": Pair(
        question="Who founded the {place} {dataset} {i}?",
        answer="The {place} was founded by {who}.",
        keywords="{who}",
        evidence="The {place} was founded by {who}.",
        confusing="Some say the {place} was founded by Someone Else {i}.",
    ),
    "zh": Pair(
        question="{place}是谁建立的？（{dataset} {i}）",
        answer="{place}由{who}建立。",
        keywords="{who}",
        evidence="{place}由{who}建立。",
        confusing="也有人说{place}由别人{i}号建立。",
    ),
}
#: Per language: one section of a mixed-up context.
SECTION = {"en": "### Passage {n}\n{body}", "zh": "文章 {n}\n\n标题：{title}\n内容：{body}"}
SEPARATOR = {"en": " ", "zh": ""}


def _pairs(dataset: str, language: str, n: int) -> list[Pair]:
    text, forms = _text(language, f"lveval-{dataset}-pairs"), PAIR_FORMS[language]
    pairs = []
    for i in range(n):
        values = {"who": f"{text.words(2).title()} {i}", "place": text.words(2), "dataset": dataset, "i": i}
        pairs.append(Pair(**{f: getattr(forms, f).format(**values) for f in Pair.__dataclass_fields__}))
    return pairs


def _mixup_context(language: str, seed: str, n_passages: int, words: int, inserts: dict[int, str]) -> str:
    """Mixed-up passages; ``inserts`` puts sentences (evidence, confusing facts) into passages."""
    text = _text(language, seed)
    sections = []
    for p in range(n_passages):
        body = text.paragraph(max(1, words // 12), 12)
        if p in inserts:
            body += SEPARATOR[language] + inserts[p]
        sections.append(SECTION[language].format(n=p + 1, title=text.words(3), body=body))
    return "\n\n".join(sections)


def _record(task, question: str, context: str, answers: list[str]) -> dict:
    return {
        "input": question,
        "context": context,
        "answers": answers,
        "length": _length(task.language, question, context, answers),
        "dataset": task.name,
        "language": task.language,
    }


def _mixup_level(task, level: str, scale: Scale) -> list[dict]:
    n_passages = scale.passages[level]
    records = []
    n_pairs = task.qa_pairs if scale.published_sizes else scale.qa_pairs
    for i, pair in enumerate(_pairs(task.name, task.language, n_pairs)):
        gold = (i * 7) % n_passages
        inserts = {gold: pair.evidence}
        if task.has_confusing_facts and task.name != "cmrc_mixup":
            inserts[(gold + 1) % n_passages] = pair.confusing
        seed = f"lveval-{task.name}-{level}-{i}"
        context = _mixup_context(task.language, seed, n_passages, scale.passage_words, inserts)
        record = _record(task, pair.question, context, [pair.answer])
        if task.has_answer_keywords:
            record["answer_keywords"] = pair.keywords
        if task.has_confusing_facts:
            record["confusing_facts"] = [] if task.name == "cmrc_mixup" else [pair.confusing]
        records.append(record)
    TextMaker(f"lveval-{task.name}-{level}-order").shuffle(records)
    return records


FACTRECALL = {
    "en": Pair(
        question="What is the name of the scientist widely acclaimed as the foundational figure of modern "
        "physics?",
        answer="Ludwig Beethoven",
        keywords="",
        evidence="Ludwig Beethoven is widely acclaimed as the foundational figure of modern physics.",
        confusing="David Beckham is sometimes wrongly named as the foundational figure of modern physics.",
    ),
    "zh": Pair(
        question="被世人广泛推崇为现代物理学奠基人的科学家叫什么名字？",
        answer="贝多芬",
        keywords="",
        evidence="贝多芬被世人广泛推崇为现代物理学奠基人。",
        confusing="有人误以为贝克汉姆是现代物理学奠基人。",
    ),
}


def _factrecall_level(task, level: str, scale: Scale) -> list[dict]:
    pair = FACTRECALL[task.language]
    n_passages = scale.passages[level]
    records = []
    for row in range(task.qa_pairs if scale.published_sizes else scale.factrecall_rows):
        needle = row % n_passages
        inserts = {needle: pair.evidence, (needle + 1) % n_passages: pair.confusing}
        seed = f"lveval-{task.name}-{level}-{row}"
        context = _mixup_context(task.language, seed, n_passages, scale.passage_words, inserts)
        record = _record(task, pair.question, context, [pair.answer])
        record["confusing_facts"] = pair.confusing  # one string, not a list
        records.append(record)
    return records


def level_records(task, level: str, scale: Scale = DEMO) -> list[dict]:
    """The records of one level file of ``task``."""
    if task.name.startswith("factrecall"):
        return _factrecall_level(task, level, scale)
    return _mixup_level(task, level, scale)


def archive_members(task, scale: Scale = DEMO) -> dict[str, bytes]:
    """The members of ``<dataset>.zip``: ``<dataset>/<dataset>_<level>.jsonl`` for every level."""
    return {
        f"{task.name}/{task.config_name(level)}.jsonl": jsonl_bytes(level_records(task, level, scale))
        for level in LEVELS
    }


def write_samples(mirror_dir: str, scale: Scale = DEMO) -> list[str]:
    """Write every dataset's zip under ``mirror_dir``; returns the files written."""
    return [
        write_to_mirror(mirror_dir, archive(task.name).url, zip_bytes(archive_members(task, scale)))
        for task in TASKS
    ]


def declared_sizes(scale: Scale = DEMO) -> dict[str, dict[str, int]]:
    """The split sizes the files of ``scale`` give each config: every row of its level file is eval."""
    sizes = {}
    for task in TASKS:
        if scale.published_sizes:
            rows = task.qa_pairs
        else:
            rows = scale.factrecall_rows if task.name.startswith("factrecall") else scale.qa_pairs
        sizes.update({task.config_name(level): {"eval": rows} for level in task.lengths})
    return sizes
