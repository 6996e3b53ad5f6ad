"""Trainer length settings that keep every example whole.

TRL's ``SFTConfig`` cuts each tokenized example to ``max_length`` (1024 by default) and then *drops*
every example whose completion was cut away entirely (it has no loss left). Long-context rows are
longer than that by design, so a trainer run with the defaults can train on nothing. These helpers
read the rows' own token counts (``input_tokens``, ``output_tokens``, counted under the config's
tokenizer) and say what ``max_length`` keeps every example, or whether a given one cuts some.
"""

from __future__ import annotations

import datasets

from ..errors import TrainingLengthError

#: tokens a completion-mode example may have beyond its input and output: the separator and the
#: end-of-sequence token the trainer appends
EXAMPLE_OVERHEAD = 2
#: tokens a chat template may add around a chat-mode example when the model's tokenizer is not given
#: (role markers, a default system prompt; generous: the templates of common models add fewer)
CHAT_TEMPLATE_MARGIN = 64

def chat_template_overhead(tokenizer) -> int:
    """Tokens ``tokenizer``'s chat template adds around a user turn and an assistant turn (plus
    :data:`EXAMPLE_OVERHEAD` for tokens merging differently at the seams)."""
    turns = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]
    templated = tokenizer.apply_chat_template(turns, tokenize=True)
    ids = templated["input_ids"] if hasattr(templated, "keys") else templated  # a BatchEncoding or ids
    bare = len(tokenizer("x", add_special_tokens=False)["input_ids"]) + len(
        tokenizer("y", add_special_tokens=False)["input_ids"]
    )
    return max(len(ids) - bare, 0) + EXAMPLE_OVERHEAD


def longest_example(rows: datasets.Dataset, tokenizer=None) -> int | None:
    """The most tokens one example of ``rows`` takes: its input and output tokens, plus what the trainer
    adds — :data:`EXAMPLE_OVERHEAD` in completion mode; in chat mode what ``tokenizer``'s chat
    template adds (:func:`chat_template_overhead`), or :data:`CHAT_TEMPLATE_MARGIN` without one.
    ``None`` when the rows carry no token counts (no tokenizer was loaded to build them)."""
    wanted = ["input_tokens", "output_tokens", "use_chat_template"]
    if not set(wanted) <= set(rows.column_names):
        return None
    counts = rows.select_columns(wanted).to_dict()
    if not counts["input_tokens"] or None in counts["input_tokens"] or None in counts["output_tokens"]:
        return None
    chat = EXAMPLE_OVERHEAD if not any(counts["use_chat_template"]) else None
    if chat is None:
        chat = chat_template_overhead(tokenizer) if tokenizer is not None else CHAT_TEMPLATE_MARGIN
    return max(
        i + o + (chat if c else EXAMPLE_OVERHEAD)
        for i, o, c in zip(
            counts["input_tokens"], counts["output_tokens"], counts["use_chat_template"], strict=True
        )
    )


def sft_lengths(rows, *, max_length: int | None = None, tokenizer=None) -> dict[str, int | None]:
    """``SFTConfig`` keyword arguments that keep every example of ``rows`` whole.

    For a ``Dataset`` of rows (not yet in a training format, so their token counts are there), the
    longest example's length (:func:`longest_example`; pass the trainer's ``tokenizer`` to count its
    chat template exactly); for a stream, or rows without counts, ``max_length=None``, which TRL reads
    as "never truncate". Given ``max_length``, checks it instead and raises
    :class:`TrainingLengthError` when it would cut examples. Counts are in the config's tokenizer:
    build the config with your model's tokenizer (``tokenizer=``) for exact numbers. Rows already in a
    training format carry no counts: a ``max_length`` given for them is checked by tokenizing the
    examples with ``tokenizer`` (its chat template for conversations), and refused without one.
    """
    longest = longest_example(rows, tokenizer) if isinstance(rows, datasets.Dataset) else None
    formatted = isinstance(rows, datasets.Dataset) and _example_columns(rows)
    if max_length is None:
        return {"max_length": longest}
    if longest is None and formatted:
        if tokenizer is None:
            raise TrainingLengthError(
                f"max_length={max_length} cannot be checked: rows in a training format "
                f"({', '.join(formatted)}) carry no token counts; pass the rows before training_format "
                "(load_dataset without format=), or tokenizer= to count the examples"
            )
        lengths = [_example_tokens(row, tokenizer) for row in rows.select_columns(formatted)]
        over, longest = sum(n > max_length for n in lengths), max(lengths)
        if over:
            raise TrainingLengthError(
                f"max_length={max_length} cuts {over} of {len(rows)} examples (the longest has {longest} "
                "tokens under the tokenizer given), and TRL drops every example whose completion it cuts "
                f"away; use max_length=None or at least {longest}"
            )
        return {"max_length": max_length}
    if longest is not None and max_length < longest:
        over = _count_over(rows, max_length, longest - _longest_counts(rows))
        raise TrainingLengthError(
            f"max_length={max_length} cuts {over} of {len(rows)} examples (the longest has {longest} "
            "tokens), and TRL drops every example whose completion it cuts away; use max_length=None or "
            f"at least {longest} (longbench_suite.sft_lengths(rows) gives it)"
        )
    return {"max_length": max_length}


def _longest_counts(rows: datasets.Dataset) -> int:
    counts = rows.select_columns(["input_tokens", "output_tokens"]).to_dict()
    return max(i + o for i, o in zip(counts["input_tokens"], counts["output_tokens"], strict=True))


def _count_over(rows: datasets.Dataset, max_length: int, overhead: int) -> int:
    counts = rows.select_columns(["input_tokens", "output_tokens"]).to_dict()
    return sum(
        i + o + overhead > max_length
        for i, o in zip(counts["input_tokens"], counts["output_tokens"], strict=True)
    )


def _example_columns(rows: datasets.Dataset) -> list[str]:
    """The columns of a training format (:mod:`.formats`) that ``rows`` are in, or ``[]``."""
    if "input" in rows.column_names:
        return []
    for columns in (["prompt", "completion"], ["messages"], ["text"]):
        if set(columns) <= set(rows.column_names):
            return columns
    return []


def _example_tokens(example: dict, tokenizer) -> int:
    """Tokens of one formatted example as TRL tokenizes it: a conversation through the tokenizer's chat
    template, text as prompt and completion, plus the end-of-sequence token TRL appends."""
    turns = example.get("messages") or (
        example["prompt"] + example["completion"] if isinstance(example.get("prompt"), list) else None
    )
    if turns is not None:
        templated = tokenizer.apply_chat_template(turns, tokenize=True)
        return len(templated["input_ids"] if hasattr(templated, "keys") else templated)
    texts = [example["text"]] if "text" in example else [example["prompt"], example["completion"]]
    return sum(len(tokenizer(t)["input_ids"]) for t in texts) + 1
