"""Generate predictions for a config's eval split and score them with `longbench-suite score`.

    python examples/score.py nq_32k --model Qwen/Qwen2.5-0.5B-Instruct
    python examples/score.py nq_8k --demo --baseline first-word     # offline: a trivial baseline

Predictions go to a JSON Lines file, one `{"index": i, "prediction": "..."}` per row of the split
(`index` because HELMET RAG repeats a query_id across depth variants). The scorer is the CLI below;
adjust SCORE_COMMAND if its options change.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from longbench_suite import load_dataset
from longbench_suite.demo import offline_options

# `longbench-suite score ...`, run with this interpreter so it finds the installed library.
SCORE_COMMAND = [
    sys.executable, "-m", "longbench_suite.cli",
    "score", "{config}", "--split", "eval", "--predictions", "{predictions}",
]  # fmt: skip


def predict_with_model(rows, model_name: str) -> list[str]:
    """Greedy generation, each row in its task's upstream mode (chat template or plain completion)."""
    from transformers import pipeline

    generate = pipeline("text-generation", model=model_name)
    predictions = []
    for row in rows:
        if row["use_chat_template"]:
            user = row["input"][: len(row["input"]) - len(row["answer_prefix"])]
            prompt = [{"role": "user", "content": user}]
        else:
            prompt = row["input"]
        out = generate(prompt, max_new_tokens=row["max_new_tokens"], do_sample=False, return_full_text=False)
        text = out[0]["generated_text"]
        predictions.append(text if isinstance(text, str) else text[-1]["content"])
    return predictions


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("config")
    parser.add_argument("--model", help="a Hub model id or local path")
    parser.add_argument("--baseline", choices=["first-word"], help="no model: the question's first word")
    parser.add_argument("--limit", type=int, help="only the first N rows (a quick look, not a score)")
    parser.add_argument("--predictions", default="predictions.jsonl")
    parser.add_argument("--no-score", action="store_true", help="only write the predictions")
    parser.add_argument("--demo", action="store_true", help="build offline from sample data")
    parser.add_argument("--cache-dir")
    args = parser.parse_args(argv)
    options = offline_options(args.cache_dir) if args.demo else {"cache_dir": args.cache_dir}

    split = "eval" if args.limit is None else f"eval[:{args.limit}]"
    rows = load_dataset("longbench_suite", args.config, split=split, **options)
    if args.model:
        predictions = predict_with_model(rows, args.model)
    elif args.baseline == "first-word":
        predictions = [(row.get("question") or row["input"]).split()[0] for row in rows]
    else:
        parser.error("give --model or --baseline")

    with open(args.predictions, "w", encoding="utf-8") as f:
        for index, prediction in enumerate(predictions):
            f.write(json.dumps({"index": index, "prediction": prediction}, ensure_ascii=False) + "\n")
    print(f"wrote {len(predictions)} predictions to {args.predictions}")
    if args.limit is not None and not args.no_score:
        print("not scored: --limit gives a partial split, and a score needs every row")
    elif not args.no_score:
        command = [part.format(config=args.config, predictions=args.predictions) for part in SCORE_COMMAND]
        # the scorer rebuilds the split: from the same sources, under the same tokenizer
        for option, value in options.items():
            if value is not None:
                command += [f"--{option.replace('_', '-')}", str(value)]
        if subprocess.run(command).returncode:
            raise SystemExit(2)  # the scorer said why, in one line
    return args.predictions


if __name__ == "__main__":
    main()
