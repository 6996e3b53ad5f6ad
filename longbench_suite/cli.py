"""The ``longbench-suite`` command line."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import options
from ._version import __version__
from .errors import UsageError


class _Parser(argparse.ArgumentParser):
    """A usage error is one line naming the option and what is wrong (exit status 2, as every other
    refused value), not the usage text."""

    def error(self, message: str):
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


#: the options whose values the library checks (:func:`_check_value`), by ``dest``
CHECKED_OPTIONS = frozenset(
    {
        "max_input_tokens",
        "num_proc",
        "holdout_fraction",
        "limit",
        "concurrency",
        "max_retries",
        "timeout",
        "max_shard_size",
    }
)


def _check_value(dest: str, value: Any) -> None:
    """The library's own check of an option's value (imported only when the option is given)."""
    if dest == "max_input_tokens":
        from .fit.rules import check_max_input_tokens

        check_max_input_tokens(value)
    elif dest == "num_proc":
        from .api import check_num_proc

        check_num_proc(value)
    elif dest == "holdout_fraction":
        from .training.holdout import check_options

        check_options(None, value)
    elif dest == "limit":
        from .predict.run import check_limit

        check_limit(value)
    elif dest in ("concurrency", "max_retries", "timeout"):
        from .predict.run import check_requests

        check_requests(**{dest: value})
    elif dest == "max_shard_size":
        from .publish.hub import check_max_shard_size

        check_max_shard_size(value)


def _checked(parse: Callable[[str], Any], dest: str) -> Callable[[str], Any]:
    """An argparse ``type``: the text read by ``parse`` (``int``, ``float``, ``str``), then refused by
    the library's check of the value as argparse refuses a malformed one: one line naming the option,
    before anything runs."""

    def convert(text: str):
        from .errors import SuiteError

        try:
            value = parse(text)
        except ValueError:
            kind = "an integer" if parse is int else "a number"
            raise argparse.ArgumentTypeError(f"not {kind}: {text!r}") from None
        try:
            _check_value(dest, value)
        except SuiteError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return value

    return convert


def _check_values_when_parsed(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Give every option of ``parser`` and its commands that the library checks a checking ``type``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                _check_values_when_parsed(command)
        elif action.option_strings and action.dest in CHECKED_OPTIONS:
            action.type = _checked(action.type or str, action.dest)
    return parser


def _source_options(parser: argparse.ArgumentParser) -> None:
    """The shared build options: one flag per :class:`~longbench_suite.options.BuildOptions` field."""
    options.add_arguments(parser)


def _num_proc_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--num-proc",
        type=int,
        metavar="N",
        help="build each config in N processes, each writing a part of every split (the same rows as one)",
    )


def _engine_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="where the rows are built: this process (local, default) or a Ray cluster, one task per "
        "shard of each config (ray; pip install 'longbench-suite[distributed]')",
    )
    parser.add_argument(
        "--address",
        help="with --engine ray: the cluster to join (ray.init's address, e.g. 'auto' or "
        "'ray://HOST:10001'; default: start a local one)",
    )


def _publish_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-shard-size", default="500MB", help="largest uncompressed size of one Parquet file (500MB)"
    )
    parser.add_argument(
        "--no-histogram", action="store_true", help="no token-length histogram (needs no matplotlib)"
    )
    parser.add_argument(
        "--holdout-fraction",
        type=float,
        metavar="F",
        help="also write a stable hold-out of dev as the splits train and validation (F of dev's "
        "questions in validation, by a hash of query_id)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="longbench-suite",
        description="Long-context benchmarks (HELMET-derived, LongBench, LV-Eval, Ada-LEval) "
        "as Hugging Face datasets.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = commands.add_parser("list", help="list configs, one qualified name per line")
    p.add_argument("benchmark", nargs="?", help="only this benchmark's configs")

    p = commands.add_parser("info", help="describe one config: task, budget, splits, sources, template")
    p.add_argument("config", help="config name, e.g. nq_32k or helmet/nq_32k")
    options.add_arguments(p, ("demo",))
    p.add_argument("--cache-dir", help="with --demo: the cache holding the sandbox (default: HF_HOME's)")

    p = commands.add_parser(
        "build", help="build configs into the cache, optionally writing one split to a file"
    )
    p.add_argument(
        "configs", nargs="+", metavar="CONFIG", help="config names (sources they share are read once)"
    )
    p.add_argument("--split", help="build/write only this split (dev or eval)")
    p.add_argument(
        "--output", help="write the split to FILE.jsonl or FILE.parquet (needs one config and --split)"
    )
    p.add_argument(
        "--stats",
        action="store_true",
        help="also print min/median/max input tokens and how many inputs were cut to fit per split",
    )
    p.add_argument(
        "--holdout",
        choices=("train", "valid"),
        help="with --split dev: only this side of a stable hold-out of dev (see --holdout-fraction)",
    )
    p.add_argument(
        "--holdout-fraction",
        type=float,
        default=options.DEFAULT_HOLDOUT_FRACTION,
        metavar="F",
        help=f"the hold-out's share of dev ({options.DEFAULT_HOLDOUT_FRACTION})",
    )
    p.add_argument(
        "--over-length",
        choices=options.OVER_LENGTH,
        default=options.OVER_LENGTH[0],
        help="skip: leave out the rows whose prompt had to be cut to fit the budget (default: keep them cut)",
    )
    _source_options(p)
    _num_proc_option(p)

    p = commands.add_parser(
        "score", help="score predictions with the benchmark's official metrics, printing a table"
    )
    p.add_argument(
        "configs",
        nargs="*",
        metavar="CONFIG",
        help="config names, e.g. nq_8k or helmet/nq_8k (with --predictions DIR: default every config of "
        "the run)",
    )
    p.add_argument(
        "--predictions",
        nargs="+",
        required=True,
        metavar="FILE|DIR",
        help="a predict --output folder (its run.json says the configs, split and build options), or "
        'JSON Lines files, one per CONFIG in the same order; each line {"index": row, "prediction": str} or '
        '{"query_id": id, "prediction": str} (query_id only where it is unique in the split)',
    )
    p.add_argument(
        "--split", help="the split the predictions are for (default: eval, or the one run.json records)"
    )
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="score predictions of the first N rows only (predict --limit N), marked 'partial (N of M rows)'",
    )
    p.add_argument("--output", help="also write the results (with per-row scores) as JSON to FILE")
    p.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="GROUP",
        help="a row column to break each config down by (length_bucket, depth, ...), or a summary over "
        "the configs: category (HELMET, LongBench), level (LV-Eval); repeatable",
    )
    p.add_argument(
        "--mode",
        choices=("auto", "chat", "completion"),
        default="auto",
        help="how the outputs were generated; HELMET prepends the answer prefix to completion-mode "
        "outputs (default auto: each row's use_chat_template)",
    )
    p.add_argument(
        "--judge-model", help="OpenAI model for HELMET's GPT-4o judge (needs openai, OPENAI_API_KEY)"
    )
    p.add_argument(
        "--nli-model", help="seq2seq NLI model for HELMET's citation metrics (google/t5_xxl_true_nli_mixture)"
    )
    p.add_argument("--nli-endpoint", help="an OpenAI-compatible completions server running the NLI model")
    _source_options(p)

    p = commands.add_parser(
        "predict",
        help="generate a split's predictions with a model (an OpenAI-compatible server or a local "
        "transformers model), resumably; --score then scores them",
    )
    p.add_argument("configs", nargs="+", metavar="CONFIG", help="config names, e.g. nq_8k or helmet/nq_8k")
    p.add_argument("--model", required=True, help="the server's model name, or a local model directory")
    p.add_argument(
        "--backend",
        choices=("openai", "transformers"),
        default="openai",
        help="openai: any OpenAI-compatible server at --endpoint (vLLM, SGLang, TGI, llama.cpp, OpenAI); "
        "transformers: run --model in-process (small models)",
    )
    p.add_argument("--endpoint", help="the server's base URL, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--api-key", help="the server's key (default: $OPENAI_API_KEY, else none)")
    p.add_argument("--concurrency", type=int, default=8, help="requests in flight (8)")
    p.add_argument(
        "--max-retries", type=int, default=8, help="retries of a request on 429, 5xx, timeouts, resets (8)"
    )
    p.add_argument("--timeout", type=float, default=600.0, help="seconds one request may take (600)")
    p.add_argument("--split", default="eval", help="the split to predict, a whole one (default: eval)")
    p.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="only the first N rows of the split, in its order (a smoke run; a partial split)",
    )
    p.add_argument(
        "--output",
        default="predictions",
        metavar="DIR",
        help="where predictions go, as DIR/<benchmark>/<config>.<split>.jsonl, with DIR/run.json recording "
        "the model and options; a file left by an interrupted run is resumed under the same options "
        "(default: predictions)",
    )
    p.add_argument(
        "--force-new",
        action="store_true",
        help="discard the predictions and results already in DIR (made with other options) and start over",
    )
    p.add_argument(
        "--score",
        action="store_true",
        help="then score: DIR/results.md (tables as each benchmark reports them), results.json, scores.png",
    )
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="with --score and --limit: score the partial split, marked 'partial (N of M rows)'",
    )
    p.add_argument("--no-plot", action="store_true", help="with --score: no PNG (needs no matplotlib)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (default: one on a terminal)")
    p.add_argument("--judge-model", help="with --score: the LLM judge's model (HELMET's GPT-4o metrics)")
    p.add_argument(
        "--judge-endpoint", help="with --score: an OpenAI-compatible server for the judge (default: OpenAI)"
    )
    p.add_argument("--nli-model", help="with --score: seq2seq NLI model for HELMET's citation metrics")
    p.add_argument("--nli-endpoint", help="with --score: an OpenAI-compatible server running the NLI model")
    _source_options(p)

    p = commands.add_parser(
        "export", help="write configs as Parquet in the Hugging Face Hub layout, with a dataset card"
    )
    p.add_argument("configs", nargs="+", metavar="CONFIG", help="configs of one benchmark")
    p.add_argument(
        "--output",
        required=True,
        metavar="DIR",
        help="the folder, or an fsspec URL such as s3://bucket/helmet (merged with what it holds)",
    )
    _publish_options(p)
    p.add_argument("--repo-id", help="the Hub repo named in the card's usage example")
    _source_options(p)
    _num_proc_option(p)
    _engine_options(p)

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
    _publish_options(p)
    _source_options(p)
    _num_proc_option(p)
    _engine_options(p)

    p = commands.add_parser(
        "check",
        help="build configs if needed and verify them: no dev/eval leakage, inputs within budget, "
        "spec sizes, no empty fields (exit code 1 on any violation)",
    )
    p.add_argument(
        "targets",
        nargs="*",
        metavar="BENCHMARK|TASK|CONFIG",
        help="what to check: a benchmark (all its configs), a task (all its lengths) or a config; "
        "leakage is checked across the given lengths of each task (default: every config)",
    )
    _source_options(p)

    p = commands.add_parser(
        "demo", help="build a few configs of every benchmark offline from built-in sample data"
    )
    p.add_argument("--cache-dir", help="where the sample mirror, tokenizer and datasets go")

    p = commands.add_parser(
        "compare",
        help="put several models' scored runs side by side: per benchmark, models × lengths for each "
        "task and each of the benchmark's averages, and score against length in one picture",
    )
    p.add_argument(
        "runs",
        nargs="+",
        metavar="RUN_DIR",
        help="`predict --score` output directories (their results.json), or `score --output` files",
    )
    p.add_argument(
        "--output",
        default="comparison",
        metavar="DIR",
        help="where compare.md, compare.json, compare.csv and compare.png go (default: comparison)",
    )
    p.add_argument(
        "--name",
        action="append",
        metavar="NAME",
        help="the model's name in the tables, one per RUN_DIR in order (default: the model the run "
        "recorded, else the directory's name)",
    )
    p.add_argument("--no-plot", action="store_true", help="no compare.png (needs no matplotlib)")
    return _check_values_when_parsed(parser)


def _cmd_list(args) -> int:
    from . import registry

    for name in registry.list_configs(args.benchmark):
        print(name)
    return 0


def _cmd_info(args) -> int:
    from . import registry
    from .source import Member

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
        from .demo import sandbox_options

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
    from .source import Member

    return source.archive if isinstance(source, Member) else source


def _build_options(args) -> options.BuildOptions:
    """What ``_source_options`` parsed."""
    return options.from_arguments(args)


def _prepared_builders(args) -> list:
    """The builders of ``args.configs`` with the source options, splits checked, sources read once."""
    from . import api

    num_proc = api.check_num_proc(getattr(args, "num_proc", None))
    build = _build_options(args)
    builders = [api.get_builder(name, options=build) for name in args.configs]
    for builder in builders:
        api.check_splits(builder, args.split)
    api.prepare(builders, num_proc=num_proc)
    return builders


def _cmd_build(args) -> int:
    from . import api
    from .publish.stats import split_stats, stats_table

    if args.output and (len(args.configs) != 1 or not args.split):
        raise SystemExit("longbench-suite build: --output needs exactly one CONFIG and --split")
    if args.output:
        from .outputs import check_output_file

        readonly = (args.data_dir, options.mirror_identity(args.mirror))
        check_output_file(args.output, (".jsonl", ".parquet"), readonly=readonly)
    views = dict(holdout=args.holdout, holdout_fraction=args.holdout_fraction, over_length=args.over_length)
    api.check_views(args.split, **views)
    builders = _prepared_builders(args)
    stats = []
    for builder in builders:
        splits = (
            {args.split: api.prepared(builder, args.split)} if args.split else api.prepared(builder, None)
        )
        qualified = f"{builder.BENCHMARK.name}/{builder.config.name}"
        key = builder.config.task.holdout_key
        for split, dataset in splits.items():
            dataset = api.apply_views(dataset, qualified, split, key=key, **views)
            if args.stats:
                stats.append(split_stats(qualified, split, dataset, builder.loaded_tokenizer))
            else:
                print(f"{qualified}\t{split}\t{len(dataset)} rows\t{builder.cache_dir}")
            if args.output:
                _write(dataset, args.output)
                print(f"wrote {len(dataset)} rows to {args.output}")
    if stats:
        print(stats_table(stats))
    return 0


def _write(dataset, path: str) -> None:
    from .outputs import written_aside

    if not path.endswith((".jsonl", ".parquet")):
        raise SystemExit(f"longbench-suite build: --output must end in .jsonl or .parquet, got {path}")
    with written_aside(path) as partial:
        if path.endswith(".jsonl"):
            dataset.to_json(partial, lines=True, force_ascii=False)
        else:
            dataset.to_parquet(partial)


def _cmd_score(args) -> int:
    from . import api
    from .metrics import Judges, read_predictions, score_task, summarize
    from .metrics.predictions import align_predictions
    from .metrics.report import judges_from, results_json, results_table, summary_table
    from .metrics.scoring import load_rows, summary_names
    from .outputs import check_output_file, written_aside
    from .predict import record as run_record
    from .predict.run import check_split_name

    build, record = _build_options(args), None
    source = os.path.join(args.predictions[0], run_record.RUN_FILE)  # the record a folder holds
    if len(args.predictions) == 1 and os.path.isdir(args.predictions[0]):
        configs, paths, split, build, record = _recorded_run(args, build)
    else:
        configs, paths, split = args.configs, args.predictions, args.split or "eval"
        if len(paths) != len(configs):
            given = f"{len(configs)} CONFIG but {len(paths)} --predictions files"
            raise SystemExit(
                f"longbench-suite score: {given}; give one predictions file per config, or a predict "
                "output folder"
            )
        recorded = _recorded_files(args, configs, paths, build)
        if recorded is not None:
            split, build, record, source = recorded
    check_split_name(split)
    if args.output:
        check_output_file(args.output, (".json",))
    records = [read_predictions(path) for path in paths]  # bad files fail before any build
    judges: Judges = judges_from(args.judge_model, args.nli_model, nli_endpoint=args.nli_endpoint)
    builders = [api.get_builder(name, options=build) for name in configs]
    for builder in builders:
        api.check_splits(builder, split)
    if record is not None:
        run_record.check_identities(record, build, builders, source)
    api.prepare(builders)
    summaries = [b for b in args.by if b in {s for x in builders for s in summary_names(x.BENCHMARK.name)}]
    columns = [b for b in args.by if b not in summaries]
    results = []
    splits = [api.prepared(builder, split) for builder in builders]
    # a column breaks down the configs whose rows have it (a run's benchmarks have other columns); one
    # that no config has goes to every config, whose scoring then names it as no column of its rows
    present = {column for dataset in splits for column in dataset.column_names}
    for builder, path, lines, dataset in zip(builders, paths, records, splits, strict=True):
        rows = load_rows(dataset)
        query_ids = [str(r["query_id"]) for r in rows]
        predictions = align_predictions(lines, query_ids, path, allow_partial=args.allow_partial)
        task, length = builder.config.task, builder.config.length
        result = score_task(
            builder.BENCHMARK.name,
            task.name,
            rows[: len(predictions)],
            predictions,
            length=length,
            split=split,
            config=f"{builder.BENCHMARK.name}/{builder.config.name}",
            mode=args.mode,
            judges=judges,
            by=[c for c in columns if c in dataset.column_names or c not in present],
        )
        result.split_rows = len(rows)
        results.append(result)
    print(results_table(results))
    # a summary is a benchmark's own: over a run of several benchmarks, each that has it
    summary = {
        by: summarize([r for r in results if by in summary_names(r.benchmark)], by) for by in summaries
    }
    for by, tables in summary.items():
        print()
        print(summary_table(by, tables, results))
    if args.output:
        with written_aside(args.output) as partial:
            results_json(results, summary, partial, run=run_record.without_files(record))
        print(f"\nwrote {args.output}")
    return 0


def _recorded_run(args, given: options.BuildOptions):
    """What ``score --predictions DIR`` scores: the configs, files, split and build options DIR/run.json
    records (options given must agree with them)."""
    from . import registry
    from .errors import OptionError
    from .predict import record as run_record

    folder = args.predictions[0]
    source = os.path.join(folder, run_record.RUN_FILE)
    record = run_record.read_record(folder)
    if record is None:
        raise OptionError(
            f"--predictions {folder}: a folder without {run_record.RUN_FILE} (not a predict --output "
            "folder); give the predictions files, one per CONFIG"
        )
    files = run_record.expected_files(record, folder, source)
    configs = list(files)
    if args.configs:
        configs = ["/".join(registry.resolve(name)) for name in args.configs]
        for config in (c for c in configs if c not in files):
            raise OptionError(f"{source}: the run has no predictions of {config} (it has {', '.join(files)})")
    split, build = _recorded_split_and_options(args, record, given, source)
    return configs, [files[c] for c in configs], split, build, record


def _recorded_files(args, configs, paths, given: options.BuildOptions):
    """``score CONFIG --predictions FILE`` where each FILE is one a predict output folder's run.json
    lists: its split and build options, as for ``--predictions DIR``; ``None`` where no record lists
    them."""
    from . import registry
    from .errors import OptionError
    from .predict import record as run_record

    found = [run_record.record_of_file(path) for path in paths]
    if not any(found):
        return None
    if None in found or len({folder for folder, _, _ in found}) > 1:
        raise OptionError(
            "--predictions: files of different predict output folders (or only some in one); score each "
            "folder's files separately (score --predictions DIR)"
        )
    source = os.path.join(found[0][0], run_record.RUN_FILE)
    for name, path, (_, _, config) in zip(configs, paths, found, strict=True):
        if "/".join(registry.resolve(name)) != config:
            raise OptionError(f"{path}: {source} lists it as the predictions of {config}, not of {name}")
    record = found[0][1]
    return (*_recorded_split_and_options(args, record, given, source), record, source)


def _recorded_split_and_options(args, record: dict, given: options.BuildOptions, source: str):
    from .predict import record as run_record

    if args.split is not None and args.split != record["split"]:
        raise run_record.RunMismatchError(
            f"{source}: --split is {args.split!r} but the run recorded {record['split']!r}; leave it out "
            "to use the recorded one"
        )
    return record["split"], run_record.score_options(record, given, source)


def _cmd_predict(args) -> int:
    from .metrics.report import judges_from, results_table
    from .predict import predict

    judge_key = args.api_key if args.judge_endpoint else None  # never send a local server's key to OpenAI
    judges = judges_from(
        args.judge_model,
        args.nli_model,
        endpoint=args.judge_endpoint,
        api_key=judge_key,
        nli_endpoint=args.nli_endpoint,
    )
    try:
        run = _run_predict(args, predict, judges)
    except KeyboardInterrupt:
        print(
            f"longbench-suite predict: interrupted; finished rows are kept under {args.output}: "
            "run the same command again to resume",
            file=sys.stderr,
        )
        return 130
    for config, path in run.files.items():
        print(f"{config}\t{path}")
    if run.results:
        print()
        print(results_table(run.results))
        print()
        for kind, path in run.reports.items():
            print(f"wrote {kind}: {path}")
    return 0


def _run_predict(args, predict, judges):
    return predict(
        args.configs,
        args.output,
        model=args.model,
        backend=args.backend,
        endpoint=args.endpoint,
        api_key=args.api_key,
        concurrency=args.concurrency,
        max_retries=args.max_retries,
        timeout=args.timeout,
        split=args.split,
        limit=args.limit,
        force_new=args.force_new,
        score=args.score,
        allow_partial=args.allow_partial,
        judges=judges,
        plot=not args.no_plot,
        progress=False if args.no_progress else None,
        options=_build_options(args),
    )


def _publish_kwargs(args) -> dict:
    return {
        "options": _build_options(args),
        "max_shard_size": args.max_shard_size,
        "histogram": not args.no_histogram,
        "holdout_fraction": args.holdout_fraction,
        "num_proc": args.num_proc,
        "engine": args.engine,
        "address": args.address,
    }


def _report(result, verb: str) -> None:
    from datasets.utils.py_utils import size_str

    from .publish.stats import stats_table

    print(stats_table(result.stats))
    print(f"\n{verb} {len(result.files)} files for {result.benchmark} ({', '.join(result.configs)}):")
    width = max((len(name) for name in result.files), default=0)
    for name in result.files:
        size = result.sizes.get(name)
        print(f"  {name.ljust(width)}  {size_str(size) if size else '0 bytes' if size == 0 else ''}".rstrip())


def _cmd_export(args) -> int:
    from .publish import hub

    result = hub.export(args.configs, args.output, repo_id=args.repo_id, **_publish_kwargs(args))
    _report(result, f"wrote into {result.directory}")
    return 0


def _cmd_push(args) -> int:
    from .publish import hub

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
            **_publish_kwargs(args),
        )
    except Exception as exc:
        from .errors import SuiteError

        if isinstance(exc, SuiteError):
            raise
        message = f"{exc.__class__.__name__}: {exc}"
        if args.token:
            message = message.replace(args.token, "***")
        print(f"longbench-suite push: error: {message.splitlines()[0] if message else ''}", file=sys.stderr)
        return 1
    branch = f" (revision {args.revision})" if args.revision else ""
    _report(
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


def _cmd_check(args) -> int:
    from . import api
    from .check import check, expand_targets

    build = _build_options(args)
    builders = [api.get_builder(name, options=build) for name in expand_targets(args.targets)]
    report = check(builders)
    print(report.format())
    return 0 if report.ok else 1


def _cmd_demo(args) -> int:
    from .publish.stats import stats_table

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

    from . import registry
    from .api import load_dataset
    from .demo import offline_options
    from .fit.tokenizers import load_tokenizer
    from .publish.stats import split_stats

    logger = logging.getLogger("longbench_suite")
    options = offline_options(cache_dir)
    mirror, tokenizer = options["mirror"], options["tokenizer"]
    counter = load_tokenizer(tokenizer)
    samples = {b: registry.samples(b) for b in registry.benchmark_names()}
    configs = [(b, config, None) for b, module in samples.items() for config in module.DEMO_CONFIGS]
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


def _cmd_compare(args) -> int:
    from .comparison import compare
    from .comparison.report import markdown_table

    comparison = compare(args.runs, args.output, args.name, plot=not args.no_plot)
    for note in comparison.notes:
        print(f"note: {note}")
    for bench in comparison.benchmarks:
        headline = next((t for t in bench.tables if t.kind != "task" and t.at is None), bench.tables[0])
        print(f"\n{bench.benchmark} ({bench.split}): {headline.title}\n{markdown_table(headline)}")
        for note in bench.notes:
            print(f"note: {note}")
    print()
    for kind, path in comparison.files.items():
        print(f"wrote {kind}: {path}")
    return 0


def _say_what_is_done() -> None:
    """The library's progress lines (one per config, per long step) on stderr, as ``INFO: ...``; the
    bars are ``datasets``' own."""
    import logging

    logger = logging.getLogger("longbench_suite")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


COMMANDS = {
    "list": _cmd_list,
    "info": _cmd_info,
    "build": _cmd_build,
    "score": _cmd_score,
    "predict": _cmd_predict,
    "export": _cmd_export,
    "push": _cmd_push,
    "check": _cmd_check,
    "demo": _cmd_demo,
    "compare": _cmd_compare,
}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.command == "demo":
        # The demo never needs the network; make sure no library tries it.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    if args.command in ("demo", "build", "check", "export", "push"):
        _say_what_is_done()
    from .errors import SuiteError

    try:
        return COMMANDS[args.command](args)
    except SuiteError as exc:
        print(f"longbench-suite: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return _reader_left()


#: the exit status of a Unix tool whose reader left (``list | head``): killed by SIGPIPE, 128 + 13
EXIT_BROKEN_PIPE = 141


def _reader_left() -> int:
    """Stop quietly, as Unix tools do, when whoever reads stdout has gone: nothing more is written,
    and the output still buffered is dropped instead of failing again at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
