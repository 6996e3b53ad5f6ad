"""Reward functions for RL fine-tuning, made of each benchmark's official metric.

:func:`reward_function` returns a callable in the signature TRL's ``GRPOTrainer`` takes for
``reward_funcs``: ``reward(prompts, completions, **columns) -> list[float]``, where ``columns`` are
the dataset's other columns, one list each (``format="prompt"`` keeps them). Each value is exactly
the per-row value the scorer computes for the task's headline metric (SubEM, F1, ROUGE-L, NDCG,
code similarity, LV-Eval's keyword-gated F1, Ada-LEval accuracy, ...), on the scorer's scale (0-1 for
most; see ``longbench-suite score``), and 0 for a row the metric is not defined on (NDCG@10 of a
query with fewer than 10 candidates, which the scorer leaves out of its mean). Tasks scored by a
model judge (HELMET's GPT-4o and NLI judges) have no reward function here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import registry
from ..errors import CompletionTypeError, UnknownNameError

Reward = Callable[..., list[float]]


def completion_text(completion: Any, index: int = 0) -> str:
    """The model's text: a string, or the content of the last turn of a conversational completion
    (``index``: its place among the completions, named if it is neither)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], Mapping):
        return str(completion[-1].get("content", ""))
    raise CompletionTypeError(
        f"completions[{index}]: a completion must be a string or a list of messages, got "
        f"{type(completion).__name__}"
    )


def reward_function(name: str, *, metric: str | None = None) -> Reward:
    """The reward of a task (``"nq"``, ``"helmet/nq"``) or a config of it (``"nq_8k"``): its headline
    metric, or ``metric`` among the values the scorer computes per row."""
    from ..metrics.scoring import metrics_module

    bench, task = _task(name)
    module = metrics_module(bench.name)
    scoring = module.task_scoring(task.name)
    if scoring.judged is not None and metric is None:
        raise UnknownNameError(
            f"{bench.name}/{task.name} is scored by a model judge ({scoring.judge_needed}); it has no reward "
            "function without one"
        )
    wanted = metric or scoring.headline[0]

    def reward(prompts: Sequence[Any], completions: Sequence[Any], **columns: Any) -> list[float]:
        values = []
        for i, completion in enumerate(completions):
            row = {
                name: column[i] for name, column in columns.items() if _is_column(column, len(completions))
            }
            output = module.prepare(completion_text(completion, i), row, "auto")
            value = scoring.row(output, row).get(wanted)
            values.append(0.0 if value is None else float(value))
        return values

    reward.__name__ = f"{bench.name}_{task.name}_{wanted}".replace("-", "_").replace("@", "_at_")
    return reward


def _is_column(value: Any, n: int) -> bool:
    """A dataset column of one value per completion (TRL passes lists; other keyword arguments, such as
    its ``trainer_state``, are not columns)."""
    if isinstance(value, str | bytes | Mapping) or not hasattr(value, "__getitem__"):
        return False
    try:
        return len(value) == n
    except TypeError:
        return False


def _task(name: str):
    """The benchmark and task a task name, a qualified task or a config name refers to."""
    bench_name, _, bare = name.rpartition("/")
    benchmarks = (
        [registry.benchmark(bench_name)] if bench_name else map(registry.benchmark, registry.BENCHMARKS)
    )
    found = [
        (bench, task)
        for bench in benchmarks
        for task in bench.tasks
        if bare == task.name or (bench.has_config(bare) and bench.lookup(bare)[0] is task)
    ]
    if len(found) > 1:
        names = ", ".join(f"{bench.name}/{bare}" for bench, _ in found)
        raise UnknownNameError(f"{name!r} is ambiguous; use one of {names}")
    if not found:
        raise UnknownNameError(f"no task or config {name!r} (see `longbench-suite list`)")
    return found[0]
