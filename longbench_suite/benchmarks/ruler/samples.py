"""Sample sources of the ``ruler`` benchmark, for ``longbench-suite demo`` and the tests: RULER's four
real sources (SQuAD 2.0 dev, HotpotQA dev, the essays, ``english_words.json``) in their exact upstream
layouts, written by :mod:`.sample_sources` at their declared URLs in a mirror.

The NIAH noise and needle haystacks, VT and FWE read no file; CWE reads ``english_words.json`` only for a
list longer than its word pool. The samples are generated, seeded text (no copyrighted text); the
row counts are RULER's (500 ``eval`` rows at every length), whatever the scale. The demo scale is
what every task's first config needs, ``dev`` included (whose screen builds ``eval`` at every listed
length): over 1,000 questions per QA file (eval asks the first 500, a screened dev the next), documents
enough for 128k tokens, and more words than CWE's pool for a 128k list.
"""

from __future__ import annotations

from . import sample_sources
from .sample_sources import Scale
from .tasks import EVAL_SAMPLES, TASKS

DEMO = Scale(articles=24, paragraphs=50, questions=3, hotpot_questions=1100, words=20000)
FULL = DEMO
#: the essay tasks read a pinned file: their samples are checked through the demo's manifest
#: (tests/test_ruler.py)
DEMO_CONFIGS = ("niah_single_1_4k", "niah_multikey_2_4k")
#: the demo builds them without dev's screen: it builds the task's eval at every listed length, up to
#: 128k (about 70 s under the demo tokenizer on a plain install); every other build screens
DEMO_GENERATED = {config: {"screen": False} for config in DEMO_CONFIGS}
#: tasks none of whose configs builds under the demo's small BPE tokenizer, and the message that says so:
#: RULER sizes vt's in-context example to 500 tokens and cwe's few-shot list to 4k at every length, and
#: this tokenizer counts more than that in both (``docs/ruler.md`` §6); they build under a model's
UNBUILDABLE_IN_SANDBOX = {
    "vt": "RULER sizes its in-context example to this fixed budget",
    "cwe": "no list fits 4096 tokens",
}


def write_samples(mirror_dir: str, scale: Scale = DEMO) -> list[str]:
    """Write every source the declared tasks read for ``scale`` under ``mirror_dir``; returns the files."""
    return sample_sources.write_sources(mirror_dir, scale)


def declared_sizes(scale: Scale = DEMO) -> dict[str, dict[str, int]]:
    """``eval`` is RULER's 500 rows at every listed config, whatever the sample files hold."""
    return {task.config_name(length): {"eval": EVAL_SAMPLES} for task in TASKS for length in task.lengths}
