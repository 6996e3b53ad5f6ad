"""Printing and writing score results (``longbench-suite score``)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from .. import registry
from ..errors import GenerationError, SuiteError, describe
from .base import JudgeModels, Judges
from .scoring import ScoreResult


def partial_label(result: ScoreResult) -> str:
    """How every table marks a config scored on the first rows of its split only."""
    return f"partial ({result.n_rows} of {result.split_rows} rows)"


class _Reported:
    """A judge whose failures (a server down, a reply without an answer) are one line naming it."""

    def __init__(self, judge, what: str) -> None:
        self.judge, self.what = judge, what

    def __call__(self, *args):
        try:
            return self.judge(*args)
        except SuiteError:  # already one line (a missing package)
            raise
        except Exception as exc:  # the openai client's errors, or a reply without choices
            raise GenerationError(
                f"{self.what} failed: {describe(exc)}; the predictions are kept: run the same command "
                "again once it answers"
            ) from None


def judges_from(
    judge_model: str | None,
    nli_model: str | None,
    *,
    endpoint: str | None = None,
    api_key: str | None = None,
    nli_endpoint: str | None = None,
) -> Judges:
    """The CLI's judges: a chat model (OpenAI's, or any OpenAI-compatible server's at ``endpoint``),
    and a seq2seq NLI model, loaded on first use or served at ``nli_endpoint``.

    A benchmark whose metrics use judges makes them: its metrics module's ``make_judges`` hook (HELMET's),
    found through the registry, so the core names no benchmark."""
    if not (judge_model or nli_model or nli_endpoint):
        return Judges()
    models = JudgeModels(
        judge_model=judge_model,
        nli_model=nli_model,
        endpoint=endpoint,
        api_key=api_key,
        nli_endpoint=nli_endpoint,
    )
    nli = llm = None
    for name in registry.benchmark_names():
        make = getattr(registry.metrics(name), "make_judges", None)
        if make is not None:
            made = make(models)
            nli = made.nli if nli is None else nli
            llm = made.llm if llm is None else llm
    if nli is not None and nli_endpoint:
        nli = _Reported(nli, f"the NLI judge at {nli_endpoint}")
    if llm is not None:
        llm = _Reported(llm, f"the LLM judge {judge_model!r} at {endpoint or 'OpenAI'}")
    return Judges(nli=nli, llm=llm)


def _fmt(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, int) and not isinstance(value, bool):  # a count (rows without an answer)
        return str(value)
    return f"{value:.2f}"


def _table(header: Sequence[str], lines: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *lines, strict=True)]
    rows = [header, *lines]
    return "\n".join(
        "  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )


def results_table(results: Sequence[ScoreResult]) -> str:
    """One line per config and metric; headline metrics first and marked ``*``."""
    lines = []
    for r in results:
        names = list(r.headline) + [m for m in r.metrics if m not in r.headline]
        for name in names:
            value = r.metrics.get(name)
            shown = f"not computed ({r.not_computed[name]})" if name in r.not_computed else _fmt(value)
            mark = "*" if name in r.headline else ""
            rows = partial_label(r) if r.partial else str(r.n_rows)
            lines.append([r.config, r.split or "", rows, f"{name}{mark}", shown])
        for column, groups in r.groups.items():
            for key, metrics in groups.items():
                for name in r.headline:
                    lines.append(
                        [r.config, r.split or "", "", f"{name} [{column}={key}]", _fmt(metrics.get(name))]
                    )
    return (
        _table(["config", "split", "rows", "metric", "score"], lines)
        + "\n(* = the benchmark's reported metric)"
    )


def _flatten(prefix: tuple[str, ...], value: Any, out: list[list[str]]) -> None:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            _flatten((*prefix, str(key)), inner, out)
    else:
        out.append([*prefix, _fmt(value)])


def summary_table(by: str, tables: Mapping[str, Any], results: Sequence[ScoreResult] = ()) -> str:
    """A benchmark's averages, one line per leaf (e.g. ``helmet 8k RAG 55.20``); a summary made of
    sections ``per_<thing>`` (LV-Eval's ``per_level`` and ``per_dataset``) is one table per section,
    its column named ``<thing>``. An average of a benchmark with a partial split among ``results`` is
    marked ``partial``, and the note names those configs."""
    partial = [r for r in results if r.partial and r.benchmark in tables]
    marked = {r.benchmark for r in partial}
    parts = [f"summary by {by}"]
    for corner, section in _summary_sections(tables):
        lines: list[list[str]] = []
        _flatten((), section, lines)
        depth = max(len(x) for x in lines)
        mark = {i: " partial" for i, x in enumerate(lines) if x[0] in marked and x[-1] != "-"}
        lines = [x[:-1] + [""] * (depth - len(x)) + [x[-1] + mark.get(i, "")] for i, x in enumerate(lines)]
        header = ["benchmark", *[corner or ""] * (depth > 2), *[""] * (depth - 3), "score"]
        parts.append(_table(header, lines))
    note = "(- = nothing scored for it; averages use the scores there are)"
    if partial:
        listed = ", ".join(f"{r.config} {partial_label(r)}" for r in partial)
        note += f"\n(partial = an average that may take configs scored on their first rows only: {listed})"
    return "\n\n".join(parts[1:]).join((parts[0] + "\n", "\n" + note))


def _summary_sections(tables: Mapping[str, Any]) -> list[tuple[str | None, dict[str, Any]]]:
    """(column name, {benchmark: averages}) per table: a benchmark whose summary is all ``per_<thing>``
    sections gives one per section, named ``<thing>``; other summaries share one, unnamed."""
    shared: dict[str, Any] = {}
    sections: list[tuple[str | None, dict[str, Any]]] = [(None, shared)]
    for benchmark, summary in tables.items():
        if isinstance(summary, Mapping) and summary and all(str(k).startswith("per_") for k in summary):
            sections += [(str(k).removeprefix("per_"), {benchmark: v}) for k, v in summary.items()]
        else:
            shared[benchmark] = summary
    return [(corner, section) for corner, section in sections if section]


def result_entry(result: ScoreResult) -> dict[str, Any]:
    """One config's entry of ``results.json``: ``rows`` scored, ``split_rows`` in the split, ``partial``,
    and each row's values as ``row_scores``."""
    entry = result.to_dict()
    entry["row_scores"] = entry.pop("rows")
    entry.pop("split_rows")
    split_rows = result.split_rows if result.split_rows is not None else result.n_rows
    return {**entry, "rows": result.n_rows, "split_rows": split_rows, "partial": result.partial}


def results_json(
    results: Sequence[ScoreResult], summary: Mapping[str, Any], path: str, run: Mapping | None = None
) -> None:
    """``{"run": <the run record, or null>, "results": [...], "summary": ...}``."""
    payload = {"run": run, "results": [result_entry(r) for r in results], "summary": summary}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(payload, f, ensure_ascii=False, indent=1, allow_nan=False)
