"""RULER's QA rows (``qa_1`` SQuAD, ``qa_2`` HotpotQA) by :mod:`longbench_suite.generate.qa` against RULER's
own ``qa.py``, in CPU seconds per row.

Run: ``python -m perf.ruler_qa [--rows N] [--lengths 32k 128k] [--tokenizers llama2 cl100k] [--ruler DIR]``.

Inputs in the upstream layouts at about upstream's shapes, generated once into the work directory by
:mod:`longbench_suite.benchmarks.ruler.sample_sources`: SQuAD with 35 articles of 34 paragraphs (1,190
documents; upstream 1,204) and 5 questions a paragraph; HotpotQA with 7,405 questions of 10 paragraphs
drawn from a pool of ~67k (44,643 distinct documents; upstream: 7,405 questions, ~66k documents),
shorter paragraphs than upstream's, so more of them in a prompt.

RULER's ``scripts/data/synthetic/qa.py`` runs unchanged in its own venv from a copy of the checkout
(``--ruler``, default ``/tmp/ruler_src``; ``--ruler-python``, default ``/work/venv_ruler/bin/python``)
with those files as its ``json/squad.json`` and ``json/hotpotqa.json``, twice: for 1 and for 1 + N
rows (N = 40 at 32k, 12 at 128k); its CPU per row is the difference over N (start-up, reading the
file and the haystack search cancel; its cost per row does not fall with N). The library is timed
the same way in this process (``time.process_time``) over 1 + 499 rows, an eval split: it counts
each document once and remembers it, so its cost per row falls as a build goes on, and a split's
worth is the fair figure. A build's other configs of the same task and tokenizer (other lengths, the
dev split) find the documents counted; the second library figure is such a config's. RULER's figure
includes writing its JSON lines, the library's only making the rows. The rows both make must be the
same, byte for byte.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from perf.common import cl100k_dir, llama2_path, table, workdir

LENGTHS = {"32k": 32_768, "128k": 131_072}
DATASETS = {"qa_1": "squad", "qa_2": "hotpotqa"}
#: RULER's rows timed beyond the first, per length (its 128k rows cost about half a CPU-second each)
ROWS = {"32k": 40, "128k": 12}
#: the library's rows timed beyond the first: a whole eval split's worth, so that counting each
#: document once (the library remembers it, RULER counts it again in every prompt) is spread as in a build
LIBRARY_ROWS = {"32k": 499, "128k": 499}
TEMPLATE = (
    "Answer the question based on the given documents. Only give me the answer and do not output any other "
    "words.\n\nThe following are given documents.\n\n{context}\n\nAnswer the question based on the given "
    "documents. Only give me the answer and do not output any other words.\n\nQuestion: {query} Answer:"
)
ANSWER_PREFIX = " Answer:"
TOKENS_TO_GENERATE = 32


def inputs(root: Path) -> dict[str, Path]:
    """SQuAD and HotpotQA files at upstream's shapes (written once)."""
    from longbench_suite.benchmarks.ruler import sample_sources
    from longbench_suite.benchmarks.ruler.sources import HOTPOTQA, SQUAD
    from longbench_suite.source import mirrored

    mirror = root / "ruler-qa-sources"
    files = {
        "squad": Path(mirrored(SQUAD.url, str(mirror))),
        "hotpotqa": Path(mirrored(HOTPOTQA.url, str(mirror))),
    }
    if not all(path.exists() for path in files.values()):
        scale = sample_sources.Scale(
            articles=35, paragraphs=34, questions=5, hotpot_questions=7405, hotpot_titles=9
        )
        sample_sources.write_sources(str(mirror), scale)
    return files


def ruler_checkout(ruler: Path, root: Path, files: dict[str, Path]) -> Path:
    """A copy of RULER's ``scripts/`` with the inputs where ``qa.py`` reads them."""
    target = root / "ruler-qa-checkout"
    if not (target / "scripts").exists():
        shutil.copytree(ruler / "scripts", target / "scripts")
    json_dir = target / "scripts" / "data" / "synthetic" / "json"
    for name, path in files.items():
        shutil.copyfile(path, json_dir / f"{name}.json")
    return target


def ruler_run(checkout: Path, python: str, tokenizer: tuple[str, str], dataset: str, length: int, rows: int):
    """RULER's qa.py for ``rows`` rows: its CPU seconds (user + system) and its lines."""
    script = checkout / "scripts" / "data" / "synthetic" / "qa.py"
    kind, path = tokenizer
    with tempfile.TemporaryDirectory() as tmp:
        argv = [python, str(script), "--save_dir", tmp, "--save_name", "rows", "--tokenizer_path", path]
        argv += ["--tokenizer_type", kind, "--max_seq_length", str(length), "--tokens_to_generate"]
        argv += [str(TOKENS_TO_GENERATE), "--num_samples", str(rows), "--random_seed", "42"]
        argv += ["--template", TEMPLATE, "--dataset", dataset]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, check=True, cwd=script.parent, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        lines = Path(tmp, "rows", "validation.jsonl").read_text(encoding="utf-8").splitlines()
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), lines


def library_run(counter, source, length: int, rows: int, before=()) -> tuple[float, list[str]]:
    """The library's rows (search, then rows), timed in this process, after calling ``before``
    (untimed); RULER's lines."""
    from longbench_suite.generate import qa

    for call in before:
        call()
    start = time.process_time()
    made = list(
        qa.ruler_rows(
            {},
            counter,
            max_seq_length=length,
            tokens_to_generate=TOKENS_TO_GENERATE,
            template=TEMPLATE,
            answer_prefix=ANSWER_PREFIX,
            num_samples=rows,
            qa=source,
        )
    )
    return time.process_time() - start, [json.dumps(row) for row in made]


def main(
    rows: int | None = None,
    lengths: list[str] | None = None,
    tokenizers: list[str] | None = None,
    ruler: str | None = None,
    ruler_python: str | None = None,
) -> None:
    from longbench_suite.benchmarks.ruler import sources
    from longbench_suite.fit.tokenizers import load_tokenizer
    from longbench_suite.generate import qa
    from perf.generate import ruler_tokenizer_dir

    root = workdir()
    files = inputs(root)
    checkout = ruler_checkout(Path(ruler or "/tmp/ruler_src"), root, files)
    python = ruler_python or "/work/venv_ruler/bin/python"
    cl100k_dir()
    setups = {
        "llama2": (lambda: load_tokenizer(llama2_path()), ("hf", str(ruler_tokenizer_dir(root)))),
        "cl100k": (lambda: load_tokenizer("cl100k_base"), ("openai", "cl100k_base")),
    }
    start = time.perf_counter()
    read = {name: sources.READERS[name](str(path)) for name, path in files.items()}
    print(f"read both QA files in {time.perf_counter() - start:.2f} s (once per build)")
    results = []
    for tokenizer in tokenizers or list(setups):
        load, ruler_tokenizer = setups[tokenizer]
        counter = load()
        for length_name in lengths or list(LENGTHS):
            length, extra = LENGTHS[length_name], rows or ROWS[length_name]
            ours_extra = rows or LIBRARY_ROWS[length_name]
            for task, dataset in DATASETS.items():
                library_run(counter, read[dataset], length, 1)  # warm: imports
                fresh = [qa._COSTS.clear, counter.clear_cache]  # nothing counted by an earlier run
                one, _ = library_run(counter, read[dataset], length, 1, before=fresh)
                many, ours = library_run(counter, read[dataset], length, 1 + ours_extra, before=fresh)
                known_one, _ = library_run(counter, read[dataset], length, 1)  # documents counted
                again, _ = library_run(counter, read[dataset], length, 1 + ours_extra)
                r_one, _ = ruler_run(checkout, python, ruler_tokenizer, dataset, length, 1)
                r_many, theirs = ruler_run(checkout, python, ruler_tokenizer, dataset, length, 1 + extra)
                assert ours[: len(theirs)] == theirs, (
                    f"{task} {tokenizer} {length_name}: RULER's rows differ from the library's"
                )
                mine, upstream = (many - one) / ours_extra, (r_many - r_one) / extra
                known = (again - known_one) / ours_extra
                results.append(
                    [
                        task,
                        tokenizer,
                        length_name,
                        f"{extra}/{ours_extra}",
                        f"{upstream * 1000:.1f}",
                        f"{mine * 1000:.2f}",
                        f"{upstream / max(mine, 1e-9):.0f}x",
                        f"{known * 1000:.2f}",
                        f"{upstream / max(known, 1e-9):.0f}x",
                        f"{r_one:.1f}",
                        f"{one:.2f}",
                    ]
                )
                print(table(results[-1:], HEADER), flush=True)
    print()
    print(table(results, HEADER))


HEADER = [
    "task",
    "tokenizer",
    "length",
    "rows RULER/library",
    "RULER ms/row",
    "library ms/row",
    "ratio",
    "library ms/row, documents counted",
    "ratio",
    "RULER 1 row s",
    "library 1 row s",
]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows", type=int, help="rows timed beyond the first (default 40 at 32k, 12 at 128k)"
    )
    parser.add_argument("--lengths", nargs="+", choices=list(LENGTHS))
    parser.add_argument("--tokenizers", nargs="+", choices=["llama2", "cl100k"])
    parser.add_argument("--ruler", help="a RULER checkout at c3f5e3b (default /tmp/ruler_src)")
    parser.add_argument("--ruler-python", help="a Python with RULER's dependencies")
    options = parser.parse_args()
    main(options.rows, options.lengths, options.tokenizers, options.ruler, options.ruler_python)
