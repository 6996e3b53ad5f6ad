"""``longbench-suite build``: configs built into the cache, optionally one split written to a file."""

from __future__ import annotations

import argparse

from .. import options
from .arguments import build_options, num_proc_option, source_options


def add_parser(commands: argparse._SubParsersAction) -> None:
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
    p.add_argument(
        "--stats",
        action="store_true",
        help="also print min/median/max input tokens and how many inputs were cut to fit per split",
    )
    p.add_argument(
        "--holdout",
        choices=("train", "valid"),
        help="with --split dev: only this side of a stable hold-out of dev (see --holdout-fraction)",
    )
    p.add_argument(
        "--holdout-fraction",
        type=float,
        default=options.DEFAULT_HOLDOUT_FRACTION,
        metavar="F",
        help=f"the hold-out's share of dev ({options.DEFAULT_HOLDOUT_FRACTION})",
    )
    p.add_argument(
        "--over-length",
        choices=options.OVER_LENGTH,
        default=options.OVER_LENGTH[0],
        help="skip: leave out the rows whose prompt had to be cut to fit the budget (default: keep them cut)",
    )
    source_options(p)
    num_proc_option(p)


def run(args: argparse.Namespace) -> int:
    from .. import api
    from ..publish.stats import split_stats, stats_table

    if args.output and (len(args.configs) != 1 or not args.split):
        raise SystemExit("longbench-suite build: --output needs exactly one CONFIG and --split")
    if args.output:
        from ..outputs import check_output_file

        readonly = (args.data_dir, options.mirror_identity(args.mirror))
        check_output_file(args.output, (".jsonl", ".parquet"), readonly=readonly)
    views = dict(holdout=args.holdout, holdout_fraction=args.holdout_fraction, over_length=args.over_length)
    api.check_views(args.split, **views)
    builders = _prepared_builders(args)
    stats = []
    for builder in builders:
        splits = (
            {args.split: api.prepared(builder, args.split)} if args.split else api.prepared(builder, None)
        )
        qualified = f"{builder.BENCHMARK.name}/{builder.config.name}"
        key = builder.config.task.holdout_key
        for split, dataset in splits.items():
            dataset = api.apply_views(dataset, qualified, split, key=key, **views)
            if args.stats:
                stats.append(split_stats(qualified, split, dataset, builder.loaded_tokenizer))
            else:
                print(f"{qualified}\t{split}\t{len(dataset)} rows\t{builder.cache_dir}")
            if args.output:
                _write(dataset, args.output)
                print(f"wrote {len(dataset)} rows to {args.output}")
    if stats:
        print(stats_table(stats))
    return 0


def _prepared_builders(args) -> list:
    """The builders of ``args.configs`` with the source options, splits checked, sources read once."""
    from .. import api

    num_proc = api.check_num_proc(getattr(args, "num_proc", None))
    build = build_options(args)
    builders = [api.get_builder(name, split=args.split, options=build) for name in args.configs]
    for builder in builders:
        api.check_splits(builder, args.split)
    api.prepare(builders, num_proc=num_proc)
    return builders


def _write(dataset, path: str) -> None:
    from ..outputs import written_aside

    if not path.endswith((".jsonl", ".parquet")):
        raise SystemExit(f"longbench-suite build: --output must end in .jsonl or .parquet, got {path}")
    with written_aside(path) as partial:
        if path.endswith(".jsonl"):
            dataset.to_json(partial, lines=True, force_ascii=False)
        else:
            dataset.to_parquet(partial)
