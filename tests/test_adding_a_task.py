"""Adding a LongBench-style task is CONTRIBUTING.md's worked example 1 and nothing more: the declaration
(``tasks.json``), the prompt (``prompts.py``), the sample entry (``samples.py``'s ``KINDS``) and the spec
line (``tests/specs/longbench.py``).

The test makes exactly those four edits to temporary copies of the benchmark's folder and of the spec,
laid over the originals in child processes (first on the packages' ``__path__``, so every import of
``longbench_suite.benchmarks.longbench`` and ``tests.specs.longbench`` gets the copy), and shows that
the library lists, builds, scores and documents the new task, and that the registry's spec check and
the LongBench tests enumerate it, unchanged.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import longbench_suite.benchmarks
import tests.specs

ROOT = Path(__file__).resolve().parent.parent
NEW = "legal_qa"
#: the prompt of the new task (a task added upstream brings its own, copied verbatim)
PROMPT = (
    "You are given a legal document and a question. Answer the question as concisely as you can.\n\n"
    "Document: {context}\n\nQuestion: {input}\nAnswer:"
)


def _worked_example_text() -> str:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    return text[text.index("## Worked example 1") : text.index("## Worked example 2")]


def _worked_example() -> tuple[dict, str]:
    """The declaration and the spec line CONTRIBUTING.md's worked example 1 adds, from its code blocks."""
    example = _worked_example_text()
    (declaration,) = re.findall(r"```json\n(.*?)```", example, re.S)
    (spec_line,) = re.findall(r"```python\n(.*?)```", example, re.S)
    return json.loads(textwrap.dedent(declaration)), "    " + textwrap.dedent(spec_line).strip() + "\n"


def test_the_worked_example_names_four_files_and_adds_this_task():
    example = _worked_example_text()
    steps = re.findall(r"^\d+\. \*\*(.+?)\*\*", example, re.M)
    assert steps == ["The declaration", "The prompt", "Sample data", "The spec line"]
    assert "It touches four files" in example
    declaration, spec_line = _worked_example()
    assert declaration["name"] == NEW and spec_line.startswith(f'    "{NEW}": Line(')


def _add_entry(path: Path, opening: str, line: str) -> None:
    """Add ``line`` as the last entry of the dict literal that ``opening`` starts in the file ``path``."""
    text = path.read_text(encoding="utf-8")
    end = text.index("\n}\n", text.index(opening)) + 1
    path.write_text(text[:end] + line + text[end:], encoding="utf-8")


def _overlay(root: Path) -> tuple[Path, Path]:
    """Copies of the LongBench folder and the specs, with the task added; returns their folders."""
    package = Path(longbench_suite.benchmarks.__path__[0]) / "longbench"
    benchmarks, specs = root / "benchmarks", root / "specs"
    copy = benchmarks / "longbench"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(Path(tests.specs.__path__[0]), specs, ignore=shutil.ignore_patterns("__pycache__"))

    declarations = json.loads((copy / "tasks.json").read_text(encoding="utf-8"))
    declaration, spec_line = _worked_example()
    declarations.append(declaration)
    (copy / "tasks.json").write_text(json.dumps(declarations, indent=1), encoding="utf-8")
    _add_entry(copy / "prompts.py", "TEMPLATES:", f"    {NEW!r}: PromptTemplate({PROMPT!r}),\n")
    _add_entry(copy / "samples.py", "KINDS:", f"    {NEW!r}: single_doc,\n")
    _add_entry(specs / "longbench.py", "LINES = {", spec_line)
    return benchmarks, specs


#: run first in each child: the copies come before the originals on the packages' import paths
PRELUDE = """
import sys
import longbench_suite.benchmarks, tests.specs
longbench_suite.benchmarks.__path__.insert(0, {benchmarks!r})
tests.specs.__path__.insert(0, {specs!r})
assert "longbench_suite.benchmarks.longbench" not in sys.modules
"""

CHILD = """
import dataclasses, json, os
from longbench_suite import export, load_dataset, registry
from longbench_suite.metrics import score_task
from tests.specs import differences, spec
from tests.specs.longbench import LENGTHS

NEW = {new!r}
out = {{}}
expected = spec("longbench")
out["differences"] = differences(expected)
forgot = dataclasses.replace(expected, tasks={{k: v for k, v in expected.tasks.items() if k != NEW}})
out["without_the_spec_line"] = differences(forgot)
out["listed"] = [c for c in registry.list_configs("longbench") if c.startswith(f"longbench/{{NEW}}_")]
out["lengths"] = list(LENGTHS)

from longbench_suite.benchmarks.longbench import samples
mirror, cache = os.path.join({tmp!r}, "mirror"), os.path.join({tmp!r}, "cache")
samples.write_samples(mirror, samples.DEMO)
options = dict(mirror=mirror, tokenizer="words", cache_dir=cache)
splits = load_dataset("longbench", f"{{NEW}}_4k", **options)
rows = splits["eval"]
out["splits"] = sorted(splits)
out["rows"] = rows.to_list()
out["demo_rows"] = samples.declared_sizes(samples.DEMO)[f"{{NEW}}_4k"]
result = score_task("longbench", NEW, rows.to_list(), [r["answers"][0] for r in rows], length="4k")
out["headline"] = result.headline
exported = os.path.join({tmp!r}, "export")
export([f"longbench/{{NEW}}_4k"], exported, histogram=False, **options)
with open(os.path.join(exported, "README.md"), encoding="utf-8") as handle:
    out["card"] = handle.read()
print(json.dumps(out))
"""


def _child_env() -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="0", TOKENIZERS_PARALLELISM="false")
    return env


@pytest.fixture(scope="module")
def overlay(tmp_path_factory) -> tuple[str, str, str]:
    tmp = tmp_path_factory.mktemp("new-task")
    benchmarks, specs = _overlay(tmp)
    return str(benchmarks), str(specs), str(tmp)


def test_the_four_edits_are_all_a_new_task_needs(overlay):
    benchmarks, specs, tmp = overlay
    script = PRELUDE.format(benchmarks=benchmarks, specs=specs) + CHILD.format(new=NEW, tmp=tmp)
    command = [sys.executable, "-c", script]
    done = subprocess.run(command, cwd=ROOT, env=_child_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])

    # the registry check passes with the spec line, and names the task without it
    assert out["differences"] == []
    assert out["without_the_spec_line"][0] == f"longbench: task {NEW} is registered but not in its spec"
    # listed at every length, built from the samples (no LongBench-E counterpart: no dev), scored
    assert out["listed"] == [f"longbench/{NEW}_{length}" for length in out["lengths"]]
    assert out["splits"] == ["eval"] and len(out["rows"]) == out["demo_rows"]["eval"] > 0
    head = PROMPT.split("{context}")[0]
    for row in out["rows"]:
        assert row["input"].startswith(head)
        assert row["input"].endswith(f"Question: {row['question']}\nAnswer:")
        assert (row["max_new_tokens"], row["max_length"], row["use_chat_template"]) == (64, 4096, True)
        assert row["dataset"] == NEW and row["query_id"].startswith(f"{NEW}-")
    assert out["headline"] == {"qa_f1_score": 100.0}
    # the card's task table has its row, read from the declaration
    (line,) = [x for x in out["card"].splitlines() if x.startswith(f"| `{NEW}` |")]
    assert "| Single-Doc QA | `qa_f1_score` | 64 | yes |" in line and "eval 200" in line


@pytest.mark.slow
def test_the_spec_driven_tests_pick_the_new_task_up(overlay, tmp_path):
    benchmarks, specs, _ = overlay
    plugin = tmp_path / "new_task_overlay.py"
    plugin.write_text(PRELUDE.format(benchmarks=benchmarks, specs=specs), encoding="utf-8")
    env = _child_env()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    files = ["tests/test_registry.py", "tests/test_longbench.py", "tests/test_metrics_longbench.py"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "new_task_overlay", "-p", "no:cacheprovider", "-rA",
         "-k", "listed or layout or builds_with_the_dev_rule or spec or declared or categories", *files],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    passed = [line for line in done.stdout.splitlines() if line.startswith("PASSED")]
    for name in (
        "test_registry.py::test_every_benchmark_has_a_spec_and_matches_it",
        "test_longbench.py::test_every_task_at_every_length_is_listed",
        "test_longbench.py::test_sample_zip_has_the_upstream_layout",
        "test_longbench.py::test_every_config_builds_with_the_dev_rule",
        "test_metrics_longbench.py::test_categories_from_the_declarations_are_the_readmes",
    ):
        assert any(name in line for line in passed), (name, textwrap.shorten(done.stdout, 2000))
