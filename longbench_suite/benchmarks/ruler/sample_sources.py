"""Synthetic copies of RULER's four real sources in their upstream layouts, for the demo and the tests.

Seeded and small; each is written where a mirror keeps its canonical URL (:mod:`.sources`):

- SQuAD 2.0 dev: ``{"version": "v2.0", "data": [{"title", "paragraphs": [{"qas": [{"question", "id",
  "answers": [{"text", "answer_start"}], "is_impossible"}], "context"}]}]}``, unanswerable questions
  with ``plausible_answers`` and no answers, as in ``dev-v2.0.json``;
- HotpotQA dev (distractor): a JSON array of ``{"_id", "answer", "question", "supporting_facts",
  "context": [[title, [sentence, ...]], ...], "type", "level"}``, later sentences starting with a space;
- the essays: a Parquet file with one essay a row in a ``text`` column (the Hub copy's other columns,
  if any, are not known here and not read);
- ``english_words.json``: a JSON object whose values are the words (RULER reads its values only; the
  real file's keys are not known here).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from longbench_suite.samplefiles import TextMaker, json_bytes, write_to_mirror

from .sources import ENGLISH_WORDS, ESSAYS, HOTPOTQA, SQUAD


@dataclass(frozen=True)
class Scale:
    articles: int = 4  # SQuAD articles
    paragraphs: int = 5  # per article
    questions: int = 3  # per paragraph; every third one is unanswerable
    hotpot_questions: int = 40
    hotpot_paragraphs: int = 10  # per question (two gold, the rest distractors)
    hotpot_titles: int = 4  # distinct paragraphs per question (upstream: about 9); they recur
    essays: int = 6
    essay_paragraphs: int = 20
    words: int = 400


DEMO = Scale()


def squad_document(scale: Scale = DEMO, seed: str = "ruler-squad") -> dict:
    text = TextMaker(seed)
    articles = []
    number = 0
    for a in range(scale.articles):
        paragraphs = []
        for _p in range(scale.paragraphs):
            context = text.paragraph(5, 14)
            qas = []
            for _q in range(scale.questions):
                number += 1
                words = context.split()
                start = text.randint(0, len(words) - 3)
                span = " ".join(words[start : start + text.randint(1, 3)]).rstrip(".")
                question = f"Which {text.words(1)} {text.words(3)} {number}?"
                qid = f"{number:024x}"
                answers = [{"text": span, "answer_start": context.find(span)}]
                if number % 3 == 0:
                    qas.append(
                        {
                            "plausible_answers": answers,
                            "question": question,
                            "id": qid,
                            "answers": [],
                            "is_impossible": True,
                        }
                    )
                    continue
                second = text.choice([span, span.split()[0]])
                answers.append({"text": second, "answer_start": context.find(second)})
                qas.append({"question": question, "id": qid, "answers": answers, "is_impossible": False})
            paragraphs.append({"qas": qas, "context": context})
        articles.append({"title": f"Article_{a}", "paragraphs": paragraphs})
    return {"version": "v2.0", "data": articles}


def hotpotqa_records(scale: Scale = DEMO, seed: str = "ruler-hotpotqa") -> list[dict]:
    text = TextMaker(seed)
    pool = [f"Title {i} {text.words(2).title()}" for i in range(scale.hotpot_questions * scale.hotpot_titles)]
    records = []
    for q in range(scale.hotpot_questions):
        titles = []
        while len(titles) < scale.hotpot_paragraphs:  # paragraphs recur across questions, as upstream
            title = text.choice(pool)
            if title not in titles:
                titles.append(title)
        context = []
        for title in titles:
            sentences = [TextMaker(f"{seed}-{title}-{s}").sentence(10) for s in range(3)]
            context.append([title, [sentences[0], *(" " + s for s in sentences[1:])]])
        answer = text.words(2)
        records.append(
            {
                "_id": f"5a{q:022x}",
                "answer": answer,
                "question": f"What {text.words(4)} of {titles[0]} and {titles[1]}?",
                "supporting_facts": [[titles[0], 0], [titles[1], 1]],
                "context": context,
                "type": text.choice(["bridge", "comparison"]),
                "level": text.choice(["easy", "medium", "hard"]),
            }
        )
    return records


def essays_parquet(scale: Scale = DEMO, seed: str = "ruler-essays") -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    text = TextMaker(seed)
    paragraphs = scale.essay_paragraphs
    essays = ["\n\n".join(text.paragraph(6, 16) for _ in range(paragraphs)) for _ in range(scale.essays)]
    out = io.BytesIO()
    pq.write_table(pa.table({"text": essays}), out)
    return out.getvalue()


def english_words(scale: Scale = DEMO, seed: str = "ruler-words") -> dict[str, str]:
    """Distinct words keyed by their position (``{"0": word, ...}``; RULER reads only the values)."""
    text = TextMaker(seed)
    words: dict[str, None] = {}
    while len(words) < scale.words:
        words[text.words(1) + "".join(text.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(3))] = None
    return {str(i): word for i, word in enumerate(words)}


def write_sources(mirror: str, scale: Scale = DEMO) -> list[str]:
    """The four sources at ``scale`` in ``mirror`` (``MIRROR/HOST/PATH``); returns their paths."""
    return [
        write_to_mirror(mirror, SQUAD.url, json_bytes(squad_document(scale))),
        write_to_mirror(mirror, HOTPOTQA.url, json_bytes(hotpotqa_records(scale))),
        write_to_mirror(mirror, ESSAYS.url, essays_parquet(scale)),
        write_to_mirror(mirror, ENGLISH_WORDS.url, json_bytes(english_words(scale))),
    ]
