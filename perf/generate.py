"""Generated NIAH rows (``docs/generate.md`` §3): line-summed exact counts vs whole-prompt tokenization.

Run: ``python -m perf.generate [--rows N]``.

RULER's ``niah.py`` tokenizes the whole prompt at every step of its haystack search and for every row.
Both sides here run the same procedure (``recipe="ruler"``: RULER's search, then its rows, one random
stream) under Llama-2 at 32k and 128k tokens, and must produce the same rows:

* **whole prompt**: each candidate counted by ``tokenizers.Tokenizer.encode`` of the whole prompt,
  as RULER does (its ``text_to_tokens``), on one core;
* **the library**: :class:`~longbench_suite.generate.count.PromptCounter` (each distinct line tokenized
  once and remembered; counts summed).

Prints the search (set-up) time and the time per row, and the speed-up. RULER's own script on this
machine is measured separately (``perf/README.md``).
"""

from __future__ import annotations

import argparse
import random
import time

from tokenizers import Tokenizer

from perf.common import llama2_path, table

LENGTHS = {"32k": 32_768, "128k": 131_072}
VARIANTS = ("niah_multikey_2", "niah_single_1")


class WholePrompt:
    """A counter that tokenizes the whole prompt every time (RULER's way)."""

    def __init__(self, path: str) -> None:
        self.raw = Tokenizer.from_file(path)
        self.specials = 1

    def count(self, head: str, lines, tail: str) -> int:
        return len(self.raw.encode(head + "\n".join(lines) + tail).ids)


def run(variant: str, length: int, counter, rows: int) -> tuple[float, float, list[str]]:
    from longbench_suite.benchmarks.helmet.generated import TASKS
    from longbench_suite.generate.niah import VARIANTS as SETTINGS
    from longbench_suite.generate.search import Prompt, Sizer

    task = next(t for t in TASKS if t.name == "gen_niah_multikey_2")
    settings = SETTINGS[variant]
    template = task.render(settings, "ruler")

    def prompt(sample):
        fields = {"type_needle_v": settings.type_needle_v, "query": sample.query, "context": "\x00"}
        head, tail = template.render_completion(fields).split("\x00")
        return Prompt(head, sample.lines, tail)

    sizer = Sizer(settings, prompt, counter, length - 128 + counter.specials, length, 42)
    rng = random.Random(42)
    start = time.perf_counter()
    size = sizer.search(rng)
    setup = time.perf_counter() - start
    start = time.perf_counter()
    made = [sizer.row(rng, size).prompt.text for _ in range(rows)]
    return setup, (time.perf_counter() - start) / rows, made


def main(rows: int = 5) -> list:
    from longbench_suite.fit.tokenizers import load_tokenizer
    from longbench_suite.generate.count import PromptCounter

    path = llama2_path()
    out = []
    for variant in VARIANTS:
        for name, length in LENGTHS.items():
            base = run(variant, length, WholePrompt(path), rows)
            ours = run(variant, length, PromptCounter(load_tokenizer(path)), rows)
            assert base[2] == ours[2], f"rows differ: {variant} {name}"
            out.append(
                [
                    variant,
                    name,
                    f"{base[0]:.2f}",
                    f"{base[1]:.3f}",
                    f"{ours[0]:.2f}",
                    f"{ours[1]:.4f}",
                    f"{base[1] / ours[1]:.1f}x",
                ]
            )
    header = [
        "variant",
        "length",
        "whole: search s",
        "whole: s/row",
        "lib: search s",
        "lib: s/row",
        "per row",
    ]
    print(table(out, header))
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m perf.generate")
    parser.add_argument("--rows", type=int, default=5)
    main(parser.parse_args().rows)
