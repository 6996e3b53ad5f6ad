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
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources

from ..errors import DataFormatError, SuiteError, TemplateError
from .histogram import plot_histogram, require_matplotlib  # noqa: F401 (re-exported)
from .staging import replace_file
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
    #: how a generated config's rows were made (:meth:`Task.generated_facts`); empty for the others
    generated: Mapping[str, object] = field(default_factory=dict)
    #: the scale of the sample data the config was built from (a sample mirror's manifest), if it was
    sample_scale: str | None = None

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
            "generated": dict(self.generated),
            "sample_scale": self.sample_scale,
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
                data.get("generated") or {},
                data.get("sample_scale"),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DataFormatError(f"{path}: not a token-count file of longbench-suite ({exc})") from None

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
    if value is None:
        return "-"
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
        sizes = task.expected_sizes(task.lengths[0]) if task.lengths else {}
        columns = task.card_columns()
        rows.append(
            [
                f"`{task.name}`",
                task.category,
                f"`{task.metric}`",
                task.max_new_tokens,
                "yes" if task.use_chat_template else "no",
                " ".join(task.lengths) or "any (generated)",
                ", ".join(f"{split} {n}" for split, n in sizes.items()) or "from the data",
                *(columns.get(name, "") for name in own),
            ]
        )
    return markdown_table(header, rows)


def statistics_section(counts: Sequence[ConfigCounts], histogram: str | None) -> str:
    """Rows and input-token statistics per config and split, and the histogram's link.

    A config built without a tokenizer (its build cuts nothing, e.g. LV-Eval without
    ``max_input_tokens``) has rows but no token counts: its token columns read ``-``, and a note says
    why and how to get them."""
    if not counts:
        return "## Statistics\n\nNo config of this repository has statistics."
    tokenizers = {(c.tokenizer, c.tokenizer_identity) for c in counts if c.splits}
    uncounted = [c.config for c in counts if set(c.splits) != set(c.rows)]
    header = ["config", "split", "rows", "min tokens", "median tokens", "max tokens"]
    intro = []
    counted = "Tokens of the `input` column (special tokens included), counted with"
    if len(tokenizers) == 1:
        name, identity = next(iter(tokenizers))
        intro.append(f"{counted} `{name}` (`{identity}`).")
    elif tokenizers:
        intro.append(f"{counted} each config's tokenizer.")
        header.append("tokenizer")
    if uncounted:
        intro.append(
            "Token figures read `-` where the config was built without a tokenizer (its build cuts "
            "nothing, so none was loaded and the rows carry no counts): "
            + ", ".join(f"`{c}`" for c in uncounted)
            + ". Export with a tokenizer (`--tokenizer`) to count them."
        )
    cut = any(c.max_input_tokens is not None for c in counts)
    if cut:
        intro.append("Configs with a `max_input_tokens` value were built with inputs cut to that many.")
        header.append("max_input_tokens")
    chat = any(c.chat_template is not None for c in counts)
    if chat:
        intro.append(
            "Configs with a `chat_template` value were built with each chat-mode row's user turn "
            "fitted under that chat template, and their counts are of the templated prompt."
        )
        header.append("chat_template")
    rows = []
    for c in counts:
        for s in c.stats():
            row = [f"`{s.config}`", f"`{s.split}`", s.rows, s.min_tokens, s.median_tokens, s.max_tokens]
            row += [f"`{c.tokenizer}`" if c.splits else "-"] if len(tokenizers) > 1 else []
            row += [c.max_input_tokens if c.max_input_tokens is not None else ""] if cut else []
            row += [f"`{c.chat_template}`" if c.chat_template else ""] if chat else []
            rows.append(row)
    parts = ["## Statistics", " ".join(intro), markdown_table(header, rows)]
    if histogram:
        parts.append(
            f"![Input tokens per config and split]({histogram})\n\nOne panel per config and split (its own "
            "row-count axis; a tick under the bars marks each row), on a common token axis."
        )
    return "\n\n".join(p for p in parts if p)


def samples_section(counts: Sequence[ConfigCounts]) -> str:
    """A warning naming the configs built from sample data rather than upstream's; ``""`` if none."""
    sampled = [c for c in counts if c.sample_scale]
    if not sampled:
        return ""
    listed = ", ".join(f"`{c.config}` ({c.sample_scale} scale)" for c in sampled)
    return (
        "## Sample data\n\n"
        f"**These rows come from longbench-suite's sample data, not from upstream's files**: {listed}. "
        "Sample files are synthetic, in upstream's layout, with few rows; they show the format and "
        "exercise a pipeline, and measure nothing. Export from upstream's data (no sample mirror) for "
        "the benchmark itself."
    )


#: the heading and introduction of the card's section on generated configs unless the benchmark declares
#: its own (:attr:`~longbench_suite.task.Benchmark.generated_card`)
GENERATED_CARD = (
    "## Generated configs\n\nThese configs are generated, not read from upstream files; how each config's "
    "rows were made:"
)


def generated_section(counts: Sequence[ConfigCounts], heading: str = GENERATED_CARD) -> str:
    """``heading`` (a Markdown heading and introduction) and a table of how the generated configs among
    ``counts`` were made (:meth:`Task.generated_facts`), one row per config; ``""`` if none is."""
    generated = [c for c in counts if c.generated]
    if not generated:
        return ""
    facts = list(dict.fromkeys(name for c in generated for name in c.generated))
    rows = [
        [f"`{c.config}`", *(c.generated.get(name, "-") for name in facts), f"`{c.tokenizer}`"]
        for c in generated
    ]
    return "\n\n".join([heading, markdown_table(["config", *facts, "tokenizer"], rows)])


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
    keep_from: Sequence[str] = (),
) -> list[str]:
    """Write ``README.md`` (and the histogram) for every config in ``directory``; returns the files.

    ``configs_yaml``/``infos`` are the exported configs' ``configs:`` entries and ``DatasetInfo`` s;
    the card keeps every config it already listed, and those the cards ``keep_from`` list (a Hub
    repo's, which the directory's own entries override). ``config_order`` orders the statistics.
    """
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    from .. import registry

    card = template(benchmark)
    data = card.data
    readme = os.path.join(directory, README)
    for path in [*keep_from, readme]:
        if os.path.isfile(path):
            previous = DatasetCard.load(path).data
            MetadataConfigs.from_dataset_card_data(previous).to_dataset_card_data(data)
            DatasetInfosDict.from_dataset_card_data(previous).to_dataset_card_data(data)
    MetadataConfigs(configs_yaml).to_dataset_card_data(data)
    DatasetInfosDict(infos).to_dataset_card_data(data)
    data[MARK] = {"benchmark": benchmark}

    listed = list(MetadataConfigs.from_dataset_card_data(data))
    ordered = [c for c in config_order if c in listed] + sorted(c for c in listed if c not in config_order)
    counts = read_counts(directory, ordered)
    data["size_categories"] = [size_category(_total_rows(data))]
    written = [README]
    png = None
    if histogram and any(any(c.splits.values()) for c in counts):  # some split with counts
        png = histogram_name(benchmark)
        replace_file(os.path.join(directory, png), lambda path: plot_histogram(counts, path))
        written.append(png)
    elif os.path.exists(os.path.join(directory, histogram_name(benchmark))):
        os.remove(os.path.join(directory, histogram_name(benchmark)))
    heading = registry.benchmark(benchmark).generated_card or GENERATED_CARD
    sections = [samples_section(counts), statistics_section(counts, png), generated_section(counts, heading)]
    body = card.text.replace(STATISTICS, "\n\n".join(s for s in sections if s))
    body = body.replace(USAGE, usage_section(repo or "ORG/NAME", ordered))
    if TASKS in body:
        body = body.replace(TASKS, tasks_section(benchmark))
    card = DatasetCard(f"---\n{data.to_yaml()}\n---\n{body}", ignore_metadata_errors=False)
    replace_file(readme, card.save)
    return written


#: the Hub's ``size_categories`` (``datasets/utils/resources/size_categories.json``), smallest first
SIZE_CATEGORIES = (
    "n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M", "10M<n<100M",
    "100M<n<1B", "1B<n<10B", "10B<n<100B", "100B<n<1T", "n>1T",
)  # fmt: skip


def size_category(rows: int) -> str:
    """The Hub's size category of a dataset of ``rows`` rows (all configs and splits)."""
    index = 0 if rows < 1000 else int(math.log10(rows)) - 2
    return SIZE_CATEGORIES[min(index, len(SIZE_CATEGORIES) - 1)]


def _total_rows(data) -> int:
    from datasets.info import DatasetInfosDict

    infos = DatasetInfosDict.from_dataset_card_data(data)
    return sum(split.num_examples for info in infos.values() for split in (info.splits or {}).values())
