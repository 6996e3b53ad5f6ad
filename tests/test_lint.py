import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_is_clean():
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    result = subprocess.run(
        [ruff, "check", "longbench_suite", "tests", "perf", "examples"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_dead_code():
    """vulture finds no unused definition in the library; what it cannot see used is listed, each with
    its reason, in tests/vulture_whitelist.py."""
    vulture = shutil.which("vulture") or str(Path(sys.executable).with_name("vulture"))
    result = subprocess.run(
        [vulture, "longbench_suite", "tests/vulture_whitelist.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
