"""Streaming the elements of a JSON list (HELMET's ALCE files), with errors naming file, line and record."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longbench_suite.errors import DataFormatError
from longbench_suite.records import iter_json_array
from longbench_suite.sources import FileRef

TEXT = st.text(alphabet=st.characters(codec="utf-8", max_codepoint=0x2FFF))
RECORD = st.dictionaries(
    st.text(max_size=5),
    st.one_of(TEXT, st.integers(), st.floats(allow_nan=False), st.lists(TEXT, max_size=3), st.none()),
    max_size=4,
)


def _ref(tmp_path, text: str, name="list.json") -> FileRef:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return FileRef(str(path), label=name)


@settings(max_examples=60, deadline=None)
@given(records=st.lists(RECORD, max_size=6), indent=st.sampled_from([None, 1, 4]), chunk=st.integers(1, 40))
def test_elements_equal_json_load_whatever_the_chunk_size(tmp_path_factory, records, indent, chunk):
    ref = _ref(tmp_path_factory.mktemp("j"), json.dumps(records, indent=indent, ensure_ascii=False))
    assert [r for _, r in iter_json_array(ref, chunk_chars=chunk)] == records
    assert [n for n, _ in iter_json_array(ref, chunk_chars=chunk)] == list(range(1, len(records) + 1))


def test_a_large_element_is_read_whole(tmp_path):
    records = [{"docs": [{"text": "w " * 500, "i": i} for i in range(200)]}, {"x": 1}]
    ref = _ref(tmp_path, json.dumps(records))
    assert [r for _, r in iter_json_array(ref, chunk_chars=64)] == records


@pytest.mark.parametrize(
    "text, message",
    [
        ('[\n{"a": 1},\n{"a": 2 "b": 3}\n]', r"list\.json, line 3 \(record 2\): malformed JSON \(Expecting"),
        ('[\n{"a": 1},\n{"a": "unterminated\n', r"line 3 \(record 2\): malformed JSON"),
        ('[{"a": 1}, {"a": 2}', r"record 2\): the list ends before it is closed"),
        ('[{"a": 1}, 7]', r"record 2\): expected a JSON object, got int"),
        ('[{"a": 1}] [', r"record 1\): extra data after the list"),
        ('{"a": 1}\n{"a": 2}\n', r"line 1 \(record 1\): expected a JSON list of records, found '\{"),
        ("", r"expected a JSON list of records, found an empty file"),
        ('[{"a": 1},]', r"record 2\): malformed JSON \(Expecting value"),
    ],
)
def test_bad_lists_are_named(tmp_path, text, message):
    with pytest.raises(DataFormatError, match=message):
        list(iter_json_array(_ref(tmp_path, text), chunk_chars=4))


def test_empty_list_and_surrounding_space(tmp_path):
    assert list(iter_json_array(_ref(tmp_path, " \n[ \n ]\n"))) == []


def test_invalid_utf8_is_a_format_error(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b'[{"a": "\xff"}]')
    with pytest.raises(DataFormatError, match=r"bad\.json: not UTF-8"):
        list(iter_json_array(FileRef(str(path), label="bad.json")))
