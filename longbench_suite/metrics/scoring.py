"""Scoring a split: per-row metric values, task scores, row groups, and cross-config summaries."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import DataFormatError, OptionError, PredictionError, UnknownNameError
from ..options import BuildOptions
from .base import Judges, Row, RowScores
from .predictions import align_predictions

MODES = ("auto", "chat", "completion")
#: columns the metrics never read; dropped before rows are loaded into memory
UNREAD_COLUMNS = ("input", "context")


def metrics_module(benchmark: str):
    """The metrics module of a benchmark (``task_scoring``, ``prepare``, ``SUMMARIES``, ``GROUP_LEVELS``)."""
    from .. import registry

    return registry.metrics(benchmark)


@dataclass
class ScoreResult:
    """The scores of one config's split.

    ``metrics`` are task scores on the benchmark's reported scale (0-100); ``headline`` the ones the
    benchmark reports; ``not_computed`` the headline metrics a missing judge left out (and why);
    ``groups[column][value]`` the task scores of the rows with that value; ``rows`` each row's raw
    values (``index``, ``query_id``, ``scores``); ``split_rows`` the rows of the whole split, where
    only its first ``n_rows`` were scored (``None``: the whole split was).
    """

    config: str
    benchmark: str
    task: str
    length: str | None
    split: str | None
    metric: str
    n_rows: int
    headline: dict[str, float | None]
    metrics: dict[str, float | None]
    not_computed: dict[str, str] = field(default_factory=dict)
    groups: dict[str, dict[str, dict[str, float | None]]] = field(default_factory=dict)
    rows: list[dict] = field(default_factory=list)
    split_rows: int | None = None

    @property
    def partial(self) -> bool:
        """Only the first rows of the split were scored (``predict --limit``, ``--allow-partial``)."""
        return self.split_rows is not None and self.n_rows < self.split_rows

    def to_dict(self, rows: bool = True) -> dict[str, Any]:
        out = asdict(self)
        if not rows:
            out.pop("rows")
        return out


def _aggregate(scoring, per_row: Sequence[RowScores]) -> dict[str, float | None]:
    names: dict[str, None] = {}
    for scores in per_row:
        names.update(dict.fromkeys(scores))
    return {
        name: scoring.aggregate_metric(name, [s[name] for s in per_row if s.get(name) is not None])
        for name in names
    }


def _group_key(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _groups(scoring, module, by: Sequence[str], rows: Sequence[Row], per_row: Sequence[RowScores]) -> dict:
    """Per column of ``by``, the task scores of each value's rows; a row whose value is ``None`` is in
    no group, and a column no row has a value in gives no breakdown (LongBench v2's token bucket of a
    prompt without a document)."""
    out = {}
    levels = getattr(module, "GROUP_LEVELS", {})
    for name in by:
        members: dict[str, list[RowScores]] = {key: [] for key in levels.get(name, ())}
        pairs = zip(rows, per_row, strict=True)
        valued = [(row[name], scores) for row, scores in pairs if row[name] is not None]
        if not valued:
            continue
        for value, scores in valued:
            members.setdefault(_group_key(value), []).append(scores)
        out[name] = {key: _aggregate(scoring, group) if group else {} for key, group in members.items()}
    return out


def score_task(
    benchmark: str,
    task: str,
    rows: Sequence[Row],
    predictions: Sequence[str],
    *,
    length: str | None = None,
    split: str | None = None,
    config: str | None = None,
    mode: str = "auto",
    judges: Judges | None = None,
    by: Sequence[str] = (),
    options: Mapping[str, Any] | None = None,
) -> ScoreResult:
    """Score ``predictions`` (one string per row, in row order) of one task's rows."""
    module = metrics_module(benchmark)
    try:
        scoring = module.task_scoring(task, **(options or {}))
    except TypeError as exc:
        raise UnknownNameError(
            f"{benchmark} metrics do not take the options {sorted(options or {})}: {exc}"
        ) from None
    if mode not in MODES:
        raise UnknownNameError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    config = config or (f"{benchmark}/{task}_{length}" if length else f"{benchmark}/{task}")
    if len(predictions) != len(rows):
        raise PredictionError(f"{config}: {len(predictions)} predictions for {len(rows)} rows")
    if not rows:
        raise DataFormatError(f"{config}: there are no rows to score")
    for name in by:
        if name not in rows[0]:
            raise UnknownNameError(
                f"cannot group {config} by {name!r}: not a column of its rows ({', '.join(rows[0])})"
            )
    judges = judges or Judges()
    outputs: list[str] = []
    per_row: list[RowScores] = []
    for i, (prediction, row) in enumerate(zip(predictions, rows, strict=True)):
        try:
            output = module.prepare(prediction, row, mode)
            outputs.append(output)
            per_row.append(dict(scoring.row(output, row)))
        except DataFormatError as exc:
            raise DataFormatError(f"{config}, row {i} (query_id {row.get('query_id')!r}): {exc}") from None
    not_computed: dict[str, str] = {}
    if scoring.judged is not None:
        try:
            judged = scoring.judged(outputs, rows, judges)
        except DataFormatError as exc:
            raise DataFormatError(f"{config}: {exc}") from None
        if judged is None:
            not_computed = {m: f"needs {scoring.judge_needed}" for m in scoring.headline}
        else:
            for scores, extra in zip(per_row, judged, strict=True):
                scores.update(extra)
    metrics = _aggregate(scoring, per_row)
    not_computed = {m: why for m, why in not_computed.items() if m not in metrics}
    return ScoreResult(
        config=config,
        benchmark=benchmark,
        task=task,
        length=length,
        split=split,
        metric=scoring.metric,
        n_rows=len(rows),
        headline={m: metrics.get(m) for m in scoring.headline},
        metrics=metrics,
        not_computed=not_computed,
        groups=_groups(scoring, module, by, rows, per_row),
        rows=[
            {"index": i, "query_id": row.get("query_id"), "scores": scores}
            for i, (row, scores) in enumerate(zip(rows, per_row, strict=True))
        ],
    )


def load_rows(dataset) -> list[dict]:
    """A split's rows as dicts (from a ``Dataset``, an ``IterableDataset`` or any iterable of
    mappings), without the long columns no metric reads."""
    names = getattr(dataset, "column_names", None) or []
    drop = [c for c in UNREAD_COLUMNS if c in names]
    if drop and hasattr(dataset, "remove_columns"):
        dataset = dataset.remove_columns(drop)
    if hasattr(dataset, "to_list"):
        return dataset.to_list()
    return [dict(r) for r in dataset]


def _as_predictions(predictions: Iterable, rows: Sequence[Row], config: str) -> list[str]:
    predictions = list(predictions)
    if all(isinstance(p, str) for p in predictions):
        return predictions
    if all(isinstance(p, Mapping) for p in predictions):
        query_ids = [str(r.get("query_id")) for r in rows]
        return align_predictions(
            [(i + 1, p) for i, p in enumerate(predictions)], query_ids, source=f"predictions for {config}"
        )
    raise PredictionError(
        f"predictions for {config} must all be strings (in row order) or all be records with 'prediction'"
    )


def score(
    config: str,
    rows,
    predictions: Iterable,
    *,
    split: str | None = "eval",
    mode: str = "auto",
    nli: Callable[[str, str], bool] | None = None,
    judge: Callable[[str, int], str | None] | None = None,
    by: Sequence[str] = (),
    options: BuildOptions | None = None,
    **metric_options: Any,
) -> ScoreResult:
    """Score one config's rows with its benchmark's official metrics.

    ``config`` is a config name (``"nq_8k"``, ``"helmet/nq_8k"``); ``rows`` the split (a
    ``datasets.Dataset`` or a list of row dicts), or ``None``: the config's ``split``, built with the
    build ``options`` (:class:`~longbench_suite.options.BuildOptions`, as ``load_dataset`` builds it);
    ``predictions`` either strings in row order or records
    ``{"index" | "query_id": ..., "prediction": str}``. ``mode`` says how the outputs were
    generated (HELMET prepends the answer prefix in completion mode; ``"auto"`` follows each row's
    ``use_chat_template``). ``nli`` and ``judge`` are the model judges HELMET's citation and
    GPT-4o metrics need; without them those metrics are reported as not computed. The other keywords go
    to the benchmark's metrics (LongBench: ``code_matcher="difflib" | "levenshtein"``; LongBench v2:
    ``strict=True``, empty and unparsed answers counted wrong).
    """
    from .. import registry

    benchmark, name = registry.resolve(config)
    task, length = registry.benchmark(benchmark).lookup(name)
    qualified = f"{benchmark}/{name}"
    if rows is None:
        from ..api import load_dataset

        rows = load_dataset(registry.SUITE, qualified, split=split, options=options)
    elif options is not None:
        raise OptionError("score: options= builds the rows; give rows=None with it, or the rows alone")
    rows = load_rows(rows)
    return score_task(
        benchmark,
        task.name,
        rows,
        _as_predictions(predictions, rows, qualified),
        length=length,
        split=split,
        config=qualified,
        mode=mode,
        judges=Judges(nli=nli, llm=judge),
        by=by,
        options=metric_options,
    )


def scoring_options(benchmarks: Sequence[str], **given: Any) -> dict[str, dict[str, Any]]:
    """Per benchmark, the scoring options of ``given`` (those set: not ``False``/``None``) that its
    metrics module lists in its ``SCORING_OPTIONS`` (the commands' ``--strict``: count the rows an
    official scorer leaves out as wrong); an option set that none of ``benchmarks`` takes is an
    :class:`OptionError` naming it."""
    out: dict[str, dict[str, Any]] = {b: {} for b in benchmarks}
    for option, value in given.items():
        if value is None or value is False:
            continue
        takers = [b for b in out if option in getattr(metrics_module(b), "SCORING_OPTIONS", ())]
        if not takers:
            flag = "--" + option.replace("_", "-")
            raise OptionError(
                f"{flag}: the scoring of none of the configs' benchmarks ({', '.join(out)}) takes it"
            )
        for benchmark in takers:
            out[benchmark][option] = value
    return out


def summary_names(benchmark: str) -> list[str]:
    return list(metrics_module(benchmark).SUMMARIES)


def summarize(results: Sequence[ScoreResult], by: str) -> dict[str, Any]:
    """A benchmark's official averages over several configs' results (``by``: ``"category"`` for
    HELMET and LongBench, ``"level"`` for LV-Eval), one entry per benchmark."""
    out: dict[str, Any] = {}
    for benchmark in dict.fromkeys(r.benchmark for r in results):
        summaries = metrics_module(benchmark).SUMMARIES
        if by not in summaries:
            known = ", ".join(summaries) or "none"
            raise UnknownNameError(f"{benchmark} has no {by!r} summary (it has: {known})")
        out[benchmark] = summaries[by]([r for r in results if r.benchmark == benchmark])
    return out
