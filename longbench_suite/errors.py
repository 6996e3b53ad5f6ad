"""Exceptions raised by longbench_suite.

Every error a user can cause (a wrong name, a missing file, a broken download, a tokenizer that does
not load) is a :class:`SuiteError` whose message names the thing that is wrong, so the CLI can print
it as one line instead of a traceback.
"""

from __future__ import annotations

import errno


class SuiteError(Exception):
    """Base class of all errors with a user-facing message."""


class UnknownNameError(SuiteError, ValueError):
    """A benchmark, config or split name that does not exist (or is ambiguous)."""


class OptionError(SuiteError, ValueError):
    """An option value out of its range (names the option)."""


class UsageError(OptionError):
    """A command line the CLI's parser refuses (a bad number or choice, a missing argument), printed as
    one line naming the option."""


class UnsupportedOptionError(SuiteError, TypeError):
    """A keyword that does not apply where it is given: a suite option for another dataset, or an
    argument no suite config takes."""


class CompletionTypeError(SuiteError, TypeError):
    """A completion given to a reward function that is neither a string nor a list of messages."""


class ChatTemplateError(OptionError):
    """A chat template that cannot be read or rendered."""


class RunMismatchError(OptionError):
    """Options that contradict the run record of an output folder (names both values)."""


class TrainingLengthError(SuiteError, ValueError):
    """A trainer setting that would cut or drop examples."""


class BudgetError(SuiteError, ValueError):
    """The parts of a prompt that may not be cut already exceed the token budget."""


class TemplateError(SuiteError, ValueError):
    """A dataset-card template that is missing or lacks a required marker."""


class SplitUnavailableError(SuiteError, ValueError):
    """A split that upstream cannot supply for this config (e.g. LV-Eval has no dev data)."""


class SourceError(SuiteError, OSError):
    """A source file that is missing, unreadable, corrupt or fails its checksum."""


class SourceUnavailableError(SourceError):
    """A source file that cannot be had here: not in the mirror or ``data_dir``, or not downloadable
    (offline, unreachable, not found). Unlike a corrupt file, a build may do without it where the file
    feeds only an optional part (``dev``'s exclusions)."""


class StorageError(SuiteError, OSError):
    """A local cause, not the sources': a full disk, a read-only or unwritable cache or output. Nothing
    downloaded is deleted for it (the bytes were good); the message names the path and what to do."""


#: ``errno`` values that mean the local disk or its permissions failed, not the bytes being read
LOCAL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EACCES, errno.EROFS, errno.EPERM})


def local_cause(exc: BaseException) -> OSError | None:
    """The ``OSError`` in ``exc``'s chain that a full disk or missing permission raised, if any."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, OSError) and cause.errno in LOCAL_ERRNOS:
            return cause
        cause = cause.__cause__ or cause.__context__
    return None


class SourceNotProvidedError(SourceUnavailableError):
    """A file the user's mirror directory or ``data_dir`` does not hold: a fact of the folder given,
    not a passing failure, so a build may leave out the one split that needs it."""


class DataFormatError(SuiteError, ValueError):
    """A source record that does not have the upstream layout (names the file and line)."""


class ShortSourceError(DataFormatError):
    """A source that holds fewer (or more) records than it is declared to hold, or a text file cut
    inside a line: a copy served short, which must fail rather than build fewer rows."""


class CorruptArchiveError(SourceError):
    """An archive that cannot be read to the end."""


class TokenizerLoadError(SuiteError, ValueError):
    """A tokenizer spec that cannot be loaded."""


class TokenizerMismatchError(SuiteError, RuntimeError):
    """Two tokenizer backends that a probe found identical gave different ids for a text."""


class MissingDependencyError(SuiteError, ImportError):
    """An optional dependency needed for the requested feature is not installed."""


class PredictionError(SuiteError, ValueError):
    """A predictions file that does not match the split's rows (missing, extra or duplicate rows)."""


class InvalidTextError(DataFormatError):
    """Text no tokenizer or Arrow file can hold: a lone UTF-16 surrogate (``"\\ud800"`` in JSON)."""


def describe(exc: BaseException) -> str:
    """``"Type: message"`` on one line, plus what the chain of causes adds: the HTTP status, or the
    innermost cause (fsspec reports a 500 or a refused connection as a ``FileNotFoundError`` whose
    cause says which)."""
    text = f"{exc.__class__.__name__}: {exc}"
    seen: set[int] = set()
    cause: BaseException | None = exc
    innermost = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        status = getattr(cause, "status", None)
        if status is None:
            status = getattr(getattr(cause, "response", None), "status_code", None)
        if isinstance(status, int) and not isinstance(status, bool):
            text += f" (HTTP {status})"
            break
        innermost = cause
        cause = cause.__cause__ or cause.__context__
    else:
        name = innermost.__class__.__name__
        if innermost is not exc and name not in text:
            text += f" ({name}: {innermost})"
    return " ".join(text.split())


def first_lone_surrogate(text: str) -> int | None:
    """Index of the first lone surrogate in ``text``, or ``None`` (the common case, found cheaply)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


class GenerationError(SuiteError, RuntimeError):
    """A model that could not produce a prediction (an endpoint that keeps failing, a bad model path)."""


# -- not a user's error ---------------------------------------------------------------------------


class RowAssemblyError(RuntimeError):
    """A task's declaration and its instances do not add up to its schema (a bug, not bad data)."""


class ShortBodyError(ConnectionResetError):
    """A response that ended before the length the server announced (retried, from where it ended)."""
