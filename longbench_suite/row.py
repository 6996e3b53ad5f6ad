"""Step 7 of the flow: the one row constructor, the columns every row has, and query ids.

:func:`make_row` assembles a row from a rendered and fitted :class:`~longbench_suite.instance.Instance`
and its task's declaration: the common columns (:data:`COMMON_FEATURES`), the columns a benchmark
fills from declaration fields (``max_new_tokens``, ``task``), then the instance's own columns. A row
must hold exactly its schema's columns.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import datasets

from .errors import RowAssemblyError

if TYPE_CHECKING:
    from .instance import Instance
    from .task import Task

#: Columns every config of every benchmark has (``docs/architecture.md`` §4).
COMMON_FEATURES = {
    "input": datasets.Value("large_string"),
    "output": datasets.Value("large_string"),
    "answers": datasets.List(datasets.Value("large_string")),
    "query_id": datasets.Value("string"),
    "max_length": datasets.Value("int32"),
    "input_budget": datasets.Value("int32"),
    "input_tokens": datasets.Value("int32"),
    "output_tokens": datasets.Value("int32"),
    "input_truncated": datasets.Value("bool"),
    "use_chat_template": datasets.Value("bool"),
    "answer_prefix": datasets.Value("string"),
}


#: The column of a benchmark whose fit can follow a chat template (HELMET): the identity of the template
#: a chat-mode row's user turn was fitted under, null where the completion prompt was fitted.
CHAT_TEMPLATE_COLUMN = "chat_template"


def features(**benchmark_specific: datasets.features.FeatureType) -> datasets.Features:
    """The common columns followed by a benchmark's own."""
    return datasets.Features({**COMMON_FEATURES, **benchmark_specific})


def make_row(
    task: Task,
    instance: Instance,
    *,
    prompt: str,
    answer_prefix: str,
    max_length: int | None,
    input_budget: int | None,
    input_truncated: bool,
    schema: datasets.Features,
    chat_template: str | None = None,
    declared_columns: Mapping[str, str],
) -> dict[str, Any]:
    """The row of one instance; ``declared_columns`` maps a column to the task field that fills it."""
    row: dict[str, Any] = {
        "input": prompt,
        "output": instance.output,
        "answers": list(instance.answers),
        "query_id": instance.query_id,
        "max_length": max_length,
        "input_budget": input_budget,
        "input_tokens": None,  # counted per batch of rows by the builder, where a tokenizer exists
        "output_tokens": None,
        "input_truncated": input_truncated,
        "use_chat_template": task.use_chat_template,
        "answer_prefix": answer_prefix,
    }
    if CHAT_TEMPLATE_COLUMN in schema:
        row[CHAT_TEMPLATE_COLUMN] = chat_template
    elif chat_template is not None:
        raise RowAssemblyError(f"{task.name}: a chat template was given, but the schema has no column for it")
    for column, attribute in declared_columns.items():
        if column in schema:
            row[column] = getattr(task, attribute)
    row.update(instance.columns)
    row.update(dict.fromkeys(task.token_count_columns))  # counted per batch of rows by the builder
    if row.keys() != schema.keys():
        missing, extra = sorted(schema.keys() - row.keys()), sorted(row.keys() - schema.keys())
        raise RowAssemblyError(
            f"{task.name}: a row of {instance.query_id} does not match the schema "
            f"(missing {missing}, unexpected {extra})"
        )
    return row


def digest(*parts: object, serial: Literal["fields", "json"] = "fields", chars: int = 16) -> str:
    """The first ``chars`` hex digits of the sha256 of ``parts``.

    ``serial="fields"`` hashes ``str(part)`` joined by U+001F; ``"json"`` the JSON list of the parts
    (non-ASCII kept as is), for parts that are lists themselves.
    """
    if serial == "json":
        text = json.dumps(list(parts), ensure_ascii=False)
    else:
        text = "\x1f".join(str(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:chars]


def query_id(
    prefix: str, *parts: object, serial: Literal["fields", "json"] = "fields", chars: int = 16
) -> str:
    """``<prefix>-<digest of parts>``: a query id made from the text that identifies a question–answer
    pair (the same at every length and in every depth variant)."""
    return f"{prefix}-{digest(*parts, serial=serial, chars=chars)}"
