"""Pieces of HELMET's pipeline written from ``helmet.md`` for test references and benchmarks."""

from __future__ import annotations

import hashlib

import numpy as np


def helmet_fit(tok, prompt_template: str, fields: dict, budget: int) -> str:
    """Render; if over ``budget`` tokens, cut the context once at the start of its token ``-overflow``.

    ``tok`` is a ``tokenizers.Tokenizer``; ``prompt_template`` is HELMET's filled-by-``str.format``
    completion prompt (user template + separator + system template).
    """
    prompt = prompt_template.format(**fields)
    n = len(tok.encode(prompt).ids)
    if n <= budget:
        return prompt
    offsets = tok.encode(fields["context"]).offsets
    return prompt_template.format(**{**fields, "context": fields["context"][: offsets[-(n - budget)][0]]})


def narrativeqa_demo(train: list[dict], document_id: str) -> str:
    """load_narrativeqa's two demonstrations of a row, with the per-example seed of HELMET's PR #44.

    ``train`` rows have NarrativeQA's fields (``question.text``, ``answers[].text``).
    """
    seed = (int(hashlib.sha256(document_id.encode("utf-8")).hexdigest(), 16) + 42) % 2**31
    demos = [train[i] for i in np.random.default_rng(seed).permutation(len(train))[:2]]
    items = [f"Question: {d['question']['text']}\nAnswer: {d['answers'][0]['text']}" for d in demos]
    return (
        "For example:\n\n"
        + "\n\n".join(items)
        + "\n\nNow, use the following story to answer the question:\n\n"
    )
