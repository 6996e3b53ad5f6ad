"""The one cache of results derived from files and texts (``longbench_suite.memo``): key rule, tiers."""

import json
import os

import pyarrow as pa
import pytest

from longbench_suite import load_dataset
from longbench_suite.benchmarks.helmet import rag
from longbench_suite.errors import DataFormatError
from longbench_suite.memo import LRU, Codec, Memo, file_identity
from longbench_suite.records import stored
from longbench_suite.records.stored import COPIES, stored_json_records
from longbench_suite.source import FileRef


def _ref(path) -> FileRef:
    return FileRef(str(path), label=str(path))


def test_computed_once_per_key_and_again_when_the_file_changes(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text("one\n")
    calls = []

    def lines():
        calls.append(1)
        return data.read_text().splitlines()

    memo, cache = Memo("lines-test", codec=Codec()), str(tmp_path / "cache")
    assert memo.get("lines", [_ref(data)], lines, cache_root=cache) == ["one"]
    assert memo.get("lines", [_ref(data)], lines, cache_root=cache) == ["one"]
    assert len(calls) == 1
    assert memo.get("other question", [_ref(data)], lines, cache_root=cache) == ["one"]  # what is in the key
    assert len(calls) == 2
    data.write_text("one\ntwo\n")  # another size: another file
    assert memo.get("lines", [_ref(data)], lines, cache_root=cache) == ["one", "two"]
    assert len(calls) == 3
    os.utime(data, ns=(1, 1))  # same size, another modification time: read again too
    assert memo.get("lines", [_ref(data)], lines, cache_root=cache) == ["one", "two"] and len(calls) == 4


def test_the_disk_tier_serves_another_process_and_survives_a_bad_entry(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text("x\n")
    cache = str(tmp_path / "cache")
    Memo("disk-test", codec=Codec()).get("w", [_ref(data)], lambda: {"a": 1}, cache_root=cache)
    fresh = Memo("disk-test", codec=Codec())  # what a new process has: nothing in memory
    assert fresh.get("w", [_ref(data)], lambda: pytest.fail("not read back"), cache_root=cache) == {"a": 1}
    (stored,) = [os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs]
    with open(stored, "w") as f:
        f.write("{truncated")
    assert Memo("disk-test", codec=Codec()).get("w", [_ref(data)], lambda: {"a": 2}, cache_root=cache) == {
        "a": 2
    }
    assert Memo("disk-test", codec=Codec()).get("w", [_ref(data)], lambda: {"a": 3}, cache_root=None) == {
        "a": 3
    }
    without_codec = Memo("memory-only")
    without_codec.get("w", [_ref(data)], lambda: 1, cache_root=str(tmp_path / "none"))
    assert not os.path.exists(tmp_path / "none")


def test_stored_finds_a_result_in_memory_or_on_disk_and_never_computes(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text("x\n")
    cache = str(tmp_path / "cache")
    memo = Memo("stored-test", codec=Codec())
    assert memo.stored("w", [_ref(data)], cache_root=cache) is None
    memo.get("w", [_ref(data)], lambda: [1, 2], cache_root=cache)
    assert memo.stored("w", [_ref(data)], cache_root=cache) == [1, 2]
    fresh = Memo("stored-test", codec=Codec())  # a new process: from disk, then kept in memory
    assert fresh.stored("w", [_ref(data)], cache_root=cache) == [1, 2]
    assert fresh.peek("w", [_ref(data)]) == [1, 2]
    assert fresh.stored("other", [_ref(data)], cache_root=cache) is None
    assert Memo("stored-test", codec=Codec()).stored("w", [_ref(data)], cache_root=None) is None


def test_remote_files_are_kept_in_memory_only_and_texts_by_digest(tmp_path):
    remote = FileRef("http://127.0.0.1:1/data.jsonl", label="remote")
    cache = str(tmp_path / "cache")
    memo = Memo("remote-test", codec=Codec())
    assert memo.get("w", [remote], lambda: 3, cache_root=cache) == 3
    assert memo.get("w", [remote], lambda: 4, cache_root=cache) == 3  # unchanged for this process
    assert not os.path.exists(cache)  # never on disk
    assert file_identity(remote) is None
    texts = Memo("text-test")
    assert texts.get("n", ["some text"], lambda: 1) == 1
    assert texts.get("n", ["some text"], lambda: 2) == 1
    assert texts.get("n", ["other text"], lambda: 3) == 3


def test_lru_drops_the_least_recently_used_beyond_its_cost():
    lru = LRU(80, cost=lambda key, value: len(value))
    for i in range(8):
        lru.put(f"k{i}", "x" * 10)  # 80 in all: everything fits
    assert lru.get("k0") == "x" * 10  # k0 is now the most recently used, k1 the least
    lru.put("k8", "x" * 10)  # 90 > 80: k1 goes
    assert lru.get("k1") is None and lru.get("k0") and lru.get("k8") and len(lru) == 8
    lru.put("huge", "x" * 11)  # more than an eighth of the budget alone: not kept
    assert lru.get("huge") is None
    memo = Memo("few", entries=2)
    for i in range(3):
        memo.get(i, [], lambda i=i: i)
    assert memo.get(0, [], lambda: "again") == "again"


def test_a_rag_stream_scans_its_kilt_file_once(helmet_opts, tmp_path, monkeypatch):
    scans = []
    read_scan = rag.RagTask._read_scan

    def counting(self, ref):
        scans.append(ref.label)
        return read_scan(self, ref)

    monkeypatch.setattr(rag.RagTask, "_read_scan", counting)
    monkeypatch.setattr(rag, "_SCANS", Memo("helmet-rag-scan", codec=rag._SCANS.codec))
    opts = {**helmet_opts, "cache_dir": str(tmp_path)}
    first = list(load_dataset("helmet", "popqa_8k", split="eval", streaming=True, **opts).take(3))
    assert len(scans) == 1
    rag._SCANS.clear()  # a new process reads the scan back from the disk
    again = list(load_dataset("helmet", "popqa_8k", split="eval", streaming=True, **opts).take(3))
    assert len(scans) == 1 and again == first
    prepared = load_dataset("helmet", "popqa_8k", split="eval", **opts)
    assert len(scans) == 1 and prepared.select(range(3)).to_list() == first


def test_a_file_result_has_a_path_only_for_durable_inputs_and_moves_with_the_file(tmp_path):
    data = tmp_path / "data.json"
    data.write_text("[]")
    memo, cache = Memo("file-test"), str(tmp_path / "cache")
    path = memo.file_path("what", [_ref(data)], cache_root=cache, suffix="arrow")
    assert path.startswith(os.path.join(cache, "memo", "file-test")) and path.endswith(".arrow")
    assert memo.file_path("what", [_ref(data)], cache_root=cache, suffix="arrow") == path
    assert memo.file_path("other", [_ref(data)], cache_root=cache, suffix="arrow") != path
    assert memo.file_path("what", [_ref(data)], cache_root=None, suffix="arrow") is None
    remote = FileRef("https://example.org/data.json", label="remote")
    assert memo.file_path("what", [remote], cache_root=cache, suffix="arrow") is None
    data.write_text("[ ]")
    assert memo.file_path("what", [_ref(data)], cache_root=cache, suffix="arrow") != path


def _json_array(tmp_path, records) -> FileRef:
    path = tmp_path / "array.json"
    path.write_text(json.dumps(records))
    return FileRef(str(path), label="array.json", records=len(records))


#: the field the test readers keep of each record
TEXT_ONLY = pa.schema([("text", pa.large_string())])


def _read(ref, cache, only=None):
    def keep_text(index, record):
        if not isinstance(record.get("text"), str):
            raise DataFormatError(f"record {index}: no text")
        return {"text": record["text"]}

    return list(stored_json_records(ref, keep_text, TEXT_ONLY, "test", cache_root=cache, only=only))


def test_stored_records_keep_a_copy_only_after_a_whole_read(tmp_path, monkeypatch):
    parses = []
    parse = stored.iter_json_records
    monkeypatch.setattr(stored, "iter_json_records", lambda ref: parses.append(1) or parse(ref))
    ref, cache = _json_array(tmp_path, [{"text": f"record {i}", "other": i} for i in range(5)]), str(tmp_path)
    assert _read(ref, cache, only=[0, 1]) == [(0, {"text": "record 0"}), (1, {"text": "record 1"})]
    assert _read(ref, cache, only=[3]) == [(3, {"text": "record 3"})]
    assert len(parses) == 2  # both stopped early: no copy yet
    whole = _read(ref, cache)
    assert whole == [(i, {"text": f"record {i}"}) for i in range(5)] and len(parses) == 3
    assert _read(ref, cache) == whole and _read(ref, cache, only=[1, 4]) == [whole[1], whole[4]]
    assert len(parses) == 3
    copy = COPIES.file_path(("test", ref.records, str(TEXT_ONLY)), [ref], cache_root=cache, suffix="arrow")
    assert os.listdir(os.path.dirname(copy)) == [os.path.basename(copy)]  # no temporary file left


def test_a_failed_read_keeps_no_copy_and_an_unwritable_cache_only_parses(tmp_path):
    ref = _json_array(tmp_path, [{"text": "a"}, {"text": 2}])
    cache = tmp_path / "cache"
    with pytest.raises(DataFormatError, match="record 1"):
        _read(ref, str(cache))
    assert [p.name for p in cache.rglob("*") if p.is_file()] == []  # neither the copy nor its temporary file
    good = _json_array(tmp_path, [{"text": "a"}, {"text": "b"}])
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache's folder would be")
    assert _read(good, str(blocked)) == [(0, {"text": "a"}), (1, {"text": "b"})]
