"""Sample sources of the ``ruler`` benchmark in the exact upstream layouts, for ``longbench-suite demo``
and the tests: the essay haystack (the Hub copy's ``essays.parquet``: one essay a row, column ``text``)
at its declared URL in a mirror.

The NIAH noise and needle haystacks read no file. The essays are generated, seeded, essay-like words
(no copyrighted text): NLTK's Punkt cuts them into sentences as it cuts the real essays, and rows
longer than the sample repeat it, as RULER repeats a short essay. The row counts are RULER's (500
``eval`` rows at every length), whatever the scale.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from longbench_suite.samplefiles import TextMaker, write_to_mirror

from . import _sources_standin as sources
from .tasks import EVAL_SAMPLES, TASKS


@dataclass(frozen=True)
class Scale:
    essays: int = 40  # rows of essays.parquet
    paragraphs: int = 6  # paragraphs per essay


DEMO = Scale()
FULL = Scale()
#: the essay tasks read a pinned file: their samples are checked through the demo's manifest
#: (tests/test_ruler.py)
DEMO_CONFIGS = ("niah_single_1_4k", "niah_multikey_2_4k")


def essays_parquet(scale: Scale) -> bytes:
    """``essays.parquet``: a ``text`` column of seeded essay-like texts."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    text = TextMaker("ruler-essays")
    essays = [
        "\n\n".join(text.paragraph(5, 14) for _ in range(scale.paragraphs)) for _ in range(scale.essays)
    ]
    out = io.BytesIO()
    pq.write_table(pa.table({"text": essays}), out)
    return out.getvalue()


def write_samples(mirror_dir: str, scale: Scale = DEMO) -> list[str]:
    """Write every source the declared tasks read for ``scale`` under ``mirror_dir``; returns the files."""
    return [write_to_mirror(mirror_dir, sources.ESSAYS.url, essays_parquet(scale))]


def declared_sizes(scale: Scale = DEMO) -> dict[str, dict[str, int]]:
    """``eval`` is RULER's 500 rows at every listed config, whatever the sample files hold."""
    return {task.config_name(length): {"eval": EVAL_SAMPLES} for task in TASKS for length in task.lengths}
