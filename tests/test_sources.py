"""Sources: mirror mapping, data_dir layouts, archive members, checksums, corrupt and unsafe archives."""

import io
import os
import tarfile

import pytest
from datasets.download.download_config import DownloadConfig
from datasets.download.download_manager import DownloadManager

from longbench_suite.errors import SourceError
from longbench_suite.records import iter_jsonl, read_json
from longbench_suite.samplefiles import jsonl_bytes, tar_gz_bytes, write_to_mirror, zip_bytes
from longbench_suite.source import FileRef, Member, RemoteFile, SourceResolver, archives, hub_url, mirrored

ARCHIVE = RemoteFile(hub_url("org/repo", "data.tar.gz"))
ZIP = RemoteFile(hub_url("org/repo", "data.zip"))
MEMBERS = {
    "data/a/one.jsonl": jsonl_bytes([{"x": 1}, {"x": 2}]),
    "data/a/two.jsonl": jsonl_bytes([{"y": "é"}]),
    "data/b/big.json": b'{"k": [1, 2, 3]}',
}


def _resolver(tmp_path, **kw):
    dl = DownloadManager(download_config=DownloadConfig(cache_dir=str(tmp_path / "downloads")))
    return SourceResolver(dl, cache_root=str(tmp_path / "cache"), **kw)


def _rows(ref: FileRef):
    return [r for _, r in iter_jsonl(ref)]


def test_mirror_mapping_is_wget_x_layout():
    url = "https://huggingface.co/datasets/org/repo/resolve/main/data.tar.gz"
    assert mirrored(url, "/m") == "/m/huggingface.co/datasets/org/repo/resolve/main/data.tar.gz"
    assert (
        mirrored(url, "http://127.0.0.1:9/base/")
        == "http://127.0.0.1:9/base/huggingface.co/datasets/org/repo/resolve/main/data.tar.gz"
    )
    assert mirrored("http://opencompass.openxlab.space/utils/AdaLEval/x.json", "/m") == (
        "/m/opencompass.openxlab.space/utils/AdaLEval/x.json"
    )


def test_tar_members_are_extracted_once_in_one_pass(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    write_to_mirror(str(mirror), ARCHIVE.url, tar_gz_bytes(MEMBERS))
    opened = []
    real_open = tarfile.open
    monkeypatch.setattr(archives.tarfile, "open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    resolver = _resolver(tmp_path, mirror=str(mirror))
    refs = resolver.resolve(
        {"one": Member(ARCHIVE, "data/a/one.jsonl"), "two": Member(ARCHIVE, "data/a/two.jsonl")}
    )
    assert _rows(refs["one"]) == [{"x": 1}, {"x": 2}] and _rows(refs["two"]) == [{"y": "é"}]
    assert len(opened) == 1
    cached = {
        os.path.relpath(os.path.join(d, f), tmp_path / "cache")
        for d, _, fs in os.walk(tmp_path / "cache")
        for f in fs
    }
    assert not any("big.json" in c for c in cached), "a member no config needs was extracted"
    again = _resolver(tmp_path, mirror=str(mirror)).resolve({"one": Member(ARCHIVE, "data/a/one.jsonl")})
    assert _rows(again["one"]) == [{"x": 1}, {"x": 2}]
    assert len(opened) == 1, "a cached member was read from the archive again"


def test_zip_members_are_read_in_place(tmp_path):
    mirror = tmp_path / "mirror"
    write_to_mirror(str(mirror), ZIP.url, zip_bytes(MEMBERS))
    refs = _resolver(tmp_path, mirror=str(mirror)).resolve(
        {"b": Member(ZIP, ("data/missing.json", "data/b/big.json"))}
    )
    assert read_json(refs["b"]) == {"k": [1, 2, 3]}
    assert not (tmp_path / "cache" / "members").exists()


@pytest.mark.parametrize(
    "layout",
    ["extracted", "data-folder", "flat", "archive", "mirror-layout"],
)
def test_data_dir_layouts(tmp_path, layout):
    root = tmp_path / "mine"
    member = "data/a/one.jsonl"
    if layout == "extracted":
        target = root / "data" / "a" / "one.jsonl"
    elif layout == "data-folder":
        target = root / "a" / "one.jsonl"
    elif layout == "flat":
        target = root / "one.jsonl"
    if layout in ("extracted", "data-folder", "flat"):
        target.parent.mkdir(parents=True)
        target.write_bytes(MEMBERS[member])
    elif layout == "archive":
        root.mkdir()
        (root / "data.tar.gz").write_bytes(tar_gz_bytes(MEMBERS))
    else:
        write_to_mirror(str(root), ARCHIVE.url, tar_gz_bytes(MEMBERS))
    refs = _resolver(tmp_path, data_dir=str(root)).resolve({"one": Member(ARCHIVE, member)})
    assert _rows(refs["one"]) == [{"x": 1}, {"x": 2}]


@pytest.mark.parametrize(
    "name, kind", [("data.tar.gz", "tar"), ("my-copy.tgz", "tar"), ("data.zip", "zip"), ("x.zip", "zip")]
)
def test_data_dir_may_be_the_archive_itself_under_any_name(tmp_path, name, kind):
    archive_file = tmp_path / name
    archive_file.write_bytes(tar_gz_bytes(MEMBERS) if kind == "tar" else zip_bytes(MEMBERS))
    source = Member(ARCHIVE if kind == "tar" else ZIP, "data/a/two.jsonl")
    refs = _resolver(tmp_path, data_dir=str(archive_file)).resolve({"two": source})
    assert _rows(refs["two"]) == [{"y": "é"}]
    with pytest.raises(SourceError, match=r"data/a/tree\.jsonl"):
        _resolver(tmp_path, data_dir=str(archive_file)).resolve(
            {"x": Member(source.archive, "data/a/tree.jsonl")}
        )
    # A plain file source must match by name: the archive is not every file.
    with pytest.raises(SourceError, match=r"other\.json is not in data_dir"):
        _resolver(tmp_path, data_dir=str(archive_file)).resolve({"x": RemoteFile("https://h.org/other.json")})


def test_data_dir_finds_a_github_file_under_any_tail_of_its_url(tmp_path):
    """A repository checkout holds ``prompts/x.json``; a flat folder holds ``x.json``."""
    remote = RemoteFile("https://raw.githubusercontent.com/org/repo/0123abc/prompts/x.json")
    checkout, flat = tmp_path / "checkout", tmp_path / "flat"
    (checkout / "prompts").mkdir(parents=True)
    (checkout / "prompts" / "x.json").write_text('{"where": "checkout"}')
    (checkout / "x.json").write_text('{"where": "a stray copy"}')
    flat.mkdir()
    (flat / "x.json").write_text('{"where": "flat"}')
    found = _resolver(tmp_path, data_dir=str(checkout)).resolve({"x": remote})
    assert read_json(found["x"]) == {"where": "checkout"}, "the longest matching tail wins"
    assert read_json(_resolver(tmp_path, data_dir=str(flat)).resolve({"x": remote})["x"]) == {"where": "flat"}
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match=r"x\.json is not in data_dir .*empty/prompts/x\.json"):
        _resolver(tmp_path, data_dir=str(tmp_path / "empty")).resolve({"x": remote})


def test_missing_things_are_named(tmp_path):
    mirror = tmp_path / "mirror"
    write_to_mirror(str(mirror), ARCHIVE.url, tar_gz_bytes(MEMBERS))
    with pytest.raises(
        SourceError, match=r"has no member data/a/tree\.jsonl; close matches: data/a/two\.jsonl"
    ):
        _resolver(tmp_path, mirror=str(mirror)).resolve({"x": Member(ARCHIVE, "data/a/tree.jsonl")})
    with pytest.raises(SourceError, match=r"mirror directory .*nowhere does not exist"):
        _resolver(tmp_path, mirror=str(tmp_path / "nowhere"))
    with pytest.raises(SourceError, match=r"data\.zip is not in the mirror"):
        _resolver(tmp_path, mirror=str(mirror)).resolve({"x": Member(ZIP, "data/a/one.jsonl")})
    with pytest.raises(SourceError, match=r"data_dir .* does not exist"):
        _resolver(tmp_path, data_dir=str(tmp_path / "nowhere"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match=r"data/a/one.jsonl not in data_dir .* and neither is data.tar.gz"):
        _resolver(tmp_path, data_dir=str(tmp_path / "empty")).resolve(
            {"x": Member(ARCHIVE, "data/a/one.jsonl")}
        )


def test_sha256_mismatch_removes_the_download(tmp_path, helmet_http):
    # Served over loopback HTTP so the file lands in the download cache.
    from longbench_suite.benchmarks.helmet.common import ARCHIVE as HELMET

    bad = RemoteFile(HELMET.url, sha256="0" * 64)
    resolver = _resolver(tmp_path, mirror=helmet_http.url)
    with pytest.raises(SourceError, match=r"sha256 mismatch .* expected 0000.*removed"):
        resolver.resolve({"a": bad})
    leftovers = [
        f for _, _, fs in os.walk(tmp_path / "downloads") for f in fs if not f.endswith((".lock", ".json"))
    ]
    assert leftovers == []
    good = _resolver(tmp_path, mirror=helmet_http.url).resolve(
        {"a": RemoteFile(HELMET.url, record_sha256=True)}
    )
    assert os.path.getsize(good["a"].location) > 0


def test_corrupt_and_truncated_archives(tmp_path):
    data = tar_gz_bytes(MEMBERS)
    mirror = tmp_path / "mirror"
    path = write_to_mirror(str(mirror), ARCHIVE.url, data[: len(data) // 2])
    with pytest.raises(SourceError, match=r"corrupt or truncated"):
        _resolver(tmp_path, mirror=str(mirror)).resolve({"x": Member(ARCHIVE, "data/b/big.json")})
    members_dir = tmp_path / "cache" / "members"
    assert not members_dir.exists() or not any(members_dir.iterdir()), "partial members left behind"
    assert os.path.exists(path), "a file of the user's mirror was deleted"
    write_to_mirror(str(mirror), ARCHIVE.url, data)
    refs = _resolver(tmp_path, mirror=str(mirror)).resolve({"x": Member(ARCHIVE, "data/b/big.json")})
    assert read_json(refs["x"]) == {"k": [1, 2, 3]}


def _evil_tar(tmp_path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name in (str(tmp_path / "evil-abs.txt"), "../evil-up.txt", "data/../../evil-mid.txt"):
            info = tarfile.TarInfo(name)
            info.size = 4
            tar.addfile(info, io.BytesIO(b"evil"))
        link = tarfile.TarInfo("data/a/one.jsonl")
        link.type, link.linkname = tarfile.SYMTYPE, str(tmp_path / "outside-target")
        tar.addfile(link)
        hard = tarfile.TarInfo("data/a/two.jsonl")
        hard.type, hard.linkname = tarfile.LNKTYPE, "/etc/passwd"
        tar.addfile(hard)
    return buf.getvalue()


def test_tar_slip_never_writes_outside_the_cache(tmp_path):
    mirror = tmp_path / "mirror"
    write_to_mirror(str(mirror), ARCHIVE.url, _evil_tar(tmp_path))
    resolver = _resolver(tmp_path, mirror=str(mirror))
    for member in ("data/a/one.jsonl", "data/a/two.jsonl"):
        with pytest.raises(SourceError, match=r"has no member"):
            resolver.resolve({"x": Member(ARCHIVE, member)})
    with pytest.raises(ValueError, match=r"unsafe"):
        resolver.resolve({"x": Member(ARCHIVE, "../evil-up.txt")})
    assert not (tmp_path / "outside-target").exists()
    assert not (tmp_path / "evil-up.txt").exists() and not (tmp_path / "evil-abs.txt").exists()
    for directory, _, files in os.walk(tmp_path / "cache"):
        extracted = [f for f in files if not f.endswith(".complete")]  # not the archive's checked marker
        assert not extracted, f"something was extracted: {directory} {extracted}"


def test_streaming_reads_members_without_writing(tmp_path, helmet_http):
    from datasets.download.streaming_download_manager import StreamingDownloadManager

    from longbench_suite.benchmarks.helmet.common import archive_member

    resolver = SourceResolver(
        StreamingDownloadManager(), cache_root=str(tmp_path / "cache"), mirror=helmet_http.url, streaming=True
    )
    member = "data/kilt/nq-train-multikilt_1000_k3_dep6.jsonl"
    ref = resolver.resolve({"demos": archive_member(member)})["demos"]
    assert ref.location.startswith("http://127.0.0.1") and ref.members == (member,)
    first = next(iter_jsonl(ref))[1]
    assert {"question", "answers", "ctxs"} <= set(first)
    assert not (tmp_path / "cache").exists()


def test_an_archive_pass_says_what_it_reads(tmp_path, caplog):
    import io
    import logging
    import tarfile

    from longbench_suite.source import archives

    path = tmp_path / "data.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for i in range(2):
            info = tarfile.TarInfo(f"data/f{i}.txt")
            info.size = 5
            tar.addfile(info, io.BytesIO(b"hello"))
    with caplog.at_level(logging.INFO, logger="longbench_suite.source.archives"):
        archives.locate_members(
            str(path), {"x": ["data/f1.txt"]}, cache_root=str(tmp_path), label="A/data.tar.gz"
        )
        archives.locate_members(
            str(path), {"y": ["data/f0.txt"]}, cache_root=str(tmp_path), label="A/data.tar.gz"
        )
    assert [r.getMessage() for r in caplog.records] == [
        "reading A/data.tar.gz for 1 member(s), to its end (first pass)",
        "reading A/data.tar.gz for 1 member(s)",
    ]
