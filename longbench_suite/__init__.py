"""Long-context LLM benchmarks as Hugging Face ``datasets``, with ``dev``/``eval`` splits.

>>> from longbench_suite import load_dataset
>>> ds = load_dataset("longbench_suite", "nq_32k", split="dev")  # doctest: +SKIP
"""

from ._version import __version__

__all__ = ["__version__", "get_builder", "list_configs", "load_dataset", "prefetch", "prepare"]


def __getattr__(name: str):
    # Imported on first use, so `longbench-suite list` (and the demo's offline switches) run before
    # `datasets` is imported.
    if name in ("get_builder", "load_dataset", "prefetch", "prepare"):
        from . import api

        return getattr(api, name)
    if name == "list_configs":
        from .registry import list_configs

        return list_configs
    raise AttributeError(f"module 'longbench_suite' has no attribute {name!r}")
