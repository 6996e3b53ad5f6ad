"""``export``: the Hub layout that plain ``datasets.load_dataset`` reads, with the benchmark's card."""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys

import pytest
import yaml
from tokenizers import Tokenizer

from longbench_suite import cli, export, load_dataset, registry
from longbench_suite.errors import MissingDependencyError, SuiteError
from longbench_suite.publish.card import STATISTICS, template

CONFIGS = ("nq_8k", "hotpotqa_8k")
QUALIFIED = [f"helmet/{c}" for c in CONFIGS]  # hotpotqa_8k is also a LongBench config


@pytest.fixture(scope="module")
def opts(helmet_opts):
    return helmet_opts


@pytest.fixture(scope="module")
def exported(opts, tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "helmet"
    result = export(QUALIFIED, str(out), **opts)
    return out, result


def _front_matter(readme: str) -> dict:
    match = re.match(r"---\n(.*?)\n---\n", readme, re.S)
    assert match, "the card has no YAML front matter"
    return yaml.safe_load(match.group(1))


def _readme(out) -> str:
    return (out / "README.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_layout_and_configs_yaml(exported):
    out, result = exported
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert files == [
        "README.md",
        "helmet_input_tokens.png",
        "hotpotqa_8k/dev-00000-of-00001.parquet",
        "hotpotqa_8k/eval-00000-of-00001.parquet",
        "hotpotqa_8k/token_counts.json",
        "nq_8k/dev-00000-of-00001.parquet",
        "nq_8k/eval-00000-of-00001.parquet",
        "nq_8k/token_counts.json",
    ]
    assert sorted(result.files) == files
    meta = _front_matter(_readme(out))
    assert meta["configs"] == [
        {
            "config_name": name,
            "data_files": [
                {"split": "dev", "path": f"{name}/dev-*"},
                {"split": "eval", "path": f"{name}/eval-*"},
            ],
        }
        for name in sorted(CONFIGS)
    ]
    assert meta["longbench_suite"] == {"benchmark": "helmet"}
    assert meta["license"] == "other" and "long-context" in meta["tags"]
    infos = {i["config_name"]: i for i in meta["dataset_info"]}
    assert {s["name"]: s["num_examples"] for s in infos["nq_8k"]["splits"]} == {"dev": 893, "eval": 600}


@pytest.mark.slow
def test_plain_datasets_reads_it_without_this_library(exported, opts, tmp_path):
    out, _ = exported
    dump = tmp_path / "rows.json"
    script = f"""
import json, sys, datasets
out = {{}}
for cfg in {list(CONFIGS)!r}:
    for split in ("dev", "eval"):
        out[f"{{cfg}}/{{split}}"] = datasets.load_dataset({str(out)!r}, cfg, split=split).to_list()
        stream = datasets.load_dataset({str(out)!r}, cfg, split=split, streaming=True)
        out[f"{{cfg}}/{{split}}/stream"] = list(stream)
out["configs"] = datasets.get_dataset_config_names({str(out)!r})
assert not any(m.startswith("longbench_suite") for m in sys.modules)
json.dump(out, open({str(dump)!r}, "w"))
"""
    env = {**os.environ, "HF_DATASETS_CACHE": str(tmp_path / "hf")}
    command = [sys.executable, "-c", script]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(dump.read_text())
    assert sorted(loaded["configs"]) == sorted(CONFIGS)
    for cfg in CONFIGS:
        built = load_dataset("helmet", cfg, **opts)
        for split in ("dev", "eval"):
            rows = built[split].to_list()
            assert loaded[f"{cfg}/{split}"] == rows
            assert loaded[f"{cfg}/{split}/stream"] == rows


@pytest.mark.slow
def test_card_has_the_template_and_statistics_computed_independently(exported, tiny_tokenizer):
    out, _ = exported
    readme = _readme(out)
    for heading in ("## Sources", "## Partition rules", "## Columns", "## Citation", "## Statistics"):
        assert heading in readme
    assert "@inproceedings{yen2025helmet" in readme and STATISTICS not in readme
    assert "![Input tokens per config and split](helmet_input_tokens.png)" in readme
    assert (out / "helmet_input_tokens.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert tiny_tokenizer not in readme and os.path.dirname(tiny_tokenizer) not in readme

    tok = Tokenizer.from_file(tiny_tokenizer)
    import datasets

    for cfg in CONFIGS:
        for split in ("dev", "eval"):
            shard = out / cfg / f"{split}-00000-of-00001.parquet"
            inputs = datasets.Dataset.from_parquet(str(shard))["input"]
            counts = [len(e.ids) for e in tok.encode_batch(list(inputs), add_special_tokens=True)]
            median = statistics.median(counts)
            median = int(median) if median == int(median) else median
            line = f"| `{cfg}` | `{split}` | {len(counts)} | {min(counts)} | {median} | {max(counts)} |"
            assert line in readme


def test_more_configs_merge_and_existing_files_stay(exported, opts, tmp_path):
    out, _ = exported
    merged = tmp_path / "helmet"
    shutil.copytree(out, merged)
    before = (merged / "nq_8k" / "eval-00000-of-00001.parquet").read_bytes()
    args = ["export", "popqa_8k", "--output", str(merged), "--no-histogram", "--max-input-tokens", "600"]
    assert cli.main([*args, *_cli(opts)]) == 0
    meta = _front_matter(_readme(merged))
    assert [c["config_name"] for c in meta["configs"]] == ["hotpotqa_8k", "nq_8k", "popqa_8k"]
    assert [i["config_name"] for i in meta["dataset_info"]] == ["hotpotqa_8k", "nq_8k", "popqa_8k"]
    assert (merged / "nq_8k" / "eval-00000-of-00001.parquet").read_bytes() == before
    readme = _readme(merged)
    assert all(f"| `{c}` | `eval` |" in readme for c in ("nq_8k", "hotpotqa_8k", "popqa_8k"))
    assert "helmet_input_tokens.png)" not in readme  # --no-histogram
    cut = re.search(r"^\| `popqa_8k` \| `eval` \| 600 \| \d+ \| [\d.]+ \| (\d+) \| 600 \|$", readme, re.M)
    assert cut and int(cut.group(1)) <= 600  # built with max_input_tokens=600, and the card says so
    assert re.search(r"^\| `nq_8k` \| `eval` \| 600 \| \d+ \| [\d.]+ \| \d+ \|  \|$", readme, re.M)


def _cli(opts) -> list[str]:
    return ["--mirror", opts["mirror"], "--tokenizer", opts["tokenizer"], "--cache-dir", opts["cache_dir"]]


def test_shards_follow_max_shard_size_and_reexport_replaces_them_byte_identically(exported, opts, tmp_path):
    out, _ = exported
    again = tmp_path / "helmet"
    export(["nq_8k"], str(again), max_shard_size="400KB", histogram=False, **opts)
    shards = sorted(p.name for p in (again / "nq_8k").glob("eval-*.parquet"))
    assert len(shards) > 1 and shards[-1] == f"eval-{len(shards) - 1:05d}-of-{len(shards):05d}.parquet"
    import datasets

    rows = load_dataset("helmet", "nq_8k", split="eval", **opts).to_list()
    assert datasets.load_dataset(str(again), "nq_8k", split="eval").to_list() == rows

    export(["nq_8k"], str(again), histogram=False, **opts)
    assert sorted(p.name for p in (again / "nq_8k").iterdir()) == sorted(
        p.name for p in (out / "nq_8k").iterdir()
    )
    for name in ("dev-00000-of-00001.parquet", "eval-00000-of-00001.parquet", "token_counts.json"):
        assert (again / "nq_8k" / name).read_bytes() == (out / "nq_8k" / name).read_bytes()


def test_one_benchmark_per_directory(opts, tmp_path, monkeypatch):
    theirs = tmp_path / "other"
    theirs.mkdir()
    (theirs / "README.md").write_text("---\nlongbench_suite:\n  benchmark: longbench\n---\n# LongBench\n")
    with pytest.raises(SuiteError, match=r"holds configs of 'longbench'"):
        export(["nq_8k"], str(theirs), **opts)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "README.md").write_text("---\nlicense: mit\n---\n# Someone's dataset\n")
    with pytest.raises(SuiteError, match=r"was not written by longbench-suite"):
        export(["nq_8k"], str(foreign), **opts)
    assert sorted(os.listdir(theirs)) == sorted(os.listdir(foreign)) == ["README.md"]

    real = registry.resolve
    fake = lambda n, b=None: ("longbench", n) if n == "x_8k" else real(n, b)  # noqa: E731
    monkeypatch.setattr(registry, "resolve", fake)
    with pytest.raises(SuiteError, match=r"belong to helmet, longbench; one export directory"):
        export(["nq_8k", "x_8k"], str(tmp_path / "mixed"), **opts)
    assert not (tmp_path / "mixed").exists()


def test_histogram_needs_matplotlib_and_says_how_to_get_it(opts, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingDependencyError, match=r"longbench-suite\[cards\].*--no-histogram"):
        export(["nq_8k"], str(tmp_path / "out"), **opts)


@pytest.mark.parametrize("benchmark", registry.benchmark_names())
def test_every_benchmark_has_a_complete_card_template(benchmark):
    card = template(benchmark)
    body = card.text
    assert body.count(STATISTICS) == 1
    for heading in ("## Sources", "## Columns", "## Citation"):
        assert heading in body, f"benchmarks/{benchmark}/card.md lacks {heading}"
    assert "## Partition rules" in body or "## Splits" in body, f"{benchmark}.md states no split rules"
    columns = body.split("## Columns", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`([A-Za-z_][\w-]*)`", columns))
    bench = registry.benchmark(benchmark)
    schemas = [bench.features, *(t.features for t in bench.tasks if t.features is not None)]
    missing = {c for schema in schemas for c in schema} - documented
    assert not missing, f"benchmarks/{benchmark}/card.md does not describe the columns {sorted(missing)}"


def _hub_vocabulary() -> dict[str, set[str]]:
    """The metadata values ``datasets`` ships for Hub cards (the Hub's own validator needs the network)."""
    import datasets.utils.metadata as metadata
    from datasets.utils import resources

    folder = os.path.dirname(resources.__file__)
    with open(os.path.join(folder, "languages.json"), encoding="utf-8") as f:
        languages = set(json.load(f))
    with open(os.path.join(folder, "size_categories.json"), encoding="utf-8") as f:
        sizes = set(json.load(f))
    return {"language": languages, "size_categories": sizes, "task_categories": set(metadata.known_task_ids)}


@pytest.mark.parametrize("benchmark", registry.benchmark_names())
def test_every_card_yaml_is_hub_metadata_with_a_checked_licence(benchmark):
    from huggingface_hub import DatasetCard
    from huggingface_hub.repocard_data import DatasetCardData

    text = (registry_path(benchmark) / "card.md").read_text(encoding="utf-8")
    card = DatasetCard(text, ignore_metadata_errors=False)  # raises on YAML the Hub could not read
    data = card.data
    assert isinstance(data, DatasetCardData)
    vocabulary = _hub_vocabulary()
    assert data.pretty_name and data.language and data.task_categories and data.license
    assert set(data.language) <= vocabulary["language"]
    assert set(data.task_categories) <= vocabulary["task_categories"]
    licences = data.license if isinstance(data.license, list) else [data.license]
    # ids from huggingface_hub's own examples (apache-2.0: LongBench v2's dataset card); "other" needs a
    # name and a link, and a sentence
    assert set(licences) <= {"mit", "cc-by-sa-4.0", "apache-2.0", "other"}
    if "other" in licences:
        assert re.fullmatch(r"[a-z0-9][a-z0-9.-]*", data.get("license_name") or "")
    if data.get("license_link"):
        assert data.license_link.startswith("https://github.com/") and len(data.license_link) > 40
        assert "`license_link`" in card.text, "the card body must say what the licence link is"
    assert "https://github.com/)" not in text and "as we recall" not in text and "unchecked" not in text
    assert "size_categories" not in data.to_dict(), "size_categories is computed from the built rows"


def registry_path(benchmark):
    from importlib import resources

    return resources.files(registry.package_name(benchmark))


@pytest.mark.parametrize(
    ("rows", "category"),
    [(0, "n<1K"), (999, "n<1K"), (1000, "1K<n<10K"), (99_999, "10K<n<100K"), (10**6, "1M<n<10M")],
)
def test_size_category_of_the_built_rows(rows, category):
    from longbench_suite.publish.card import SIZE_CATEGORIES, size_category

    assert size_category(rows) == category
    assert set(SIZE_CATEGORIES) <= _hub_vocabulary()["size_categories"]


def test_a_split_is_never_cut_into_more_shards_than_rows():
    import datasets

    from longbench_suite.publish.hub import _shard_count

    rows = datasets.Dataset.from_dict({"input": ["x" * 5000] * 3})
    assert _shard_count(rows, "1KB") == 3  # by size alone: 16 shards, 13 of them empty
    assert _shard_count(rows, "6KB") == 3
    assert _shard_count(rows, "1GB") == 1
    assert _shard_count(datasets.Dataset.from_dict({"input": []}), "1KB") == 1
    shards = _shard_count(rows, "1KB")
    assert all(rows.shard(shards, i, contiguous=True).num_rows > 0 for i in range(shards))
