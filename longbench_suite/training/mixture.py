"""Mixtures across tasks and lengths: one stream drawn from many configs by weight.

:func:`mixture` takes weights over configs and patterns (``"helmet/nq_*"``, ``"longbench/*_8k"``),
streams every matched config, tags each row with its ``source`` (the qualified config name), and
interleaves them with ``datasets.interleave_datasets``: deterministic for a seed, resumable through
the stream's ``state_dict()`` / ``load_state_dict()``, and divided among DataLoader workers and nodes
like any stream. A pattern's weight is shared equally by the configs it matches.

As training examples (``format=``) a mixture has one mode, decided when it is made: its configs' own
mode when they all have one (their tasks' ``use_chat_template``), else chat mode, the one mode every
row can take (every row has a user turn: ``input`` without its answer prefix, as upstream's chat mode
sends the template; a row fitted under a chat template is no completion prompt).
``chat=True``/``False`` chooses instead.
"""

from __future__ import annotations

import fnmatch
import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import datasets

from .. import registry
from ..errors import DataFormatError, OptionError, UnknownNameError
from ..options import BuildOptions, split_keywords

logger = logging.getLogger("longbench_suite")

STOPPING = ("first_exhausted", "all_exhausted", "all_exhausted_without_replacement")


@dataclass(frozen=True)
class Source:
    """One config of a mixture and its share of the draws."""

    config: str  # qualified: benchmark/config
    probability: float

    @property
    def chat(self) -> bool:
        """The config's upstream mode: chat (``True``) or completion (``False``)."""
        bench, config = self.config.split("/", 1)
        return registry.benchmark(bench).lookup(config)[0].use_chat_template


def expand(weights: Mapping[str, float]) -> list[Source]:
    """The configs ``weights`` names, each with its probability (the weights normalised, a pattern's
    weight shared equally by its matches). A pattern that matches nothing is an error."""
    everything = registry.list_configs()
    shares: dict[str, float] = {}
    for pattern, weight in weights.items():
        if isinstance(weight, bool) or not isinstance(weight, int | float) or weight < 0:
            raise OptionError(f"the weight of {pattern!r} must be a non-negative number, got {weight!r}")
        qualified = pattern if "/" in pattern else f"*/{pattern}"
        matches = [name for name in everything if fnmatch.fnmatchcase(name, qualified)]
        if not matches:
            raise UnknownNameError(f"{pattern!r} matches no config (see `longbench-suite list`)")
        for name in matches:
            shares[name] = shares.get(name, 0.0) + weight / len(matches)
    total = sum(shares.values())
    if total <= 0:
        raise OptionError("the weights of a mixture must not all be 0")
    return [Source(name, share / total) for name, share in shares.items() if share > 0]


def mixture(
    weights: Mapping[str, float],
    *,
    split: str = "dev",
    seed: int = 0,
    stopping_strategy: str = "all_exhausted",
    format: str | None = None,
    chat: bool | None = None,
    holdout: str | None = None,
    holdout_fraction: float | None = None,
    options: BuildOptions | None = None,
    **load_options,
) -> datasets.IterableDataset:
    """One stream of ``split`` rows drawn from the configs ``weights`` names.

    Rows keep the columns every source has (with one type) plus ``source``: a mixture within one
    benchmark keeps them all, one across benchmarks the common ones (``format=`` turns them into
    training examples, ``source`` kept, in one mode for every row: the configs' own when they agree,
    else chat mode; ``chat=`` forces one). ``stopping_strategy`` is
    ``interleave_datasets``'s: ``"all_exhausted"`` (default) oversamples the smaller sources until every
    source has been seen whole. ``options=BuildOptions(...)`` and the other keywords are
    :func:`longbench_suite.load_dataset`'s (``mirror``, ``tokenizer``, ...; a build option given as a
    keyword replaces that field of ``options``).
    """
    from ..api import load_dataset
    from .formats import training_format

    if stopping_strategy not in STOPPING:
        raise UnknownNameError(f"stopping_strategy must be one of {', '.join(STOPPING)}")
    build, load_options = split_keywords(load_options)
    options = BuildOptions.of(options, **build)
    sources = expand(weights)
    if format is not None or chat is not None:
        chat = examples_mode(sources, chat, fitted_to_chat_template=options.chat_template is not None)
    extra = {}
    if holdout is not None:
        extra["holdout"] = holdout
    if holdout_fraction is not None:
        extra["holdout_fraction"] = holdout_fraction
    streams = [
        load_dataset(
            *s.config.split("/", 1), split=split, streaming=True, options=options, **extra, **load_options
        )
        for s in sources
    ]
    shared = [
        name
        for name, feature in streams[0].features.items()
        if all(stream.features.get(name) == feature for stream in streams[1:])
    ]
    if any(list(stream.features) != shared for stream in streams):
        streams = [stream.select_columns(shared) for stream in streams]
    streams = [_tagged(stream, s.config) for stream, s in zip(streams, sources, strict=True)]
    mixed = datasets.interleave_datasets(
        streams,
        probabilities=[s.probability for s in sources],
        seed=seed,
        stopping_strategy=stopping_strategy,
    )
    if format is not None or chat is not None:
        mixed = training_format(mixed, format or "prompt_completion", chat=chat, keep=("source",))
    return mixed


def examples_mode(sources: list[Source], chat: bool | None, *, fitted_to_chat_template: bool) -> bool:
    """The one mode of a mixture's training examples: ``chat`` if given, else the sources' own mode
    when they agree, else chat mode. Completion mode is refused here, before any row is read, where a
    chat-mode source was fitted under a chat template."""
    chat_sources = [s.config for s in sources if s.chat]
    if chat is False and fitted_to_chat_template and chat_sources:
        raise DataFormatError(
            f"chat=False, but the chat-mode rows of {_few(chat_sources)} are fitted under chat_template=, "
            "so their inputs are no completion-mode prompts; use chat mode, or mix without chat_template"
        )
    if chat is not None:
        return chat
    if len(chat_sources) in (0, len(sources)):
        return bool(chat_sources)
    completion = [s.config for s in sources if not s.chat]
    logger.info(
        "mixture: chat-mode configs (%s) and completion-mode ones (%s): every example is in chat mode "
        "(chat=False for completion mode)",
        _few(chat_sources),
        _few(completion),
    )
    return True


def _few(names: list[str], shown: int = 3) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _tagged(stream: datasets.IterableDataset, config: str) -> datasets.IterableDataset:
    features = datasets.Features({**stream.features, "source": datasets.Value("string")})
    return stream.map(lambda row: {"source": config}, features=features)


def source_counts(rows: Iterable[Mapping]) -> Counter:
    """How many of ``rows`` came from each source (reads the ``source`` column)."""
    return Counter(row["source"] for row in rows)
