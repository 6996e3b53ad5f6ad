"""Names whose home moved between the ``datasets`` releases the library supports (4.0 and later)."""

from __future__ import annotations

try:
    from datasets.builder import Key  # datasets >= 4.5: a row's key names its shard
except ImportError:  # older datasets take any key that is unique within the split

    def Key(shard: int, index: int) -> str:
        return f"{shard}-{index}"


__all__ = ["Key"]
