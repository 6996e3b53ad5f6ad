"""Every exception class of the library is defined in ``longbench_suite/errors.py`` (issue 29); the
modules that raised them before keep the names (they import what they raise)."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import pytest

from longbench_suite import errors

ROOT = Path(__file__).resolve().parent.parent / "longbench_suite"

#: names an exception class may derive from: the library's own and Python's
EXCEPTION_BASES = {
    name
    for namespace in (vars(errors), vars(builtins))
    for name, value in namespace.items()
    if isinstance(value, type) and issubclass(value, BaseException)
}


def _base_name(base: ast.expr) -> str:
    return base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")


def test_no_exception_class_is_defined_outside_errors_py():
    elsewhere = [
        f"{path.relative_to(ROOT.parent)}:{node.lineno} {node.name}"
        for path in sorted(ROOT.rglob("*.py"))
        if path != ROOT / "errors.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        and any(_base_name(b) in EXCEPTION_BASES or _base_name(b).endswith("Error") for b in node.bases)
    ]
    assert elsewhere == []


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("longbench_suite.training", "TrainingLengthError"),
        ("longbench_suite.training.lengths", "TrainingLengthError"),
        ("longbench_suite.source.archives", "CorruptArchiveError"),
        ("longbench_suite.fit.truncation", "BudgetError"),
        ("longbench_suite.fit.chat", "ChatTemplateError"),
        ("longbench_suite.publish.card", "TemplateError"),
        ("longbench_suite.predict.record", "RunMismatchError"),
        ("longbench_suite.row", "RowAssemblyError"),
    ],
)
def test_the_old_import_paths_still_work(module, name):
    import importlib

    assert getattr(importlib.import_module(module), name) is getattr(errors, name)


def test_every_user_facing_error_is_one_suite_error():
    """The classes a user's value or file can raise are SuiteErrors (one line in the CLI); the two that
    are not mean a bug, or a retry inside a download."""
    classes = [v for v in vars(errors).values() if isinstance(v, type) and issubclass(v, BaseException)]
    assert {c.__name__ for c in classes if not issubclass(c, errors.SuiteError)} == {
        "RowAssemblyError",
        "ShortBodyError",
    }
