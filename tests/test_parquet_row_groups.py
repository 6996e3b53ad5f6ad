"""Exported Parquet row groups are capped in bytes as well as rows (issue 30 item 6): the Hub's viewer
refuses to read row groups over 300,000,000 bytes (286.1 MiB), and 64 rows of million-token prompts
come near that."""

from __future__ import annotations

import os

import datasets
import pyarrow.parquet as pq
import pytest
from datasets.utils.py_utils import convert_file_size_to_int

from longbench_suite import export, registry
from longbench_suite.publish import hub

MB = 1_000_000


def row_group_bytes(path) -> list[int]:
    """Each row group's uncompressed size, as the Parquet footer states it (what the viewer reads)."""
    meta = pq.ParquetFile(path).metadata
    return [meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)]


def big_rows(megabytes: list[int]) -> datasets.Dataset:
    """One row per size: a prompt of that many MB of varied text (so neither dictionary nor run-length
    encoding shrinks it), and a small column beside it."""
    text = "".join(f"word{i % 9973} " for i in range(200_000))  # ~2 MB of text
    prompts = [(text * (mb // 2 + 1))[: mb * MB] for mb in megabytes]
    return datasets.Dataset.from_dict({"input": prompts, "query_id": [f"q{i}" for i in range(len(prompts))]})


def test_the_default_cap_is_datasets_own_and_under_the_viewers_limit():
    assert convert_file_size_to_int(hub.ROW_GROUP_BYTES) == convert_file_size_to_int(
        datasets.config.MAX_ROW_GROUP_SIZE
    )
    assert convert_file_size_to_int(hub.ROW_GROUP_BYTES) < 300_000_000


@pytest.mark.slow
def test_multi_megabyte_rows_are_written_in_row_groups_under_the_cap(tmp_path, monkeypatch):
    sizes = [3, 1, 9, 2, 2, 7, 1, 1, 4, 6, 1, 3]  # 40 MB in 12 rows; 64 rows would be one 40 MB group
    monkeypatch.setattr(hub, "ROW_GROUP_BYTES", "10MB")
    dataset = big_rows(sizes)
    path = tmp_path / "eval-00000-of-00001.parquet"
    hub.write_parquet(dataset, str(path))
    groups = row_group_bytes(path)
    assert len(groups) > 1 and max(groups) <= 10 * MB, groups
    assert sum(groups) > 39 * MB  # every row is there, uncompressed sizes stated
    back = datasets.Dataset.from_parquet(str(path))
    assert back["query_id"] == dataset["query_id"] and back["input"] == dataset["input"]
    # the same bytes each time
    again = tmp_path / "again.parquet"
    hub.write_parquet(dataset, str(again))
    assert again.read_bytes() == path.read_bytes()


def test_a_row_larger_than_the_cap_gets_a_group_of_its_own(tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "ROW_GROUP_BYTES", "2MB")
    dataset = big_rows([1, 3, 1])
    assert hub.rows_per_row_group(dataset) == 1
    path = tmp_path / "x.parquet"
    hub.write_parquet(dataset, str(path))
    assert pq.ParquetFile(path).metadata.num_row_groups == 3


def test_small_rows_keep_row_groups_of_64_rows():
    dataset = datasets.Dataset.from_dict({"input": ["short prompt"] * 200})
    assert hub.rows_per_row_group(dataset) == hub.ROW_GROUP_ROWS == 64


@pytest.mark.slow
def test_an_export_caps_every_row_group_it_writes(demo_mirror, tmp_path, monkeypatch):
    """The cap holds on export's own path (every benchmark's configs go through it): LV-Eval's demo
    rows, with the cap lowered to half their one group, are the same rows in more groups."""
    config = registry.samples("lveval").DEMO_CONFIGS[0]
    options = {"mirror": demo_mirror, "cache_dir": str(tmp_path / "cache"), "histogram": False}

    def row_groups(repo) -> list[int]:
        names = sorted(n for n in os.listdir(repo / config) if n.endswith(".parquet"))
        return [size for name in names for size in row_group_bytes(repo / config / name)]

    export([f"lveval/{config}"], str(tmp_path / "plain"), **options)
    plain = row_groups(tmp_path / "plain")
    cap = max(plain) // 2
    monkeypatch.setattr(hub, "ROW_GROUP_BYTES", cap)
    export([f"lveval/{config}"], str(tmp_path / "capped"), **options)
    capped = row_groups(tmp_path / "capped")
    assert max(capped) <= cap and len(capped) > len(plain), (plain, capped)
    rows = [datasets.load_dataset(str(tmp_path / repo), config, split="eval") for repo in ("plain", "capped")]
    assert rows[0].to_list() == rows[1].to_list()
