"""Declared record counts: every parser compares what it read with what the file must hold.

A record is a non-blank line (JSON Lines, text), an array element (JSON), a row (Parquet), the same in
``count_records`` (what a sample writer declares) and in the parsers (what a build reads).
"""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from longbench_suite.errors import ShortSourceError
from longbench_suite.records import (
    count_records,
    iter_json_records,
    iter_jsonl,
    iter_parquet,
    jsonl_line_numbers,
    read_lines,
)
from longbench_suite.source import FileRef

ROWS = [{"q": f"question {i}", "a": i} for i in range(5)]


def _jsonl(rows) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows) + b"\n"  # a blank last line is no record


def _json(rows) -> bytes:
    return json.dumps(rows, indent=2).encode()


def _parquet(rows) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), sink)
    return sink.getvalue()


def _text(rows) -> bytes:
    return b"".join(f"NUM:count {r['q']}\n".encode() for r in rows)


FORMATS = {
    "data.jsonl": (_jsonl, lambda ref: list(iter_jsonl(ref))),
    "lines.jsonl": (_jsonl, jsonl_line_numbers),
    "data.json": (_json, lambda ref: list(iter_json_records(ref, chunk_bytes=16))),
    "data.parquet": (_parquet, lambda ref: list(iter_parquet(ref))),
    "data.label": (_text, read_lines),
}


def _ref(tmp_path, name: str, data: bytes, records: int | None) -> FileRef:
    path = tmp_path / name
    path.write_bytes(data)
    return FileRef(str(path), label=name, records=records, records_origin="as the test declares")


@pytest.mark.parametrize("name", FORMATS)
def test_a_file_holding_its_declared_count_reads_whole(tmp_path, name):
    write, read = FORMATS[name]
    data = write(ROWS)
    assert count_records(name, data) == len(ROWS)
    assert len(read(_ref(tmp_path, name, data, len(ROWS)))) == len(ROWS)
    assert len(read(_ref(tmp_path, name, data, None))) == len(ROWS)  # no count: nothing to compare


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("kept", [0, 3])
def test_a_short_copy_is_an_error_naming_the_file_and_both_counts(tmp_path, name, kept):
    write, read = FORMATS[name]
    data = write(ROWS[:kept])
    assert count_records(name, data) == kept
    with pytest.raises(ShortSourceError, match=rf"^{name}: holds {kept} records, fewer than the 5 .*test"):
        read(_ref(tmp_path, name, data, len(ROWS)))


@pytest.mark.parametrize("name", FORMATS)
def test_more_records_than_declared_is_not_the_file_expected(tmp_path, name):
    write, read = FORMATS[name]
    with pytest.raises(ShortSourceError, match=rf"^{name}: holds 5 records, not the 4 it is declared"):
        read(_ref(tmp_path, name, write(ROWS), 4))


def test_reading_only_some_lines_does_not_count(tmp_path):
    ref = _ref(tmp_path, "data.jsonl", _jsonl(ROWS[:2]), len(ROWS))
    assert [n for n, _ in iter_jsonl(ref, only={1})] == [1]  # a prefix read cannot judge the whole file


def test_a_counted_text_file_needs_no_final_line_end(tmp_path):
    # Whether upstream's TREC files end with a line end is not known here: the count judges them.
    data = _text(ROWS).rstrip(b"\n")
    lines = read_lines(_ref(tmp_path, "data.label", data, len(ROWS)))
    assert [line for _, line in lines][-1] == b"NUM:count question 4"


def test_a_counted_text_file_cut_inside_a_line_has_fewer_records(tmp_path):
    data = _text(ROWS)
    cut = data[: data.index(b"question 2") + 4]  # inside the third line
    with pytest.raises(ShortSourceError, match=r"data\.label: holds 3 records, fewer than the 5"):
        read_lines(_ref(tmp_path, "data.label", cut, len(ROWS)))


def test_an_uncounted_text_file_must_end_at_a_line_end(tmp_path):
    data = _text(ROWS)
    cut = data[: data.index(b"question 2") + 4]
    with pytest.raises(ShortSourceError, match=r"data\.label: the file ends inside line 3 \(no line end\)"):
        read_lines(_ref(tmp_path, "data.label", cut, None))
    assert len(read_lines(_ref(tmp_path, "data.label", data, None))) == len(ROWS)


def test_a_short_copy_held_to_upstreams_count_says_how_a_subset_declares_itself(tmp_path):
    from longbench_suite.source import UPSTREAM_ORIGIN

    path = tmp_path / "data.jsonl"
    path.write_bytes(_jsonl(ROWS[:3]))
    upstream = FileRef(str(path), label="data.jsonl", records=5, records_origin=UPSTREAM_ORIGIN)
    advice = r"fewer than the 5 .* declares its own counts in longbench-suite-records.json at its root"
    with pytest.raises(ShortSourceError, match=advice):
        list(iter_jsonl(upstream))
    with pytest.raises(ShortSourceError) as declared:
        list(iter_jsonl(_ref(tmp_path, "data.jsonl", _jsonl(ROWS[:3]), 5)))
    assert "longbench-suite-records" not in str(declared.value)  # a sample's own count: no such advice


def test_a_mirror_whose_declaration_cannot_be_read_is_one_line_not_upstreams_counts(tmp_path):
    from longbench_suite.errors import SourceError
    from longbench_suite.source.samples import RECORDS_NAME, read_sample_records
    from tests.support.http_mirror import Fault, MirrorServer

    (tmp_path / RECORDS_NAME).write_text(json.dumps({"host/data.jsonl": 3}))
    with MirrorServer(str(tmp_path)) as server:
        assert read_sample_records(server.url).counts == {"host/data.jsonl": 3}
        server.faults[RECORDS_NAME] = Fault(status=503, times=1)  # transient: retried as downloads are
        assert read_sample_records(server.url).counts == {"host/data.jsonl": 3}
        server.faults[RECORDS_NAME] = Fault(status=400)
        where = f"{server.url}/{RECORDS_NAME}"
        with pytest.raises(SourceError, match=rf"^cannot read the sample record declaration {where}: .*400"):
            read_sample_records(server.url)
        server.faults[RECORDS_NAME] = Fault(status=403)  # an S3 bucket's answer for a key it lacks
        assert read_sample_records(server.url) is None
        (tmp_path / RECORDS_NAME).unlink()
        server.faults.clear()
        assert read_sample_records(server.url) is None  # 404: a mirror of upstream's files


def _resolver(tmp_path, **options):
    from longbench_suite.source import SourceResolver

    return SourceResolver(None, cache_root=str(tmp_path / "cache"), **options)


def test_an_archive_member_the_declaration_does_not_list_is_held_to_upstreams_count(tmp_path):
    from longbench_suite.source import UPSTREAM_ORIGIN, RemoteFile
    from longbench_suite.source.samples import declare_sample_records, key

    archive = RemoteFile("https://example.org/data/levels.zip")
    mirror = tmp_path / "mirror"
    declare_sample_records(str(mirror), {key(archive.url, "a/16k.jsonl"): 4})
    resolver = _resolver(tmp_path, mirror=str(mirror))
    assert resolver._count(archive, ("a/16k.jsonl",), upstream=124)["records"] == 4
    assert resolver._count(archive, ("a/32k.jsonl",), upstream=124) == {
        "records": 124,
        "records_origin": UPSTREAM_ORIGIN,
    }
    assert resolver._count(RemoteFile("https://example.org/other.json"), upstream=None) == {}


def test_a_data_dir_naming_one_file_is_held_to_upstreams_counts_whatever_the_mirror_declares(
    tmp_path, monkeypatch
):
    from longbench_suite.source import MIRROR_ENV, UPSTREAM_ORIGIN, RemoteFile
    from longbench_suite.source.samples import declare_sample_records, key

    archive = RemoteFile("https://example.org/data/levels.zip")
    mirror = tmp_path / "mirror"
    declare_sample_records(str(mirror), {key(archive.url, "a/16k.jsonl"): 4})
    own = tmp_path / "downloads" / "levels.zip"
    own.parent.mkdir()
    own.write_bytes(b"PK")  # the user's own copy of upstream's archive
    monkeypatch.setenv(MIRROR_ENV, str(mirror))
    resolver = _resolver(tmp_path, data_dir=str(own))
    assert resolver._count(archive, ("a/16k.jsonl",), upstream=124)["records_origin"] == UPSTREAM_ORIGIN


@pytest.mark.parametrize("count", [True, -1, 2.5, "3"])
def test_a_declaration_whose_count_is_no_record_count_is_one_line(tmp_path, count):
    from longbench_suite.errors import SourceError
    from longbench_suite.source.samples import RECORDS_NAME, read_sample_records

    (tmp_path / RECORDS_NAME).write_text(json.dumps({"host/data.jsonl": count}))
    with pytest.raises(SourceError, match=r"'host/data.jsonl' must map to a record count"):
        read_sample_records(str(tmp_path))


def test_declaring_counts_leaves_nothing_but_the_declaration_in_the_mirror(tmp_path):
    from longbench_suite.source.samples import RECORDS_NAME, declare_sample_records, read_sample_records

    declare_sample_records(str(tmp_path), {"host/a.jsonl": 3})
    declare_sample_records(str(tmp_path), {"host/b.jsonl": 0, "host/c.jsonl": None})
    assert read_sample_records(str(tmp_path)).counts == {"host/a.jsonl": 3, "host/b.jsonl": 0}
    assert sorted(p.name for p in tmp_path.iterdir()) == [RECORDS_NAME]
