"""Write the essay haystack of the parity cases: ``essay.json.gz``, RULER's ``{"text": ...}`` layout.

RULER's essay haystack is Paul Graham's essays, downloaded from the web (which this machine cannot
reach, and which are not ours to ship). The parity cases need a text only for what RULER does with
one: collapse whitespace, take the first N words (repeating the text past its end), cut sentences
with NLTK's English Punkt and put needles between them. So the text is generated here, seeded and
reproducible, made of plain essay-like sentences with what Punkt decides on: abbreviations (``Dr.``,
``e.g.``, ``U.S.``), initials, decimals, ellipses, quotes and parentheses after a full stop,
questions, exclamations, and paragraph breaks and whitespace runs that RULER collapses. It is about
5,000 words, so the 4096-token cases use a prefix and the 8192-token cases repeat it.

    python tests/upstream/ruler_niah/make_essay.py   # rewrites essay.json.gz (same bytes every time)
"""

import gzip
import json
import random
from pathlib import Path

SUBJECTS = ["The founder", "A startup", "Dr. Lee", "Mr. Brown", "The essay", "Most people", "J. R. Smith"]
SUBJECTS += ["Our team", "An investor", "The U.S. market", "Prof. Adams", "Nobody", "Ms. Green", "It"]
VERBS = ["builds", "learns", "writes", "notices", "avoids", "measures", "ignores", "ships", "explains"]
OBJECTS = ["a product", "the first version", "an idea (e.g. a search engine)", "what users want"]
OBJECTS += ["3.5 times more code", "the St. Louis office", "about 40 pages", "a rule, i.e. a habit"]
OBJECTS += ["the problem at 9 a.m.", "the Inc. filing", "users in the U.K.", "ideas... slowly"]
ENDINGS = [".", ".", ".", ".", "?", "!", '."', ".)", "..."]
TAILS = ["", "", " because it works", " in 2004", " vs. the old way", ", which is rare", " etc"]


def sentence(rng: random.Random) -> str:
    text = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}{rng.choice(TAILS)}"
    end = rng.choice(ENDINGS)
    if end == '."':
        text = '"' + text
    elif end == ".)":
        text = "(" + text
    return text + end


def essay(words: int = 5000, seed: int = 17) -> str:
    rng = random.Random(seed)
    paragraphs, count = [], 0
    while count < words:
        paragraph = " ".join(sentence(rng) for _ in range(rng.randint(2, 7)))
        count += len(paragraph.split())
        paragraphs.append(paragraph + rng.choice(["", " ", "\t"]))
    return "\n\n".join(paragraphs) + "\n"


if __name__ == "__main__":
    target = Path(__file__).with_name("essay.json.gz")
    with gzip.GzipFile(target, "wb", mtime=0) as f:
        f.write(json.dumps({"text": essay()}).encode("utf-8"))
    print(target)
