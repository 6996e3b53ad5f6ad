"""``longbench-suite check``: configs built if needed and verified (leakage, budget, sizes, fields)."""

from __future__ import annotations

import argparse

from .arguments import build_options, source_options


def add_parser(commands: argparse._SubParsersAction) -> None:
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
    source_options(p)


def run(args: argparse.Namespace) -> int:
    from .. import api
    from ..check import check, expand_targets

    build = build_options(args)
    builders = [api.get_builder(name, options=build) for name in expand_targets(args.targets)]
    report = check(builders)
    print(report.format())
    return 0 if report.ok else 1
