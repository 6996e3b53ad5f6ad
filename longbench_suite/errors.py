"""Exceptions raised by longbench_suite.

Every error a user can cause (a wrong name, a missing file, a broken download, a tokenizer that does
not load) is a :class:`SuiteError` whose message names the thing that is wrong, so the CLI can print
it as one line instead of a traceback.
"""

from __future__ import annotations


class SuiteError(Exception):
    """Base class of all errors with a user-facing message."""


class UnknownNameError(SuiteError, ValueError):
    """A benchmark, config or split name that does not exist (or is ambiguous)."""


class SplitUnavailableError(SuiteError, ValueError):
    """A split that upstream cannot supply for this config (e.g. LV-Eval has no dev data)."""


class SourceError(SuiteError, OSError):
    """A source file that is missing, unreadable, corrupt or fails its checksum."""


class DataFormatError(SuiteError, ValueError):
    """A source record that does not have the upstream layout (names the file and line)."""


class TokenizerLoadError(SuiteError, ValueError):
    """A tokenizer spec that cannot be loaded."""


class MissingDependencyError(SuiteError, ImportError):
    """An optional dependency needed for the requested feature is not installed."""


class PredictionError(SuiteError, ValueError):
    """A predictions file that does not match the split's rows (missing, extra or duplicate rows)."""
