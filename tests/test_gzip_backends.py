"""The archive's first pass through each installed gzip backend (``source/gzipfast.py``): the same
member bytes as the standard library, the same refusals of cut and corrupt archives."""

import gzip
import io
import random
import tarfile

import pytest

from longbench_suite.errors import UnknownNameError
from longbench_suite.source import archives, gzipfast

BACKENDS = gzipfast.available()


def _tar_gz(tmp_path) -> tuple[str, dict[str, bytes]]:
    rng = random.Random(7)
    members = {
        # larger than every reader's buffer, partly incompressible, partly runs
        "data/big.bin": rng.randbytes(3 << 20) + b"a" * (2 << 20),
        "data/text.jsonl": "".join(f'{{"id": {i}, "text": "é 中文 {i}"}}\n' for i in range(5000)).encode(),
        "data/empty.txt": b"",
    }
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path = tmp_path / "data.tar.gz"
    path.write_bytes(gzip.compress(buf.getvalue(), compresslevel=6))
    return str(path), members


def test_stdlib_is_always_there_and_last():
    assert BACKENDS[-1] == "stdlib"


@pytest.mark.parametrize("backend", BACKENDS)
def test_members_are_the_archived_bytes(tmp_path, monkeypatch, backend):
    path, members = _tar_gz(tmp_path)
    monkeypatch.setenv(gzipfast.ENV, backend)
    assert gzipfast.backend() == backend
    found = archives.locate_members(
        path, {m: (m,) for m in members}, cache_root=str(tmp_path / "cache"), label="data.tar.gz"
    )
    for name, data in members.items():
        with open(found[name][0], "rb") as f:
            assert f.read() == data, name


def _cut(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _flipped(data: bytes) -> bytes:
    at = len(data) // 3
    return data[:at] + bytes([data[at] ^ 0x55]) + data[at + 1 :]


def _bad_crc(data: bytes) -> bytes:
    return data[:-8] + bytes([data[-8] ^ 1]) + data[-7:]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fault", [_cut, _flipped, _bad_crc, lambda d: d[:-2]], ids=["cut", "flip", "crc", "trailer"]
)
def test_bad_archives_are_refused_and_leave_no_members(tmp_path, monkeypatch, backend, fault):
    path, _ = _tar_gz(tmp_path)
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(fault(data))
    monkeypatch.setenv(gzipfast.ENV, backend)
    cache = tmp_path / "cache"
    with pytest.raises(archives.CorruptArchiveError, match=r"archive data.tar.gz is corrupt or truncated"):
        archives.locate_members(path, {"m": ("data/empty.txt",)}, cache_root=str(cache), label="data.tar.gz")
    assert not cache.exists() or not any(p.is_file() for p in cache.rglob("*")), "members left behind"


def test_a_backend_not_installed_falls_back_to_stdlib(monkeypatch):
    monkeypatch.setattr(
        gzipfast, "BACKENDS", (("missing", "no_such_module.gzip", "no_such_module"), *gzipfast.BACKENDS)
    )
    gzipfast._load.cache_clear()
    try:
        monkeypatch.setenv(gzipfast.ENV, "missing")
        assert gzipfast.backend() == "stdlib"
        monkeypatch.delenv(gzipfast.ENV)
        assert "missing" not in gzipfast.available()
    finally:
        gzipfast._load.cache_clear()


def test_an_unknown_backend_name_is_one_clear_error(monkeypatch):
    monkeypatch.setenv(gzipfast.ENV, "pigz")
    with pytest.raises(UnknownNameError, match=r"LONGBENCH_SUITE_GZIP='pigz' names no gzip backend"):
        gzipfast.backend()


def _spied(monkeypatch, backend: str) -> list:
    """Force ``backend`` and record every stream its opener decompresses."""
    monkeypatch.setenv(gzipfast.ENV, backend)
    opener, error = gzipfast._load(backend)
    opened: list = []

    def spy(source, mode):
        opened.append(source)
        return opener(source, mode)

    monkeypatch.setattr(gzipfast, "_load", lambda name: (spy, error))
    return opened


@pytest.mark.parametrize("backend", BACKENDS)
def test_streamed_members_go_through_the_same_backend(tmp_path, monkeypatch, backend):
    from tests.support.http_mirror import MirrorServer

    path, members = _tar_gz(tmp_path)
    opened = _spied(monkeypatch, backend)
    with archives.open_member(path, ("data/text.jsonl",), label="data.tar.gz") as f:
        assert f.read() == members["data/text.jsonl"]
    assert len(opened) == 1 and not isinstance(opened[0], str), "the local stream was not decompressed by it"
    with MirrorServer(str(tmp_path)) as server:
        url = f"{server.url}/data.tar.gz"
        siblings = ("data/empty.txt",)
        with archives.open_member(url, ("data/big.bin",), label="data.tar.gz", siblings=siblings) as f:
            assert f.read() == members["data/big.bin"]
    assert len(opened) == 2, "the remote stream was not decompressed by it"


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_truncated_stream_is_refused_by_every_backend(tmp_path, monkeypatch, backend):
    path, _ = _tar_gz(tmp_path)
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(_cut(data))  # inside data/big.bin, before the member read
    monkeypatch.setenv(gzipfast.ENV, backend)
    refused = pytest.raises(archives.CorruptArchiveError, match=r"data.tar.gz is corrupt or truncated")
    with refused, archives.open_member(path, ("data/text.jsonl",), label="data.tar.gz") as f:
        f.read()
