"""The runs being compared: each ``results.json`` read back into scores, the model each run names, and
the runs of one model (same model and build options) gathered into one row.

A run names its model through its run record (``results.json``'s ``"run"``, else the ``run.json``
``predict`` writes beside it): the model, the backend and endpoint (or local directory) and the build
options (tokenizer, chat template, budget, ...). Files written before runs were recorded have none;
such a run is named after its directory, and its options are unknown.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import DataFormatError, OptionError, SuiteError
from ..metrics.scoring import ScoreResult

RESULTS = "results.json"
RUN_RECORD = "run.json"
#: build options that say where or how fast rows were built, never what they hold
INCIDENTAL_OPTIONS = frozenset({"cache_dir", "num_proc", "engine", "address", "progress"})
#: the run record's fields, besides its build options, that make two runs different models or settings
IDENTITY_FIELDS = ("model", "backend", "endpoint", "split", "limit")
_ENTRY_FIELDS = ("config", "benchmark", "task", "headline", "metrics")


@dataclass(frozen=True)
class Entry:
    """One config's scores in one run; ``partial`` when fewer rows were scored than its split holds."""

    result: ScoreResult
    source: str
    rows: int
    split_rows: int | None
    partial: bool

    @property
    def config(self) -> str:
        return self.result.config

    def partial_reason(self) -> str:
        of = f" of {self.split_rows}" if self.split_rows is not None else ""
        return f"partial ({self.rows}{of} rows)"


@dataclass
class Run:
    """One ``results.json``: where it is, the model it names and how, and its configs' scores."""

    path: str
    name: str
    named_by: str  # "--name", "run record" or "directory name"
    record: dict | None
    entries: list[Entry]

    def options(self) -> dict[str, Any] | None:
        """What makes this run's rows and requests what they are: the model, backend, endpoint, split,
        limit and every build option but the incidental ones; ``None`` when the run recorded none."""
        if self.record is None:
            return None
        out = {key: self.record.get(key) for key in IDENTITY_FIELDS}
        build = self.record.get("build") or {}
        out.update({key: build[key] for key in sorted(build) if key not in INCIDENTAL_OPTIONS})
        return out


@dataclass
class Model:
    """One row of the comparison: the runs of one model under one set of options."""

    label: str
    name: str
    runs: list[Run]
    options: dict[str, Any] | None
    entries: dict[str, Entry] = field(default_factory=dict)

    def entries_of(self, benchmark: str) -> list[Entry]:
        return [e for e in self.entries.values() if e.result.benchmark == benchmark]


def results_path(run: str) -> str:
    """``RUN_DIR/results.json``, or ``run`` itself when it names a file (a ``score --output`` file)."""
    if os.path.isdir(run):
        path = os.path.join(run, RESULTS)
        if not os.path.isfile(path):
            raise OptionError(
                f"{run} holds no {RESULTS}: give a `predict --score` output directory or a "
                "`score --output` file"
            )
        return path
    if not os.path.isfile(run):
        raise OptionError(f"{run}: no such run directory or results file")
    return os.path.normpath(run)


def directory_name(path: str) -> str:
    """The name a run without a record goes by: its directory's, or a results file's own stem."""
    base = os.path.basename(path)
    if base == RESULTS:
        return os.path.basename(os.path.dirname(os.path.abspath(path)))
    return os.path.splitext(base)[0]


def run_location(path: str) -> str:
    """A run as the user named it: its directory for a ``results.json``, else the file."""
    return os.path.dirname(path) or "." if os.path.basename(path) == RESULTS else path


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:  # a file of another kind, not UTF-8 text
        raise DataFormatError(f"{path} is not valid JSON: {exc}") from None
    except OSError as exc:
        raise OptionError(f"cannot read {path}: {exc.strerror or exc}") from None


def _record(payload: Mapping, path: str) -> dict | None:
    record = payload.get("run")
    if record is None:
        beside = os.path.join(os.path.dirname(os.path.abspath(path)), RUN_RECORD)
        if os.path.basename(path) == RESULTS and os.path.isfile(beside):
            record = _read_json(beside)
            path = beside
    if record is not None and not (isinstance(record, Mapping) and isinstance(record.get("model"), str)):
        raise DataFormatError(f"{path}: the run record must be an object with a 'model' string")
    return dict(record) if record is not None else None


def _entry(raw: Any, path: str, position: int) -> Entry:
    where = f"{path}, results[{position}]"
    if not isinstance(raw, Mapping):
        raise DataFormatError(f"{where}: each result must be an object")
    for name in _ENTRY_FIELDS:
        if name not in raw:
            raise DataFormatError(f"{where}: no {name!r} field")
    for name in ("headline", "metrics"):
        if not isinstance(raw[name], Mapping):
            raise DataFormatError(f"{where}: {name!r} must be an object of metric scores")
    # "rows" is each row's scores in files written before the run record, the count of rows after it
    scored = raw["rows"] if isinstance(raw.get("rows"), int) else raw.get("n_rows", 0)
    result = ScoreResult(
        config=str(raw["config"]),
        benchmark=str(raw["benchmark"]),
        task=str(raw["task"]),
        length=raw.get("length"),
        split=raw.get("split"),
        metric=str(raw.get("metric", "")),
        n_rows=int(scored),
        headline=dict(raw["headline"]),
        metrics=dict(raw["metrics"]),
        not_computed=dict(raw.get("not_computed") or {}),
        groups=dict(raw.get("groups") or {}),
    )
    return Entry(
        result=result,
        source=path,
        rows=int(scored),
        split_rows=raw.get("split_rows"),
        partial=bool(raw.get("partial", False)),
    )


def read_run(run: str, name: str | None = None) -> Run:
    """One run directory (or results file), read and checked; ``name`` overrides the recorded model."""
    from .. import registry

    path = results_path(run)
    payload = _read_json(path)
    if not isinstance(payload, Mapping) or not isinstance(payload.get("results"), list):
        raise DataFormatError(f"{path} has no 'results' list: is it a `predict --score` results.json?")
    entries = [_entry(raw, path, i) for i, raw in enumerate(payload["results"])]
    if not entries:
        raise DataFormatError(f"{path} holds no results")
    seen: set[str] = set()
    for entry in entries:
        if entry.config in seen:
            raise DataFormatError(f"{path}: {entry.config} is in the file twice")
        seen.add(entry.config)
        try:
            registry.benchmark(entry.result.benchmark)
        except SuiteError as exc:
            raise DataFormatError(f"{path}, {entry.config}: {exc}") from None
    record = _record(payload, path)
    if name:
        return Run(path, name, "--name", record, entries)
    if record is not None:
        return Run(path, model_name(record), "run record", record, entries)
    return Run(path, directory_name(path), "directory name", None, entries)


def model_name(record: Mapping) -> str:
    """The model a record names: a server's model name as given, a local model directory by its name."""
    model = record["model"]
    if os.path.isabs(model) or model.startswith(("./", "../", "~")):
        return os.path.basename(os.path.normpath(model))
    return model


def _shown(value: Any) -> str:
    if value is None:
        return "default"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    if os.sep in text and len(text) > 32:
        return "…/" + "/".join(text.rstrip(os.sep).split(os.sep)[-2:])
    return text


def differing(options: Sequence[dict[str, Any] | None]) -> dict[str, list[str]]:
    """The options whose values differ between the given option sets, each with the values shown."""
    known = [o for o in options if o is not None]
    keys = list(dict.fromkeys(k for o in known for k in o))
    out = {}
    for key in keys:
        values = [_shown(o.get(key)) if o is not None else "not recorded" for o in options]
        if len(set(values)) > 1:
            out[key] = values
    return out


def gather(runs: Sequence[Run]) -> tuple[list[Model], list[str]]:
    """The comparison's rows: runs of one name and identical options become one model (a model run on
    HELMET in one directory and on LongBench in another is one row); one name under different options
    is several rows, labelled by what differs, and flagged. Returns the models and the notes."""
    groups: dict[tuple[str, str], Model] = {}
    for run in runs:
        options = run.options()
        key = (run.name, json.dumps(options, sort_keys=True) if options is not None else f"\0{run.path}")
        model = groups.setdefault(key, Model(run.name, run.name, [], options))
        model.runs.append(run)
        for entry in run.entries:
            if entry.config in model.entries:
                other = model.entries[entry.config].source
                raise OptionError(
                    f"{entry.config} is in both {other} and {run.path}, for the same model {run.name!r} "
                    "under the same options; compare them under different --name values"
                )
            model.entries[entry.config] = entry
    notes: list[str] = []
    models = list(groups.values())
    for name in dict.fromkeys(m.name for m in models):
        same = [m for m in models if m.name == name]
        if len(same) < 2:
            continue
        diff = differing([m.options for m in same])
        for i, model in enumerate(same):
            shown = [f"{k}={v[i]}" for k, v in diff.items() if v[i] != "not recorded"]
            if model.options is None:
                shown.append(f"from {run_location(model.runs[0].path)}")
            model.label = f"{name} [{', '.join(shown)}]"
        what = "; ".join(f"{k}: {' | '.join(v)}" for k, v in diff.items())
        told = f"was run with different options ({what})" if what else "names runs that recorded no options"
        notes.append(f"{name!r} {told}: its runs are shown as separate rows, never averaged together.")
    labels = [m.label for m in models]
    for label in labels:
        if labels.count(label) > 1:
            raise OptionError(f"two rows would both be called {label!r}; tell them apart with --name")
    for model in models:
        for run in model.runs:
            if run.named_by == "directory name":
                notes.append(
                    f"{run.path} has no run record (written before runs were recorded, or by `score`): "
                    f"named {run.name!r} after its directory; its model and build options are unknown."
                )
    return models, notes
