"""``longbench-suite compare``: several models' results side by side.

>>> from longbench_suite import compare
>>> comparison = compare(["runs/qwen", "runs/llama"], "comparison")  # doctest: +SKIP

- :mod:`.runs`: reading each run's ``results.json``, naming its model, gathering one model's runs;
- :mod:`.tables`: per benchmark, models × lengths for each task and each of the benchmark's averages;
- :mod:`.report`: ``compare.md``, ``compare.csv``, ``compare.json``; :mod:`.plot`: ``compare.png``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import OptionError, StorageError, describe
from ..outputs import written_aside_together
from .runs import Model, gather, read_run
from .tables import BenchmarkComparison, compare_benchmark

FILES = ("compare.md", "compare.json", "compare.csv", "compare.png")


@dataclass
class Comparison:
    """The compared models, each benchmark's tables, notes, and the files written (kind -> path)."""

    models: list[Model]
    benchmarks: list[BenchmarkComparison]
    notes: list[str]
    files: dict[str, str] = field(default_factory=dict)


def build(runs: Sequence[str], names: Sequence[str] | None = None) -> Comparison:
    """The comparison of ``runs`` (run directories or results files), without writing anything."""
    from .. import registry

    if not runs:
        raise OptionError("compare needs at least one run directory")
    if names is not None and len(names) != len(runs):
        raise OptionError(f"{len(names)} --name for {len(runs)} runs; give one --name per run, in order")
    read = [read_run(run, names[i] if names else None) for i, run in enumerate(runs)]
    models, notes = gather(read)
    present = {e.result.benchmark for m in models for e in m.entries.values()}
    benchmarks = [compare_benchmark(b, models) for b in registry.benchmark_names() if b in present]
    return Comparison(models, benchmarks, notes)


def compare(
    runs: Sequence[str], output_dir: str, names: Sequence[str] | None = None, *, plot: bool = True
) -> Comparison:
    """Compare the ``results.json`` of several ``predict --score`` runs (or ``score --output`` files):
    writes ``compare.md``, ``compare.json``, ``compare.csv`` and (``plot=True``, needs the ``cards``
    extra) ``compare.png`` into ``output_dir``, moved in place together (without a picture, one an
    earlier comparison left there is removed). ``names`` (one per run) override the model names the
    runs recorded."""
    from . import report

    if plot:
        _require_matplotlib()
    comparison = build(runs, names)
    if os.path.exists(output_dir) and not os.path.isdir(output_dir):
        raise OptionError(f"--output {output_dir} is a file; name a directory for the comparison's files")
    try:
        os.makedirs(output_dir, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create the directory {output_dir}: {exc.strerror or exc}") from None
    labels = [m.label for m in comparison.models]
    models, benchmarks, notes = comparison.models, comparison.benchmarks, comparison.notes
    texts = {
        "markdown": report.markdown(models, benchmarks, notes),
        "json": report.json_text(report.json_payload(models, benchmarks, notes)),
        "csv": report.csv_text(comparison.benchmarks),
    }
    kinds = [*texts, *(["png"] if plot else [])]
    paths = [os.path.join(output_dir, name) for name in FILES[: len(kinds)]]
    # moved in place together: a failure leaves the files of before, never new tables beside an old picture
    with written_aside_together(paths) as partials:
        for text, partial in zip(texts.values(), partials, strict=False):
            with open(partial, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        if plot:
            from .plot import plot as draw

            draw(comparison.benchmarks, labels, partials[-1])
    comparison.files = dict(zip(kinds, paths, strict=True))
    stale = os.path.join(output_dir, FILES[3])
    if not plot and os.path.isfile(stale):  # an earlier comparison's picture, of other runs or names
        try:
            os.remove(stale)
        except OSError as exc:
            raise StorageError(f"cannot remove the earlier picture {stale}: {describe(exc)}") from None
    return comparison


def _require_matplotlib() -> None:
    from ..publish.histogram import require_matplotlib

    require_matplotlib(
        "the comparison's picture needs", "compare with plot=False / --no-plot for the tables alone"
    )


__all__ = ["Comparison", "build", "compare"]
