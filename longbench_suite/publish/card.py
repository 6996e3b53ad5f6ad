"""Dataset cards: a benchmark's template (``benchmarks/<benchmark>/card.md``) filled in with what an
export holds.

A template is a Hub dataset card: optional YAML front matter (``pretty_name``, ``language``,
``license``, ``task_categories``, ``tags``, …) and a Markdown body with the description, sources,
partition rules, columns and citation. The body must hold the marker ``<!-- statistics -->`` once;
it becomes the statistics section (rows and input-token statistics per config and split, under the
tokenizer each config was built with, and the benchmark's token-length histogram). An optional
``<!-- usage -->`` marker becomes a short ``load_dataset`` example naming the repo's configs, and an
optional ``<!-- tasks -->`` marker the table of the benchmark's tasks, read from their declarations
(category, metric, generation length, chat mode, lengths, split sizes).

The YAML of the written card is the template's, plus ``configs:`` and ``dataset_info:`` of every
config in the directory (datasets' own ``MetadataConfigs`` / ``DatasetInfosDict``, which merge with
what the card already lists), plus ``longbench_suite: {benchmark: NAME}``, which marks the directory
as this benchmark's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources

from ..errors import DataFormatError, MissingDependencyError, SuiteError
from .stats import SplitStats, stats_of_counts

STATISTICS = "<!-- statistics -->"
USAGE = "<!-- usage -->"
TASKS = "<!-- tasks -->"
README = "README.md"
#: per config, next to its Parquet files: the input-token count of every row, and the tokenizer
TOKEN_COUNTS = "token_counts.json"
#: the card's YAML key naming the benchmark a directory (Hub repo) holds
MARK = "longbench_suite"


def histogram_name(benchmark: str) -> str:
    return f"{benchmark}_input_tokens.png"


@dataclass(frozen=True)
class ConfigCounts:
    """Input-token counts of one exported config, per split, and what counted them."""

    config: str
    tokenizer: str
    tokenizer_identity: str
    splits: Mapping[str, Sequence[int]] = field(default_factory=dict)
    #: the ``max_input_tokens`` the config was built with (inputs cut below its own budget)
    max_input_tokens: int | None = None
    #: rows per split, counted or not (a split built without a tokenizer has rows but no counts)
    rows: Mapping[str, int] = field(default_factory=dict)
    #: the chat template the config's chat-mode rows were fitted under (``chat_template=``), if any
    chat_template: str | None = None

    def stats(self) -> list[SplitStats]:
        names = list(dict.fromkeys([*self.rows, *self.splits]))
        return [
            stats_of_counts(self.config, split, self.splits[split])
            if split in self.splits
            else SplitStats(self.config, split, self.rows[split], None, None, None)
            for split in names
        ]

    def write(self, path: str) -> None:
        data = {
            "config": self.config,
            "tokenizer": self.tokenizer,
            "tokenizer_identity": self.tokenizer_identity,
            "splits": {split: list(counts) for split, counts in self.splits.items()},
            "max_input_tokens": self.max_input_tokens,
            "rows": dict(self.rows),
            "chat_template": self.chat_template,
        }
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False)
            f.write("\n")

    @classmethod
    def read(cls, path: str) -> ConfigCounts:
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            return cls(
                data["config"],
                data["tokenizer"],
                data["tokenizer_identity"],
                data["splits"],
                data.get("max_input_tokens"),
                data.get("rows") or {split: len(counts) for split, counts in data["splits"].items()},
                data.get("chat_template"),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DataFormatError(f"{path}: not a token-count file of longbench-suite ({exc})") from None


class TemplateError(SuiteError, ValueError):
    """A dataset-card template that is missing or lacks a required marker."""


def template(benchmark: str):
    """The benchmark's card template as a ``huggingface_hub.DatasetCard``."""
    from huggingface_hub import DatasetCard

    from .. import registry

    path = resources.files(registry.package_name(benchmark)).joinpath("card.md")
    where = f"benchmarks/{benchmark}/card.md"
    if not path.is_file():
        raise TemplateError(f"benchmark {benchmark!r} has no card template {where}")
    card = DatasetCard(path.read_text(encoding="utf-8"))
    if card.text.count(STATISTICS) != 1:
        raise TemplateError(f"{where} must contain the marker {STATISTICS} exactly once")
    return card


def read_counts(directory: str, configs: Iterable[str]) -> list[ConfigCounts]:
    """The token counts of those ``configs`` that have a count file in ``directory``."""
    found = []
    for config in configs:
        path = os.path.join(directory, config, TOKEN_COUNTS)
        if os.path.isfile(path):
            found.append(ConfigCounts.read(path))
    return found


def _cell(value: object) -> str:
    if isinstance(value, float) and value != int(value):
        return f"{value:g}"
    return str(int(value)) if isinstance(value, float) else str(value)


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def tasks_section(benchmark: str) -> str:
    """The benchmark's tasks as their declarations state them, one row per task."""
    from .. import registry

    tasks = registry.benchmark(benchmark).tasks
    own = list(dict.fromkeys(name for task in tasks for name in task.card_columns()))
    header = ["task", "category", "metric", "max new tokens", "chat template", "lengths", "split sizes", *own]
    rows = []
    for task in tasks:
        sizes = task.expected_sizes(task.lengths[0])
        columns = task.card_columns()
        rows.append(
            [
                f"`{task.name}`",
                task.category,
                f"`{task.metric}`",
                task.max_new_tokens,
                "yes" if task.use_chat_template else "no",
                " ".join(task.lengths),
                ", ".join(f"{split} {n}" for split, n in sizes.items()) or "from the data",
                *(columns.get(name, "") for name in own),
            ]
        )
    return markdown_table(header, rows)


def statistics_section(counts: Sequence[ConfigCounts], histogram: str | None) -> str:
    """Rows and input-token statistics per config and split, and the histogram's link."""
    if not counts:
        return "## Statistics\n\nNo config of this repository has token statistics."
    tokenizers = {(c.tokenizer, c.tokenizer_identity) for c in counts}
    header = ["config", "split", "rows", "min tokens", "median tokens", "max tokens"]
    intro = "Tokens of the `input` column (special tokens included), counted with "
    if len(tokenizers) == 1:
        name, identity = next(iter(tokenizers))
        intro += f"`{name}` (`{identity}`)."
    else:
        intro += "each config's tokenizer."
        header.append("tokenizer")
    cut = any(c.max_input_tokens is not None for c in counts)
    if cut:
        intro += " Configs with a `max_input_tokens` value were built with inputs cut to that many tokens."
        header.append("max_input_tokens")
    chat = any(c.chat_template is not None for c in counts)
    if chat:
        intro += (
            " Configs with a `chat_template` value were built with each chat-mode row's user turn "
            "fitted under that chat template, and their counts are of the templated prompt."
        )
        header.append("chat_template")
    rows = []
    for c in counts:
        for s in c.stats():
            row = [f"`{s.config}`", f"`{s.split}`", s.rows, s.min_tokens, s.median_tokens, s.max_tokens]
            row += [f"`{c.tokenizer}`"] if len(tokenizers) > 1 else []
            row += [c.max_input_tokens if c.max_input_tokens is not None else ""] if cut else []
            row += [f"`{c.chat_template}`" if c.chat_template else ""] if chat else []
            rows.append(row)
    parts = ["## Statistics", intro, markdown_table(header, rows)]
    if histogram:
        parts.append(f"![Input tokens per config and split]({histogram})")
    return "\n\n".join(parts)


def usage_section(repo: str, configs: Sequence[str]) -> str:
    config = configs[0] if configs else "CONFIG"
    return "\n".join(
        [
            "## Usage",
            "",
            "```python",
            "from datasets import load_dataset",
            "",
            f'dev = load_dataset("{repo}", "{config}", split="dev")',
            f'stream = load_dataset("{repo}", "{config}", split="eval", streaming=True)',
            "```",
            "",
            "Configs: " + ", ".join(f"`{c}`" for c in configs) + ". With `longbench_suite` installed, "
            f'`longbench_suite.load_dataset("{repo}", "{config}", split="dev", format="prompt_completion")` '
            "gives TRL `SFTTrainer` examples in each task's chat or completion mode.",
        ]
    )


def require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            "token-length histograms need matplotlib: pip install 'longbench-suite[cards]' "
            "(or export with histogram=False / --no-histogram)"
        ) from None


def plot_histogram(counts: Sequence[ConfigCounts], path: str) -> None:
    """A PNG with one panel per split and one step histogram per config (log-scaled token axis)."""
    require_matplotlib()
    import numpy as np
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    splits = sorted({s for c in counts for s in c.splits})
    values = [n for c in counts for v in c.splits.values() for n in v]
    low, high = max(1, min(values, default=1)), max(values, default=1)
    bins = np.geomspace(low * 0.95, high * 1.05 + 1, 41)
    fig = Figure(figsize=(10, 1 + 2.6 * len(splits)), layout="constrained")
    axes = fig.subplots(len(splits), 1, squeeze=False)[:, 0]
    # Colour by task, line style by length (config names are "<task>_<length>").
    parts = {c.config: (c.config.rpartition("_")[0] or c.config, c.config.rpartition("_")[2]) for c in counts}
    tasks = list(dict.fromkeys(task for task, _ in parts.values()))
    lengths = list(dict.fromkeys(length for _, length in parts.values()))
    palette = colormaps["tab10" if len(tasks) <= 10 else "tab20"]
    styles = ("-", "--", ":", "-.", (0, (1, 4)), (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1)))
    for ax, split in zip(axes, splits, strict=True):
        for c in counts:
            task, length = parts[c.config]
            if c.splits.get(split):
                ax.hist(
                    c.splits[split],
                    bins=bins,
                    histtype="step",
                    color=palette(tasks.index(task) % palette.N),
                    linestyle=styles[lengths.index(length) % len(styles)],
                    label=c.config,
                )
        ax.set_xscale("log", base=2)
        ax.set_title(f"{split}", loc="left")
        ax.set_ylabel("rows")
    axes[-1].set_xlabel("input tokens")
    handles, labels = axes[0].get_legend_handles_labels()
    for ax in axes[1:]:
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(h)
                labels.append(label)
    fig.legend(handles, labels, loc="outside right upper", fontsize="small", ncols=1 + len(labels) // 24)
    fig.savefig(path, dpi=90, metadata={"Software": None})


def card_benchmark(directory: str) -> str | None:
    """The benchmark whose configs ``directory`` holds; ``None`` when it has no card yet.

    A card that longbench-suite did not write is an error: exporting would overwrite it.
    """
    from huggingface_hub import DatasetCard

    path = os.path.join(directory, README)
    if not os.path.isfile(path):
        return None
    mark = DatasetCard.load(path).data.get(MARK)
    if not isinstance(mark, dict) or not mark.get("benchmark"):
        raise SuiteError(
            f"{path} was not written by longbench-suite (its YAML has no '{MARK}: benchmark:' entry); "
            "export into an empty directory or one that an earlier export wrote"
        )
    return str(mark["benchmark"])


def write_card(
    directory: str,
    benchmark: str,
    config_order: Sequence[str],
    configs_yaml: Mapping[str, dict],
    infos: Mapping[str, object],
    *,
    histogram: bool = True,
    repo: str | None = None,
) -> list[str]:
    """Write ``README.md`` (and the histogram) for every config in ``directory``; returns the files.

    ``configs_yaml``/``infos`` are the exported configs' ``configs:`` entries and ``DatasetInfo`` s;
    the card keeps every config it already listed. ``config_order`` orders the statistics.
    """
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    card = template(benchmark)
    data = card.data
    readme = os.path.join(directory, README)
    if os.path.isfile(readme):
        previous = DatasetCard.load(readme).data
        MetadataConfigs.from_dataset_card_data(previous).to_dataset_card_data(data)
        DatasetInfosDict.from_dataset_card_data(previous).to_dataset_card_data(data)
    MetadataConfigs(configs_yaml).to_dataset_card_data(data)
    DatasetInfosDict(infos).to_dataset_card_data(data)
    data[MARK] = {"benchmark": benchmark}

    listed = list(MetadataConfigs.from_dataset_card_data(data))
    ordered = [c for c in config_order if c in listed] + sorted(c for c in listed if c not in config_order)
    counts = read_counts(directory, ordered)
    written = [README]
    png = None
    if histogram and counts:
        png = histogram_name(benchmark)
        plot_histogram(counts, os.path.join(directory, png))
        written.append(png)
    body = card.text.replace(STATISTICS, statistics_section(counts, png))
    body = body.replace(USAGE, usage_section(repo or "ORG/NAME", ordered))
    if TASKS in body:
        body = body.replace(TASKS, tasks_section(benchmark))
    DatasetCard(f"---\n{data.to_yaml()}\n---\n{body}").save(readme)
    return written
