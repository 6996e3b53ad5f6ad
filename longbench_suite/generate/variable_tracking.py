"""RULER's variable tracking (``vt``), drawn as RULER's ``scripts/data/synthetic/variable_tracking.py``
draws it (``docs/generate.md`` §6).

A chain ``VAR ABCDE = 12345``, ``VAR FGHIJ = VAR ABCDE `` … (``num_hops`` links) is hidden in a noise
haystack (one line per noise paragraph or link) or an essay haystack (links as sentences); the answer
is every variable of the first chain. RULER's script first makes one *example* the same way (3-letter
names, the value 12345, at most 500 tokens, 5-line steps), then for the file: searches the haystack
size whose prompt plus the example plus the generation fits, and draws each row at that size (one
step smaller after a row that does not fit), putting before each row's prompt the example with its
variables and value redrawn. Everything comes from two generators seeded alike: Python's ``random``
(names, positions) and NumPy's legacy one (values), both reproduced here call for call.

Counting is exact and cheap: noise lines repeat, so a prompt is counted from remembered line counts
(:class:`~.count.PromptCounter`) instead of tokenizing the whole prompt at every step.
"""

from __future__ import annotations

import heapq
import itertools
import random
import re
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import DataFormatError, OptionError
from ..fit.tokenizers import TokenCounter
from .count import PromptCounter
from .niah import NOISE, Essay
from .ruler_records import cut_at_prefix, ruler_record
from .sentences import sentence_spans

#: RULER's ``constants.py`` entry for ``variable_tracking`` (the ``base`` model template adds nothing)
TEMPLATE = (
    "Memorize and track the chain(s) of variable assignment hidden in the following text.\n\n{context}\n"
    "Question: Find all variables that are assigned the value {query} in the text above."
)
ANSWER_PREFIX = (
    " Answer: According to the chain(s) of variable assignment in the text above, {num_v} variables are "
    "assigned the value {query}, they are: "
)
TOKENS_TO_GENERATE = 30
#: the example's value, replaced in each row's copy of it
EXAMPLE_VALUE = "12345"
#: the example's budget (RULER's ``max_seq_length=500`` for it, no generation counted)
EXAMPLE_LENGTH = 500
#: draws at one size before giving up (RULER retries forever)
MAX_RETRIES = 1000
HAYSTACKS = ("noise", "essay")
_MARK = "\x00context\x00"
_VALUE = re.compile(r"assigned the value (\S+?), they are")


@dataclass(frozen=True)
class VtSettings:
    """RULER's ``type_haystack``, ``num_chains`` and ``num_hops``."""

    haystack: str = "noise"
    chains: int = 1
    hops: int = 4

    @classmethod
    def of(cls, task_args: Mapping[str, Any]) -> VtSettings:
        unknown = set(task_args) - {"type_haystack", "num_chains", "num_hops"}
        if unknown:
            raise OptionError(f"vt: unknown task argument(s) {sorted(unknown)}")
        settings = cls(
            task_args.get("type_haystack", "noise"),
            int(task_args.get("num_chains", 1)),
            int(task_args.get("num_hops", 4)),
        )
        if settings.haystack not in HAYSTACKS:
            raise OptionError(f"vt: type_haystack must be one of {HAYSTACKS}, not {settings.haystack!r}")
        if settings.chains < 1 or settings.hops < 1:
            raise OptionError("vt: num_chains and num_hops must be at least 1")
        return settings


@dataclass(frozen=True)
class Chains:
    names: tuple[tuple[str, ...], ...]  # each chain's variables, first assigned the value
    links: tuple[tuple[str, ...], ...]  # each chain's assignments, as RULER writes them
    value: str


class Streams:
    """RULER's two generators: ``random`` (names, positions, order) and NumPy's legacy ``np.random``
    (the values), both seeded with the script's ``--random_seed``."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self._numbers = np.random.RandomState(seed)

    def name(self, letters: int) -> str:
        return "".join(self.rng.choices(string.ascii_uppercase, k=letters))

    def value(self) -> str:
        return str(self._numbers.randint(10000, 99999))


def draw_chains(streams: Streams, settings: VtSettings, example: bool) -> Chains:
    """RULER's ``generate_chains``: all names first (redrawn until distinct), then chain by chain.

    RULER cuts the names into chains of ``hops + 1`` as drawn, so a repeated name (about once in 1,700
    example draws, once in a million row draws) leaves a short last chain its script fails on with an
    ``IndexError``; here that incomplete chain is dropped and the draws go on.
    """
    letters, hops = (3, min(10, settings.hops)) if example else (5, settings.hops)
    wanted = (hops + 1) * settings.chains
    names = [streams.name(letters) for _ in range(wanted)]
    while len(set(names)) < wanted:
        names.append(streams.name(letters))
    chains, links = [], []
    for start in range(0, len(names), hops + 1):
        chain = names[start : start + hops + 1]
        value = EXAMPLE_VALUE if example else streams.value()
        if len(chain) < hops + 1:
            break
        chains.append(tuple(chain))
        hops_text = (f"VAR {b} = VAR {a} " for a, b in itertools.pairwise(chain))
        links.append((f"VAR {chain[0]} = {value}", *hops_text))
    return Chains(tuple(chains), tuple(links), links[0][0].split("=")[-1].strip())


def interleave(rng: random.Random, chains: tuple[tuple[str, ...], ...]) -> list[str]:
    """RULER's ``shuffle_sublists_heap``: the chains merged in a random order that keeps each in order."""
    heap = [(rng.random(), i, 0) for i in range(len(chains))]
    heapq.heapify(heap)  # pushing one by one gives the same pops: the keys are distinct
    merged = []
    while heap:
        _, chain, at = heapq.heappop(heap)
        merged.append(chains[chain][at])
        if at + 1 < len(chains[chain]):
            heapq.heappush(heap, (rng.random(), chain, at + 1))
    return merged


class Drawer:
    """One draw of RULER's ``generate_input_output``: the chains, then the haystack with them in it."""

    def __init__(self, settings: VtSettings, template: str, essay: Essay | None) -> None:
        self.settings, self.template, self.essay = settings, template, essay

    def draw(self, streams: Streams, size: int, example: bool) -> tuple[Chains, tuple[str, ...]]:
        chains = draw_chains(streams, self.settings, example)
        rng = streams.rng
        if self.essay is not None:
            flat = interleave(rng, chains.links)
            size = min(size, len(self.essay.words))  # RULER cuts the essay's first words, never repeats it
            return chains, (self.essay.with_needles(size, [link.strip() + "." for link in flat], rng),)
        lines = [NOISE] * size
        for links in chains.links:
            at = sorted(rng.sample(range(len(lines)), len(links)))
            for j, (position, link) in enumerate(zip(at, links, strict=True)):
                lines.insert(position + j, link)
        # RULER then replaces ". \n" by ".\n" in the context: no line here ends with ". "
        return chains, tuple(lines)

    def head_tail(self, chains: Chains) -> tuple[str, str]:
        text = self.template.format(context=_MARK, query=chains.value, num_v=self.settings.hops + 1)
        head, tail = text.split(_MARK)
        return head, tail


class Counted:
    """A drawn prompt ``head + "\\n".join(lines) + tail`` and its tokens without special tokens."""

    def __init__(self, counter: PromptCounter, fresh: bool) -> None:
        self.counter, self.fresh = counter, fresh

    def tokens(self, head: str, lines: tuple[str, ...], tail: str) -> int:
        return self.counter.count(head, lines, tail, fresh=self.fresh) - self.counter.specials


def _search(
    drawer: Drawer, counted: Counted, streams: Streams, step: int, budget: int, extra: int, example: bool
) -> int:
    """RULER's size search: an estimate from one draw of ``step`` units, then a binary search between
    ``step`` and three times the estimate, each step a new draw; ``extra`` tokens are added to each."""
    chains, lines = drawer.draw(streams, step, example)
    per_unit = counted.tokens(*_rendered(drawer, chains, lines)) / step
    low, high, best = step, max(int((budget / per_unit) * 3), step * 2), None
    while low <= high:
        middle = (low + high) // 2
        chains, lines = drawer.draw(streams, middle, example)
        if counted.tokens(*_rendered(drawer, chains, lines)) + extra <= budget:
            best, low = middle, middle + 1
        else:
            high = middle - 1
    return best if best is not None else step


def _rendered(drawer: Drawer, chains: Chains, lines: tuple[str, ...]) -> tuple[str, tuple[str, ...], str]:
    head, tail = drawer.head_tail(chains)
    return head, lines, tail


def _nothing_fits(
    budget: int, tokens: int, size: int, what: str = "choose a longer length"
) -> DataFormatError:
    return DataFormatError(
        f"vt: no haystack fits {budget} tokens; the prompt alone is {tokens} tokens at {size} haystack "
        f"units ({what})"
    )


def example_text(drawer: Drawer, counted: Counted, streams: Streams, answer_prefix: str) -> str:
    """RULER's in-context example: a 3-letter chain with the value 12345 sized to 500 tokens, written as
    its prompt (with the answer prefix), a space, its variables and a line break."""
    settings = drawer.settings
    example = Drawer(settings, TEMPLATE + answer_prefix, drawer.essay)
    step = 50 if drawer.essay is not None else 5
    size = _search(example, counted, streams, step, EXAMPLE_LENGTH, 0, True)
    for _ in range(MAX_RETRIES):
        chains, lines = example.draw(streams, size, True)
        head, lines, tail = _rendered(example, chains, lines)
        tokens = counted.tokens(head, lines, tail)
        if tokens <= EXAMPLE_LENGTH:
            return head + "\n".join(lines) + tail + " " + " ".join(chains.names[0]) + "\n"
        if size > step:
            size -= step
    raise _nothing_fits(
        EXAMPLE_LENGTH,
        tokens,
        size,
        "RULER sizes its in-context example to this fixed budget at every length: "
        "this tokenizer counts the example's smallest haystack over it",
    )


def randomized(example: str, streams: Streams, hops: int) -> str:
    """RULER's ``randomize_icl``: each answer variable of the example, then its value, redrawn (plain
    text replacements, in order, as RULER makes them)."""
    for name in example.strip().split()[-hops - 1 :]:
        example = example.replace(name, streams.name(len(name)))
    return example.replace(EXAMPLE_VALUE, streams.value())


def as_lines(head: str, lines: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """``head + "\\n".join(lines)`` as ``"\\n".join(more_lines)``, ``head`` cut at its line breaks (a
    blank line folded onto the line before it), when it ends with one: the example's noise lines are
    then counted from memory like the row's own."""
    if not head.endswith("\n") or head.startswith("\n"):
        return head, lines
    folded = []
    for part in head[:-1].split("\n"):
        if part:
            folded.append(part)
        else:
            folded[-1] += "\n"
    return "", (*folded, *lines)


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
    essay: str | Essay | None = None,
    excluded: frozenset[str] = frozenset(),
) -> Iterator[dict]:
    """The records RULER's ``variable_tracking.py`` writes, key for key (``num_samples=None``: without end).

    ``template`` is what ``prepare.py`` passes (the model template around :data:`TEMPLATE`, the answer
    prefix appended); ``answer_prefix`` is RULER's, unformatted (:data:`ANSWER_PREFIX`). ``essay``: the
    essay haystack's text (or an :class:`~.niah.Essay`), for ``type_haystack: essay`` only.
    ``pre_samples`` is accepted for the family interface; vt does not read it. A row whose variables or
    value are in ``excluded`` is skipped (its draws are made, so later rows stay RULER's).
    """
    del pre_samples
    settings = VtSettings.of(task_args)
    haystack = _essay(essay) if settings.haystack == "essay" else None
    prompts = PromptCounter(counter)
    # noise lines repeat (remembered counts); an essay haystack is one line with the links at new places
    counted = Counted(prompts, fresh=haystack is not None)
    drawer = Drawer(settings, template, haystack)
    streams = Streams(seed)

    example = example_text(drawer, counted, streams, answer_prefix)
    example_tokens = counter.count(example, special=False)
    step = 500 if haystack is not None else (5 if max_seq_length < 4096 else 10)
    extra = example_tokens + tokens_to_generate
    found = _search(drawer, counted, streams, step, max_seq_length, extra, False)

    number = 0
    while num_samples is None or number < num_samples:
        size = found  # each row starts from the searched size
        for _ in range(MAX_RETRIES):
            chains, lines = drawer.draw(streams, size, False)
            head, tail = drawer.head_tail(chains)
            at = head.index(TEMPLATE[:20])  # RULER puts the example right before the task's text
            head = head[:at] + randomized(example, streams, settings.hops) + "\n" + head[at:]
            head, lines = as_lines(head, lines)
            length = counted.tokens(head, lines, tail) + tokens_to_generate
            if length <= max_seq_length:
                break
            if size > step:
                size -= step
        else:
            raise _nothing_fits(max_seq_length - tokens_to_generate, length - tokens_to_generate, size)
        answers = list(chains.names[0])
        if not excluded.isdisjoint((*answers, chains.value)):
            continue
        text = head + "\n".join(lines) + tail
        yield ruler_record(number, *cut_at_prefix(text, answer_prefix), answers, length)
        number += 1


def screen_strings(record: Mapping[str, Any]) -> set[str]:
    """What a fresh row may never share with this eval record: its variables and the value they hold."""
    strings = set(record["outputs"])
    value = _VALUE.search(record.get("answer_prefix", "") or record["input"])
    if value:
        strings.add(value.group(1))
    return strings


def _essay(essay: str | Essay | None) -> Essay:
    if essay is None:
        raise OptionError("vt: the essay haystack needs the essay's text")
    if isinstance(essay, Essay):
        return essay
    return Essay(essay, sentence_spans)
