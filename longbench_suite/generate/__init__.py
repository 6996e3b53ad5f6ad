"""Seeded generators of fresh synthetic-recall rows at any length, under any tokenizer (``docs/generate.md``).

- :mod:`.words` — RULER's ``adjective-noun`` key words, indexable without building the 6.2M-word list,
  and its common-words pool;
- :mod:`.niah` — RULER's NIAH variants and one sample drawn with RULER's random calls, in its order;
- :mod:`.search` — RULER's haystack search and per-row retries, on exact incremental token counts;
- :mod:`.count` — exact prompt counts from remembered line counts;
- :mod:`.kv` — JSON KV (HELMET's key-value retrieval) rows;
- :mod:`.qa` — RULER's QA rows (SQuAD, HotpotQA documents around a question), as its ``qa.py`` writes them.
- :mod:`.common_words` — RULER's common-words extraction (``cwe``) records, byte for byte.
"""
