"""A synthetic ``data.json`` in the Hub repo's layout, for ``longbench-suite demo`` and the tests.

The file is what ``THUDM/LongBench-v2`` holds: one JSON array of objects with ``_id``, ``domain``,
``sub_domain``, ``difficulty``, ``length``, ``question``, ``choice_A`` … ``choice_D``, ``answer`` and
``context`` (``docs/longbench-v2.md`` §2), at the pinned revision's URL in a mirror. Its first records
are the cases an exact port must get right: surrounding whitespace on every field (``pred.py`` strips
it), a document quoting ``$Q$`` and ``$C_A$`` (replaced after the document, as upstream), a question
quoting ``$C_B$``, special-token text (``<s>``, ``</s>``, ``<|endoftext|>``), non-ASCII text (Chinese,
U+2019, an emoji outside the BMP), and documents long enough to be cut at the smaller budgets. The
rest are short. ``DEMO`` is a few records; ``FULL`` the published 503.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from longbench_suite.samplefiles import TextMaker, write_to_mirror

from .tasks import DATA, DATA_RECORDS, DIFFICULTIES, LENGTH_LABELS, LETTERS, TASKS

#: upstream's six domains (README), each with a few of its sub-domains
DOMAINS = {
    "Single-Document QA": ("Academic", "Literary", "Legal", "Financial", "Governmental", "Detective"),
    "Multi-Document QA": ("Academic", "Legal", "Financial", "Governmental", "Multi-news"),
    "Long In-context Learning": ("User guide QA", "New language translation", "Many-shot learning"),
    "Long-dialogue History Understanding": ("Agent history QA", "Dialogue history QA"),
    "Code Repository Understanding": ("Code repo QA",),
    "Long Structured Data Understanding": ("Table QA", "Knowledge graph reasoning"),
}


@dataclass(frozen=True)
class Scale:
    records: int
    #: words of the two long documents (the first cut at 16k, the second at 16k and 32k)
    long_words: tuple[int, int] = (20_000, 40_000)
    #: ``json.dumps``' ``ensure_ascii``: upstream's escaping is not known, so both are exercised
    ensure_ascii: bool = False
    indent: int | None = 4


FULL = Scale(DATA_RECORDS, ensure_ascii=True, indent=None)
DEMO = Scale(10)
DEMO_CONFIGS = ("0shot_16k", "cot_32k", "no_context_full")


def _choices(text: TextMaker) -> dict[str, str]:
    return {f"choice_{x}": text.sentence(6) for x in LETTERS}


def _edge_cases(text: TextMaker, scale: Scale) -> list[dict]:
    """The records every prompt mode must render exactly as ``pred.py`` (see the module docstring)."""
    document = "\n\n".join(text.paragraph(3) for _ in range(4))
    long_docs = ["\n\n".join(text.paragraph(5) for _ in range(words // 60)) for words in scale.long_words]
    return [
        {
            "question": f"  {text.sentence(8)[:-1]}?  \n",
            **{k: f" {v} \n" for k, v in _choices(text).items()},
            "context": f"\n\n   {document}\t \n\n",
        },
        {
            "question": f"Which $C_B$ is meant by {text.words(4)}?",
            **_choices(text),
            "context": f"{document}\nThe form asked: $Q$ and then ($C_A$) or $C_D$.\n{text.paragraph(2)}",
        },
        {
            "question": f"What does the marker <s> mean in {text.words(3)}?",
            **_choices(text),
            "context": f"<s>{document}</s>\nA log line: <|endoftext|> then </s> and <s> again.\n",
        },
        {
            "question": "Which city’s library holds the 《会议纪要》 from 2019?",
            **{**_choices(text), "choice_C": "北京的图书馆 — “the Beijing one” 😀"},
            "context": f"会议纪要：第一章。{document}\nLet’s note: naïve café, Ωmega, 𝔘nicode 😀.\n",
        },
        {"question": text.sentence(9), **_choices(text), "context": long_docs[0]},
        {"question": text.sentence(9), **_choices(text), "context": long_docs[1]},
    ]


def records(scale: Scale = DEMO) -> list[dict]:
    """The records of the sample ``data.json``, in the field order of ``pred.py``'s ``data_all``."""
    text = TextMaker("longbench-v2-samples")
    special = _edge_cases(text, scale)
    domains = [(d, s) for d, subs in DOMAINS.items() for s in subs]
    rows = []
    for i in range(scale.records):
        base = special[i] if i < len(special) else {
            "question": text.sentence(9),
            **_choices(text),
            "context": "\n\n".join(text.paragraph(2) for _ in range(1 + i % 3)),
        }
        domain, sub_domain = domains[i % len(domains)]
        rows.append(
            {
                "_id": f"66{i:022x}",
                "domain": domain,
                "sub_domain": sub_domain,
                "difficulty": DIFFICULTIES[i % 5 < 2],
                "length": LENGTH_LABELS[i % 3],
                "question": base["question"],
                **{f"choice_{x}": base[f"choice_{x}"] for x in LETTERS},
                "answer": LETTERS[(i * 7) % 4],
                "context": base["context"],
            }
        )
    return rows


def data_bytes(scale: Scale = DEMO) -> bytes:
    return json.dumps(records(scale), ensure_ascii=scale.ensure_ascii, indent=scale.indent).encode("utf-8")


def write_samples(mirror_dir: str, scale: Scale = DEMO) -> list[str]:
    """Write the sample ``data.json`` where a mirror keeps the pinned URL; returns the file written."""
    return [write_to_mirror(mirror_dir, DATA.url, data_bytes(scale))]


def declared_sizes(scale: Scale = DEMO) -> dict[str, dict[str, int]]:
    """Every config's ``eval`` holds every record of the file."""
    return {task.config_name(length): {"eval": scale.records} for task in TASKS for length in task.lengths}
