"""Writes the synthetic LongBench v2 ``data.json`` the fixtures were recorded on (upstream's layout: one JSON
array of items with ``_id, domain, sub_domain, difficulty, length, question, choice_A..D, answer, context``).

Seeded, so the same bytes every time: ``python make_data.py OUT_DIR`` writes OUT_DIR/data.json.
Items Q04, Q05 and Q09 are long enough to be cut at upstream's 120000-token budget (Q05 only under Llama-2,
whose tokens are shorter); the others carry the edge cases listed in README.md.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ter",
    "son",
    "and",
    "the",
    "of",
    "ing",
    "pre",
    "ver",
    "al",
    "ro",
    "na",
    "dis",
    "ment",
    "ly",
    "tion",
    "qua",
    "bel",
    "or",
    "est",
    "im",
    "un",
    "ra",
    "pe",
]
CJK = "长文本理解测试数据集中的问题与答案模型评估上下文窗口龘齉爩"
EMOJI = "😀🧪📚🚀🦙"


def _words(rng: random.Random, n: int, vocabulary: list[str], sprinkle: str = "") -> str:
    out = []
    for i in range(n):
        word = rng.choice(vocabulary)
        if sprinkle and rng.random() < 0.08:
            word += "".join(rng.choice(sprinkle) for _ in range(rng.randint(1, 3)))
        out.append(word)
        if i % 17 == 16:
            out[-1] += rng.choice([".", ",", "?", "’s", ";"])
        if i % 211 == 210:
            out[-1] += "\n\n"
    return " ".join(out)


def _item(
    n: int, domain: str, sub: str, difficulty: str, length: str, answer: str, context: str, **extra
) -> dict:
    item = {
        "_id": hashlib.sha1(f"lb2-fixture-{n}".encode()).hexdigest()[:24],
        "domain": domain,
        "sub_domain": sub,
        "difficulty": difficulty,
        "length": length,
        "question": f"Q{n:02d}: which statement does the text support?",
        "choice_A": f"The first claim of item {n}.",
        "choice_B": f"The second claim of item {n}.",
        "choice_C": f"The third claim of item {n}.",
        "choice_D": f"The fourth claim of item {n}.",
        "answer": answer,
        "context": context,
    }
    item.update(extra)
    return item


def make_items() -> list[dict]:
    rng = random.Random(20241127)
    vocabulary = ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3))) for _ in range(400)]
    vocabulary += ["don’t", "it’s", "O’Neil", "naïve", "café", "Straße"]
    specials = "<s> </s> <unk> <|endoftext|> <|endofprompt|>"

    def words(n: int, sprinkle: str = "") -> str:
        return _words(rng, n, vocabulary, sprinkle)

    items = [
        _item(1, "Single-Document QA", "Academic", "easy", "short", "A", words(400)),
        _item(
            2,
            "Single-Document QA",
            "Literary",
            "hard",
            "short",
            "B",
            "\n\n  \t"
            + words(150)
            + " literal $Q$ and $C_A$ and $C_D$ and $DOC$ and $COT$ inside the document. "
            + "Curly quote ’ and CJK "
            + CJK[:12]
            + " "
            + words(150)
            + "  \n\n",
            question="  Q02: does the text mention $C_B$, $DOC$ or $COT$ in the question’s own words?\n ",
            choice_A="\t Yes, it says $Q$ literally. ",
            choice_B=" No, it says $C_C$ instead.\n",
            choice_C="  It says 中文 only.  ",
            choice_D="\nNone of the above.",
        ),
        _item(
            3,
            "Multi-Document QA",
            "Financial",
            "easy",
            "medium",
            "C",
            words(200) + f" {specials} " + words(200) + " <s>start</s> <|endoftext|>",
            question="Q03: what follows </s> in <s> the text?",
        ),
        # long: cut under both tokenizers; special-token literals near both ends (kept by the cut)
        _item(
            4,
            "Long In-context Learning",
            "Many-shot learning",
            "hard",
            "long",
            "D",
            f"{specials} "
            + words(9000)
            + " "
            + words(52000, EMOJI + CJK)
            + " "
            + words(9000)
            + f" {specials}",
        ),
        # long: ~124k Llama-2 tokens but ~113k o200k tokens, so cut under Llama-2 only
        _item(
            5, "Long-dialogue History Understanding", "Agent history QA", "easy", "long", "A", words(60000)
        ),
        _item(6, "Code Repository Understanding", "Code repo QA", "hard", "medium", "B", words(300)),
        _item(7, "Long Structured Data Understanding", "Table QA", "easy", "short", "C", words(300)),
        _item(8, "Multi-Document QA", "News", "hard", "medium", "B", words(300)),
        # long, CJK and emoji throughout, so the middle cut falls inside multi-byte text
        _item(
            9,
            "Single-Document QA",
            "Legal",
            "hard",
            "long",
            "A",
            "".join(rng.choice(CJK + EMOJI + "，。") for _ in range(100000)),
        ),
    ]
    return items


def main(out_dir: str) -> None:
    path = Path(out_dir) / "data.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(make_items(), ensure_ascii=False, indent=1), encoding="utf-8")
    print(path)


if __name__ == "__main__":
    main(sys.argv[1])
