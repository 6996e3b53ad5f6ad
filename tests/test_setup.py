"""README's first set-up command, ``pip install -e . && longbench-suite demo``, on exactly what it
installs: a fresh venv with the plain install (no extras), an empty ``HF_HOME``, offline. The other
tests run with every extra installed, so a dependency only an extra brings would hide from them."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.venvs import fresh_venv

ROOT = Path(__file__).resolve().parent.parent


def test_readme_has_exactly_the_two_set_up_commands():
    """The set-up section's commands are the ones this file and the fast lane run."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)
    assert [b.strip() for b in blocks] == [
        "pip install -e . && longbench-suite demo",
        'pip install -e ".[test]" && python -m pytest',
    ]


@pytest.mark.slow
def test_the_plain_install_runs_the_demo_offline_with_an_empty_hf_home(tmp_path):
    python = fresh_venv(tmp_path / "venv", "-e", str(ROOT))
    hf_home = tmp_path / "hf_home"
    hf_home.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("HF_", "LONGBENCH_SUITE_", "TIKTOKEN_")) and key != "PYTHONPATH"
    }
    env |= {"HF_HOME": str(hf_home), "HF_HUB_OFFLINE": "1"}
    demo = subprocess.run(
        [str(python.parent / "longbench-suite"), "demo"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert demo.returncode == 0, demo.stderr[-3000:]
    for config in ("helmet/nq_8k", "lveval/factrecall_en_16k", "adaleval/tsort_2k", "helmet/gen_json_kv_2k"):
        assert re.search(rf"^{re.escape(config)} +dev|^{re.escape(config)} +eval", demo.stdout, re.M), config
    assert re.search(r"^helmet/gen_niah_multikey_2_2k +dev +5 ", demo.stdout, re.M)
    mirror = hf_home / "datasets" / "longbench_suite" / "demo" / "mirror"
    assert f"Sample sources (upstream layouts): {mirror}" in demo.stdout
    assert (mirror / "longbench-suite-samples.json").is_file()
    # what the README shows after the demo, on the same plain install: it works, or (needing an extra)
    # ends in one line naming the extra, never a traceback; the examples likewise
    cli = str(python.parent / "longbench-suite")
    examples = ROOT / "examples"
    shown = {
        "info": [cli, "info", "nq_32k", "--demo"],
        "build": [cli, "build", "nq_8k", "--split", "dev", "--output", "nq_8k-dev.jsonl", "--demo"],
        "check": [cli, "check", "helmet/nq_8k", "--demo"],
        "export": [cli, "export", "nq_8k", "--output", "repo", "--demo"],
        "push --dry-run": [cli, "push", "nq_8k", "--repo-id", "o/n", "--dry-run", "--demo"],
        "push_to_hub.py": [str(python), str(examples / "push_to_hub.py"), "nq_8k", "--repo-id", "o/n"],
        "score.py": [str(python), str(examples / "score.py"), "nq_8k", "--demo", "--baseline", "first-word"],
        "score": [cli, "score", "nq_8k", "--predictions", "predictions.jsonl", "--demo"],
    }
    shown["push_to_hub.py"] += ["--dry-run", "--demo"]
    for what, argv in shown.items():
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
        last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
        assert "Traceback" not in done.stderr, (what, done.stderr[-3000:])
        assert done.returncode == 0 or (
            done.returncode in (1, 2) and ": error: " in last and "pip install 'longbench-suite[" in last
        ), (what, done.returncode, done.stderr[-3000:])
