"""Publish configs to a Hugging Face Hub dataset repo as Parquet with a dataset card.

    python examples/push_to_hub.py nq_8k nq_16k --repo-id ORG/NAME --private     # needs HF_TOKEN
    python examples/push_to_hub.py nq_8k --repo-id ORG/NAME --dry-run --demo --output ./helmet-repo

A dry run exports the folder the push would upload (and reads it back with plain `datasets`) without
contacting the Hub. The same from the shell: `longbench-suite push nq_8k --repo-id ORG/NAME`.
"""

from __future__ import annotations

import argparse
import tempfile

import datasets

from longbench_suite import push
from longbench_suite.demo import offline_options
from longbench_suite.errors import SuiteError


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("configs", nargs="+", help="configs of one benchmark")
    parser.add_argument("--repo-id", required=True)
    parser.add_argument("--private", action="store_true")
    parser.add_argument("--dry-run", action="store_true", help="export only; no Hub call")
    parser.add_argument("--output", help="keep the exported folder here")
    parser.add_argument("--demo", action="store_true", help="build offline from sample data")
    parser.add_argument("--cache-dir")
    args = parser.parse_args(argv)
    options = offline_options(args.cache_dir) if args.demo else {"cache_dir": args.cache_dir}
    folder = args.output or (tempfile.mkdtemp(prefix="helmet-repo-") if args.dry_run else None)

    result = push(
        args.configs,
        args.repo_id,
        private=args.private or None,
        dry_run=args.dry_run,
        output_dir=folder,
        **options,  # token: HF_TOKEN or the saved login (`hf auth login`)
    )
    for s in result.stats:
        print(f"{s.config:<14} {s.split:<5} {s.rows:>6} rows, input tokens {s.min_tokens}-{s.max_tokens}")
    if args.dry_run:
        print(f"\ndry run: {len(result.files)} files in {result.directory}")
        first = result.configs[0]
        print(datasets.load_dataset(result.directory, first, split="eval"))  # plain datasets, no library
    else:
        print(f"\npushed to {result.url}")
        print(f'datasets.load_dataset("{args.repo_id}", "{result.configs[0]}", split="dev")')


if __name__ == "__main__":
    try:
        main()
    except SuiteError as exc:  # bad input or a missing extra: one line, as the CLI shows it
        raise SystemExit(f"push_to_hub.py: error: {exc}") from None
