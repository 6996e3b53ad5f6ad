"""``longbench-suite push``: configs exported and uploaded to a Hugging Face Hub dataset repo."""

from __future__ import annotations

import argparse
import sys

from .arguments import engine_options, num_proc_option, publish_options, source_options
from .export import publish_kwargs, report


def add_parser(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("push", help="export configs and upload them to a Hugging Face Hub dataset repo")
    p.add_argument("configs", nargs="+", metavar="CONFIG", help="configs of one benchmark")
    p.add_argument("--repo-id", required=True, metavar="ORG/NAME", help="dataset repo (created if missing)")
    p.add_argument("--private", action="store_true", help="create the repo private")
    p.add_argument("--revision", help="branch to push to (created if missing; default: main)")
    p.add_argument("--token", help="Hub token (default: $HF_TOKEN or the saved login)")
    p.add_argument("--commit-message", help="message of the upload commit")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="only export (into --output or a temporary dir); no Hub call",
    )
    p.add_argument("--output", metavar="DIR", help="keep the exported folder here")
    publish_options(p)
    source_options(p)
    num_proc_option(p)
    engine_options(p)


def run(args: argparse.Namespace) -> int:
    from ..publish import hub

    try:
        result = hub.push(
            args.configs,
            args.repo_id,
            private=args.private or None,
            revision=args.revision,
            token=args.token,
            commit_message=args.commit_message,
            dry_run=args.dry_run,
            output_dir=args.output,
            **publish_kwargs(args),
        )
    except Exception as exc:
        from ..errors import SuiteError

        if isinstance(exc, SuiteError):
            raise
        message = f"{exc.__class__.__name__}: {exc}"
        if args.token:
            message = message.replace(args.token, "***")
        print(f"longbench-suite push: error: {message.splitlines()[0] if message else ''}", file=sys.stderr)
        return 1
    branch = f" (revision {args.revision})" if args.revision else ""
    report(
        result,
        f"dry run: would upload to {result.url}{branch}"
        if args.dry_run
        else f"uploaded to {result.url}{branch}",
    )
    print(f"commit message: {result.commit_message}")
    patterns = ", ".join(result.delete_patterns)
    if result.deletions is None:
        print(f"deletions: the repo's files matching {patterns} that this commit does not upload")
    else:
        print(f"deleted {len(result.deletions)} files (matching {patterns}, not uploaded again):")
        for name in result.deletions:
            print(f"  {name}")
    return 0
