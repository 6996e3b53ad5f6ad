"""The run record, ``OUTPUT/run.json``: what the predictions in an output folder were made with.

One record per output folder, written (atomically) before the first request::

    {"format": 1, "model": ..., "backend": ..., "endpoint": ..., "split": "eval", "limit": null,
     "build": {<the build options given, tokenizers with their identities>},
     "files": {"helmet/nq_8k": "helmet/nq_8k.eval.jsonl", ...}}

The folder is the unit: every predictions file in it was made under the one record, and ``files``
lists the files the record covers, so a file the record does not list (left by an older version, or
copied in) is never resumed as if it were. Resuming with another model, backend, endpoint, split,
limit or build option is refused, naming both values; ``force_new`` discards the folder's
predictions and results and starts over. ``longbench-suite score --predictions DIR`` reads the record
and rebuilds the rows with its build options.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import LOCAL_ERRNOS, OptionError, PredictionError, RunMismatchError, StorageError, describe
from ..options import NAMES, BuildOptions, path_options, where_only_options
from ..outputs import new_file_beside

RUN_FILE = "run.json"
FORMAT = 1
#: the results ``--score`` writes beside the predictions (discarded with them by ``force_new``)
REPORTS = ("results.md", "results.json", "scores.png")
#: build options that name a local file or folder: recorded as absolute paths
_PATHS = path_options()
#: build options that do not change the rows: recorded, never a contradiction
_WHERE_ONLY = where_only_options()
#: recorded identities of the tokenizers and chat template (compared where both sides know them)
IDENTITIES = {
    "tokenizer_identity": "tokenizer",
    "pretruncation_tokenizer_identity": "pretruncation_tokenizer",
    "chat_template_identity": "chat_template",
}
_OBJECT = "_object"  # suffix of the key naming a tokenizer or template given as a Python object

def _option(name: str) -> str:
    return f"--{name.replace('_', '-')}"


def _absolute(value: str) -> str:
    if "://" in value or not os.path.exists(value):  # a URL, a Hub id, a named encoding, Jinja text
        return value
    return os.path.normpath(os.path.abspath(value))


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return repr(value)


def build_record(options: BuildOptions, builders: Sequence = ()) -> dict[str, Any]:
    """The build options given (the fields not at their default), local paths made absolute, and the
    identities of the tokenizers and chat template the builders loaded (the hash of a
    ``tokenizer.json``: an edited file is another tokenizer)."""
    record: dict[str, Any] = {}
    for name, value in sorted(options.given().items()):
        if isinstance(value, str) and name in _PATHS:
            value = _absolute(value)
        elif name == "generate" and isinstance(value, Mapping):
            value = {k: _absolute(v) if k == "essay" and isinstance(v, str) else v for k, v in value.items()}
        elif not isinstance(value, bool | int | float | str | Mapping | list | tuple):
            record[name + _OBJECT] = type(value).__name__  # a tokenizer or template object
            continue
        record[name] = _jsonable(value)
    for builder in builders:
        loaded = {
            "tokenizer_identity": builder.loaded_tokenizer,
            "pretruncation_tokenizer_identity": builder.pretruncation_tokenizer,
            "chat_template_identity": builder.chat_template,
        }
        for key, thing in loaded.items():
            if thing is not None and getattr(options, IDENTITIES[key]) is not None:
                record.setdefault(key, thing.identity)
    return record


def run_record(
    *, model: str, backend: str, endpoint: str | None, split: str, limit: int | None, build: Mapping
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "model": model,
        "backend": backend,
        "endpoint": endpoint,
        "split": split,
        "limit": limit,
        "build": dict(build),
    }


def without_files(record: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The record as ``results.json`` carries it (the contract's keys; no file list)."""
    return None if record is None else {k: v for k, v in record.items() if k != "files"}


def read_record(output_dir: str) -> dict[str, Any] | None:
    """The record of ``output_dir``, or ``None`` where it has none."""
    path = os.path.join(output_dir, RUN_FILE)
    try:
        with open(path, "rb") as f:
            record = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise PredictionError(f"cannot read the run record {path}: {describe(exc)}") from None
    if (
        not isinstance(record, dict)
        or record.get("format") != FORMAT
        or not isinstance(record.get("build"), dict)
    ):
        raise PredictionError(
            f"{path}: not a run record of format {FORMAT} (written by longbench-suite predict)"
        )
    return record


def record_of_file(path: str) -> tuple[str, dict[str, Any], str] | None:
    """``(output folder, its record, config)`` where ``path`` is a predictions file that the run record
    of its folder lists (``DIR/<benchmark>/<config>.<split>.jsonl``), else ``None`` (an unreadable
    record too: the file is then scored as any other)."""
    absolute = os.path.normpath(os.path.abspath(path))
    folder = os.path.dirname(os.path.dirname(absolute))
    try:
        record = read_record(folder)
    except PredictionError:
        return None
    files = record.get("files") if record else None
    for config, relative in (files.items() if isinstance(files, dict) else ()):
        if isinstance(relative, str) and os.path.normpath(os.path.join(folder, relative)) == absolute:
            return folder, record, config
    return None


def _shown(value: Any) -> str:
    return "none" if value is None else json.dumps(value, ensure_ascii=False)


def first_difference(recorded: Mapping[str, Any], given: Mapping[str, Any]) -> tuple[str, Any, Any] | None:
    """``(option, recorded value, given value)`` of the first option the two records disagree on:
    model, backend, endpoint, split, limit, then each build option (not the cache directory; a
    tokenizer's identity only where both records know it)."""
    for key in ("model", "backend", "endpoint", "split", "limit"):
        if recorded.get(key) != given.get(key):
            return _option(key), recorded.get(key), given.get(key)
    return build_difference(recorded.get("build", {}), given.get("build", {}))


def build_difference(recorded: Mapping[str, Any], given: Mapping[str, Any]) -> tuple[str, Any, Any] | None:
    for key in sorted(set(recorded) | set(given)):
        if key in _WHERE_ONLY:
            continue
        old, new = recorded.get(key), given.get(key)
        if key in IDENTITIES:
            if old is not None and new is not None and old != new:
                return f"{_option(IDENTITIES[key])}'s identity", old, new
        elif old != new:
            return _option(key.removesuffix(_OBJECT)), old, new
    return None


def _mismatch(where: str, option: str, recorded: Any, given: Any, way_out: str) -> RunMismatchError:
    return RunMismatchError(
        f"{where}: {option} is {_shown(given)} but the run recorded {_shown(recorded)}; {way_out}"
    )


def _atomic_json(path: str, payload: Mapping[str, Any]) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = new_file_beside(path, ".run-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(payload, f, ensure_ascii=False, indent=1, sort_keys=False)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except OSError as exc:
        if exc.errno not in LOCAL_ERRNOS:
            raise
        raise StorageError(
            f"cannot write the run record {path}: {describe(exc)}; nothing was predicted"
        ) from None


def claim(output_dir: str, record: Mapping[str, Any], files: Mapping[str, str], *, force_new: bool) -> dict:
    """Check that ``output_dir`` may take this run's predictions ``files`` (config -> path inside the
    folder) and write the record listing them; returns the record written.

    Refused, in one line naming both values: a folder whose record says other options, and a
    predictions file already there that no record covers. ``force_new`` first removes the folder's
    predictions (every file its record lists, and the files about to be written) and results.
    """
    where = os.path.join(output_dir, RUN_FILE)
    way_out = "resume with the same options, pass --force-new to discard its predictions and start over, "
    way_out += "or give a new --output"
    try:
        existing = read_record(output_dir)
    except PredictionError as exc:
        if not force_new:
            raise PredictionError(f"{exc}; pass --force-new to discard it and start over") from None
        existing = None  # only the files about to be written, and the results, are known to remove
    if force_new:
        listed = existing.get("files", {}).values() if existing else ()
        for relative in {*listed, *files.values(), *REPORTS}:
            _remove(os.path.join(output_dir, relative))
        existing = None
    if existing is not None:
        difference = first_difference(existing, record)
        if difference:
            raise _mismatch(where, *difference, way_out)
    covered = set(existing.get("files", {}).values()) if existing else set()
    for config, relative in files.items():
        path = os.path.join(output_dir, relative)
        if relative not in covered and os.path.exists(path):
            raise RunMismatchError(
                f"{path}: predictions of {config} that {where} does not cover (made by another run or "
                "version, with options unknown); pass --force-new to discard them and start over, or "
                "give a new --output"
            )
    written = dict(record)
    written["files"] = {**(existing.get("files", {}) if existing else {}), **files}
    _atomic_json(where, written)
    return written


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise StorageError(f"--force-new: cannot remove {path}: {describe(exc)}") from None


def score_options(record: Mapping[str, Any], given: BuildOptions, source: str) -> BuildOptions:
    """The build options to score a recorded run with: the recorded ones, and any given that agree
    with them (a given ``cache_dir`` is taken as it is). A given option that contradicts the record is
    one line naming both values; a tokenizer recorded as a Python object must be given again."""
    recorded = record["build"]
    options = {k: v for k, v in recorded.items() if k not in IDENTITIES and not k.endswith(_OBJECT)}
    for key, value in build_record(given).items():
        if key in _WHERE_ONLY or key.endswith(_OBJECT):
            continue
        if recorded.get(key) != value and not recorded.get(key + _OBJECT):
            raise _mismatch(
                source, _option(key), recorded.get(key), value, "leave it out to use the recorded one"
            )
    options.update(given.given())
    for key in (k for k in recorded if k.endswith(_OBJECT)):
        name = key.removesuffix(_OBJECT)
        if getattr(given, name, None) is None:
            raise OptionError(
                f"{source}: the run's {name} was a Python {recorded[key]} object, which a record cannot "
                f"hold; give {_option(name)} with the same one (its identity is checked)"
            )
    unknown = sorted(set(options) - set(NAMES))
    if unknown:
        raise PredictionError(
            f"{source}: the record has build options this version does not know: {', '.join(unknown)}"
        )
    return BuildOptions(**options)


def check_identities(
    record: Mapping[str, Any], options: BuildOptions, builders: Iterable, source: str
) -> None:
    """Refuse a build whose tokenizer or chat template is not the one the run recorded (a tokenizer
    file edited since, or another one given for a recorded object)."""
    difference = build_difference(
        {k: v for k, v in record["build"].items() if k in IDENTITIES},
        {k: v for k, v in build_record(options, list(builders)).items() if k in IDENTITIES},
    )
    if difference:
        raise _mismatch(source, *difference, "the rows would not be the ones the predictions answer")


def expected_files(record: Mapping[str, Any], output_dir: str, source: str) -> dict[str, str]:
    """Config -> predictions path of every file the record covers."""
    files = record.get("files")
    if not isinstance(files, dict) or not files:
        raise PredictionError(f"{source}: the record lists no predictions files")
    return {config: os.path.join(output_dir, relative) for config, relative in files.items()}
