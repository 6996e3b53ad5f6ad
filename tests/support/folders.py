"""A folder's files and their bytes, to compare what exports and pushes leave behind."""

from __future__ import annotations

import os


def snapshot(root) -> dict[str, bytes]:
    """Every file under ``root`` by its path relative to ``root``, with its bytes."""
    found = {}
    for current, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(current, name)
            with open(path, "rb") as f:
                found[os.path.relpath(path, root)] = f.read()
    return found
