"""Fresh virtual environments for tests that check what an install really brings (no test extras)."""

from __future__ import annotations

import subprocess
import venv
from pathlib import Path


def fresh_venv(directory: Path, *requirements: str, constraints: Path | None = None) -> Path:
    """A new venv in ``directory`` with ``requirements`` pip-installed from the package index (as a user's
    set-up does); returns its ``python``."""
    venv.create(directory, with_pip=True)
    python = directory / "bin" / "python"
    install = [str(python), "-m", "pip", "install", "--quiet"]
    if constraints is not None:
        install += ["-c", str(constraints)]
    done = subprocess.run([*install, *requirements], capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    return python
