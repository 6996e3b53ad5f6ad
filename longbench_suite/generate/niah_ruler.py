"""RULER's ``scripts/data/synthetic/niah.py`` end to end: its template, its haystack search and per-row
retries on one random stream, and the records its script writes (``docs/generate.md`` §2-3,
``docs/ruler.md`` §3).

One implementation serves both users of RULER's rows: HELMET's ``gen_*`` configs with
``recipe="ruler"`` (:func:`ruler_draws`, whose drawn samples they turn into their own rows) and the
``ruler`` benchmark (:func:`ruler_rows`, the family interface every RULER generator module exposes:
RULER's jsonl records, key for key).
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..fit.tokenizers import TokenCounter
from .count import PromptCounter
from .niah import Essay, NiahSettings, Sample
from .ruler_records import cut_at_prefix, ruler_record
from .search import Drawn, Prompt, Sizer
from .sentences import sentence_spans

MARK = "\x00context\x00"


#: RULER's niah entry of ``scripts/data/synthetic/constants.py`` (every RULER family module states its
#: ``TEMPLATE``, ``ANSWER_PREFIX`` (leading space included) and ``TOKENS_TO_GENERATE``)
TEMPLATE = (
    "Some special magic {type_needle_v} are hidden within the following text. Make sure to memorize "
    "it. I will quiz you about the {type_needle_v} afterwards.\n{context}\nWhat are all the special "
    "magic {type_needle_v} for {query} mentioned in the provided text?"
)
ANSWER_PREFIX = " The special magic {type_needle_v} for {query} mentioned in the provided text are"
TOKENS_TO_GENERATE = 128
#: the question of a niah prompt, whatever the model template around it: the keys asked for
_ASKED = re.compile(r"special magic \w+ for (.+?) mentioned in the ")


def singular(template: str) -> str:
    """RULER's rewrite of the whole template when one value is asked for (``num_needle_q * num_needle_v
    == 1``): ``Some`` → ``A``, ``are all`` → ``is``, ``are`` → ``is``, ``answers`` → ``answer``."""
    for old, new in (("Some", "A"), ("are all", "is"), ("are", "is"), ("answers", "answer")):
        template = template.replace(old, new)
    return template


def settings_of(task_args: Mapping[str, Any]) -> NiahSettings:
    """The variant of RULER's ``synthetic.yaml`` arguments (``niah.py``'s argument defaults for the rest)."""
    return NiahSettings(
        haystack=task_args.get("type_haystack", "essay"),
        key_kind=task_args.get("type_needle_k", "words"),
        value_kind=task_args.get("type_needle_v", "numbers"),
        keys=int(task_args.get("num_needle_k", 1)),
        values=int(task_args.get("num_needle_v", 1)),
        queries=int(task_args.get("num_needle_q", 1)),
    )


@functools.lru_cache(maxsize=2)
def essay_haystack(text: str) -> Essay:
    """The essay haystack of ``text``, cut into NLTK's sentences per size and kept (one per process)."""
    return Essay(text, sentence_spans)


def ruler_draws(
    settings: NiahSettings,
    counter: PromptCounter,
    template: str,
    *,
    max_seq_length: int,
    tokens_to_generate: int,
    seed: int,
    essay: Essay | None = None,
    excluded: frozenset[str] = frozenset(),
    where: str = "",
) -> Iterator[Drawn]:
    """RULER's samples, without end: the search on ``random.Random(seed)``, then each row at the found
    size, ``incremental`` smaller after a draw that does not fit, on the same stream.

    ``template`` is what ``prepare.py`` passes (model template around the task template, answer prefix
    appended; rewritten in the singular here, as ``niah.py`` does). A prompt fits when its tokens
    without special tokens plus ``tokens_to_generate`` are at most ``max_seq_length``. A drawn row
    asking for a key or value in ``excluded`` is skipped (the stream goes on: RULER's draws are kept).
    """
    if settings.single:
        template = singular(template)

    def prompt(sample: Sample) -> Prompt:
        text = template.format(type_needle_v=settings.type_needle_v, context=MARK, query=sample.query)
        head, tail = text.split(MARK)
        return Prompt(head, sample.lines, tail)

    limit = max_seq_length - tokens_to_generate + counter.specials
    sizer = Sizer(
        settings, prompt, counter, limit, max_seq_length, seed, essay, where=where, answer_at=first_answer
    )
    stream = random.Random(seed)
    size = sizer.search(stream)
    while True:
        drawn = sizer.row(stream, size)
        if excluded.isdisjoint((*drawn.sample.queries, *drawn.sample.answers)):
            yield drawn


def first_answer(sample: Sample, text: str) -> int:
    """Where ``niah.py`` finds a row's answer: its first value's first occurrence in the prompt."""
    return text.find(sample.answers[0])


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
    essay: str | None = None,
    excluded: frozenset[str] = frozenset(),
) -> Iterator[dict]:
    """The records RULER's ``niah.py`` writes, key for key (``num_samples=None``: without end); its errors
    begin ``niah:``, as the other families' begin with theirs.

    ``essay`` is the essay haystack's text (RULER's ``PaulGrahamEssays.json`` ``text``), needed by the
    essay variants only. ``pre_samples`` is accepted for the family interface; niah does not read it.
    ``excluded``: a row asking for a key or value in it is skipped (:func:`ruler_draws`).
    """
    del pre_samples
    settings = settings_of(task_args)
    if settings.haystack == "essay" and essay is None:
        raise ValueError("the essay haystack needs the essay's text")
    prompts = PromptCounter(counter)
    draws = ruler_draws(
        settings,
        prompts,
        template,
        max_seq_length=max_seq_length,
        tokens_to_generate=tokens_to_generate,
        seed=seed,
        essay=essay_haystack(essay) if settings.haystack == "essay" else None,
        excluded=excluded,
        where="niah",
    )
    for number, drawn in enumerate(draws):
        if num_samples is not None and number >= num_samples:
            return
        prompt, prefix = cut_at_prefix(drawn.prompt.text, answer_prefix)
        answers = drawn.sample.answers
        index = prompt.find(answers[0])
        length = drawn.tokens - prompts.specials + tokens_to_generate
        record = ruler_record(index, prompt, prefix, answers, length)
        counted = drawn.answer_at == index and drawn.answer_tokens is not None
        record["token_position_answer"] = (
            drawn.answer_tokens if counted else counter.count_fresh(prompt[:index], special=False)
        )
        yield record


def last_asked(text: str) -> str | None:
    """The keys of the last question in ``text`` (``_ASKED``'s last match), read from the end: a match
    never spans a line break, so the last line holding one holds the last (a needle haystack's prompt
    is thousands of lines the pattern would otherwise scan)."""
    end = len(text)
    while end >= 0:
        start = text.rfind("\n", 0, end) + 1
        asked = _ASKED.findall(text, start, end)
        if asked:
            return asked[-1]
        end = start - 1
    return None


def screen_strings(record: Mapping[str, Any]) -> set[str]:
    """What a fresh row may never share with this eval record: the keys it asks for and its answers."""
    query = last_asked(record["input"] + record.get("answer_prefix", ""))
    strings = set(record["outputs"])
    if query is not None:
        head, _, last = query.rpartition(", and ")
        strings.update([*head.split(", "), last] if head else [query])
    return strings
