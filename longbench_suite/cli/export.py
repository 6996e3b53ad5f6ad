"""``longbench-suite export``: configs written as Parquet in the Hub layout, with a dataset card;
the publish arguments and the printed report ``push`` shares."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from .arguments import build_options, engine_options, num_proc_option, publish_options, source_options

if TYPE_CHECKING:
    from ..publish.hub import ExportResult


def add_parser(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "export", help="write configs as Parquet in the Hugging Face Hub layout, with a dataset card"
    )
    p.add_argument("configs", nargs="+", metavar="CONFIG", help="configs of one benchmark")
    p.add_argument(
        "--output",
        required=True,
        metavar="DIR",
        help="the folder, or an fsspec URL such as s3://bucket/helmet (merged with what it holds)",
    )
    publish_options(p)
    p.add_argument("--repo-id", help="the Hub repo named in the card's usage example")
    source_options(p)
    num_proc_option(p)
    engine_options(p)


def run(args: argparse.Namespace) -> int:
    from ..publish import hub

    result = hub.export(args.configs, args.output, repo_id=args.repo_id, **publish_kwargs(args))
    report(result, f"wrote into {result.directory}")
    return 0


def publish_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords ``export`` and ``push`` both give :mod:`~longbench_suite.publish.hub`: the build
    options and what the publish, ``--num-proc`` and engine options parsed."""
    return {
        "options": build_options(args),
        "max_shard_size": args.max_shard_size,
        "histogram": not args.no_histogram,
        "holdout_fraction": args.holdout_fraction,
        "num_proc": args.num_proc,
        "engine": args.engine,
        "address": args.address,
    }


def report(result: ExportResult, verb: str) -> None:
    """What ``export`` and ``push`` print: the statistics table, then each file with its size."""
    from datasets.utils.py_utils import size_str

    from ..publish.stats import stats_table

    print(stats_table(result.stats))
    print(f"\n{verb} {len(result.files)} files for {result.benchmark} ({', '.join(result.configs)}):")
    width = max((len(name) for name in result.files), default=0)
    for name in result.files:
        size = result.sizes.get(name)
        print(f"  {name.ljust(width)}  {size_str(size) if size else '0 bytes' if size == 0 else ''}".rstrip())
