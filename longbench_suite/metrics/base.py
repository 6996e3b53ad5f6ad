"""What the benchmarks' metrics share: normalisers, token F1, max over references, the optional
libraries that define the numbers, and the shape of a task's scoring declaration.

Every benchmark module declares, per task, a :class:`TaskScoring`: a plain function from
``(prediction, row)`` to that row's metric values, the headline metric(s), and how values are
aggregated into the task's score. Metrics that need a model judge (HELMET's NLI citation check and
its GPT-4o judge) add a ``judged`` function that receives the judges.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import string
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ..errors import DataFormatError, MissingDependencyError

#: the optional extra that installs every library the metrics use
EXTRA = "metrics"

Row = Mapping[str, Any]
#: one row's metric values; ``None`` = the row does not count for that metric (e.g. a judge failed)
RowScores = dict[str, float | None]


def optional_import(module: str, package: str, purpose: str, extra: str = EXTRA):
    """Import an optional dependency of the metrics, or raise a :class:`MissingDependencyError` naming
    the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependencyError(
            f"{purpose} needs the package {package!r}, which is not installed; "
            f"install the {extra} extra: pip install 'longbench-suite[{extra}]'"
        ) from None


# -- normalisation and token F1 (SQuAD / DrQA, as HELMET, LongBench and LV-Eval use them) -----------

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
#: LongBench's and LV-Eval's Chinese punctuation (``》`` is in it, ``《`` is not)
CHINESE_PUNCTUATION = (
    "！？｡。＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣"
    "､、〃》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟〰〾〿–—‘’‛“”„‟…‧﹏."
)
_ZH_PUNCTUATION = frozenset(string.punctuation + CHINESE_PUNCTUATION)


def normalize_answer(s: str) -> str:
    """Lowercase, drop ASCII punctuation, replace the words a/an/the by a space, collapse whitespace."""
    s = "".join(ch for ch in s.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", s).split())


def normalize_zh_answer(s: str) -> str:
    """Lowercase, drop ASCII and Chinese punctuation, remove all whitespace."""
    return "".join("".join(ch for ch in s.lower() if ch not in _ZH_PUNCTUATION).split())


def token_f1(prediction_tokens: Sequence[str], reference_tokens: Sequence[str]) -> float:
    """F1 of the multiset overlap; 0 when nothing overlaps."""
    same = sum((Counter(prediction_tokens) & Counter(reference_tokens)).values())
    if same == 0:
        return 0.0
    precision = same / len(prediction_tokens)
    recall = same / len(reference_tokens)
    return 2 * precision * recall / (precision + recall)


def qa_f1_score(prediction: str, ground_truth: str) -> float:
    """LongBench's / LV-Eval's English F1: normalised whitespace tokens, no yes/no rule."""
    return token_f1(normalize_answer(prediction).split(), normalize_answer(ground_truth).split())


def jieba_tokens(text: str) -> list[str]:
    """``jieba.cut(text, cut_all=False)`` (accurate mode, default dictionary)."""
    return list(_jieba().cut(text, cut_all=False))


def zh_tokens(text: str) -> list[str]:
    """jieba tokens, each normalised with :func:`normalize_zh_answer`, empty ones dropped."""
    return [t for t in (normalize_zh_answer(tok) for tok in jieba_tokens(text)) if t]


def qa_f1_zh_score(prediction: str, ground_truth: str) -> float:
    """LongBench's / LV-Eval's Chinese F1 over normalised jieba tokens."""
    return token_f1(zh_tokens(prediction), zh_tokens(ground_truth))


@cache
def _jieba():
    jieba = optional_import("jieba", "jieba", "Chinese tokenisation (jieba)")
    jieba.setLogLevel(60)  # its dictionary-loading chatter goes to stderr otherwise
    return jieba


@cache
def _pltrdy_rouge():
    return optional_import(
        "rouge", "rouge", "LongBench's and LV-Eval's ROUGE-L (the `rouge` package)"
    ).Rouge()


#: the frame depth at which LongBench's ``eval.py`` and LV-Eval's ``evaluation.py``, run as scripts,
#: call ``Rouge.get_scores`` for English ROUGE-L (module, ``scorer``, ``rouge_score``, ``get_scores``);
#: the Chinese metrics call it through one more function
UPSTREAM_ROUGE_DEPTH = 4
#: Python's default recursion limit, which upstream's scripts run under
UPSTREAM_RECURSION_LIMIT = 1000


def rouge_l_f(prediction: str, ground_truth: str, upstream_depth: int = UPSTREAM_ROUGE_DEPTH) -> float:
    """ROUGE-L F of the ``rouge`` 1.0.1 package (summary-level LCS, sentences split on ``"."``).

    As in LongBench and LV-Eval, any exception of the library (an empty side, a recursion limit in
    its LCS) scores 0. The package rebuilds the LCS with one recursive call per word, so where it
    gives up depends on how deep the caller is: the call runs with the stack room it has upstream
    (``upstream_depth`` frames under a limit of 1000), whatever the depth of the caller here, so a long
    single-sentence pair scores as upstream scores it (``docs/longbench.md`` §8).
    """
    scorer = _pltrdy_rouge()
    previous = sys.getrecursionlimit()
    # Frames the call may use upstream: get_scores's own (at ``upstream_depth``) up to the limit. The
    # room here is measured, not computed from the frames: C calls above us count against the limit too.
    # It is measured under a limit just above the current depth, so the probe stays short whatever
    # limit another library has set.
    upstream_room = UPSTREAM_RECURSION_LIMIT - upstream_depth + 1
    probe = _limit_just_above_here(previous)
    try:
        room = _room_below() + 1  # measured one frame deeper than get_scores will run
    finally:
        sys.setrecursionlimit(previous)
    sys.setrecursionlimit(probe + upstream_room - room)
    try:
        return scorer.get_scores([prediction], [ground_truth], avg=True)["rouge-l"]["f"]
    except Exception:
        return 0.0
    finally:
        sys.setrecursionlimit(previous)


def _limit_just_above_here(previous: int) -> int:
    """Set, and return, a recursion limit a little above the caller's depth (never above ``previous``)."""
    depth, frame = 0, sys._getframe(1)
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = 2 * depth + 64  # C calls count too, so the true depth may be higher: double until accepted
    while limit < previous:
        try:
            sys.setrecursionlimit(limit)
            return limit
        except RecursionError:
            limit *= 2
    sys.setrecursionlimit(previous)
    return previous


def _room_below() -> int:
    """How many nested calls a function called from the caller's frame could still make, itself
    included, before Python raises ``RecursionError``."""
    room = 0

    def descend() -> None:
        nonlocal room
        room += 1
        descend()

    with contextlib.suppress(RecursionError):
        descend()
    return room


# -- declarations and aggregation -------------------------------------------------------------------


def percent(values: Sequence[float]) -> float | None:
    """100 × mean; ``None`` when no row counts."""
    return 100 * sum(values) / len(values) if values else None


def percent_2dp(values: Sequence[float]) -> float | None:
    """``round(100 × mean, 2)``, as LongBench's and LV-Eval's ``eval.py`` report a task."""
    return round(100 * sum(values) / len(values), 2) if values else None


def scaled(factor: float, empty: float | None = None) -> Callable[[Sequence[float]], float | None]:
    """``factor`` × mean, or ``empty`` when no row counts."""

    def aggregate(values: Sequence[float]) -> float | None:
        return factor * sum(values) / len(values) if values else empty

    return aggregate


@dataclass(frozen=True)
class Judges:
    """The model judges a scorer may call; ``None`` where the caller has none.

    ``nli(premise, hypothesis) -> bool`` is HELMET's citation check (ALCE's AutoAIS);
    ``llm(prompt, max_tokens) -> str | None`` is HELMET's GPT-4o judge.
    """

    nli: Callable[[str, str], bool] | None = None
    llm: Callable[[str, int], str | None] | None = None


@dataclass(frozen=True, kw_only=True)
class JudgeModels:
    """The judges a user asked for, as a benchmark's ``make_judges(models) -> Judges`` hook takes them:
    the LLM judge ``judge_model`` at ``endpoint`` (``None``: OpenAI's), the NLI judge ``nli_model``
    loaded locally or served at ``nli_endpoint``; ``api_key`` for both servers."""

    judge_model: str | None = None
    nli_model: str | None = None
    endpoint: str | None = None
    api_key: str | None = None
    nli_endpoint: str | None = None


@dataclass(frozen=True)
class TaskScoring:
    """How one task is scored.

    ``row(prediction, row)`` gives a row's metric values; ``judged(predictions, rows, judges)`` (if
    any) gives the judge-based values of all rows at once, or ``None`` when the judge it needs is
    missing. ``headline`` are the metrics the benchmark reports; ``aggregate`` turns a metric's values
    into the task score (``aggregates`` overrides it per metric).
    """

    metric: str  # upstream's name for the scoring function, for reports
    row: Callable[[str, Row], RowScores]
    headline: tuple[str, ...]
    aggregate: Callable[[Sequence[float]], float | None] = percent
    aggregates: Mapping[str, Callable[[Sequence[float]], float | None]] = field(default_factory=dict)
    judged: Callable[[Sequence[str], Sequence[Row], Judges], list[RowScores] | None] | None = None
    #: what ``judged`` needs, for the message when it is missing
    judge_needed: str = ""

    def aggregate_metric(self, name: str, values: Sequence[float]) -> float | None:
        return self.aggregates.get(name, self.aggregate)(values)


def column(row: Row, name: str) -> Any:
    """``row[name]``, or a :class:`DataFormatError` naming the column (the scorer adds the row)."""
    try:
        return row[name]
    except KeyError:
        raise DataFormatError(f"the row has no {name!r} column, which its metric needs") from None
