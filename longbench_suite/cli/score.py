"""``longbench-suite score``: predictions scored with the benchmark's official metrics, as a table."""

from __future__ import annotations

import argparse
import os

from .. import options
from .arguments import STRICT_HELP, build_options, source_options


def add_parser(commands: argparse._SubParsersAction) -> None:
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
        "--plot",
        metavar="FILE",
        help="also draw headline score against length as a PNG to FILE, the picture predict --score "
        "writes as scores.png (needs matplotlib: the cards extra)",
    )
    p.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="GROUP",
        help="a row column to break each config down by (length_bucket, depth, ...), or a summary over "
        "the configs: category (HELMET, LongBench), level (LV-Eval), result (LongBench v2), length (RULER); "
        "repeatable",
    )
    p.add_argument(
        "--mode",
        choices=("auto", "chat", "completion"),
        default="auto",
        help="how the outputs were generated; HELMET prepends the answer prefix to completion-mode "
        "outputs (default auto: each row's use_chat_template)",
    )
    p.add_argument("--strict", action="store_true", help=STRICT_HELP)
    p.add_argument(
        "--judge-model", help="OpenAI model for HELMET's GPT-4o judge (needs openai, OPENAI_API_KEY)"
    )
    p.add_argument(
        "--nli-model", help="seq2seq NLI model for HELMET's citation metrics (google/t5_xxl_true_nli_mixture)"
    )
    p.add_argument("--nli-endpoint", help="an OpenAI-compatible completions server running the NLI model")
    source_options(p)


def run(args: argparse.Namespace) -> int:
    from .. import api, registry
    from ..metrics import Judges, read_predictions, score_task, summarize
    from ..metrics.predictions import align_predictions
    from ..metrics.report import judges_from, results_json, results_table, summary_table
    from ..metrics.scoring import load_rows, scoring_options, summary_names
    from ..outputs import check_output_file, written_aside
    from ..predict import record as run_record
    from ..predict.run import check_split_name
    from ..predict.tables import plot_scores, require_plotting

    build, record = build_options(args), None
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
    if args.plot:
        check_output_file(args.plot, (".png",), option="--plot")
        require_plotting()
    records = [read_predictions(path) for path in paths]  # bad files fail before any build
    metric_options = scoring_options([registry.resolve(name)[0] for name in configs], strict=args.strict)
    judges: Judges = judges_from(args.judge_model, args.nli_model, nli_endpoint=args.nli_endpoint)
    builders = [api.get_builder(name, split=split, options=build) for name in configs]
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
            options=metric_options[builder.BENCHMARK.name],
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
    if args.plot:
        with written_aside(args.plot) as partial:
            plot_scores(results, partial)
        print(f"\nwrote {args.plot}")
    return 0


def _recorded_run(args, given: options.BuildOptions):
    """What ``score --predictions DIR`` scores: the configs, files, split and build options DIR/run.json
    records (options given must agree with them)."""
    from .. import registry
    from ..errors import OptionError
    from ..predict import record as run_record

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
    from .. import registry
    from ..errors import OptionError
    from ..predict import record as run_record

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
    from ..predict import record as run_record

    if args.split is not None and args.split != record["split"]:
        raise run_record.RunMismatchError(
            f"{source}: --split is {args.split!r} but the run recorded {record['split']!r}; leave it out "
            "to use the recorded one"
        )
    return record["split"], run_record.score_options(record, given, source)
