"""The ``longbench-suite`` command line."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence


def _source_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mirror", help="mirror directory or http(s) base URL (default: $LONGBENCH_SUITE_MIRROR)"
    )
    parser.add_argument(
        "--data-dir", help="folder with source files you already have, in their upstream layout"
    )
    parser.add_argument(
        "--tokenizer",
        help="tokenizer spec: tokenizer.json path or directory, Hub repo id, tiktoken encoding, 'words' or "
        "'chars' (default: the benchmark's own, e.g. meta-llama/Llama-2-7b-hf)",
    )
    parser.add_argument("--max-input-tokens", type=int, help="cut every input to this many tokens")
    parser.add_argument(
        "--cache-dir", help="datasets cache directory (default: the Hugging Face datasets cache)"
    )


def _build_options(args) -> dict:
    """What ``_source_options`` parsed, as ``get_builder`` keywords."""
    names = ("tokenizer", "mirror", "data_dir", "cache_dir", "max_input_tokens")
    return {name: getattr(args, name) for name in names}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="longbench-suite",
        description="Long-context benchmarks (HELMET-derived, LongBench, LV-Eval, Ada-LEval) "
        "as Hugging Face datasets.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = commands.add_parser("list", help="list configs, one qualified name per line")
    p.add_argument("benchmark", nargs="?", help="only this benchmark's configs")

    p = commands.add_parser("info", help="describe one config: task, budget, splits, sources, template")
    p.add_argument("config", help="config name, e.g. nq_32k or helmet/nq_32k")

    p = commands.add_parser(
        "build", help="build configs into the cache, optionally writing one split to a file"
    )
    p.add_argument(
        "configs", nargs="+", metavar="CONFIG", help="config names (sources they share are read once)"
    )
    p.add_argument("--split", help="build/write only this split (dev or eval)")
    p.add_argument(
        "--output", help="write the split to FILE.jsonl or FILE.parquet (needs one config and --split)"
    )
    p.add_argument("--stats", action="store_true", help="also print min/median/max input tokens per split")
    _source_options(p)

    p = commands.add_parser(
        "check",
        help="build configs if needed and verify them: no dev/eval leakage, inputs within budget, "
        "spec sizes, no empty fields (exit code 1 on any violation)",
    )
    p.add_argument(
        "targets",
        nargs="*",
        metavar="BENCHMARK|TASK|CONFIG",
        help="what to check: a benchmark (all its configs), a task (all its lengths) or a config; "
        "leakage is checked across the given lengths of each task (default: every config)",
    )
    _source_options(p)

    p = commands.add_parser(
        "demo", help="build a few configs of every benchmark offline from built-in sample data"
    )
    p.add_argument("--cache-dir", help="where the sample mirror, tokenizer and datasets go")
    return parser


def _cmd_list(args) -> int:
    from . import registry

    for name in registry.list_configs(args.benchmark):
        print(name)
    return 0


def _cmd_info(args) -> int:
    from . import registry
    from .sources import Member

    bench_name, config = registry.resolve(args.config)
    bench = registry.benchmark(bench_name)
    task, length = bench.lookup(config)
    print(f"config:            {bench_name}/{config}")
    print(f"task:              {task.name} — {task.description}")
    print(f"length:            {length} (max_length {task.max_length(length)})")
    print(f"splits:            {', '.join(task.splits(length))}")
    for split, size in task.expected_sizes(length).items():
        print(f"expected {split + ':':<9} {size} rows")
    print(f"default tokenizer: {task.default_tokenizer}")
    for key, value in task.info(length).items():
        print(f"{key + ':':<18} {value}")
    for name, source in task.sources(length).items():
        if isinstance(source, Member):
            print(f"source {name + ':':<11} {' or '.join(source.paths)} in {source.archive.url}")
        else:
            print(f"source {name + ':':<11} {source.url}")
    return 0


def _cmd_build(args) -> int:
    from . import api
    from .stats import split_stats, stats_table

    if args.output and (len(args.configs) != 1 or not args.split):
        raise SystemExit("longbench-suite build: --output needs exactly one CONFIG and --split")
    builders = [api.get_builder(name, **_build_options(args)) for name in args.configs]
    for builder in builders:
        api.check_splits(builder, args.split)
    api.prepare(builders)
    stats = []
    for builder in builders:
        splits = (
            {args.split: api.prepared(builder, args.split)} if args.split else api.prepared(builder, None)
        )
        qualified = f"{builder.BENCHMARK.name}/{builder.config.name}"
        for split, dataset in splits.items():
            if args.stats:
                stats.append(split_stats(qualified, split, dataset["input"], builder.tokenizer))
            else:
                print(f"{qualified}\t{split}\t{len(dataset)} rows\t{builder.cache_dir}")
            if args.output:
                _write(dataset, args.output)
                print(f"wrote {len(dataset)} rows to {args.output}")
    if stats:
        print(stats_table(stats))
    return 0


def _write(dataset, path: str) -> None:
    if path.endswith(".jsonl"):
        dataset.to_json(path, lines=True, force_ascii=False)
    elif path.endswith(".parquet"):
        dataset.to_parquet(path)
    else:
        raise SystemExit(f"longbench-suite build: --output must end in .jsonl or .parquet, got {path}")


def _cmd_check(args) -> int:
    from . import api
    from .check import check, expand_targets

    builders = [api.get_builder(name, **_build_options(args)) for name in expand_targets(args.targets)]
    report = check(builders)
    print(report.format())
    return 0 if report.ok else 1


def _cmd_demo(args) -> int:
    from . import demo
    from .stats import stats_table

    results, mirror, tokenizer = demo.run(args.cache_dir)
    print(stats_table(results))
    print(f"\nSample sources (upstream layouts): {mirror}")
    print(f"Tokens counted with the demo's BPE tokenizer: {tokenizer}")
    print(
        "Real data: `longbench-suite build CONFIG` downloads from the upstream hosts (the Hugging Face Hub;"
        " Ada-LEval's opencompass.openxlab.space). Budgets default to Llama-2 tokens (a gated Hub repo: set"
        " HF_TOKEN or pass --tokenizer) and Ada-LEval's lengths to tiktoken's cl100k_base."
    )
    return 0


COMMANDS = {
    "list": _cmd_list,
    "info": _cmd_info,
    "build": _cmd_build,
    "check": _cmd_check,
    "demo": _cmd_demo,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "demo":
        # The demo never needs the network; make sure no library tries it.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    from .errors import SuiteError

    try:
        return COMMANDS[args.command](args)
    except SuiteError as exc:
        print(f"longbench-suite: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
