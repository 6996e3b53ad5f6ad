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

Where RULER differs, this module says so instead: RULER's per-sample loop never ends when even 10
documents do not fit (or a question has more documents than are asked for); here it redraws at 10
documents at most :data:`MAX_FLOOR_DRAWS` times, as RULER would, then stops with a :class:`BudgetError`.

Counting is exact without tokenizing whole prompts: a prompt is cut where no token can span the
cut, and each document's share is counted once (:class:`_PromptCost`).
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import BudgetError, OptionError
from ..fit.tokenizers import HFTokenizer, TiktokenCounter, TokenCounter

#: RULER's ``incremental``: the documents of the first estimate, the search's floor and the step
STEP = 10
#: redraws at the floor before giving up (RULER retries for ever)
MAX_FLOOR_DRAWS = 100
DOCUMENT = "Document {i}:\n{document}"
SEPARATOR = "\n\n"
#: tiktoken encodings whose pre-tokenizer never joins a line break to a following non-space character
#: (``[^\r\n\p{L}\p{N}]?\p{L}+`` and ``\s*[\r\n]+`` before ``\s+(?!\S)``)
LINE_SAFE_TIKTOKEN = frozenset({"cl100k_base", "o200k_base"})
#: what a question ends in: the text before it in RULER's QA template
QUESTION_MARK = "Only give me the answer and do not output any other words.\n\nQuestion: "
_CONTEXT = "\x00context\x00"


@dataclass(frozen=True)
class QaQuestion:
    """One of RULER's questions: ``query``, gold ``outputs``, its ``documents`` (RULER's ``context``)
    and its first distractors (``more_context``), as positions in :attr:`QaSource.documents`."""

    query: str
    outputs: tuple[str, ...]
    documents: tuple[int, ...]
    distractors: tuple[int, ...] = ()


@dataclass(frozen=True)
class QaSource:
    """A QA file as RULER reads it: its distinct documents, sorted, and its questions in file order."""

    documents: tuple[str, ...]
    questions: tuple[QaQuestion, ...]
    label: str = "the QA source"


class _Complement(Sequence):
    """``range(size)`` without ``excluded``, in order, indexable without being built (``random.sample``
    picks from it as from RULER's list of the other documents)."""

    def __init__(self, size: int, excluded: set[int]) -> None:
        self._excluded = sorted(excluded)
        self._size = size - len(self._excluded)
        # the k-th excluded number minus k: how many excluded numbers lie below a given position
        self._shifts = [e - k for k, e in enumerate(self._excluded)]

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, j: int) -> int:  # only the non-negative positions random.sample asks for
        return j + bisect.bisect_right(self._shifts, j)

    def __iter__(self) -> Iterator[int]:
        excluded = set(self._excluded)
        return (i for i in range(self._size + len(excluded)) if i not in excluded)


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
        self._docs: list[int | None] = [None] * len(documents)
        self._headers = [0]  # _headers[n]: the headers of documents 1..n
        self._texts: dict[str, int] = {}

    def _count(self, texts: list[str]) -> list[int]:
        return self.counter.count_batch(texts, special=False)

    def _text(self, text: str) -> int:
        if text not in self._texts:
            if len(self._texts) > 4096:
                self._texts.clear()
            self._texts[text] = self._count([text])[0]
        return self._texts[text]

    def fits_parts(self, head: str, tail: str) -> bool:
        if self.mode == "lines":
            return head.endswith("\n") and tail.startswith("\n")
        if self.mode == "breaks":
            return head.endswith("\n") and tail.startswith(SEPARATOR) and tail[2:3].strip() != ""
        return False

    def total(self, head: str, order: Sequence[int], tail: str) -> int:
        if not order or not self.fits_parts(head, tail):
            return self._count([render(head, order, self.documents, tail)])[0]
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

    def _documents_total(self, order: Sequence[int]) -> int:
        known = self._docs
        missing = sorted({d for d in order if known[d] is None})
        if missing:
            self._learn(missing)
        total = 0
        for position, d in enumerate(order):
            share = known[d]
            if share is None:  # a document no cut may start (tiktoken: it starts with white space)
                whole = DOCUMENT.format(i=position + 1, document=self.documents[d]) + SEPARATOR
                header = self._headers[position + 1] - self._headers[position]
                share = self._count([whole])[0] - header
            total += share
        return total

    def _learn(self, missing: list[int]) -> None:
        documents, known = self.documents, self._docs
        if self.mode == "lines":
            texts, owners = [], []
            for d in missing:
                for line in documents[d].split("\n"):
                    texts.append("\n" + line)
                    owners.append(d)
            shares = dict.fromkeys(missing, 0)
            for d, count in zip(owners, self._count(texts), strict=True):
                shares[d] += count - self.overhead
            for d, share in shares.items():
                known[d] = share
            return
        cuttable = [d for d in missing if documents[d][:1].strip()]
        for d, count in zip(cuttable, self._count([documents[d] + SEPARATOR for d in cuttable]), strict=True):
            known[d] = count


def render(head: str, order: Sequence[int], documents: Sequence[str], tail: str) -> str:
    """The prompt: ``head``, the documents in ``order`` as RULER writes them, ``tail``."""
    context = SEPARATOR.join(DOCUMENT.format(i=i + 1, document=documents[d]) for i, d in enumerate(order))
    return head + context + tail


class _Drawer:
    """RULER's ``generate_input_output``: which documents a sample of ``num_docs`` holds, in order."""

    def __init__(self, source: QaSource, rng: random.Random, seed: int) -> None:
        self.source = source
        self.rng = rng
        self.seed = seed
        self._orders: dict[int, list[int]] = {}

    def _order(self, n: int) -> list[int]:
        """Where ``random.Random(seed).shuffle`` moves each of ``n`` items (it depends on ``n`` only)."""
        if n not in self._orders:
            if len(self._orders) > 256:
                self._orders.clear()
            order = list(range(n))
            random.Random(self.seed).shuffle(order)
            self._orders[n] = order
        return self._orders[n]

    def draw(self, question: QaQuestion, num_docs: int) -> list[int]:
        """The documents, shuffled; raises ValueError where RULER's ``random.sample`` does."""
        total = len(self.source.documents)
        own, more = list(question.documents), list(question.distractors)
        if num_docs < total:
            if num_docs - len(own) > len(more):
                rest = _Complement(total, set(own) | set(more))
                picked = own + more + self.rng.sample(rest, num_docs - len(own) - len(more))
            else:
                picked = own + self.rng.sample(more, num_docs - len(own))
        else:
            picked = [i % total for i in range(num_docs)]
        return [picked[j] for j in self._order(len(picked))]


def _parts(template: str, query: str) -> tuple[str, str]:
    """The prompt around its context: RULER's ``template.format(context=..., query=query)`` cut there."""
    rendered = template.format(context=_CONTEXT, query=query)
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
    cost = _PromptCost(counter, qa.documents)
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
            text = render(head, order, qa.documents, tail)
            cut = text.rfind(answer_prefix[:10])
            yield {
                "index": index,
                "input": text[:cut],
                "outputs": list(question.outputs),
                "length": length,
                "length_w_model_temp": length,
                "answer_prefix": text[cut:],
            }
            yielded += 1
        index += 1


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
) -> tuple[list[int], int]:
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
