"""A task's declaration fields are declared once, on ``Task``; a task that leaves one out fails where it
is declared (its module's import), never later when a config is built."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import textwrap
from dataclasses import MISSING

import pytest

from longbench_suite import registry
from longbench_suite.task import DECLARED, Task


def _task_classes() -> list[tuple[str, Task]]:
    """One registered task of every task class, by ``benchmark/class``."""
    found: dict[str, Task] = {}
    for bench in registry.benchmark_names():
        for task in registry.benchmark(bench).tasks:
            found.setdefault(f"{bench}/{type(task).__name__}", task)
    return sorted(found.items())


CLASSES = _task_classes()


def _declaration(task: Task) -> dict:
    """The keywords that declare ``task`` again."""
    return {f.name: getattr(task, f.name) for f in dataclasses.fields(task) if f.init}


def test_the_required_fields_are_the_ones_every_benchmark_relies_on():
    relied_on = {"name", "template", "fit", "metric", "category", "use_chat_template", "max_new_tokens"}
    assert relied_on <= set(DECLARED)
    assert all(f.default is MISSING for f in dataclasses.fields(Task) if f.name in DECLARED)


@pytest.mark.parametrize(("label", "task"), CLASSES, ids=[label for label, _ in CLASSES])
def test_a_declaration_without_a_required_field_cannot_be_created(label, task):
    # the same keywords declare the task again, field for field
    again = type(task)(**_declaration(task))
    assert _declaration(again) == _declaration(task) and again.lengths == task.lengths
    own = {f.name: f for f in dataclasses.fields(task) if f.init}
    for name in [n for n in DECLARED if n in own]:
        keywords = {**_declaration(task), name: None}
        with pytest.raises(TypeError, match=rf"declares {name} as None"):
            type(task)(**keywords)
        if own[name].default is MISSING and own[name].default_factory is MISSING:
            keywords.pop(name)
            with pytest.raises(TypeError, match=rf"missing 1 required keyword-only argument: '{name}'"):
                type(task)(**keywords)


@pytest.mark.parametrize(("label", "task"), CLASSES, ids=[label for label, _ in CLASSES])
def test_a_benchmark_base_redeclares_a_task_field_only_to_give_it_a_default(label, task):
    task_fields = {f.name for f in dataclasses.fields(Task)}
    for cls in type(task).__mro__[: type(task).__mro__.index(Task)]:
        own = set(inspect.get_annotations(cls)) & task_fields
        for f in dataclasses.fields(cls):
            if f.name in own:
                defaulted = f.default is not MISSING or f.default_factory is not MISSING
                assert defaulted or not f.init, f"{cls.__name__} declares {f.name} again, without a default"


def test_a_module_declaring_an_incomplete_task_fails_to_import(tmp_path, monkeypatch):
    (tmp_path / "legal_tasks.py").write_text(
        textwrap.dedent(
            """
            from longbench_suite.benchmarks.longbench.prompts import TEMPLATES
            from longbench_suite.benchmarks.longbench.tasks import LongBenchTask

            TASKS = (
                LongBenchTask(
                    name="legal_qa", base="legal_qa", sibling=None, template=TEMPLATES["qasper"],
                    category="Single-Doc QA", language="en", max_new_tokens=64, eval_rows=200,
                    use_chat_template=True,
                ),
            )
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    missing = r"LongBenchTask.__init__\(\) missing 1 required keyword-only argument: 'metric'"
    with pytest.raises(TypeError, match=missing):
        importlib.import_module("legal_tasks")
