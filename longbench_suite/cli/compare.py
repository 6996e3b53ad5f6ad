"""``longbench-suite compare``: several models' scored runs side by side."""

from __future__ import annotations

import argparse


def add_parser(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "compare",
        help="put several models' scored runs side by side: per benchmark, models × lengths for each "
        "task and each of the benchmark's averages, and score against length in one picture",
    )
    p.add_argument(
        "runs",
        nargs="+",
        metavar="RUN_DIR",
        help="`predict --score` output directories (their results.json), or `score --output` files",
    )
    p.add_argument(
        "--output",
        default="comparison",
        metavar="DIR",
        help="where compare.md, compare.json, compare.csv and compare.png go (default: comparison)",
    )
    p.add_argument(
        "--name",
        action="append",
        metavar="NAME",
        help="the model's name in the tables, one per RUN_DIR in order (default: the model the run "
        "recorded, else the directory's name)",
    )
    p.add_argument("--no-plot", action="store_true", help="no compare.png (needs no matplotlib)")


def run(args: argparse.Namespace) -> int:
    from ..comparison import compare
    from ..comparison.report import markdown_table

    comparison = compare(args.runs, args.output, args.name, plot=not args.no_plot)
    for note in comparison.notes:
        print(f"note: {note}")
    for bench in comparison.benchmarks:
        headline = next((t for t in bench.tables if t.kind != "task" and t.at is None), bench.tables[0])
        print(f"\n{bench.benchmark} ({bench.split}): {headline.title}\n{markdown_table(headline)}")
        for note in bench.notes:
            print(f"note: {note}")
    print()
    for kind, path in comparison.files.items():
        print(f"wrote {kind}: {path}")
    return 0
