"""What HELMET's metrics read from a row and a model's output: the row's ``metadata`` fields, and
upstream's ``parse_output`` (shared by :mod:`.metrics`, :mod:`.metrics_alce` and :mod:`.judge`)."""

from __future__ import annotations

import json
import re

from longbench_suite.errors import DataFormatError
from longbench_suite.metrics.base import Row, column

ANSWER_PREFIX = "Answer:"


def parse_output(output: str, prefix: str = ANSWER_PREFIX) -> str:
    """What follows the first ``prefix`` (case-insensitive) up to the line end, else the first line;
    stripped, one more leading ``prefix`` removed, stripped again.

    As upstream, ``prefix`` goes into the search pattern unescaped (none of HELMET's prefixes holds a
    regex metacharacter other than the harmless ``:``).
    """
    match = re.search(f"(?:{prefix})(.*)(?:\n|$)", output, flags=re.IGNORECASE)
    if match is None:
        match = re.search(r"(?:^)(.*)(?:\n|$)", output)
    return re.sub(f"^{re.escape(prefix)}", "", match[1].strip(), flags=re.IGNORECASE).strip()


def metadata(row: Row) -> dict:
    """The row's ``metadata`` column (a JSON string)."""
    raw = column(row, "metadata")
    try:
        return json.loads(raw) if isinstance(raw, str) else dict(raw)
    except (TypeError, ValueError) as exc:
        raise DataFormatError(f"'metadata' is not a JSON object ({exc})") from None


def meta_field(row: Row, name: str):
    meta = metadata(row)
    if name not in meta:
        raise DataFormatError(f"'metadata' has no {name!r}, which the metric needs")
    return meta[name]
