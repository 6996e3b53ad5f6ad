"""RULER (NVIDIA/RULER): its 13 synthetic tasks at any length, ``eval`` RULER's own rows byte for byte,
``dev`` fresh rows screened against them (``docs/ruler.md``)."""

import datasets

from longbench_suite.builder import builder_class
from longbench_suite.row import features
from longbench_suite.task import Benchmark

from .tasks import CATEGORIES, TASKS

CITATION = """@inproceedings{hsieh2024ruler,
  title={RULER: What's the Real Context Size of Your Long-Context Language Models?},
  author={Cheng-Ping Hsieh and Simeng Sun and Samuel Kriman and Shantanu Acharya and Dima Rekesh and
          Fei Jia and Yang Zhang and Boris Ginsburg},
  booktitle={First Conference on Language Modeling},
  year={2024}
}"""

FEATURES = features(
    task=datasets.Value("string"),
    max_new_tokens=datasets.Value("int32"),
    #: RULER's ``length``: the input's tokens (without special tokens) plus ``tokens_to_generate``
    length=datasets.Value("int64"),
    token_position_answer=datasets.Value("int64"),
    #: what a ``dev`` row may never share with an ``eval`` row, as the screen read it (``check`` reads the
    #: row's ``input`` and ``answers`` again instead)
    screened=datasets.Sequence(datasets.Value("string")),
    metadata=datasets.Value("large_string"),
    chat_template=datasets.Value("string"),
)

BENCHMARK = Benchmark(
    name="ruler",
    tasks=TASKS,
    features=FEATURES,
    description=(
        "RULER's synthetic long-context tasks at 4k-128k tokens and any other length: `eval` = the rows "
        "RULER's own scripts write for the config's tokenizer, `dev` = fresh rows from other seeds."
    ),
    homepage="https://github.com/NVIDIA/RULER",
    citation=CITATION,
    license="Apache-2.0 (RULER code); the QA data CC BY-SA 4.0; the essays carry no licence",
    declared_columns={"task": "name", "max_new_tokens": "max_new_tokens"},
    categories=tuple(dict.fromkeys(CATEGORIES.values())),
    generated_card=(
        "## How each config was built\n\n"
        "What this copy's configs were built with, config by config: the prompt mode, what `eval` and "
        "`dev` are under the build's `generate=` options (the Splits section above describes the "
        "defaults), the essay text of the essay-haystack tasks, and the HotpotQA copy `qa_2` read (the "
        "authors' host, or the pinned Hub copy RULER falls back to), and the `wonderwords` version whose "
        "word lists drew the word keys of the NIAH tasks and CWE's words (another version's lists give "
        "other rows)."
    ),
)

Builder = builder_class(BENCHMARK, __name__)
