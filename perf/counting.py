"""Token counting through fastokens vs tokenizers: a 128k document, and a five-length HELMET build.

Run: ``python -m perf.counting [--repeats 3 --documents 6 --questions 20]``.

1. **Counting one ~128k-token document** with the Llama-2 ``tokenizer.json``: ``tokenizers`` in one
   ``encode`` call; the library's counter with fastokens off (before: pieces on all cores through
   ``encode_batch_fast``); the library's counter with fastokens (after). Tokens per CPU-second of this
   process (all its threads), the best of ``--repeats``, remembered pieces emptied before each; the
   counts must be equal.
2. **End to end**: ``narrativeqa_{8k..128k}`` prepared together (both splits, Arrow files written)
   from the ``multilength`` books, Llama-2 for the pre-truncation and the fit, in a fresh cache, with
   fastokens off and on; the rows must be identical.
"""

from __future__ import annotations

import argparse
import tempfile

from perf.common import Timer, builders, document, forget, llama2_path, offline_environment, table, workdir
from perf.multilength import LENGTHS
from perf.workloads import narrativeqa_sources


def _best(repeats: int, fn, before) -> tuple[Timer, object]:
    best, out = None, None
    for _ in range(repeats):
        before()
        with Timer() as t:
            out = fn()
        if best is None or t.cpu < best.cpu:
            best = t
    return best, out


def counting(repeats: int) -> list[list]:
    from longbench_suite.fit.tokenizers import load_tokenizer

    path = llama2_path()
    counter = load_tokenizer(path)
    assert counter.counting_backend == "fastokens", "fastokens is not installed or its probe failed"
    fast, raw = counter._fast, counter.backend
    text = document(131_072, lambda s: len(raw.encode(s).ids))

    def without_fastokens() -> int:
        counter._fast = None
        try:
            return counter.count(text)
        finally:
            counter._fast = fast

    runs = {
        "tokenizers, one encode call": lambda: len(raw.encode(text).ids),
        "library, fastokens off (before)": without_fastokens,
        "library, fastokens (after)": lambda: counter.count(text),
    }
    results = {label: _best(repeats, fn, lambda: forget(counter)) for label, fn in runs.items()}
    counts = {n for _, n in results.values()}
    assert len(counts) == 1, f"the counts differ: {results}"
    n = counts.pop()
    before = results["library, fastokens off (before)"][0].cpu
    rows = [
        [
            label,
            f"{t.wall:.3f}",
            f"{t.cpu:.3f}",
            f"{n / t.cpu / 1e6:.2f}",
            f"{t.cores:.2f}",
            f"{before / t.cpu:.1f}x",
        ]
        for label, (t, _) in results.items()
    ]
    print(f"one document of {n:,} Llama-2 tokens ({len(text):,} characters)")
    print(table(rows, ["method", "wall (s)", "CPU (s)", "Mtok/CPU-s", "cores", "vs before (CPU)"]))
    return rows


def end_to_end(documents: int, questions: int, min_tokens: int = 200_000) -> None:
    from longbench_suite import api
    from longbench_suite.fit.tokenizers import load_tokenizer

    tokenizer = llama2_path()
    counter = load_tokenizer(tokenizer)  # the object every builder below loads (cached by path)
    fast = counter._fast
    mirror = narrativeqa_sources(documents, questions, min_tokens, counter.count)
    timings, rows = {}, {}
    for label, backend in (("fastokens off (before)", None), ("fastokens (after)", fast)):
        counter._fast = backend
        forget(counter)
        with tempfile.TemporaryDirectory(dir=workdir()) as cache:
            built = builders(
                [f"helmet/narrativeqa_{length}" for length in LENGTHS],
                cache,
                tokenizer=tokenizer,
                pretruncation_tokenizer=tokenizer,
                mirror=str(mirror),
            )
            with Timer() as timer:
                api.prepare(built)
            rows[label] = {
                b.config.name: {s: ds.to_list() for s, ds in b.as_dataset().items()} for b in built
            }
        timings[label] = timer
    counter._fast = fast
    first, second = rows.values()
    assert first == second, "rows differ with fastokens"
    before = timings["fastokens off (before)"]
    n_rows = sum(len(v) for splits in first.values() for v in splits.values())
    print(
        f"narrativeqa at {len(LENGTHS)} lengths, {documents} books of ≥ {min_tokens:,} tokens: {n_rows} rows"
    )
    print(
        table(
            [
                [
                    label,
                    f"{t.wall:.1f}",
                    f"{t.cpu:.1f}",
                    f"{t.cores:.2f}",
                    f"{before.wall / t.wall:.2f}x",
                    f"{before.cpu / t.cpu:.2f}x",
                ]
                for label, t in timings.items()
            ],
            ["build", "wall (s)", "CPU (s)", "cores", "vs before (wall)", "vs before (CPU)"],
        )
    )
    print("rows identical")


def main(repeats: int = 3, documents: int = 6, questions: int = 20) -> None:
    offline_environment()
    counting(repeats)
    end_to_end(documents, questions)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--documents", type=int, default=6)
    parser.add_argument("--questions", type=int, default=20)
    args = parser.parse_args()
    main(args.repeats, args.documents, args.questions)
