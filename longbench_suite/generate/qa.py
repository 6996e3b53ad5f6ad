"""RULER's QA task (``qa_1``: SQuAD, ``qa_2``: HotpotQA), row for row as its ``qa.py`` writes them.

RULER's ``scripts/data/synthetic/qa.py`` (commit ``c3f5e3b``) builds a sample from one question and
a number of documents: the question's own documents, then its distractors (SQuAD: the other
paragraphs of its article), then documents drawn with ``random.sample`` from the rest; the list is
shuffled with a fresh ``random.Random(seed)``, each document is written ``"Document {i}:\\n{text}"``
and they are joined with a blank line. Sample ``i`` asks question ``i + pre_samples``, whatever the
seed, so RULER's chunks ask disjoint questions. How many documents: an estimate from 10 documents of
question 0, a binary search on question 0 up to three times that estimate, then per sample 10 fewer
documents at a time until the prompt fits. Every draw (the search's too) comes from one generator
seeded with ``seed``, in RULER's order, so the same seed gives RULER's rows.

One departure: RULER's per-sample loop never ends when even 10 documents do not fit (or a question
has more documents of its own than are asked for); here it redraws at 10 documents at most
:data:`MAX_FLOOR_DRAWS` times, as RULER would, then stops with a :class:`BudgetError`. For ``dev``,
questions in ``excluded`` are drawn as RULER draws them and their rows skipped, so every row kept is
the row RULER makes at that index.

Counting is exact without tokenizing whole prompts: a prompt is cut where no token can span the
cut, and each document's share is counted once (:class:`_PromptCost`).
"""

from __future__ import annotations

import functools
import math
import random
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import BudgetError, OptionError
from ..fit.tokenizers import HFTokenizer, TiktokenCounter, TokenCounter
from .ruler_records import cut_at_prefix, ruler_record

#: RULER's ``constants.py`` entry for ``qa`` (the ``base`` model template adds nothing)
TEMPLATE = (
    "Answer the question based on the given documents. Only give me the answer and do not output any other "
    "words.\n\nThe following are given documents.\n\n{context}\n\nAnswer the question based on the given "
    "documents. Only give me the answer and do not output any other words.\n\nQuestion: {query}"
)
ANSWER_PREFIX = " Answer:"
TOKENS_TO_GENERATE = 32
#: RULER's ``incremental``: the documents of the first estimate, the search's floor and the step
STEP = 10
#: redraws at the floor before giving up (RULER retries for ever)
MAX_FLOOR_DRAWS = 100
DOCUMENT = "Document {i}:\n{document}"
SEPARATOR = "\n\n"
#: tiktoken encodings whose pre-tokenizer never joins a line break to a following non-space character
#: (cl100k's ``[^\r\n\p{L}\p{N}]?\p{L}+``, and ``\s*[\r\n]+`` before ``\s+(?!\S)``); o200k's
#: punctuation rule takes a ``/`` after a line break, so it counts whole prompts
LINE_SAFE_TIKTOKEN = frozenset({"cl100k_base"})
#: what a question ends in: the text before it in RULER's QA template
QUESTION_MARK = "Only give me the answer and do not output any other words.\n\nQuestion: "
_CONTEXT = "\x00context\x00"
UNKNOWN, WHOLE = -1, -2  # a document's share not counted yet; counted with its header each time


@dataclass(frozen=True)
class QaQuestion:
    """One of RULER's questions: ``query``, gold ``outputs``, its ``documents`` (RULER's ``context``)
    and its first distractors (``more_context``), as positions in :attr:`QaSource.documents`."""

    query: str
    outputs: tuple[str, ...]
    documents: tuple[int, ...]
    distractors: tuple[int, ...] = ()


@dataclass(frozen=True, eq=False)
class QaSource:
    """A QA file as RULER reads it: its distinct documents, sorted, and its questions in file order.
    (Compared by identity: what is counted of its documents is remembered per object, :func:`_costs`.)"""

    documents: tuple[str, ...]
    questions: tuple[QaQuestion, ...]
    label: str = "the QA source"


def _sample_positions(rng: random.Random, n: int, k: int) -> list[int]:
    """``rng.sample(range(n), k)``: the same draws from ``rng``, the same result, without a Python call
    per pick (CPython's ``Random.sample`` and ``_randbelow``, inlined; :func:`_sampler` checks it)."""
    if not 0 <= k <= n:
        raise ValueError("Sample larger than population or is negative")
    getrandbits = rng.getrandbits
    setsize = 21
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    result = [0] * k
    if n <= setsize:
        pool = list(range(n))
        for i in range(k):
            m = n - i
            bits = m.bit_length()
            j = getrandbits(bits)
            while j >= m:
                j = getrandbits(bits)
            result[i] = pool[j]
            pool[j] = pool[m - 1]
        return result
    taken = bytearray(n)
    bits = n.bit_length()
    for i in range(k):
        j = getrandbits(bits)
        while j >= n or taken[j]:  # a draw past n, then one already taken: both drawn again
            j = getrandbits(bits)
        taken[j] = 1
        result[i] = j
    return result


@functools.cache
def _sampler():
    """:func:`_sample_positions` where it gives this Python's ``random.sample`` results (checked on
    both of its paths), else ``random.sample`` over a range."""
    cases = [(50, 0), (50, 5), (50, 30), (1190, 400), (44643, 700), (44643, 3000), (7, 7)]
    for seed, (n, k) in enumerate(cases):
        ours, theirs = random.Random(seed), random.Random(seed)
        if _sample_positions(ours, n, k) != theirs.sample(range(n), k) or ours.random() != theirs.random():
            return lambda rng, n, k: rng.sample(range(n), k)
    return _sample_positions


class _PromptCost:
    """Exact token counts of ``head + context + tail`` from counts of its parts.

    A Hugging Face tokenizer whose line breaks never join two tokens (``newline_overhead``) counts
    ``a + "\\n" + b`` as ``a`` plus ``"\\n" + b`` less the overhead; a line-safe tiktoken encoding
    never joins a line break to a following non-space character. Either way each document's share is
    counted once and remembered; other tokenizers count every prompt whole.
    """

    def __init__(self, counter: TokenCounter, documents: Sequence[str]) -> None:
        self.counter = counter
        self.documents = documents
        overhead = counter.newline_overhead if isinstance(counter, HFTokenizer) else None
        self.mode = "lines" if overhead is not None else None
        if isinstance(counter, TiktokenCounter) and counter.name in LINE_SAFE_TIKTOKEN:
            self.mode = "breaks"
        self.overhead = overhead or 0
        #: each document's share of a prompt's tokens: UNKNOWN until counted, WHOLE where no cut may start
        #: before it (tiktoken: it starts with white space; counted with its header every time)
        self._docs = np.full(len(documents), UNKNOWN, dtype=np.int64)
        self._headers = [0]  # _headers[n]: the headers of documents 1..n
        self._texts: dict[str, int] = {}

    def _count(self, texts: list[str]) -> list[int]:
        if isinstance(self.counter, TiktokenCounter):  # its batch call starts a thread per text
            return [self.counter.count(text, special=False) for text in texts]
        return self.counter.count_batch(texts, special=False)

    def _text(self, text: str) -> int:
        if text not in self._texts:
            if len(self._texts) > 4096:
                self._texts.clear()
            self._texts[text] = self._count([text])[0]
        return self._texts[text]

    def fits_parts(self, head: str, tail: str) -> bool:
        if self.mode == "lines":  # text before the context's line (the rule needs a first line)
            return len(head) > 1 and head.endswith("\n") and tail.startswith("\n")
        if self.mode == "breaks":
            return head.endswith("\n") and tail.startswith(SEPARATOR) and tail[2:3].strip() != ""
        return False

    def total(self, head: str, order: np.ndarray, tail: str) -> int:
        if not len(order) or not self.fits_parts(head, tail):
            return self._count([render(head, order.tolist(), self.documents, tail)])[0]
        n = len(order)
        if self.mode == "lines":
            base = self._text(head[:-1]) + self._text(tail) - self.overhead
            base += (n - 1) * (self._text("\n") - self.overhead)
        else:
            base = self._text(head) + self._text(tail[2:])
        return base + self._header_total(n) + self._documents_total(order)

    def _header_total(self, n: int) -> int:
        headers = self._headers
        if len(headers) <= n:
            numbers = range(len(headers), n + 1)
            if self.mode == "lines":
                texts = [f"\nDocument {i}:" for i in numbers]
            else:
                texts = [f"Document {i}:\n" for i in numbers]
            for count in self._count(texts):
                headers.append(headers[-1] + count - self.overhead)
        return headers[n]

    def _documents_total(self, order: np.ndarray) -> int:
        shares = self._docs[order]
        if shares.min() < 0:  # UNKNOWN or WHOLE
            missing = np.unique(order[shares == UNKNOWN])
            if len(missing):
                self._learn(missing.tolist())
                shares = self._docs[order]
            for position in np.flatnonzero(shares == WHOLE).tolist():
                document = self.documents[order[position]]
                text = DOCUMENT.format(i=position + 1, document=document) + SEPARATOR
                header = self._headers[position + 1] - self._headers[position]
                shares[position] = self._count([text])[0] - header
        return int(shares.sum())

    def _learn(self, missing: list[int]) -> None:
        documents, known = self.documents, self._docs
        if self.mode == "lines":  # a document's lines at once: the rule holds at each of its breaks
            known[missing] = np.array(self._count(["\n" + documents[d] for d in missing])) - self.overhead
            return
        cuttable = [d for d in missing if documents[d][:1].strip()]
        known[missing] = WHOLE
        if cuttable:
            known[cuttable] = self._count([documents[d] + SEPARATOR for d in cuttable])


_HEADERS: list[str] = []  # "Document {i}:\n" for i = 1, 2, ...


#: what each counter counted of a source's documents, kept while the source is (other lengths, dev)
_COSTS: weakref.WeakKeyDictionary[QaSource, dict[str, _PromptCost]] = weakref.WeakKeyDictionary()


def _costs(counter: TokenCounter, source: QaSource) -> _PromptCost:
    key = getattr(counter, "identity", None)  # the same tokenization, whatever the object
    if key is None:
        return _PromptCost(counter, source.documents)
    by_counter = _COSTS.setdefault(source, {})
    if key not in by_counter:
        by_counter[key] = _PromptCost(counter, source.documents)
    return by_counter[key]


def render(head: str, order: Sequence[int], documents: Sequence[str], tail: str) -> str:
    """The prompt: ``head``, the documents in ``order`` as RULER writes them (:data:`DOCUMENT` joined
    by :data:`SEPARATOR`), ``tail``; in one join, without a string per document."""
    n = len(order)
    if not n:
        return head + tail
    while len(_HEADERS) < n:
        _HEADERS.append(DOCUMENT.format(i=len(_HEADERS) + 1, document=""))
    parts = [SEPARATOR] * (3 * n + 1)
    parts[0], parts[-1] = head, tail
    parts[1:-1:3] = _HEADERS[:n]
    parts[2:-1:3] = [documents[d] for d in order]
    return "".join(parts)


class _Drawer:
    """RULER's ``generate_input_output``: which documents a sample of ``num_docs`` holds, in order (an
    array of positions in :attr:`QaSource.documents`)."""

    def __init__(self, source: QaSource, rng: random.Random, seed: int) -> None:
        self.source = source
        self.rng = rng
        self.seed = seed
        self._orders: dict[int, np.ndarray] = {}

    def _order(self, n: int) -> np.ndarray:
        """Where ``random.Random(seed).shuffle`` moves each of ``n`` items (it depends on ``n`` only)."""
        if n not in self._orders:
            if len(self._orders) > 256:
                self._orders.clear()
            order = list(range(n))
            random.Random(self.seed).shuffle(order)
            self._orders[n] = np.array(order, dtype=np.int64)
        return self._orders[n]

    def draw(self, question: QaQuestion, num_docs: int) -> np.ndarray:
        """The documents, shuffled; raises ValueError where RULER's ``random.sample`` does."""
        total = len(self.source.documents)
        own, more = question.documents, question.distractors
        if num_docs < total:
            if num_docs - len(own) > len(more):
                # RULER samples the list of the other documents; the same draws pick positions in it
                excluded = sorted({*own, *more})
                shifts = np.array([e - k for k, e in enumerate(excluded)], dtype=np.int64)
                drawn = _sampler()(self.rng, total - len(excluded), num_docs - len(own) - len(more))
                positions = np.array(drawn, dtype=np.int64)
                positions += np.searchsorted(shifts, positions, side="right")  # excluded numbers below
                picked = np.concatenate((np.array(own + more, dtype=np.int64), positions))
            else:
                picked = np.array(own + tuple(self.rng.sample(more, num_docs - len(own))), dtype=np.int64)
        else:
            picked = np.arange(num_docs, dtype=np.int64) % total
        return picked[self._order(len(picked))]


def _parts(template: str, query: str) -> tuple[str, str]:
    """The prompt around its context: RULER's ``template.format(context=..., query=query)`` cut there."""
    try:
        rendered = template.format(context=_CONTEXT, query=query)
    except (KeyError, IndexError, ValueError) as exc:
        raise OptionError(f"the QA template takes {{context}} and {{query}} only: {exc!r}") from None
    if rendered.count(_CONTEXT) != 1:
        raise OptionError("the QA template must hold {context} exactly once")
    head, tail = rendered.split(_CONTEXT)
    return head, tail


def ruler_rows(
    task_args: Mapping[str, Any],
    counter: TokenCounter,
    *,
    max_seq_length: int,
    tokens_to_generate: int,
    template: str,
    answer_prefix: str,
    num_samples: int | None,
    seed: int = 42,
    pre_samples: int = 0,
    qa: QaSource,
    excluded: frozenset[str] = frozenset(),
) -> Iterator[dict]:
    """RULER's QA rows (its ``validation.jsonl`` records, keys in its order) for the questions of ``qa``.

    ``template`` is what ``prepare.py`` passes (the task template with the answer prefix appended);
    ``num_samples=None`` goes on until the questions run out. A question in ``excluded`` is drawn as
    RULER draws it (so later rows stay RULER's) and its row skipped; ``num_samples`` counts the rows
    yielded.
    """
    unknown = set(task_args) - {"dataset"}
    if unknown:
        names = ", ".join(sorted(unknown))
        raise OptionError(f"qa: unknown task arguments {names} (RULER's qa.py takes 'dataset')")
    questions = qa.questions
    if not questions or not qa.documents:
        raise BudgetError(f"{qa.label}: holds no question or no document")
    wanted = len(questions) - pre_samples if num_samples is None else num_samples
    if not excluded and pre_samples + wanted > len(questions):
        raise BudgetError(
            f"{qa.label}: {wanted} samples from question {pre_samples} on need {pre_samples + wanted} "
            f"questions; it holds {len(questions)}"
        )
    rng = random.Random(seed)
    drawer = _Drawer(qa, rng, seed)
    cost = _costs(counter, qa)
    num_docs = _search(drawer, cost, template, questions[0], qa.label, max_seq_length, tokens_to_generate)
    yielded, index = 0, 0
    while yielded < wanted:
        number = index + pre_samples
        if number >= len(questions):
            raise BudgetError(
                f"{qa.label}: ran out of questions after {yielded} rows ({len(questions)} questions, "
                f"{index} drawn from question {pre_samples} on, the rest excluded)"
            )
        question = questions[number]
        head, tail = _parts(template, question.query)
        order, length = _fit(drawer, cost, question, head, tail, num_docs, max_seq_length, tokens_to_generate)
        if question.query not in excluded:
            prompt, prefix = _split_prefix(head, order.tolist(), qa.documents, tail, answer_prefix)
            yield ruler_record(index, prompt, prefix, question.outputs, length)
            yielded += 1
        index += 1


def _split_prefix(
    head: str, order: Sequence[int], documents: Sequence[str], tail: str, answer_prefix: str
) -> tuple[str, str]:
    """RULER's cut of the prompt at the last ``answer_prefix[:10]``: the input, and the prefix after it."""
    at = tail.rfind(answer_prefix[:10])
    if at >= 0:  # the last one is in the tail (where the template puts the prefix)
        return render(head, order, documents, tail[:at]), tail[at:]
    return cut_at_prefix(render(head, order, documents, tail), answer_prefix)


def _search(
    drawer: _Drawer,
    cost: _PromptCost,
    template: str,
    first: QaQuestion,
    label: str,
    budget: int,
    tokens_to_generate: int,
) -> int:
    """RULER's haystack size: the estimate from :data:`STEP` documents of question 0, then the
    binary search between :data:`STEP` and three times the estimate, all on question 0."""
    head, tail = _parts(template, first.query)
    try:
        estimate_tokens = cost.total(head, drawer.draw(first, STEP), tail)
    except ValueError:
        raise BudgetError(
            f"{label}: question 0 has {len(first.documents)} documents, more than the {STEP} RULER's size "
            "estimate draws (its qa.py fails there too)"
        ) from None
    per_document = estimate_tokens / STEP
    low, high = STEP, max(int((budget / per_document) * 3), STEP * 2)
    best = None
    while low <= high:
        middle = (low + high) // 2
        if cost.total(head, drawer.draw(first, middle), tail) + tokens_to_generate <= budget:
            best, low = middle, middle + 1
        else:
            high = middle - 1
    return STEP if best is None else best


def _fit(
    drawer: _Drawer,
    cost: _PromptCost,
    question: QaQuestion,
    head: str,
    tail: str,
    num_docs: int,
    budget: int,
    tokens_to_generate: int,
) -> tuple[np.ndarray, int]:
    """RULER's per-sample loop: draw ``num_docs`` documents, and :data:`STEP` fewer each time the
    prompt does not fit; at :data:`STEP` or fewer it redraws (RULER: for ever)."""
    used, floor_draws = num_docs, 0
    while True:
        try:
            order = drawer.draw(question, used)
        except ValueError:  # more documents of its own than asked for: RULER's bare except goes on
            order = None
        if order is not None:
            length = cost.total(head, order, tail) + tokens_to_generate
            if length <= budget:
                return order, length
        if used > STEP:
            used -= STEP
            continue
        floor_draws += 1
        if floor_draws >= MAX_FLOOR_DRAWS:
            why = (
                f"it has {len(question.documents)} documents of its own"
                if order is None
                else f"{used} documents take {length:,} tokens with the answer budget"
            )
            raise BudgetError(
                f"qa: question {question.query!r} does not fit max_seq_length {budget:,}: {why} "
                f"(RULER's qa.py would retry for ever); use a longer length"
            )


def screen_strings(record: Mapping[str, Any]) -> set[str]:
    """The question of an eval record (RULER's or with its answer prefix appended): what ``dev`` avoids."""
    text = record["input"]
    prefix = record.get("answer_prefix") or ""
    if prefix and text.endswith(prefix):
        text = text[: -len(prefix)]
    at = text.rfind(QUESTION_MARK)
    if at < 0:
        raise ValueError("not a RULER QA input: it has no 'Question: ' after the documents")
    return {text[at + len(QUESTION_MARK) :]}
