"""Streamed splits in contiguous shards: DataLoader workers and nodes split the work, order is kept.

The core cuts every split read from local files into 16 contiguous pieces of its plan (all tasks but
LV-Eval's, which declare they cannot plan); each piece builds and renders only its own rows.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import datasets
import pytest
from datasets.distributed import split_dataset_by_node
from hypothesis import given
from hypothesis import strategies as st

from longbench_suite import load_dataset
from longbench_suite.benchmarks.helmet import rag
from longbench_suite.builder import builder_class
from longbench_suite.fit.rules import CutContextTail, Fit, NoCut
from longbench_suite.instance import Instance, Plan
from longbench_suite.partition.shards import STREAM_SHARDS, Shards
from longbench_suite.records import iter_jsonl
from longbench_suite.render import PromptTemplate
from longbench_suite.row import features
from longbench_suite.source import FileRef
from longbench_suite.task import Benchmark, BuildEnv, Task


def _key(row: dict) -> str:
    return json.dumps(row, sort_keys=True)


@pytest.fixture(scope="module")
def opts(helmet_opts):
    return helmet_opts


@pytest.fixture(scope="module")
def prepared(opts):
    return load_dataset("helmet", "nq_8k", **opts)


@pytest.fixture(scope="module")
def stream(opts):
    return load_dataset("helmet", "nq_8k", split="dev", streaming=True, **opts)


# -- Shards on their own ---------------------------------------------------------------------------


@given(st.integers(0, 300), st.integers(1, 40))
def test_pieces_in_order_are_the_plan_and_differ_by_at_most_one(size, count):
    plan = list(range(size))
    pieces = [Shards(count, (i,)).select(plan) for i in range(count)]
    assert [x for piece in pieces for x in piece] == plan
    assert max(map(len, pieces)) - min(map(len, pieces)) <= 1
    assert Shards(count, tuple(range(count))).select(plan) == plan
    assert Shards(count, tuple(range(count - 1, -1, -1))).select(plan) == plan  # any order of indices


def test_bad_shard_selection():
    with pytest.raises(ValueError, match="bad shard"):
        Shards(4, (4,))


def test_iter_jsonl_only_parses_the_lines_asked_for(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_text('{"a": 1}\n{broken\n{"a": 3}\n\n{"a": 5}\n{broken too\n')
    ref = FileRef(str(path), label="f.jsonl")
    assert list(iter_jsonl(ref, only={1, 3, 5})) == [(1, {"a": 1}), (3, {"a": 3}), (5, {"a": 5})]
    assert list(iter_jsonl(ref, only=set())) == []


# -- HELMET RAG streamed in shards -------------------------------------------------------------------


def test_streamed_split_has_shards_and_in_order_equals_the_prepared_split(stream, prepared, opts):
    assert stream.num_shards == STREAM_SHARDS == 16
    assert [_key(r) for r in stream] == [_key(r) for r in prepared["dev"]]
    evaluation = load_dataset("helmet", "nq_8k", split="eval", streaming=True, **opts)
    assert [_key(r) for r in evaluation] == [_key(r) for r in prepared["eval"]]


def _count_fits(monkeypatch) -> Counter:
    """Counts the prompts the HELMET fit renders (``fitted["n"]``)."""
    fitted = Counter()
    apply = CutContextTail.apply

    def counting(self, *args, **kwargs):
        fitted["n"] += 1
        return apply(self, *args, **kwargs)

    monkeypatch.setattr(CutContextTail, "apply", counting)
    return fitted


def test_each_shard_is_a_contiguous_piece_and_renders_only_its_rows(stream, prepared, monkeypatch):
    fitted = _count_fits(monkeypatch)
    rows = [_key(r) for r in prepared["dev"]]
    start = 0
    for index in range(16):
        fitted.clear()
        piece = [_key(r) for r in stream.shard(num_shards=16, index=index)]
        assert piece == rows[start : start + len(piece)]
        assert fitted["n"] == len(piece)
        start += len(piece)
    assert start == len(rows) == 893


def test_split_by_node_covers_every_row_once(stream, prepared):
    nodes = [[_key(r) for r in split_dataset_by_node(stream, rank=r, world_size=2)] for r in range(2)]
    assert all(nodes)
    assert Counter(nodes[0] + nodes[1]) == Counter(_key(r) for r in prepared["dev"])


def _rows(batch):
    return batch


def test_dataloader_workers_split_the_stream_and_one_worker_keeps_order(stream, prepared):
    DataLoader = pytest.importorskip("torch.utils.data").DataLoader  # the train extra; not in the floors run

    expected = [_key(r) for r in prepared["dev"]]
    two = [_key(r) for r in DataLoader(stream, batch_size=None, num_workers=2, collate_fn=_rows)]
    assert Counter(two) == Counter(expected)
    one = [_key(r) for r in DataLoader(stream, batch_size=None, num_workers=1, collate_fn=_rows)]
    assert one == expected


def test_one_process_plans_a_split_once(opts, monkeypatch):
    planned = Counter()
    plan = rag.RagTask.plan

    def counting(self, split, *args):
        planned[split] += 1
        return plan(self, split, *args)

    monkeypatch.setattr(rag.RagTask, "plan", counting)
    fresh = load_dataset("helmet", "popqa_8k", split="dev", streaming=True, **opts)
    assert fresh.num_shards == 16 and len(list(fresh)) == 192
    assert planned == {"dev": 1}


def test_remote_stream_keeps_one_shard(helmet_http, opts, prepared):
    over_http = {**opts, "mirror": helmet_http.url}
    remote = load_dataset("helmet", "nq_8k", split="dev", streaming=True, **over_http)
    assert remote.num_shards == 1
    assert [_key(r) for r in remote.take(5)] == [_key(r) for r in prepared["dev"].select(range(5))]


# -- HELMET's other local-file tasks streamed in shards ---------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        "json_kv_8k",
        "ruler_mv_8k",
        "alce_asqa_8k",
        "msmarco_8k",
        "trec_coarse_8k",
        "narrativeqa_8k",
        "infbench_qa_8k",
        "multi_lexsum_8k",
    ],
)
@pytest.mark.slow
def test_other_tasks_stream_in_shards_equal_to_the_prepared_splits(
    config, opts, llama2_tokenizer, monkeypatch
):
    opts = {**opts, "pretruncation_tokenizer": llama2_tokenizer}  # the long-document tasks' pre-truncation
    prepared_splits = load_dataset("helmet", config, **opts)
    fitted = _count_fits(monkeypatch)
    for split in ("dev", "eval"):  # ALCE, JSON KV, RULER: dev in file order, eval in HELMET's shuffle
        streamed = load_dataset("helmet", config, split=split, streaming=True, **opts)
        assert streamed.num_shards == STREAM_SHARDS
        rows = [_key(r) for r in prepared_splits[split]]
        assert [_key(r) for r in streamed] == rows
        start = 0
        for index in range(STREAM_SHARDS):
            fitted.clear()
            piece = [_key(r) for r in streamed.shard(num_shards=STREAM_SHARDS, index=index)]
            assert piece == rows[start : start + len(piece)]
            assert fitted["n"] == len(piece)
            start += len(piece)
        assert start == len(rows)


# -- LongBench and Ada-LEval streamed in shards -------------------------------------------------------


@pytest.fixture(scope="module")
def full_mirrors(demo_mirror, tmp_path_factory) -> dict[str, str]:
    """LongBench at demo scale; Ada-LEval at the specs' sizes (its demo files hold no dev rows)."""
    from longbench_suite.benchmarks.adaleval import samples

    adaleval = str(tmp_path_factory.mktemp("adaleval-full"))
    samples.write_samples(adaleval, samples.FULL)
    return {"longbench": demo_mirror, "adaleval": adaleval}


@pytest.mark.parametrize(
    ("bench", "config"), [("longbench", "qasper_4k"), ("adaleval", "bestanswer_1k"), ("adaleval", "tsort_2k")]
)
def test_longbench_and_adaleval_stream_in_shards_equal_to_the_prepared_splits(
    bench, config, full_mirrors, tiny_tokenizer, tmp_path
):
    options = dict(mirror=full_mirrors[bench], tokenizer=tiny_tokenizer, cache_dir=str(tmp_path))
    prepared_splits = load_dataset(bench, config, **options)
    assert set(prepared_splits) == {"dev", "eval"}
    for split, prepared_split in prepared_splits.items():
        streamed = load_dataset(bench, config, split=split, streaming=True, **options)
        assert streamed.num_shards == STREAM_SHARDS
        rows = [_key(r) for r in prepared_split]
        assert [_key(r) for r in streamed] == rows
        start = 0
        for index in range(STREAM_SHARDS):
            piece = [_key(r) for r in streamed.shard(num_shards=STREAM_SHARDS, index=index)]
            assert piece == rows[start : start + len(piece)]
            start += len(piece)
        assert start == len(rows)


# -- the core's side: it plans, cuts and builds; a task only plans and makes instances -------------------


COUNT_PROMPT = PromptTemplate("{split} {context}")


@dataclass(frozen=True, eq=False, kw_only=True)
class _Counting(Task):
    name: str = "count"
    lengths: tuple[str, ...] = ("1k",)
    template: PromptTemplate = COUNT_PROMPT
    fit: Fit = field(default_factory=NoCut)
    metric: str = "none"
    category: str = "test"
    use_chat_template: bool = False
    max_new_tokens: int = 1
    size: int = 10
    instances_per_item: int = 1

    def max_length(self, length: str) -> int:
        return 1024

    def sources(self, length: str) -> dict:
        return {}

    def plan(self, split, length, files, env: BuildEnv) -> Plan:
        return Plan(list(range(self.size)))

    def instances(self, split, length, files, plan, items, env) -> Iterator[Instance]:
        for i in items:
            for _ in range(self.instances_per_item):
                yield Instance(f"q{i}", {"split": split, "context": i}, str(i), [str(i)])


class _Unplannable(_Counting):
    shardable = False


def _builder(tmp_path, task: Task):
    bench = Benchmark("counting", (task,), features(), "d", "h", "c")
    return builder_class(bench, __name__)(config_name="count_1k", tokenizer="chars", cache_dir=str(tmp_path))


def test_a_task_that_cannot_plan_keeps_one_shard(tmp_path):
    task = _Unplannable()
    it = _builder(tmp_path, task).as_streaming_dataset(split="dev")
    assert it.num_shards == 1 and [r["input"] for r in it] == [f"dev {i}" for i in range(10)]


def test_the_core_cuts_the_plan_and_each_row_is_one_instance(tmp_path):
    task = _Counting()
    it = _builder(tmp_path, task).as_streaming_dataset(split="dev")
    assert it.num_shards == STREAM_SHARDS
    assert [r["query_id"] for r in it] == [f"q{i}" for i in range(10)]
    assert [r["query_id"] for r in it.shard(num_shards=STREAM_SHARDS, index=3)] == ["q3"]
    # a task that builds more instances than it planned is a bug, named
    task = replace(task, instances_per_item=2)
    with pytest.raises(RuntimeError, match=r"built 2 instances for 1 planned rows"):
        list(_builder(tmp_path / "two", task).as_streaming_dataset(split="dev"))


def test_fewer_rows_than_shards_is_fine_but_an_empty_plan_is_an_error(tmp_path):
    from longbench_suite.errors import DataFormatError

    task = _Counting(size=2)
    builder = _builder(tmp_path / "a", task)
    it = builder.as_streaming_dataset(split="dev")
    assert it.num_shards == STREAM_SHARDS and [r["input"] for r in it] == ["dev 0", "dev 1"]
    builder.download_and_prepare()
    assert builder.as_dataset(split="dev")["input"] == ["dev 0", "dev 1"]
    task = replace(task, size=0)
    with pytest.raises(DataFormatError, match=r"'dev' split came out empty"):
        list(_builder(tmp_path / "b", task).as_streaming_dataset(split="dev"))
    assert isinstance(it, datasets.IterableDataset)
