"""All five lengths of a long-document task vs one length, end to end through the builders.

Run: ``python -m perf.multilength [--documents 6 --questions 20]``.

Builds ``narrativeqa_{8k,16k,32k,64k,128k}`` (both splits, Arrow files written, as
``longbench-suite build`` does) from books of ≥ 200k Llama-2 tokens with several questions each, with
Llama-2 for the pre-truncation and the fit, each run in a fresh cache:

* each length alone (``prepare([builder])``);
* all five together (``prepare(five builders)``, one process, as ``longbench-suite build A B C D E``).

Prints wall time, cores busy (CPU time / wall time) and how many characters were tokenized relative
to the books' text, and the ratio all-five / one length (target ≤ 1.5x); asserts that the rows of
every config are identical whichever way it was built.
"""

from __future__ import annotations

import argparse
import tempfile

from perf.common import Timer, builders, forget, llama2_path, offline_environment, table, workdir
from perf.workloads import narrativeqa_sources

LENGTHS = ("8k", "16k", "32k", "64k", "128k")


class Tally:
    """A ``tokenizers.Tokenizer`` stand-in that counts the characters it is asked to tokenize."""

    def __init__(self, tok) -> None:
        self._tok, self.chars = tok, 0

    def _add(self, texts) -> None:
        self.chars += len(texts) if isinstance(texts, str) else sum(len(t) for t in texts)

    def encode(self, text, *args, **kwargs):
        self._add(text)
        return self._tok.encode(text, *args, **kwargs)

    def encode_batch(self, texts, *args, **kwargs):
        self._add(texts)
        return self._tok.encode_batch(texts, *args, **kwargs)

    def encode_batch_fast(self, texts, *args, **kwargs):
        self._add(texts)
        return self._tok.encode_batch_fast(texts, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._tok, name)


def build(lengths, mirror: str, tokenizer: str, counter, tally: Tally) -> tuple[Timer, dict, int]:
    """Prepare ``narrativeqa_<length>`` for ``lengths`` in one fresh cache; returns the timer, every
    config's rows ({config: {split: inputs}}) and the characters tokenized."""
    from longbench_suite import api

    forget(counter)
    tally.chars = 0
    with tempfile.TemporaryDirectory(dir=workdir()) as cache:
        built = builders(
            [f"helmet/narrativeqa_{length}" for length in lengths],
            cache,
            tokenizer=tokenizer,
            pretruncation_tokenizer=tokenizer,
            mirror=mirror,
        )
        with Timer() as timer:
            api.prepare(built)
        rows = {
            b.config.name: {split: list(ds["input"]) for split, ds in b.as_dataset().items()} for b in built
        }
    return timer, rows, tally.chars


def main(documents: int = 6, questions: int = 20, min_tokens: int = 200_000) -> dict:
    offline_environment()
    from longbench_suite.fit.tokenizers import load_tokenizer

    tokenizer = llama2_path()
    counter = load_tokenizer(tokenizer)
    mirror = narrativeqa_sources(documents, questions, min_tokens, counter.count)
    book_chars = sum(
        len(r["document"]["text"]) for r in narrativeqa_books(documents, min_tokens, counter.count)
    )
    tally = Tally(counter.backend)
    counter._tok = tally  # every tokenization of the build goes through the tally
    print(f"{documents} books of ≥ {min_tokens:,} tokens ({book_chars:,} chars), {questions} questions each")

    singles, rows = {}, {}
    for length in LENGTHS:
        timer, built, chars = build([length], str(mirror), tokenizer, counter, tally)
        singles[length] = (timer, chars)
        rows.update(built)
    together, built, chars = build(LENGTHS, str(mirror), tokenizer, counter, tally)
    assert built == rows, "a config's rows differ between building it alone and with the other lengths"
    n_rows = {config: sum(len(v) for v in splits.values()) for config, splits in rows.items()}

    table_rows = [
        [
            f"narrativeqa_{length} alone",
            n_rows[f"narrativeqa_{length}"],
            f"{t.wall:.1f}",
            f"{t.cores:.2f}",
            f"{c / book_chars:.2f}",
        ]
        for length, (t, c) in singles.items()
    ]
    table_rows.append(
        [
            "all five together",
            sum(n_rows.values()),
            f"{together.wall:.1f}",
            f"{together.cores:.2f}",
            f"{chars / book_chars:.2f}",
        ]
    )
    print(table(table_rows, ["build", "rows", "wall (s)", "cores", "chars tokenized / book chars"]))
    one_max = max(t.wall for t, _ in singles.values())
    one_min = min(t.wall for t, _ in singles.values())
    print(
        f"all five / one length: {together.wall / one_max:.2f}x the slowest (128k), "
        f"{together.wall / one_min:.2f}x the fastest (target ≤ 1.5x); rows identical"
    )
    return {"singles": {k: t.wall for k, (t, _) in singles.items()}, "together": together.wall}


def narrativeqa_books(documents: int, min_tokens: int, count) -> list[dict]:
    from perf.common import document

    return [
        {"document": {"text": document(min_tokens, count, seed=f"narrativeqa-book-{d}")}}
        for d in range(documents)
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=6)
    parser.add_argument("--questions", type=int, default=20)
    args = parser.parse_args()
    main(args.documents, args.questions)
