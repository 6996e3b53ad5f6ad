"""Build one config and look at it: split sizes, token lengths, one prompt, one training example.

python examples/build_and_inspect.py nq_32k                 # real sources (Hub access; Llama-2 is gated)
python examples/build_and_inspect.py nq_8k --demo           # offline, on built-in sample data
"""

from __future__ import annotations

import argparse

from longbench_suite import load_dataset
from longbench_suite.demo import offline_options
from longbench_suite.publish.stats import split_stats, stats_table


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("config", help="e.g. nq_32k or helmet/nq_32k")
    parser.add_argument("--demo", action="store_true", help="build offline from sample data")
    parser.add_argument("--tokenizer", help="tokenizer spec (default: the benchmark's own)")
    parser.add_argument("--cache-dir")
    args = parser.parse_args(argv)
    options = offline_options(args.cache_dir) if args.demo else {"cache_dir": args.cache_dir}
    if args.tokenizer:
        options["tokenizer"] = args.tokenizer

    splits = load_dataset("longbench_suite", args.config, **options)  # DatasetDict {dev, eval}
    # every row carries its token counts (input_tokens, output_tokens) under the config's tokenizer
    print(stats_table(split_stats(args.config, name, ds) for name, ds in splits.items()))

    row = splits["eval"][0]
    prompt = row["input"]
    print("\ncolumns:", ", ".join(splits["eval"].column_names))
    print(
        f"query_id {row['query_id']}, max_length {row['max_length']}, input_budget {row['input_budget']}, "
        f"input_tokens {row['input_tokens']}, chat mode {row['use_chat_template']}"
    )
    print(f"prompt ({len(prompt)} chars), head and tail:\n{prompt[:300]}\n[...]\n{prompt[-300:]}")
    print(f"target: {row['output']!r}   all answers: {row['answers']}")

    # train on dev; LV-Eval publishes no dev data, and Ada-LEval's hosted files may hold none
    train = "dev" if "dev" in splits else "eval"
    examples = load_dataset(
        "longbench_suite", args.config, f"{train}[:1]", format="prompt_completion", **options
    )
    completion = examples[0]["completion"]
    print(f"\nas a TRL prompt/completion example ({train}), the completion is", repr(completion))


if __name__ == "__main__":
    main()
