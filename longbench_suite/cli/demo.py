"""``longbench-suite demo``: a few configs of every benchmark built offline from built-in sample data."""

from __future__ import annotations

import argparse


def add_parser(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "demo", help="build a few configs of every benchmark offline from built-in sample data"
    )
    p.add_argument("--cache-dir", help="where the sample mirror, tokenizer and datasets go")


def run(args: argparse.Namespace) -> int:
    from ..publish.stats import stats_table

    results, mirror, tokenizer = _build_demo(args.cache_dir)
    print(stats_table(results))
    print(f"\nSample sources (upstream layouts): {mirror}")
    print(f"Tokens counted with the demo's BPE tokenizer: {tokenizer}")
    print(
        "Every command takes --demo to use these (e.g. `longbench-suite build nq_8k --demo`; Python:"
        " load_dataset(..., demo=True)); with --cache-dir, give the same one."
    )
    print(
        "Real data: `longbench-suite build CONFIG` downloads from the upstream hosts (the Hugging Face Hub;"
        " Ada-LEval's opencompass.openxlab.space). Budgets default to Llama-2 tokens (a gated Hub repo: set"
        " HF_TOKEN or pass --tokenizer) and Ada-LEval's lengths to tiktoken's cl100k_base."
    )
    return 0


def _build_demo(cache_dir: str | None):
    """Build the demo configs; returns their statistics, the mirror and the tokenizer used."""
    import logging

    from .. import registry
    from ..api import load_dataset
    from ..demo import offline_options
    from ..fit.tokenizers import load_tokenizer
    from ..publish.stats import split_stats

    logger = logging.getLogger("longbench_suite")
    options = offline_options(cache_dir)
    mirror, tokenizer = options["mirror"], options["tokenizer"]
    counter = load_tokenizer(tokenizer)
    samples = {b: registry.samples(b) for b in registry.benchmark_names()}
    # a config both listed and generated is built once, with its generate options
    configs = [
        (b, config, None)
        for b, module in samples.items()
        for config in module.DEMO_CONFIGS
        if config not in getattr(module, "DEMO_GENERATED", {})
    ]
    configs += [
        (b, config, generate)
        for b, module in samples.items()
        for config, generate in getattr(module, "DEMO_GENERATED", {}).items()
    ]
    results = []
    for n, (bench, config, generate) in enumerate(configs, start=1):
        logger.info("[%d/%d] building %s/%s from the sample mirror", n, len(configs), bench, config)
        splits = load_dataset(bench, config, demo=True, cache_dir=cache_dir, generate=generate)
        for split, dataset in splits.items():
            results.append(split_stats(f"{bench}/{config}", split, dataset, counter))
    return results, mirror, tokenizer
