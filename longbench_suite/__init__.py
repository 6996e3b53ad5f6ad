"""Long-context LLM benchmarks as Hugging Face ``datasets``, with ``dev``/``eval`` splits.

>>> from longbench_suite import load_dataset
>>> ds = load_dataset("longbench_suite", "nq_32k", split="dev")  # doctest: +SKIP
"""

from ._version import __version__

__all__ = [
    "BuildOptions",
    "__version__",
    "compare",
    "export",
    "get_builder",
    "list_configs",
    "load_dataset",
    "mixture",
    "prefetch",
    "prepare",
    "push",
    "reward_function",
    "sft_lengths",
    "training_format",
]

_TRAINING = ("training_format", "mixture", "reward_function", "sft_lengths")


def __getattr__(name: str):
    # Imported on first use, so `longbench-suite list` (and the demo's offline switches) run before
    # `datasets` is imported.
    if name in ("get_builder", "load_dataset", "prefetch", "prepare"):
        from . import api

        return getattr(api, name)
    if name in ("export", "push"):
        from .publish import hub

        return getattr(hub, name)
    if name in _TRAINING:
        from . import training

        return getattr(training, name)
    if name == "BuildOptions":
        from .options import BuildOptions

        return BuildOptions
    if name == "compare":
        from .comparison import compare

        return compare
    if name == "list_configs":
        from .registry import list_configs

        return list_configs
    raise AttributeError(f"module 'longbench_suite' has no attribute {name!r}")
