"""Record Ada-LEval's own TSort verdicts (``TextSort.evaluate``) for ``adaleval_tsort_verdicts.json``.

Run outside the project, against an unmodified checkout of open-compass/Ada-LEval:

    python tests/upstream/record_adaleval_tsort.py CHECKOUT > tests/upstream/adaleval_tsort_verdicts.json

(Ada-LEval imports pandas, numpy, requests, pillow, matplotlib, seaborn, tabulate, tqdm, portalocker).
Each case is scored alone, so a verdict is upstream's 100.0 / 0.0, or the exception it raised.
"""

import contextlib
import io
import json
import subprocess
import sys

PREDICTIONS = [
    "[4, 1, 3, 2]", "Answer: [4, 1, 3, 2]", "Answer: [4,1,3,2] because", "Answer:[4, 1, 3, 2]",
    "[4, 1]", "[4]", "[]", "{}", '""', '"4132"', '"[4, 1, 3, 2]"', "4132", "4", "null", "true",
    "1.5", "[4.0, 1.0, 3.0, 2.0]", "[true, 1, 3, 2]", "[[4], 1, 3, 2]", '{"4": 1}', '{"a": 1, "b": 2}',
    "[4, 1, 3, 2, 5]", "[1, 2, 3, 4]", "The order is 4, 1, 3, 2.", "4 then 1 then 3 then 2",
    "Answer: 4 1 3 2", "Answer: 4132", "Answer: [4, 1, 3, 2] Answer: [1, 2, 3, 4]",
    "I think 1 2 3 4 or 4 3 2 1", "no idea", "", "Answer:", 'Answer: "4132"', "Answer: {}",
    "[4, 1, 3, 2]\nThat is all.", "  [4, 1, 3, 2]  ", "[2, 1, 3, 4]", "[4, 1, 3]", "[4, \"1\", 3, 2]",
    "NaN", "Infinity", "-1", "[0, 0, 0, 0]", "[\"4\", \"1\", \"3\", \"2\"]", "Answer: 4,1,3,2",
]
GOLDS = [[4, 1, 3, 2], "[4, 1, 3, 2]", [1, 2, 3, 4]]


def main(checkout: str) -> None:
    sys.path.insert(0, checkout)
    import pandas as pd
    from ada_leval.dataset import TextSort

    scorer = object.__new__(TextSort)
    scorer.setting = "1k"
    cases = []
    for gold in GOLDS:
        for prediction in PREDICTIONS:
            frame = pd.DataFrame({"prediction": [prediction], "answer": [gold]})
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    verdict = scorer.evaluate(frame)
            except Exception as error:  # upstream's crash is the recorded fact
                verdict = f"crash: {type(error).__name__}"
            cases.append({"prediction": prediction, "answer": gold, "upstream": verdict})
    commit = subprocess.run(
        ["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    json.dump({"ada_leval_commit": commit or None, "cases": cases}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
