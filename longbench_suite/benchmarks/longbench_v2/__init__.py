"""LongBench v2 (``docs/longbench-v2.md``): its 503 questions in ``pred.py``'s prompt modes, cut as
``pred.py`` cuts them at prompt-token budgets, or uncut."""

from longbench_suite.builder import builder_class
from longbench_suite.task import Benchmark

from .tasks import FEATURES, TASKS

CITATION = """@article{bai2024longbench2,
  title={LongBench v2: Towards Deeper Understanding and Reasoning on Realistic Long-context Multitasks},
  author={Yushi Bai and Shangqing Tu and Jiajie Zhang and Hao Peng and Xiaozhi Wang and Xin Lv and
          Shulin Cao and Jiazheng Xu and Lei Hou and Yuxiao Dong and Jie Tang and Juanzi Li},
  journal={arXiv preprint arXiv:2412.15204},
  year={2024}
}"""

BENCHMARK = Benchmark(
    name="longbench_v2",
    tasks=TASKS,
    features=FEATURES,
    description=(
        "LongBench v2's 503 four-choice questions in pred.py's prompt modes (0shot, cot, no_context), the "
        "whole prompt cut in the middle as pred.py cuts it at prompt-token budgets 15000-240000 or uncut; "
        "`eval` = every question in file order, no `dev`."
    ),
    homepage="https://github.com/THUDM/LongBench",
    citation=CITATION,
    license="apache-2.0 (the Hub dataset's card)",
    declared_columns={"max_new_tokens": "max_new_tokens"},
    categories=("Multiple choice",),
    # rows of the full configs hold whole documents of up to ~12 MB: Arrow is written a few rows at a time
    writer_batch_size=8,
)

Builder = builder_class(BENCHMARK, __name__)
