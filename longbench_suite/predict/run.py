"""``longbench-suite predict``: build configs, predict their split, optionally score and report."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import OptionError, UnknownNameError
from ..options import BuildOptions
from ..outputs import written_aside_together
from . import record as run_record
from .backends import Backend, OpenAIBackend
from .requests import follow_up_cut
from .runner import predict_split

BACKENDS = ("openai", "transformers")


@dataclass
class PredictRun:
    """What a run produced: a predictions file per config, the run record (``run.json``), and (with
    scoring) the results."""

    files: dict[str, str]
    record: dict[str, Any] = field(default_factory=dict)
    results: list = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    reports: dict[str, str] = field(default_factory=dict)


def make_backend(
    backend: str,
    model: str,
    *,
    endpoint: str | None = None,
    api_key: str | None = None,
    concurrency: int = 8,
    max_retries: int = 8,
    timeout: float = 600.0,
    device: str | None = None,
) -> Backend:
    if backend == "openai":
        if not endpoint:
            raise UnknownNameError("the openai backend needs an endpoint (--endpoint http://host:port/v1)")
        return OpenAIBackend(
            endpoint,
            model,
            api_key=api_key,
            concurrency=concurrency,
            max_retries=max_retries,
            timeout=timeout,
        )
    if backend == "transformers":
        from .local import TransformersBackend

        return TransformersBackend(model, device=device)
    raise UnknownNameError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")


def predictions_path(output_dir: str, benchmark: str, config: str, split: str) -> str:
    return os.path.join(output_dir, benchmark, f"{config}.{split}.jsonl")


def check_split_name(split: str) -> None:
    """A whole split: its predictions file is named after it, and ``--limit`` takes its first rows."""
    if re.fullmatch(r"\w+", split):
        return
    head = re.fullmatch(r"\s*(\w+)\[\s*:\s*(\d+)\s*\]\s*", split)
    hint = f"--split {head[1]} --limit {head[2]}" if head else "--split NAME --limit N"
    raise OptionError(
        f"--split {split!r}: predictions are made for a whole split (the file is named after it); for its "
        f"first rows use {hint}"
    )


def check_limit(limit: int | None) -> None:
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise OptionError(f"--limit {limit!r}: give a number of rows, 1 or more")


def check_requests(*, concurrency: int = 8, max_retries: int = 8, timeout: float = 600.0) -> None:
    """Refuse request settings no backend can work with: no request in flight, fewer than no retries,
    a request given no time."""
    for name, value, least in (("concurrency", concurrency, 1), ("max_retries", max_retries, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            flag = "--" + name.replace("_", "-")
            raise OptionError(f"{name} ({flag}) must be an integer of at least {least}, got {value!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout < float("inf"):
        raise OptionError(f"timeout (--timeout) must be a positive number of seconds, got {timeout!r}")


def check_output_folder(output_dir: str) -> None:
    """``--output`` names a folder (made if missing): not a file, nor a path under one."""
    existing = os.path.abspath(output_dir)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        where = "is a file" if existing == os.path.abspath(output_dir) else f"is under the file {existing}"
        raise OptionError(f"--output {output_dir} {where}; name a folder for the run's predictions")


def partial_note(qualified: str, rows: int, split_rows: int) -> str:
    return f"{qualified}: {rows} of {split_rows} rows (a partial split)"


def predict(
    configs: Sequence[str],
    output_dir: str,
    *,
    model: str,
    backend: str | Backend = "openai",
    endpoint: str | None = None,
    api_key: str | None = None,
    concurrency: int = 8,
    max_retries: int = 8,
    timeout: float = 600.0,
    split: str = "eval",
    limit: int | None = None,
    force_new: bool = False,
    score: bool = False,
    allow_partial: bool = False,
    strict: bool = False,
    judges=None,
    plot: bool = True,
    progress: bool | None = None,
    options: BuildOptions | None = None,
    **build_options: Any,
) -> PredictRun:
    """Predict ``split`` of every config into ``output_dir/<benchmark>/<config>.<split>.jsonl``.

    ``backend``: ``"openai"`` (an OpenAI-compatible server at ``endpoint``, ``model`` its model name),
    ``"transformers"`` (``model`` a local Hugging Face model directory, run in-process), or any object
    with ``generate(request) -> Reply`` and ``concurrency``. ``limit``: only the first ``limit`` rows of
    the split, in its order (a smoke run). ``output_dir/run.json`` records the model, backend, endpoint,
    split, limit and ``build_options`` (:mod:`.record`); a file left by an interrupted run is resumed
    only under the same record (``force_new`` discards the folder's predictions and starts over).
    ``score=True`` then scores every config with its benchmark's metrics and writes ``results.md``,
    ``results.json`` and ``scores.png`` into ``output_dir``; a partial split (``limit`` below the
    split's rows) is scored only with ``allow_partial=True``, and marked partial; ``strict=True`` scores
    with the ``strict`` option of the benchmarks that take it (LongBench v2: empty replies count as
    wrong). The build options are ``options=BuildOptions(...)`` and/or its fields as keywords
    (``mirror``, ``tokenizer``, ``cache_dir``, ...; a keyword replaces that field), as for
    :func:`~longbench_suite.get_builder`.
    """
    from .. import api, registry

    options = BuildOptions.of(options, **build_options)
    check_split_name(split)
    check_limit(limit)
    check_requests(concurrency=concurrency, max_retries=max_retries, timeout=timeout)
    check_output_folder(output_dir)
    if strict and not score:
        raise OptionError("--strict is a scoring option: give it with --score")
    backend_name = backend if isinstance(backend, str) else type(backend).__name__
    if isinstance(backend, str):
        backend = make_backend(
            backend,
            model,
            endpoint=endpoint,
            api_key=api_key,
            concurrency=concurrency,
            max_retries=max_retries,
            timeout=timeout,
        )
    if score:  # a scoring option no config takes is refused before anything is built or asked
        from ..metrics.scoring import scoring_options

        scoring_options([registry.resolve(name)[0] for name in configs], strict=strict)
        if plot:
            from .tables import require_plotting

            require_plotting()
    builders = [api.get_builder(name, split=split, options=options) for name in configs]
    for builder in builders:
        api.check_splits(builder, split)
    api.prepare(builders)
    planned = []
    for builder in builders:
        qualified = f"{builder.BENCHMARK.name}/{builder.config.name}"
        dataset = api.prepared(builder, split)
        split_rows = len(dataset)
        if limit is not None and limit < split_rows:
            if score and not allow_partial:
                raise OptionError(
                    f"--limit {limit}: {partial_note(qualified, limit, split_rows)} is scored only with "
                    "--allow-partial (and then marked partial); leave out --score for a smoke run"
                )
            dataset = dataset.select(range(limit))
        planned.append((builder, qualified, dataset, split_rows))
    files = {
        qualified: os.path.relpath(
            predictions_path(output_dir, b.BENCHMARK.name, b.config.name, split), output_dir
        )
        for b, qualified, _, _ in planned
    }
    model_named = os.path.abspath(model) if backend_name == "transformers" and os.path.isdir(model) else model
    record = run_record.run_record(
        model=model_named,
        backend=backend_name,
        endpoint=endpoint,
        split=split,
        limit=limit,
        build=run_record.build_record(options, builders),
    )
    run = PredictRun(files={}, record=run_record.claim(output_dir, record, files, force_new=force_new))
    splits = []
    for builder, qualified, dataset, split_rows in planned:
        path = os.path.join(output_dir, files[qualified])
        task = builder.config.task
        length, tokens = builder.config.length, options.max_input_tokens
        cut = follow_up_cut(task, length, tokens, lambda b=builder: b.tokenizer)
        journal = predict_split(
            task, dataset, backend, path, desc=qualified, progress=progress, follow_up_cut=cut
        )
        run.files[qualified] = path
        splits.append((builder, dataset, journal.predictions(), split_rows))
    if score:
        _score(run, splits, output_dir, split, judges, plot, strict)
    return run


def _score(run: PredictRun, splits, output_dir: str, split: str, judges, plot: bool, strict: bool) -> None:
    from ..metrics import score_task, summarize
    from ..metrics.report import results_json
    from ..metrics.scoring import load_rows, metrics_module, scoring_options
    from .tables import markdown_report, plot_scores

    metric_options = scoring_options([b.BENCHMARK.name for b, *_ in splits], strict=strict)
    for builder, dataset, predictions, split_rows in splits:
        name = builder.BENCHMARK.name
        rows = load_rows(dataset)
        levels: Mapping = getattr(metrics_module(name), "GROUP_LEVELS", {})
        result = score_task(
            name,
            builder.config.task.name,
            rows,
            predictions,
            length=builder.config.length,
            split=split,
            config=f"{name}/{builder.config.name}",
            judges=judges,
            by=[c for c in levels if c in rows[0]],
            options=metric_options[name],
        )
        result.split_rows = split_rows
        run.results.append(result)
    for benchmark in dict.fromkeys(r.benchmark for r in run.results):
        for by in metrics_module(benchmark).SUMMARIES:
            run.summary.setdefault(by, {}).update(
                summarize([r for r in run.results if r.benchmark == benchmark], by)
            )
    os.makedirs(output_dir, exist_ok=True)
    names = dict(zip(("markdown", "json", "png"), run_record.REPORTS, strict=True))
    run.reports = {kind: os.path.join(output_dir, names[kind]) for kind in names if plot or kind != "png"}
    with written_aside_together(list(run.reports.values())) as partials:
        partial = dict(zip(run.reports, partials, strict=True))
        with open(partial["markdown"], "w", encoding="utf-8") as f:
            f.write(markdown_report(run.results, run.summary))
        results_json(run.results, run.summary, partial["json"], run=run_record.without_files(run.record))
        if plot:
            plot_scores(run.results, partial["png"])
