"""Seeded generators of fresh synthetic-recall rows at any length, under any tokenizer (``docs/generate.md``).

- :mod:`.words` — RULER's ``adjective-noun`` key words, indexable without building the 6.2M-word list,
  and its common-words pool;
- :mod:`.niah` — RULER's NIAH variants and one sample drawn with RULER's random calls, in its order;
- :mod:`.search` — RULER's haystack search and per-row retries, on exact incremental token counts;
- :mod:`.count` — exact prompt counts from remembered line counts;
- :mod:`.kv` — JSON KV (HELMET's key-value retrieval) rows;
- :mod:`.qa` — RULER's QA rows (SQuAD, HotpotQA documents around a question), as its ``qa.py`` writes them.
- :mod:`.common_words` — RULER's common-words extraction (``cwe``) records, byte for byte.
- :mod:`.niah_ruler` — RULER's ``niah.py`` end to end (HELMET's ``recipe="ruler"``, the ``ruler``
  benchmark's NIAH tasks); each RULER family module exposes ``ruler_rows`` and ``screen_strings``;
- :mod:`.sentences` — NLTK's English Punkt (the essay haystack; ALCE's citations);
- :mod:`.limits` — what a generated config may ask for (length, rows, essay file).
"""
