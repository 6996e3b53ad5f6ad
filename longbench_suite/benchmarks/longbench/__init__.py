"""LongBench and LongBench-E (``docs/longbench.md``): their tasks at LongBench's prompt-token budgets."""

from longbench_suite.builder import builder_class
from longbench_suite.task import Benchmark

from .tasks import FEATURES, TASKS

CITATION = """@inproceedings{bai2024longbench,
  title = "{L}ong{B}ench: A Bilingual, Multitask Benchmark for Long Context Understanding",
  author = "Bai, Yushi and Lv, Xin and Zhang, Jiajie and Lyu, Hongchang and Tang, Jiankai and
            Huang, Zhidian and Du, Zhengxiao and Liu, Xiao and Zeng, Aohan and Hou, Lei and
            Dong, Yuxiao and Tang, Jie and Li, Juanzi",
  booktitle = "Proceedings of the 62nd Annual Meeting of the Association for Computational
               Linguistics (Volume 1: Long Papers)",
  year = "2024",
  pages = "3119--3137",
  url = "https://aclanthology.org/2024.acl-long.172"
}"""

BENCHMARK = Benchmark(
    name="longbench",
    tasks=TASKS,
    features=FEATURES,
    description=(
        f"LongBench ({sum(t.name == t.base for t in TASKS)} tasks) and LongBench-E "
        f"({sum(t.name != t.base for t in TASKS)} tasks, uniform over 0-4k/4-8k/8k+ words) with "
        "LongBench's prompts and middle truncation at prompt-token budgets 3500-127500 or untruncated; "
        "`eval` = the published rows, `dev` = the sibling set's rows this set does not hold."
    ),
    homepage="https://github.com/THUDM/LongBench",
    citation=CITATION,
    license="MIT (LongBench code); the data inherit the licences of their sources",
    declared_columns={"max_new_tokens": "max_new_tokens"},
    # the README leaderboard's categories, in its order
    categories=(
        "Single-Doc QA",
        "Multi-Doc QA",
        "Summarization",
        "Few-shot Learning",
        "Code Completion",
        "Synthetic Tasks",
    ),
)

Builder = builder_class(BENCHMARK, __name__)
