"""RULER's real sources (``benchmarks/ruler/sources.py``): their declarations, resolving them from a
mirror, a ``data_dir`` and a loopback HTTP server in the upstream layouts, the HotpotQA fallback, the
checksum checks, and reading each file into what the generators take."""

from __future__ import annotations

import dataclasses
import os
import shutil

import pytest
from datasets.download.download_config import DownloadConfig
from datasets.download.download_manager import DownloadManager

from longbench_suite.benchmarks.ruler import sample_sources, sources
from longbench_suite.errors import DataFormatError, SourceError, SourceUnavailableError
from longbench_suite.samplefiles import json_bytes, write_to_mirror
from longbench_suite.source import SourceResolver, mirrored
from longbench_suite.source.manifest import file_digest, write_manifest
from tests.support.http_mirror import MirrorServer

NAMES = ("squad", "hotpotqa", "essays", "english_words")


def resolver(tmp_path, **kw) -> SourceResolver:
    dl = DownloadManager(download_config=DownloadConfig(cache_dir=str(tmp_path / "downloads")))
    return SourceResolver(dl, cache_root=str(tmp_path / "cache"), **kw)


def sample_mirror(root: str, hotpotqa_url: str | None = sources.HOTPOTQA.url, manifest: bool = True) -> str:
    """The four samples in ``root`` at their canonical URLs, HotpotQA's at ``hotpotqa_url`` (``None``:
    not there), with the manifest that declares their digests (or none)."""
    files = {
        sources.SQUAD.url: json_bytes(sample_sources.squad_document()),
        sources.ESSAYS.url: sample_sources.essays_parquet(),
        sources.ENGLISH_WORDS.url: json_bytes(sample_sources.english_words()),
    }
    if hotpotqa_url:
        files[hotpotqa_url] = json_bytes(sample_sources.hotpotqa_records())
    written = [write_to_mirror(root, url, data) for url, data in files.items()]
    if manifest:
        write_manifest(root, written, scale="DEMO", writer="test", sizes={})
    return root


@pytest.fixture(scope="module")
def mirror(tmp_path_factory) -> str:
    return sample_mirror(str(tmp_path_factory.mktemp("ruler-sources")))


def test_the_sample_writer_writes_the_four_at_their_urls(tmp_path):
    written = sample_sources.write_sources(str(tmp_path))
    assert written == [mirrored(r.url, str(tmp_path)) for r in sources.SOURCES.values()]


def test_declarations_are_pinned_and_checksummed():
    assert set(sources.SOURCES) == set(NAMES) == set(sources.LICENCES)
    for name, remote in sources.SOURCES.items():
        assert remote.sha256 and len(remote.sha256) == 64, name
    # Hub and GitHub copies are read at a commit, never at a branch
    assert f"/resolve/{sources.HOTPOTQA_HUB_REVISION}/" in sources.HOTPOTQA.fallback.url
    assert f"/resolve/{sources.ESSAYS_HUB_REVISION}/" in sources.ESSAYS.url
    assert f"/RULER/{sources.RULER_COMMIT}/" in sources.ENGLISH_WORDS.url
    assert sources.HOTPOTQA.url.startswith("http://curtis.ml.cmu.edu/")  # the authors' host first
    assert sources.HOTPOTQA.fallback.sha256 != sources.HOTPOTQA.sha256  # the Hub copy has other bytes
    assert sources.HOTPOTQA.records == sources.HOTPOTQA.fallback.records == 7405


def test_every_source_resolves_from_a_mirror_and_reads(tmp_path, mirror):
    refs = resolver(tmp_path, mirror=mirror).resolve(sources.SOURCES)
    squad = sources.read_squad(refs["squad"])
    document = sample_sources.squad_document()
    answerable = [
        qa for a in document["data"] for p in a["paragraphs"] for qa in p["qas"] if not qa["is_impossible"]
    ]
    assert [q.query for q in squad.questions] == [qa["question"] for qa in answerable]
    assert len(squad.documents) == sum(len(a["paragraphs"]) for a in document["data"])
    assert list(squad.documents) == sorted(squad.documents)
    first = squad.questions[0]
    assert squad.documents[first.documents[0]] == document["data"][0]["paragraphs"][0]["context"]
    # the other paragraphs of the article are the first distractors, in the article's order
    others = [p["context"] for p in document["data"][0]["paragraphs"][1:]]
    assert [squad.documents[i] for i in first.distractors] == others

    hotpot = sources.read_hotpotqa(refs["hotpotqa"])
    records = sample_sources.hotpotqa_records()
    assert [q.outputs for q in hotpot.questions] == [(r["answer"],) for r in records]
    title, sentences = records[0]["context"][3]
    assert hotpot.documents[hotpot.questions[0].documents[3]] == f"{title}\n{''.join(sentences)}"
    assert len(set(hotpot.documents)) == len(hotpot.documents)

    essay = sources.read_essays(refs["essays"])
    assert essay.startswith(essay.split()[0]) and len(essay.split()) > 1000
    words = sources.read_english_words(refs["english_words"])
    assert words == list(sample_sources.english_words().values())


def test_the_hotpotqa_host_down_means_the_pinned_hub_copy(tmp_path):
    partial = sample_mirror(str(tmp_path / "mirror"), hotpotqa_url=sources.HOTPOTQA.fallback.url)
    ref = resolver(tmp_path, mirror=partial).resolve({"qa": sources.HOTPOTQA})["qa"]
    assert ref.label == sources.HOTPOTQA.fallback.url
    assert len(sources.read_hotpotqa(ref).questions) == len(sample_sources.hotpotqa_records())

    neither = sample_mirror(str(tmp_path / "neither"), hotpotqa_url=None)
    with pytest.raises(SourceUnavailableError) as error:
        resolver(tmp_path, mirror=neither).resolve({"qa": sources.HOTPOTQA})
    message = str(error.value)
    assert "\n" not in message
    assert sources.HOTPOTQA.url in message and "its fallback" in message
    assert sources.HOTPOTQA_HUB_REVISION in message


def test_over_loopback_http_in_the_upstream_layout(tmp_path):
    """A server with the files at their hosts' paths; the authors' HotpotQA path is missing there (a
    dead host), so the Hub copy is read. Served files carry the samples' digests (no manifest over HTTP)."""
    served = sample_mirror(str(tmp_path / "served"), sources.HOTPOTQA.fallback.url, manifest=False)

    def pinned(remote):
        path = mirrored(remote.url, served)
        fallback = remote.fallback and pinned(remote.fallback)
        digest = file_digest(path)[0] if os.path.exists(path) else remote.sha256
        return dataclasses.replace(remote, sha256=digest, fallback=fallback)

    declared = {name: pinned(remote) for name, remote in sources.SOURCES.items()}
    with MirrorServer(served) as server:
        refs = resolver(tmp_path, mirror=server.url).resolve(declared)
        paths = [path for _, path in server.requests]
    assert refs["hotpotqa"].label == sources.HOTPOTQA.fallback.url
    assert any(path.startswith("curtis.ml.cmu.edu/") for path in paths)  # tried first
    assert sources.read_squad(refs["squad"]).questions
    assert len(sources.read_hotpotqa(refs["hotpotqa"]).questions) == len(sample_sources.hotpotqa_records())
    assert sources.read_essays(refs["essays"]) and sources.read_english_words(refs["english_words"])


def test_a_checksum_mismatch_is_one_line(tmp_path):
    bare = sample_mirror(str(tmp_path / "bare"), manifest=False)  # held to upstream's digests
    with MirrorServer(bare) as server, pytest.raises(SourceError) as error:
        resolver(tmp_path, mirror=server.url).resolve({"squad": sources.SQUAD})
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"sha256 mismatch for {server.url}/rajpurkar.github.io/")
    assert sources.SQUAD.sha256 in message


def test_a_data_dir_of_the_files_as_downloaded(tmp_path, mirror):
    data_dir = tmp_path / "downloads-by-hand"
    data_dir.mkdir()
    for remote in sources.SOURCES.values():
        shutil.copy(mirrored(remote.url, mirror), data_dir / remote.name)
    refs = resolver(tmp_path, data_dir=str(data_dir)).resolve(sources.SOURCES)
    assert {name: os.path.basename(ref.location) for name, ref in refs.items()} == {
        "squad": "dev-v2.0.json",
        "hotpotqa": "hotpot_dev_distractor_v1.json",
        "essays": "essays.parquet",
        "english_words": "english_words.json",
    }
    assert sources.read_squad(refs["squad"]).questions


def write(tmp_path, name: str, document) -> str:
    path = tmp_path / name
    path.write_bytes(document if isinstance(document, bytes) else json_bytes(document))
    return str(path)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (b"{not json", r"squad.json: not JSON"),
        ({"version": "v2.0"}, r"squad.json: has no field 'data'"),
        (
            {"data": [{"paragraphs": [{"context": "c", "qas": [{"question": "q", "answers": []}]}]}]},
            r"squad.json: data\[0\].paragraphs\[0\].qas\[0\]: has no field 'is_impossible'",
        ),
        (
            {"data": [{"paragraphs": [{"context": 3, "qas": []}]}]},
            r"data\[0\].paragraphs\[0\]: field 'context' must be a string, not int",
        ),
        (
            {"data": [{"paragraphs": [{"context": "c", "qas": [{"question": "q", "is_impossible": True}]}]}]},
            r"squad.json: holds no answerable question",
        ),
    ],
)
def test_bad_squad_files_are_one_line_naming_file_and_field(tmp_path, document, message):
    with pytest.raises(DataFormatError, match=message) as error:
        sources.read_squad(write(tmp_path, "squad.json", document))
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"data": []}, r"hotpot.json: expected a JSON array of questions, not dict"),
        ([{"question": "q", "answer": "a"}], r"hotpot.json: \[0\]: has no field 'context'"),
        (
            [{"question": "q", "answer": "a", "context": [["title only"]]}],
            r"\[0\].context\[0\]: must be a \[title, \[sentence, ...\]\] pair",
        ),
        (
            [{"question": "q", "answer": 1, "context": [["t", ["s"]]]}],
            r"\[0\]: field 'answer' must be a string, not int",
        ),
    ],
)
def test_bad_hotpotqa_files_are_one_line(tmp_path, document, message):
    with pytest.raises(DataFormatError, match=message):
        sources.read_hotpotqa(write(tmp_path, "hotpot.json", document))


def test_bad_essays_and_word_lists_are_one_line(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = tmp_path / "essays.parquet"
    pq.write_table(pa.table({"body": ["x"]}), str(table))
    with pytest.raises(DataFormatError, match=r"essays.parquet: has no column 'text' \(columns: body\)"):
        sources.read_essays(str(table))
    with pytest.raises(DataFormatError, match=r"not.parquet: not a readable Parquet file"):
        sources.read_essays(write(tmp_path, "not.parquet", b"PAR1 nope"))
    with pytest.raises(DataFormatError, match=r"words.json: expected a JSON object of words, not list"):
        sources.read_english_words(write(tmp_path, "words.json", ["a"]))
    with pytest.raises(DataFormatError, match=r"words.json: the value of '1' must be a string"):
        sources.read_english_words(write(tmp_path, "words.json", {"0": "a", "1": 2}))
    with pytest.raises(SourceError, match=r"missing.json: No such file"):
        sources.read_english_words(str(tmp_path / "missing.json"))


def test_rulers_own_essay_file_is_read_too(tmp_path):
    path = write(tmp_path, "PaulGrahamEssays.json", {"text": "An essay.  With words."})
    assert sources.read_ruler_essay(path) == "An essay.  With words."
