"""The ``longbench-suite`` command line: :func:`main`, the one error path of every command.

Each command is one module of this package (``listing`` for ``list``) with its subparser
(``add_parser``) and its ``run(args)``; :mod:`.arguments` holds the parser pieces they share.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .._version import __version__
from ..errors import SuiteError, UsageError
from . import build, check, compare, demo, export, info, listing, predict, push, score
from .arguments import CHECKED_OPTIONS, Parser, check_values_when_parsed

__all__ = ["CHECKED_OPTIONS", "EXIT_BROKEN_PIPE", "main"]

#: the commands in the order ``--help`` lists them
COMMANDS = {
    "list": listing,
    "info": info,
    "build": build,
    "score": score,
    "predict": predict,
    "export": export,
    "push": push,
    "check": check,
    "demo": demo,
    "compare": compare,
}


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="longbench-suite",
        description="Long-context benchmarks (HELMET-derived, LongBench, LV-Eval, Ada-LEval) "
        "as Hugging Face datasets.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS.values():
        command.add_parser(commands)
    return check_values_when_parsed(parser)


def _say_what_is_done() -> None:
    """The library's progress lines (one per config, per long step) on stderr, as ``INFO: ...``; the
    bars are ``datasets``' own."""
    import logging

    logger = logging.getLogger("longbench_suite")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.command == "demo":
        # The demo never needs the network; make sure no library tries it.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    if args.command in ("demo", "build", "check", "export", "push"):
        _say_what_is_done()
    try:
        return COMMANDS[args.command].run(args)
    except SuiteError as exc:
        print(f"longbench-suite: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return _reader_left()


#: the exit status of a Unix tool whose reader left (``list | head``): killed by SIGPIPE, 128 + 13
EXIT_BROKEN_PIPE = 141


def _reader_left() -> int:
    """Stop quietly, as Unix tools do, when whoever reads stdout has gone: nothing more is written,
    and the output still buffered is dropped instead of failing again at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_BROKEN_PIPE

