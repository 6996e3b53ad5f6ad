"""Write the synthetic, seeded inputs RULER's task scripts read, in RULER's own file layouts.

RULER's ``scripts/data/synthetic/json/`` holds four files the task scripts open:

- ``squad.json``: SQuAD v2.0 dev (``{"version", "data": [{"title", "paragraphs": [{"qas": [...],
  "context"}]}]}``; each qa ``{"question", "id", "answers": [{"text", "answer_start"}],
  "is_impossible"}``, impossible ones led by ``"plausible_answers"``), read by ``qa.py --dataset squad``;
- ``hotpotqa.json``: HotpotQA dev distractor (a list of ``{"_id", "answer", "question",
  "supporting_facts": [[title, sentence_index]], "context": [[title, [sentences]]], "type", "level"}``,
  sentences after the first starting with a space, as in the real file), read by ``qa.py --dataset hotpotqa``;
- ``PaulGrahamEssays.json``: ``{"text": ...}``, read by ``niah.py`` (and ``variable_tracking.py``'s
  essay mode); here the seeded essay of ``tests/upstream/ruler_niah/essay.json.gz``, byte for byte;
- ``english_words.json``: ``{"0": word, "1": word, ...}`` written by ``json.dump`` with its default
  separators (the layout of RULER's LFS-stored file, ~370k words of which ``common_words_extraction.py``
  takes ``list(json.load(f).values())``), read unconditionally and used only when a list needs more
  words than wonderwords has (about 64k tokens up).

None of them is the real data: the texts are made here from small word pools with a fixed seed (no
licence question, same bytes every time), sized like the real files where RULER's code depends on it
(paragraphs short enough that ten documents fit in 2048 tokens, since ``qa.py`` loops forever
otherwise; articles of 16 paragraphs so both of qa.py's distractor branches run at 2048 and 8192;
duplicated paragraphs and shared HotpotQA documents for RULER's de-duplication; several gold spans
per SQuAD question; some non-ASCII text for RULER's ``ensure_ascii`` output). Written gzip-compressed
with ``mtime=0`` into ``inputs/`` beside this file:

    python tests/upstream/ruler/make_inputs.py      # any Python 3.10+, standard library only
"""

from __future__ import annotations

import gzip
import json
import random
import string
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cases import INPUTS, write_gzip  # noqa: E402

ESSAY = HERE.parent / "ruler_niah" / "essay.json.gz"

SYLLABLES = ["ka", "lo", "mer", "vin", "tra", "sel", "dor", "ban", "qui", "zel", "ro", "pha", "nu", "gal"]
SYLLABLES += ["ber", "ti", "os", "lan", "cre", "mon", "hu", "sta", "vel", "ari", "ché", "ün", "ya", "por"]
PLACES = ["city", "valley", "river", "island", "province", "harbour", "university", "monastery"]
ROLES = ["architect", "composer", "general", "bishop", "chemist", "merchant", "poet", "engineer"]
VERBS = ["founded", "rebuilt", "described", "conquered", "studied", "governed", "mapped", "painted"]
NOUNS = ["treaty", "cathedral", "railway", "dynasty", "observatory", "canal", "charter", "festival"]
FILLERS = [
    "The records from that period are incomplete.",
    "Several historians have disputed this account.",
    "It remained the largest of its kind for decades.",
    "Its population grew steadily after the war.",
    "Local tradition gives a different date.",
    "The original documents were lost in a fire.",
    "Visitors still come to see the restored buildings.",
    "Trade with the neighbouring regions expanded quickly.",
    "A second edition followed a few years later.",
    "The name is thought to come from an older dialect.",
]


def name(rng: random.Random, parts: int = 2) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()


def person(rng: random.Random) -> str:
    return f"{name(rng)} {name(rng, 3)}"


class Facts:
    """Seeded facts about made-up entities; each fact is a sentence plus the spans it can answer."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def fact(self, subject: str) -> tuple[str, str, list[str]]:
        """(sentence, question, gold spans) about ``subject``."""
        rng = self.rng
        kind = rng.randrange(4)
        if kind == 0:
            year = str(rng.randint(1050, 1990))
            who = person(rng)
            return (
                f"In {year}, {who} {rng.choice(VERBS)} the {rng.choice(NOUNS)} of {subject}.",
                f"In what year did {who} act on the {subject} project?",
                [year, f"in {year}", year],
            )
        if kind == 1:
            role = rng.choice(ROLES)
            who = person(rng)
            return (
                f"The {role} {who} was born in {subject} and later moved to {name(rng)}.",
                f"Which {role} was born in {subject}?",
                [who, f"the {role} {who}", who.split()[-1]],
            )
        if kind == 2:
            count = rng.randint(3, 900)
            place = rng.choice(PLACES)
            return (
                f"By the census, {subject} counted {count} {place} districts — more than “{name(rng)}”.",
                f"How many {place} districts did {subject} count?",
                [str(count), f"{count} {place} districts"],
            )
        other = name(rng, 3)
        return (
            f"{subject} lies north of {other}, across the {rng.choice(PLACES)} road.",
            f"What lies south of {subject}?",
            [other, other, f"{other}, across the road"],
        )

    def paragraph(self, subject: str, words: tuple[int, int]) -> tuple[str, list[tuple[str, list[str]]]]:
        """A paragraph of ``words`` words (about) on ``subject`` and its (question, spans) pairs."""
        rng = self.rng
        target = rng.randint(*words)
        sentences, questions = [], []
        while sum(len(s.split()) for s in sentences) < target:
            if rng.random() < 0.45:
                sentence, question, spans = self.fact(subject)
                sentences.append(sentence)
                questions.append((question, spans))
            else:
                sentences.append(rng.choice(FILLERS))
        return " ".join(sentences), questions


def squad(rng: random.Random, articles: int = 32, paragraphs: int = 16) -> dict:
    facts = Facts(rng)
    data, earlier = [], []
    for a in range(articles):
        title = name(rng, 3)
        subject = f"{title} {rng.choice(PLACES)}".title()
        items = []
        for p in range(paragraphs):
            context, questions = facts.paragraph(subject, (40, 90))
            if earlier and rng.random() < 0.02:
                context, questions = rng.choice(earlier)  # the same paragraph in two articles
            earlier.append((context, questions))
            qas = []
            for q, (question, spans) in enumerate(questions):
                spans = [s for s in spans if s in context] or [context.split(".")[0]]
                qid = f"{a:04x}{p:04x}{q:04x}" + "".join(rng.choices("0123456789abcdef", k=12))
                answers = [{"text": s, "answer_start": context.index(s)} for s in spans[: rng.randint(1, 3)]]
                if rng.random() < 0.25:
                    qas.append(
                        {
                            "plausible_answers": answers[:1],
                            "question": question.replace("What", "Which later"),
                            "id": qid,
                            "answers": [],
                            "is_impossible": True,
                        }
                    )
                else:
                    qas.append({"question": question, "id": qid, "answers": answers, "is_impossible": False})
            items.append({"qas": qas, "context": context})
        data.append({"title": title, "paragraphs": items})
    return {"version": "v2.0", "data": data}


def hotpotqa(rng: random.Random, questions: int = 520, pool: int = 700) -> list[dict]:
    facts = Facts(rng)
    documents = []  # (title, sentences, [(question, spans, sentence index)])
    for _ in range(pool):
        title = f"{name(rng, 3)} ({rng.choice(NOUNS)})" if rng.random() < 0.3 else person(rng)
        text, pairs = facts.paragraph(title, (20, 45))
        sentences = [s if i == 0 else " " + s for i, s in enumerate(text.split(". "))]
        sentences = [s if s.endswith((".", "”.")) else s + "." for s in sentences[:-1]] + sentences[-1:]
        documents.append((title, sentences, pairs))
    rows = []
    for _ in range(questions):
        chosen = rng.sample(range(pool), 10)
        gold = [documents[i] for i in chosen[:2]]
        kind = "comparison" if rng.random() < 0.25 else "bridge"
        if kind == "comparison":
            question = f"Are {gold[0][0]} and {gold[1][0]} both described in the same record?"
            answer = rng.choice(["yes", "no"])
        else:
            fallback = (f"What is {gold[1][0]} known for?", [gold[1][1][0].split()[0]])
            asked = list(gold[1][2]) or [fallback]
            question, spans = rng.choice(asked)
            answer = spans[0]
        context = [[title, sentences] for title, sentences, _ in (documents[i] for i in chosen)]
        rng.shuffle(context)
        rows.append(
            {
                "_id": "".join(rng.choices(string.hexdigits.lower()[:16], k=24)),
                "answer": answer,
                "question": question,
                "supporting_facts": [[gold[0][0], 0], [gold[1][0], rng.randrange(len(gold[1][1]))]],
                "context": context,
                "type": kind,
                "level": rng.choice(["easy", "medium", "hard"]),
            }
        )
    return rows


def english_words(rng: random.Random, count: int = 24000) -> dict[str, str]:
    letters = [s for s in SYLLABLES if s.isascii()] + ["e", "a", "i", "o", "st", "ng", "th", "er"]
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(2, 5))))
    ordered = sorted(words)
    return {str(i): w for i, w in enumerate(ordered)}


def main() -> None:
    write_gzip(INPUTS / "squad.json.gz", json.dumps(squad(random.Random(33))).encode("utf-8"))
    write_gzip(INPUTS / "hotpotqa.json.gz", json.dumps(hotpotqa(random.Random(34))).encode("utf-8"))
    write_gzip(INPUTS / "english_words.json.gz", json.dumps(english_words(random.Random(35))).encode("utf-8"))
    with gzip.open(ESSAY, "rb") as f:
        write_gzip(INPUTS / "PaulGrahamEssays.json.gz", f.read())
    for path in sorted(INPUTS.glob("*.gz")):
        print(path.name, path.stat().st_size)


if __name__ == "__main__":
    main()
