"""The record every RULER script writes to its ``validation.jsonl``, keys in RULER's order."""

from __future__ import annotations

from collections.abc import Sequence


def cut_at_prefix(text: str, answer_prefix: str) -> tuple[str, str]:
    """RULER's cut of a prompt at the last occurrence of the answer prefix's first ten characters: the
    ``input`` before it and the ``answer_prefix`` from there."""
    at = text.rfind(answer_prefix[:10])
    return text[:at], text[at:]


def ruler_record(index: int, prompt: str, prefix: str, outputs: Sequence[str], length: int) -> dict:
    """One record: its number (NIAH: where the answer starts), the cut prompt, the gold answers, and the
    prompt's tokens plus ``tokens_to_generate`` (RULER writes it twice)."""
    return {
        "index": index,
        "input": prompt,
        "outputs": list(outputs),
        "length": length,
        "length_w_model_temp": length,
        "answer_prefix": prefix,
    }
