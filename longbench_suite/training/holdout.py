"""A stable hold-out of ``dev``: the same question on the same side at every length and tokenizer.

A row belongs to the ``valid`` side when the sha256 of its task's hold-out key (its ``query_id`` —
the question–answer pair, identical across depth variants and lengths — or, for TSort, its book)
falls in the first ``fraction`` of the hash space; otherwise to ``train``. The rule reads nothing but
the key, so it is the same in streaming and prepared builds, in any order, on any machine, and a
question held out at 8k is held out at 128k too.
"""

from __future__ import annotations

import hashlib

from ..errors import OptionError, UnknownNameError
from ..options import DEFAULT_HOLDOUT_FRACTION

SIDES = ("train", "valid")
DEFAULT_FRACTION = DEFAULT_HOLDOUT_FRACTION
_SALT = b"longbench-suite-holdout\x1f"


def in_valid(key: str, fraction: float) -> bool:
    """Whether the row with hold-out key ``key`` is held out for validation."""
    digest = hashlib.sha256(_SALT + key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < fraction


def check_options(side: str | None, fraction: float) -> None:
    if side is not None and side not in SIDES:
        raise UnknownNameError(f"holdout must be one of {', '.join(SIDES)}, got {side!r}")
    if isinstance(fraction, bool) or not isinstance(fraction, int | float) or not 0 < fraction < 1:
        raise OptionError(
            f"holdout_fraction (--holdout-fraction) must be a number between 0 and 1, got {fraction!r}"
        )


def holdout(dataset, side: str, fraction: float = DEFAULT_FRACTION, key: str = "query_id"):
    """The ``side`` (``"train"`` or ``"valid"``) of ``dataset`` (a ``Dataset`` or ``IterableDataset``),
    split on its ``key`` column."""
    check_options(side, fraction)
    want_valid = side == "valid"
    return dataset.filter(lambda k: in_valid(k, fraction) == want_valid, input_columns=[key])
