"""Downloads over real networks (``longbench_suite/source/download.py``), on a loopback server: an idle
timeout instead of a total one, retries with backoff that honour ``Retry-After``, and resumption of a
dropped or killed download where the server supports ranges."""

from __future__ import annotations

import json
import os

import datasets
import pytest

from longbench_suite.source import download
from tests.support.http_mirror import Fault, MirrorServer

SIZE = 200_000
NAME = "files/data.bin"


@pytest.fixture
def served(tmp_path, monkeypatch):
    root = tmp_path / "root"
    (root / "files").mkdir(parents=True)
    body = os.urandom(SIZE)
    (root / NAME).write_bytes(body)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)
    waits: list[float] = []
    monkeypatch.setattr(download, "_sleep", waits.append)
    monkeypatch.setattr(download, "CHUNK", 50_000)
    with MirrorServer(str(root)) as server:
        yield server, body, str(tmp_path / "downloads"), waits


def _get(server, cache):
    with open(download.download(f"{server.url}/{NAME}", cache), "rb") as f:
        return f.read()


@pytest.mark.parametrize("status", [429, 503])
def test_transient_statuses_are_retried_waiting_what_retry_after_asks(served, status):
    server, body, cache, waits = served
    server.faults[NAME] = Fault(status=status, times=3, retry_after="7")
    assert _get(server, cache) == body
    assert waits and set(waits) == {7.0}


def test_without_retry_after_the_waits_back_off_exponentially(served, monkeypatch):
    server, body, cache, waits = served
    monkeypatch.setattr(download, "BACKOFF", (1.0, 3.0))
    server.faults[NAME] = Fault(status=502, times=8)
    assert _get(server, cache) == body
    assert waits == [1.0, 2.0, 3.0, 3.0]  # HEAD then GET per failed attempt: 8 replies, 4 attempts


def test_a_permanent_error_is_not_retried(served):
    server, _, cache, waits = served
    server.faults[NAME] = Fault(status=404)
    with pytest.raises(FileNotFoundError):
        _get(server, cache)
    assert waits == []


def test_retries_give_up_after_the_attempts_without_progress(served, monkeypatch):
    server, _, cache, waits = served
    monkeypatch.setattr(download, "MAX_ATTEMPTS", 3)
    server.faults[NAME] = Fault(status=503)
    with pytest.raises(FileNotFoundError) as raised:
        _get(server, cache)
    assert "503" in repr(raised.value.__cause__) and len(waits) == 2


def test_a_dropped_connection_resumes_where_the_bytes_stopped(served):
    server, body, cache, waits = served
    server.faults[NAME] = Fault(cut_after=20_000, times=2)  # two range requests cut short
    assert _get(server, cache) == body
    # Only the cut ranges are asked again (ranges of CHUNK bytes), never the whole file.
    assert server.total_bytes(NAME) <= SIZE + 2 * 20_000
    assert len(waits) == 2


def test_a_server_that_ignores_ranges_is_read_whole_again(served):
    server, body, cache, waits = served
    server.faults[NAME] = Fault(cut_after=20_000, times=1, ignore_range=True)
    assert _get(server, cache) == body
    assert server.total_bytes(NAME) == SIZE + 20_000 and len(waits) == 1


def test_a_killed_download_resumes_from_its_partial_file(served):
    server, body, cache, _ = served
    from datasets.utils.file_utils import hash_url_to_filename

    url = f"{server.url}/{NAME}"
    os.makedirs(cache)
    path = os.path.join(cache, hash_url_to_filename(url, None))
    with open(path + ".incomplete", "wb") as f:
        f.write(body[:120_000])
    with open(path + ".incomplete.json", "w") as f:  # what the killed run saw of the file
        json.dump({"size": SIZE, "Last-Modified": None, "Content-MD5": None, "Digest": None}, f)
    assert _get(server, cache) == body
    assert server.total_bytes(NAME) == SIZE - 120_000


def test_a_partial_file_of_another_version_is_not_resumed(served):
    server, body, cache, _ = served
    from datasets.utils.file_utils import hash_url_to_filename

    url = f"{server.url}/{NAME}"
    os.makedirs(cache)
    path = os.path.join(cache, hash_url_to_filename(url, None))
    with open(path + ".incomplete", "wb") as f:
        f.write(b"x" * 120_000)  # a killed download of the file as it was before it changed
    with open(path + ".incomplete.json", "w") as f:
        json.dump({"size": SIZE + 1, "Last-Modified": None, "Content-MD5": None, "Digest": None}, f)
    assert _get(server, cache) == body
    assert server.total_bytes(NAME) == SIZE


def test_a_slow_transfer_is_not_cancelled_while_bytes_keep_arriving(served, monkeypatch):
    server, body, cache, waits = served
    monkeypatch.setattr(download, "IDLE_TIMEOUT", 0.4)
    # 30 pieces, 0.05 s apart: 1.5 s in all, nearly four times the idle timeout, never idle for long.
    server.faults[NAME] = Fault(piece=6_700, delay=0.05)
    assert _get(server, cache) == body
    assert waits == []


def test_a_stalled_transfer_times_out_and_is_retried(served, monkeypatch):
    server, body, cache, waits = served
    monkeypatch.setattr(download, "IDLE_TIMEOUT", 0.3)
    server.faults[NAME] = Fault(piece=10_000, delay=1.0, times=1)  # the first GET stalls
    assert _get(server, cache) == body
    assert len(waits) == 1


def test_the_timeout_is_idle_not_total():
    timeout = download.client_timeout()
    assert timeout.total is None and timeout.sock_read == download.IDLE_TIMEOUT
    options = download.with_network_settings({"https": {"headers": {"a": "b"}}})
    assert options["https"]["headers"] == {"a": "b"}
    assert options["https"]["client_kwargs"]["timeout"].total is None
    assert options["http"]["client_kwargs"]["timeout"].sock_read == download.IDLE_TIMEOUT


def test_hub_files_stay_with_huggingface_hub_and_other_urls_come_here(tmp_path, monkeypatch):
    """``huggingface_hub`` already retries, resumes and times out per read, and holds the token for
    gated repos: Hub ``resolve`` URLs go through the download manager; any other http(s) URL (a
    mirror, Ada-LEval's host) through this module."""
    from datasets import DownloadConfig

    from longbench_suite.source import SourceResolver

    managed: list[str] = []

    class Manager:
        download_config = DownloadConfig(cache_dir=str(tmp_path))

        def download(self, url):
            managed.append(url)
            return url

    ours: list[str] = []
    monkeypatch.setattr(download, "download", lambda url, *args, **kwargs: ours.append(url) or url)
    resolver = SourceResolver(Manager(), cache_root=str(tmp_path))
    hub = f"{datasets.config.HF_ENDPOINT}/datasets/princeton-nlp/HELMET/resolve/main/data.tar.gz"
    other = "http://127.0.0.1:1/huggingface.co/datasets/princeton-nlp/HELMET/resolve/main/data.tar.gz"
    resolver._download(hub)
    resolver._download(other)
    assert managed == [hub] and ours == [other]
