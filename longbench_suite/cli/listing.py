"""``longbench-suite list``: the configs, one qualified name per line."""

from __future__ import annotations

import argparse


def add_parser(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("list", help="list configs, one qualified name per line")
    p.add_argument("benchmark", nargs="?", help="only this benchmark's configs")


def run(args: argparse.Namespace) -> int:
    from .. import registry

    for name in registry.list_configs(args.benchmark):
        print(name)
    return 0
