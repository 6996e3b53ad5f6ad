"""``longbench-suite predict``: a split's predictions generated with a model, resumably."""

from __future__ import annotations

import argparse
import sys

from .arguments import STRICT_HELP, build_options, source_options


def add_parser(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "predict",
        help="generate a split's predictions with a model (an OpenAI-compatible server or a local "
        "transformers model), resumably; --score then scores them",
    )
    p.add_argument("configs", nargs="+", metavar="CONFIG", help="config names, e.g. nq_8k or helmet/nq_8k")
    p.add_argument("--model", required=True, help="the server's model name, or a local model directory")
    p.add_argument(
        "--backend",
        choices=("openai", "transformers"),
        default="openai",
        help="openai: any OpenAI-compatible server at --endpoint (vLLM, SGLang, TGI, llama.cpp, OpenAI); "
        "transformers: run --model in-process (small models)",
    )
    p.add_argument("--endpoint", help="the server's base URL, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--api-key", help="the server's key (default: $OPENAI_API_KEY, else none)")
    p.add_argument("--concurrency", type=int, default=8, help="requests in flight (8)")
    p.add_argument(
        "--max-retries", type=int, default=8, help="retries of a request on 429, 5xx, timeouts, resets (8)"
    )
    p.add_argument("--timeout", type=float, default=600.0, help="seconds one request may take (600)")
    p.add_argument("--split", default="eval", help="the split to predict, a whole one (default: eval)")
    p.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="only the first N rows of the split, in its order (a smoke run; a partial split)",
    )
    p.add_argument(
        "--output",
        default="predictions",
        metavar="DIR",
        help="where predictions go, as DIR/<benchmark>/<config>.<split>.jsonl, with DIR/run.json recording "
        "the model and options; a file left by an interrupted run is resumed under the same options "
        "(default: predictions)",
    )
    p.add_argument(
        "--force-new",
        action="store_true",
        help="discard the predictions and results already in DIR (made with other options) and start over",
    )
    p.add_argument(
        "--score",
        action="store_true",
        help="then score: DIR/results.md (tables as each benchmark reports them), results.json, scores.png",
    )
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="with --score and --limit: score the partial split, marked 'partial (N of M rows)'",
    )
    p.add_argument("--strict", action="store_true", help=f"with --score: {STRICT_HELP}")
    p.add_argument("--no-plot", action="store_true", help="with --score: no PNG (needs no matplotlib)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (default: one on a terminal)")
    p.add_argument("--judge-model", help="with --score: the LLM judge's model (HELMET's GPT-4o metrics)")
    p.add_argument(
        "--judge-endpoint", help="with --score: an OpenAI-compatible server for the judge (default: OpenAI)"
    )
    p.add_argument("--nli-model", help="with --score: seq2seq NLI model for HELMET's citation metrics")
    p.add_argument("--nli-endpoint", help="with --score: an OpenAI-compatible server running the NLI model")
    source_options(p)


def run(args: argparse.Namespace) -> int:
    from ..metrics.report import judges_from, results_table
    from ..predict import predict

    judge_key = args.api_key if args.judge_endpoint else None  # never send a local server's key to OpenAI
    judges = judges_from(
        args.judge_model,
        args.nli_model,
        endpoint=args.judge_endpoint,
        api_key=judge_key,
        nli_endpoint=args.nli_endpoint,
    )
    try:
        run = _run_predict(args, predict, judges)
    except KeyboardInterrupt:
        print(
            f"longbench-suite predict: interrupted; finished rows are kept under {args.output}: "
            "run the same command again to resume",
            file=sys.stderr,
        )
        return 130
    for config, path in run.files.items():
        print(f"{config}\t{path}")
    if run.results:
        print()
        print(results_table(run.results))
        print()
        for kind, path in run.reports.items():
            print(f"wrote {kind}: {path}")
    return 0


def _run_predict(args, predict, judges):
    return predict(
        args.configs,
        args.output,
        model=args.model,
        backend=args.backend,
        endpoint=args.endpoint,
        api_key=args.api_key,
        concurrency=args.concurrency,
        max_retries=args.max_retries,
        timeout=args.timeout,
        split=args.split,
        limit=args.limit,
        force_new=args.force_new,
        score=args.score,
        allow_partial=args.allow_partial,
        strict=args.strict,
        judges=judges,
        plot=not args.no_plot,
        progress=False if args.no_progress else None,
        options=build_options(args),
    )
