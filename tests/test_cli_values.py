"""Every command-line option that takes a number or a choice refuses a bad value in one line naming it,
with exit status 2 and no traceback (issue 29). The options are read from the parser itself, so a new
option is tested without being listed here."""

from __future__ import annotations

import argparse

import pytest

from longbench_suite import cli
from longbench_suite.errors import OptionError

#: what fills a command's required arguments; the bad value is refused before any of them is used
PLACEHOLDER = "helmet/nq_8k"


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = cli._parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(commands.choices)


def _required(command: argparse.ArgumentParser) -> list[str]:
    argv = []
    for action in command._actions:
        if not action.option_strings and action.nargs in (None, "+"):
            argv.append(PLACEHOLDER)
        elif action.option_strings and action.required:
            argv += [action.option_strings[0], PLACEHOLDER]
    return argv


def _bad_values(action: argparse.Action) -> list[str]:
    """A value outside the choices; for a number, text that is none, and -1 where the library checks
    the value's range (every such option here refuses a negative)."""
    if action.choices is not None:
        return ["no-such-choice"]
    if action.dest in cli.CHECKED_OPTIONS:
        return ["abc", "-1"]
    if action.type in (int, float):
        return ["abc"]
    return []


CASES = [
    pytest.param(name, option, action.dest, bad, id=f"{name} {option}={bad}")
    for name, command in _commands().items()
    for action in command._actions
    if action.option_strings
    for option in action.option_strings[-1:]
    for bad in _bad_values(action)
]


def test_the_options_are_found():
    options = {(case.values[0], case.values[1]) for case in CASES}
    assert {("build", "--num-proc"), ("predict", "--backend"), ("export", "--max-shard-size")} <= options
    assert ("predict", "--model") not in options  # a free text takes no bad value here


@pytest.mark.parametrize(("command", "option", "dest", "bad"), CASES)
def test_a_bad_value_is_one_line_naming_the_option(command, option, dest, bad, capsys):
    argv = [command, *_required(_commands()[command]), f"{option}={bad}"]
    try:
        status = cli.main(argv)
    except SystemExit as exited:
        status = exited.code
    out, err = capsys.readouterr()
    assert status == 2, (argv, out, err)
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    assert option in err or dest in err, err
    assert repr(bad) in err or bad in err, err


def test_the_library_refuses_what_the_cli_refuses():
    from longbench_suite.predict.run import check_requests
    from longbench_suite.publish.hub import check_max_shard_size

    with pytest.raises(OptionError, match=r"concurrency \(--concurrency\) must be an integer of at least 1"):
        check_requests(concurrency=0)
    with pytest.raises(OptionError, match=r"max_retries"):
        check_requests(max_retries=-1)
    with pytest.raises(OptionError, match=r"timeout"):
        check_requests(timeout=float("inf"))
    check_requests(concurrency=1, max_retries=0, timeout=0.5)
    with pytest.raises(OptionError, match=r"max_shard_size \(--max-shard-size\) must be a size"):
        check_max_shard_size("lots")
    check_max_shard_size("1GiB")
    check_max_shard_size(12)
