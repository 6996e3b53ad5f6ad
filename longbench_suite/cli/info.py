"""``longbench-suite info``: one config described: task, budget, splits, sources, template."""

from __future__ import annotations

import argparse

from .. import options


def add_parser(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("info", help="describe one config: task, budget, splits, sources, template")
    p.add_argument("config", help="config name, e.g. nq_32k or helmet/nq_32k")
    options.add_arguments(p, ("demo",))
    p.add_argument("--cache-dir", help="with --demo: the cache holding the sandbox (default: HF_HOME's)")


def run(args: argparse.Namespace) -> int:
    from .. import registry
    from ..source import Member

    bench_name, config = registry.resolve(args.config)
    bench = registry.benchmark(bench_name)
    task, length = bench.lookup(config)
    print(f"config:            {bench_name}/{config}")
    print(f"task:              {task.name} — {task.description}")
    print(f"length:            {length} (max_length {task.max_length(length)})")
    print(f"splits:            {', '.join(task.splits(length))}")
    for split, size in task.expected_sizes(length).items():
        print(f"expected {split + ':':<9} {size} rows")
    sandbox = None
    if args.demo:
        from ..demo import sandbox_options

        sandbox = sandbox_options(args.cache_dir)
        print(f"tokenizer:         {sandbox['tokenizer']} (--demo; default {task.default_tokenizer})")
    else:
        print(f"default tokenizer: {task.default_tokenizer}")
    for key, value in task.info(length).items():
        print(f"{key + ':':<18} {value}")
    dev_only = task.dev_sources(length) if "dev" in task.splits(length) else {}
    only = {name: split for split, own in task.split_sources(length).items() for name in own}
    only.update(dict.fromkeys(dev_only, "dev"))
    for name, source in {**task.all_sources(length), **dev_only}.items():
        label = f"{name} ({only[name]} only)" if name in only else name
        where = (
            f"{' or '.join(source.paths)} in {source.archive.url}"
            if isinstance(source, Member)
            else source.url
        )
        print(f"source {label + ':':<11} {where}")
    if sandbox is not None:
        print(f"{'read from:':<18} the sandbox's sample mirror {sandbox['mirror']} (--demo; no download)")
        return 0
    fetched: dict = {}
    for part, sources in (("downloads:", task.all_sources(length)), ("dev also:", dev_only)):
        remotes = [r for r in dict.fromkeys(_remote(s) for s in sources.values()) if r not in fetched]
        fetched.update(dict.fromkeys(remotes))
        if remotes:
            sizes = [f"{r.name}, {r.size or 'size not published'}" for r in remotes]
            note = "once per cache; none with a --mirror or --data-dir holding it"
            print(f"{part:<18} {'; '.join(sizes)} ({note})")
    return 0


def _remote(source):
    from ..source import Member

    return source.archive if isinstance(source, Member) else source
