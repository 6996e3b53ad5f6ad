"""Record where LongBench's own ROUGE-L stops scoring long single-sentence pairs, for
``longbench_rouge_boundary.json``.

Run as a script (as upstream runs ``python eval.py``), outside the project, against an unmodified
checkout of THUDM/LongBench, with ``rouge==1.0.1`` installed:

    python tests/upstream/record_longbench_rouge_depth.py CHECKOUT > longbench_rouge_boundary.json

The ``rouge`` package rebuilds the longest common subsequence recursively, one call per word, so how
deep the caller already is decides the longest pair it can score; upstream's ``scorer`` is called
from ``eval.py``'s module level, exactly as this script calls it.
"""

import json
import os
import subprocess
import sys

checkout = sys.argv[1]
sys.path.insert(0, os.path.join(checkout, "LongBench"))
os.chdir(os.path.join(checkout, "LongBench"))
import eval as longbench_eval  # noqa: E402  (upstream's eval.py, whose __main__ block does not run)

WORDS = [f"w{i}" for i in range(2000)]
cases = []
for dataset in ("gov_report", "vcsum"):  # rouge_score, and rouge_zh_score (jieba first)
    for n in range(975, 1000):
        text = " ".join(WORDS[:n])
        score = longbench_eval.scorer(dataset, [text], [[text]], None)
        cases.append({"dataset": dataset, "words": n, "upstream": score})
commit = subprocess.run(["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True, text=True).stdout
json.dump({"longbench_commit": commit.strip(), "cases": cases}, sys.stdout, indent=1)
print()
