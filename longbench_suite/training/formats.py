"""Rows as training examples in the shapes TRL's ``SFTTrainer`` consumes.

Every row carries its task's upstream mode (``use_chat_template``) and the text completion mode puts
after the user turn (``answer_prefix``; ``input`` ends with it). :func:`training_format` turns rows
into exactly one of TRL's dataset types, dropping every other column:

``"prompt_completion"``
    chat mode: ``prompt = [{"role": "user", "content": USER}]``,
    ``completion = [{"role": "assistant", "content": output}]``, where USER is ``input`` without its
    ``answer_prefix`` suffix (upstream's chat prompt: the user template alone);
    completion mode: ``prompt = input`` (answer prefix included) and ``completion = SEP + output``.
``"messages"``
    chat mode: ``messages = [user turn, assistant turn]`` as above; completion mode, which must not
    get a chat template, has TRL's other language-modelling column ``text = input + SEP + output``.
``"prompt"``
    the prompt alone, as TRL's ``GRPOTrainer`` takes it (chat mode: the user turn; completion mode:
    ``input``), with every other column kept: TRL hands them to the reward functions
    (:mod:`longbench_suite.training.rewards`), which score with them.

SEP is one space when ``input`` ends in a non-space character and ``output`` starts with one
(``"…\\nAnswer:" + " " + "Paris"``, as upstream's demonstrations are written), else nothing.

A dataset has one mode (a column has one type): the rows' own, or ``chat=True``/``False`` for all.
Rows fitted under a chat template (a ``chat_template`` value: the user turn is HELMET's chat prompt for
it) cannot be put in completion mode: their ``input`` was not fitted as a completion prompt.
Rows whose mode differs from the dataset's raise :class:`~longbench_suite.errors.DataFormatError`.
Works on ``Dataset``, ``IterableDataset`` (lazily, shards kept) and their dicts.
"""

from __future__ import annotations

import datasets

from ..errors import DataFormatError, UnknownNameError

FORMATS = ("prompt_completion", "messages", "prompt")

_TURNS = datasets.List({"role": datasets.Value("string"), "content": datasets.Value("large_string")})
_TEXT = datasets.Value("large_string")


def separator(prompt: str, completion: str) -> str:
    """What joins a completion-mode prompt and its target: a space unless either side has one."""
    if prompt and completion and not prompt[-1].isspace() and not completion[0].isspace():
        return " "
    return ""


def user_turn(row: dict) -> str:
    """The chat-mode user message: ``input`` without the ``answer_prefix`` suffix."""
    text, prefix = row["input"], row["answer_prefix"] or ""
    if prefix and not text.endswith(prefix):
        raise DataFormatError(
            f"row {row.get('query_id')!r}: its input does not end with its answer_prefix {prefix!r}"
        )
    return text[: len(text) - len(prefix)]


def convert(row: dict, format: str, chat: bool) -> dict:
    """One row in ``format`` (see the module docstring), in chat mode or not."""
    output = row["output"]
    if format == "prompt":
        return {"prompt": [{"role": "user", "content": user_turn(row)}] if chat else row["input"]}
    if chat:
        user = [{"role": "user", "content": user_turn(row)}]
        assistant = [{"role": "assistant", "content": output}]
        if format == "messages":
            return {"messages": user + assistant}
        return {"prompt": user, "completion": assistant}
    prompt = row["input"]
    completion = separator(prompt, output) + output
    if format == "messages":
        return {"text": prompt + completion}
    return {"prompt": prompt, "completion": completion}


def features_of(format: str, chat: bool) -> datasets.Features:
    if format == "prompt":
        return datasets.Features({"prompt": _TURNS if chat else _TEXT})
    if format == "messages":
        return datasets.Features({"messages": _TURNS} if chat else {"text": _TEXT})
    kind = _TURNS if chat else _TEXT
    return datasets.Features({"prompt": kind, "completion": kind})


def _dataset_mode(dataset) -> bool:
    """The rows' mode: all of a ``Dataset``'s rows, or the first row of a stream."""
    if isinstance(dataset, datasets.Dataset):
        modes = set(dataset.unique("use_chat_template"))
    else:
        first = next(iter(dataset.select_columns(["use_chat_template"])), None)
        modes = set() if first is None else {first["use_chat_template"]}
    if len(modes) != 1:
        if not modes:
            raise DataFormatError("the dataset has no rows to turn into training examples")
        raise DataFormatError(
            "the dataset mixes chat-mode and completion-mode rows (use_chat_template), which cannot "
            "share one column type; pass chat=True or chat=False to put every row in one mode"
        )
    return bool(modes.pop())


def training_format(
    dataset,
    format: str = "prompt_completion",
    *,
    chat: bool | None = None,
    mode=None,
    keep: tuple[str, ...] = (),
):
    """``dataset`` as TRL ``SFTTrainer`` (or, ``format="prompt"``, ``GRPOTrainer``) examples (see the module
    docstring).

    ``chat`` forces every row into chat (``True``) or completion (``False``) mode; by default each
    row's ``use_chat_template`` decides, and all rows must agree. ``mode`` is the rows' mode when the
    caller already knows it (saves reading a row of a stream). ``keep`` names columns to keep next to
    the example's (``"prompt"`` keeps every column but ``input``).
    """
    if format not in FORMATS:
        raise UnknownNameError(f"unknown training format {format!r}; the formats are {', '.join(FORMATS)}")
    if isinstance(dataset, datasets.DatasetDict | datasets.IterableDatasetDict):
        return type(dataset)(
            {name: training_format(d, format, chat=chat, mode=mode, keep=keep) for name, d in dataset.items()}
        )
    columns = dataset.column_names
    if columns is None:  # a stream whose features datasets could not know in advance
        columns = list(next(iter(dataset), {}))
    missing = {"input", "output", "use_chat_template", "answer_prefix"} - set(columns)
    if missing:
        raise DataFormatError(f"training formats need the columns {sorted(missing)}, which the dataset lacks")
    forced = chat is not None
    if chat is None:
        chat = mode if mode is not None else _dataset_mode(dataset)

    def to_example(row: dict) -> dict:
        if not forced and bool(row["use_chat_template"]) != chat:
            raise DataFormatError(
                f"row {row.get('query_id')!r} is in {'chat' if row['use_chat_template'] else 'completion'} "
                f"mode, the dataset in {'chat' if chat else 'completion'} mode; pass chat=True or "
                "chat=False to put every row in one mode"
            )
        if not chat and row.get("chat_template"):
            raise DataFormatError(
                f"row {row.get('query_id')!r} was fitted under the chat template {row['chat_template']}, "
                "so its input is no completion-mode prompt; use chat mode, or build without chat_template"
            )
        return convert(row, format, chat)

    kept = [c for c in columns if c != "input"] if format == "prompt" else list(keep)
    unknown = sorted(set(kept) - set(columns))
    if unknown:
        raise DataFormatError(f"cannot keep the columns {unknown}, which the dataset lacks")
    features = features_of(format, chat)
    if kept and dataset.features is not None:
        features = datasets.Features({**features, **{c: dataset.features[c] for c in kept}})
    elif kept:
        features = None  # a stream whose features datasets could not know in advance
    removed = [c for c in columns if c not in kept]
    return dataset.map(to_example, remove_columns=removed, features=features)
