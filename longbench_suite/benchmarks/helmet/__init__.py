"""The HELMET-derived training & evaluation benchmark (``docs/helmet.md``, ``docs/helmet-derived.md``)."""

from longbench_suite.builder import builder_class
from longbench_suite.task import Benchmark

from .common import FEATURES
from .tasks import TASKS

CITATION = """@inproceedings{yen2025helmet,
  title={HELMET: How to Evaluate Long-Context Language Models Effectively and Thoroughly},
  author={Howard Yen and Tianyu Gao and Minmin Hou and Ke Ding and Daniel Fleischer and Peter Izsak
          and Moshe Wasserblat and Danqi Chen},
  booktitle={International Conference on Learning Representations (ICLR)},
  year={2025}
}"""

BENCHMARK = Benchmark(
    name="helmet",
    tasks=TASKS,
    features=FEATURES,
    description=(
        "A training & evaluation benchmark derived from HELMET: every task at 8k-128k tokens, with "
        "`eval` = HELMET's evaluation instances and `dev` = the remaining upstream instances."
    ),
    homepage="https://github.com/princeton-nlp/HELMET",
    citation=CITATION,
    license="MIT (HELMET code); the data inherit the licences of their sources",
    declared_columns={"task": "name", "max_new_tokens": "max_new_tokens"},
    # HELMET's categories, in the order its results table reports them (scripts/collect_results.py)
    categories=("Recall", "RAG", "ICL", "Cite", "Re-rank", "LongQA", "Summ"),
    generated_card=(
        "## Generated configs\n\n"
        "These configs are generated, not read from upstream files: fresh rows that fit their budget "
        "under the tokenizer named (the `helmet` recipe: `max_length − max_new_tokens`, as HELMET fits "
        "its rows; the `ruler` recipe: RULER's own rule and draws), scored with the matching task's "
        "metric. The same generator, options, length and tokenizer give the same rows byte for byte. "
        "Screened (the default), a `helmet`-recipe row shares no key, value or needle with the `eval` rows "
        "of the task it avoids, at any of its lengths (`longbench-suite check CONFIG` with the same "
        "`--generate` options verifies it); RULER's recipe makes RULER's draws and skips a row whose asked "
        "key or answer is such a string, but not its distractor needles; `screen=false` screens nothing "
        "(rows may share keys with HELMET's eval). They have a `dev` split only."
    ),
)

Builder = builder_class(BENCHMARK, __name__)
