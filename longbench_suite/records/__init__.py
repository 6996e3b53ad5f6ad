"""Step 2 of the flow: source files become records — parsed (:mod:`.parse`) and their fields checked
(:mod:`.fields`)."""

from .count import check_count, count_records
from .fields import (
    ANSWERS,
    IDENTIFIER,
    INTEGER,
    TEXT,
    TEXTS,
    WHOLE_NUMBER,
    Kind,
    check,
    list_of,
    nullable,
    one_of,
    require,
    take,
    take_all,
)
from .parse import (
    iter_json_object,
    iter_json_records,
    iter_jsonl,
    iter_parquet,
    jsonl_line_numbers,
    read_json,
    read_jsonl,
    read_lines,
    refuse_lone_surrogates,
)

__all__ = [
    "ANSWERS",
    "IDENTIFIER",
    "INTEGER",
    "TEXT",
    "TEXTS",
    "WHOLE_NUMBER",
    "Kind",
    "check",
    "check_count",
    "count_records",
    "iter_json_object",
    "iter_json_records",
    "iter_jsonl",
    "iter_parquet",
    "jsonl_line_numbers",
    "list_of",
    "nullable",
    "one_of",
    "read_json",
    "read_jsonl",
    "read_lines",
    "refuse_lone_surrogates",
    "require",
    "take",
    "take_all",
]
