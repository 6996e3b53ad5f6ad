"""The lower bounds in pyproject.toml are real: ``ci/floors.txt`` pins each of the library's own
dependencies at its bound, and a fresh venv with exactly those versions passes a representative subset
of the tests (every benchmark's build, sources, records, tokenizers, truncation, metrics, streaming)."""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.support.venvs import fresh_venv

ROOT = Path(__file__).resolve().parent.parent
FLOORS = ROOT / "ci" / "floors.txt"
SUBSET = [
    "tests/test_tokenizers.py",
    "tests/test_records.py",
    "tests/test_sources.py",
    "tests/test_api_cli.py",
    "tests/test_longbench.py",
    "tests/test_adaleval.py",
    "tests/test_lveval.py",
    "tests/test_metrics_longbench.py",
    "tests/test_metrics_lveval.py",
    "tests/test_metrics_adaleval.py",
    "tests/test_helmet_rag.py",
    "tests/test_streaming_shards.py",
    "tests/test_truncation.py",
]


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _floors() -> dict[str, str]:
    pins = {}
    for line in FLOORS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[_name(name)] = version
    return pins


def test_every_dependency_has_its_lower_bound_pinned_in_the_floors_file():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    bounds = {}
    for requirement in project["dependencies"]:
        found = re.search(r">=\s*([\w.]+)", requirement)
        assert found, f"{requirement!r} has no lower bound"
        bounds[_name(requirement)] = found.group(1)
    floors = _floors()
    assert set(bounds) == set(floors)
    for name, bound in bounds.items():
        assert floors[name].startswith(bound) or floors[name] == bound, (name, bound, floors[name])


@pytest.mark.slow
def test_the_floors_pass_a_representative_subset(tmp_path):
    """Installs from the package index (as CI's own set-up does), then runs the subset there."""
    requirements = (f"{ROOT}[metrics]", "pytest", "hypothesis")
    python = str(fresh_venv(tmp_path / "floors-venv", *requirements, constraints=FLOORS))
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True, check=True
    ).stdout
    installed = {_name(line): line.split("==", 1)[1] for line in listed.splitlines() if "==" in line}
    for name, version in _floors().items():
        assert installed.get(name) == version, (name, installed.get(name), version)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    tests = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", *SUBSET]
    run = subprocess.run(tests, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-2000:]
    print(f"floors subset: {summary}")
    assert run.returncode == 0, run.stdout[-6000:]
