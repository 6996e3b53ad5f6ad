"""Build a config, generate its eval predictions with a model, and score them: the three steps.

    python examples/predict.py nq_8k --endpoint http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-7B-Instruct
    python examples/predict.py nq_8k --backend transformers --model ./my-small-model

Each row goes to the model as its benchmark sends it (chat user turn or raw completion, the task's
generation length, stop strings and greedy decoding); predictions land in
OUTPUT/<benchmark>/<config>.eval.jsonl, which an interrupted run resumes. Then the official metrics,
and OUTPUT/results.md, results.json and scores.png.
"""

from __future__ import annotations

import argparse

from longbench_suite import get_builder, prepare
from longbench_suite.demo import offline_options
from longbench_suite.errors import SuiteError
from longbench_suite.predict import predict


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("configs", nargs="+")
    parser.add_argument("--model", required=True, help="the server's model name, or a local model directory")
    parser.add_argument("--endpoint", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--backend", default="openai", choices=["openai", "transformers"])
    parser.add_argument("--output", default="predictions")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--demo", action="store_true", help="build offline from sample data")
    parser.add_argument("--cache-dir")
    args = parser.parse_args(argv)
    options = offline_options(args.cache_dir) if args.demo else {"cache_dir": args.cache_dir}

    # 1. build (predict would build too; doing it first shows the step and fails early on bad names)
    prepare([get_builder(name, **options) for name in args.configs])
    # 2. predict and 3. score
    run = predict(
        args.configs,
        args.output,
        model=args.model,
        backend=args.backend,
        endpoint=args.endpoint,
        concurrency=args.concurrency,
        score=True,
        **options,
    )
    for result in run.results:
        print(
            result.config,
            {name: round(value, 2) for name, value in result.headline.items() if value is not None},
        )
    with open(run.reports["markdown"], encoding="utf-8") as f:
        print(f.read())
    return run


if __name__ == "__main__":
    try:
        main()
    except SuiteError as exc:  # bad input or a missing extra: one line, as the CLI shows it
        raise SystemExit(f"predict.py: error: {exc}") from None
