"""Writes english_words.json.gz: a stand-in for RULER's json/english_words.json, in its layout (a JSON
object whose values, in file order, are the words). RULER's own file is a git-LFS object, absent
from its git tree.

The words are the wonderwords pool cwe draws from (nouns, adjectives, verbs: unique, sorted), then
the same title-cased where that makes a new word, ~16,000 in all, so the same bytes every time and
nothing to license. Words this common cost cl100k about 1.5 tokens each, so RULER's cwe reaches
past the 8,166-word pool at 136k tokens, where its rows are then drawn from this list.
"""

import gzip
import json
from pathlib import Path

from wonderwords.random_word import _get_words_from_text_file

lists = ("nounlist.txt", "adjectivelist.txt", "verblist.txt")
pool = sorted({word for name in lists for word in _get_words_from_text_file(name)})
seen, titled = set(pool), []
for word in pool:
    if word.title() not in seen:
        seen.add(word.title())
        titled.append(word.title())
words = {str(i): w for i, w in enumerate(pool + titled)}
with gzip.GzipFile(Path(__file__).with_name("english_words.json.gz"), "wb", mtime=0) as f:
    f.write(json.dumps(words).encode("utf-8"))
