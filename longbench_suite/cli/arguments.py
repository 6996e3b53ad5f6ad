"""The parser pieces the commands share: the one-line usage error, the checked option values, and the
build, ``--num-proc``, engine and publish options."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from .. import options
from ..errors import UsageError

STRICT_HELP = (
    "count every row, where the official scorer leaves some out: LongBench v2's empty replies (which "
    "pred.py never writes, so result.py does not count them) are scored wrong, like unparsed answers"
)


class Parser(argparse.ArgumentParser):
    """A usage error is one line naming the option and what is wrong (exit status 2, as every other
    refused value), not the usage text."""

    def error(self, message: str):
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


#: the options whose values the library checks (:func:`check_value`), by ``dest``
CHECKED_OPTIONS = frozenset(
    {
        "max_input_tokens",
        "num_proc",
        "holdout_fraction",
        "limit",
        "concurrency",
        "max_retries",
        "timeout",
        "max_shard_size",
    }
)


def check_value(dest: str, value: Any) -> None:
    """The library's own check of an option's value (imported only when the option is given)."""
    if dest == "max_input_tokens":
        from ..fit.rules import check_max_input_tokens

        check_max_input_tokens(value)
    elif dest == "num_proc":
        from ..api import check_num_proc

        check_num_proc(value)
    elif dest == "holdout_fraction":
        from ..training.holdout import check_options

        check_options(None, value)
    elif dest == "limit":
        from ..predict.run import check_limit

        check_limit(value)
    elif dest in ("concurrency", "max_retries", "timeout"):
        from ..predict.run import check_requests

        check_requests(**{dest: value})
    elif dest == "max_shard_size":
        from ..publish.hub import check_max_shard_size

        check_max_shard_size(value)


def _checked(parse: Callable[[str], Any], dest: str) -> Callable[[str], Any]:
    """An argparse ``type``: the text read by ``parse`` (``int``, ``float``, ``str``), then refused by
    the library's check of the value as argparse refuses a malformed one: one line naming the option,
    before anything runs."""

    def convert(text: str):
        from ..errors import SuiteError

        try:
            value = parse(text)
        except ValueError:
            kind = "an integer" if parse is int else "a number"
            raise argparse.ArgumentTypeError(f"not {kind}: {text!r}") from None
        try:
            check_value(dest, value)
        except SuiteError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return value

    return convert


def check_values_when_parsed(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Give every option of ``parser`` and its commands that the library checks a checking ``type``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                check_values_when_parsed(command)
        elif action.option_strings and action.dest in CHECKED_OPTIONS:
            action.type = _checked(action.type or str, action.dest)
    return parser


def source_options(parser: argparse.ArgumentParser) -> None:
    """The shared build options: one flag per :class:`~longbench_suite.options.BuildOptions` field."""
    options.add_arguments(parser)


def build_options(args: argparse.Namespace) -> options.BuildOptions:
    """What :func:`source_options` parsed."""
    return options.from_arguments(args)


def num_proc_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--num-proc",
        type=int,
        metavar="N",
        help="build each config in N processes, each writing a part of every split (the same rows as one)",
    )


def engine_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="where the rows are built: this process (local, default) or a Ray cluster, one task per "
        "shard of each config (ray; pip install 'longbench-suite[distributed]')",
    )
    parser.add_argument(
        "--address",
        help="with --engine ray: the cluster to join (ray.init's address, e.g. 'auto' or "
        "'ray://HOST:10001'; default: start a local one)",
    )


def publish_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-shard-size", default="500MB", help="largest uncompressed size of one Parquet file (500MB)"
    )
    parser.add_argument(
        "--no-histogram", action="store_true", help="no token-length histogram (needs no matplotlib)"
    )
    parser.add_argument(
        "--holdout-fraction",
        type=float,
        metavar="F",
        help="also write a stable hold-out of dev as the splits train and validation (F of dev's "
        "questions in validation, by a hash of query_id)",
    )
