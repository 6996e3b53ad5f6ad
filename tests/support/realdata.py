"""Where the genuine upstream records used as fixtures live.

``tests/realdata/`` is a verbatim copy of the project's ``shared/realdata`` (see its README for the
provenance of every file), committed so the tests need nothing outside the repository. Never edit
these files to make a test pass.
"""

from __future__ import annotations

from pathlib import Path

REALDATA_DIR = Path(__file__).resolve().parent.parent / "realdata"
