"""``engine="ray"``: every shard of every config built as a task on a local Ray cluster (loopback
only) writes the files of the single-process export, byte for byte; and an export to an fsspec URL
(here ``memory://``) writes the files of a local one."""

from __future__ import annotations

import os
import sys

import fsspec
import pytest

from longbench_suite import cli, export, registry
from longbench_suite.builder import SuiteBuilder
from longbench_suite.errors import MissingDependencyError, OptionError
from tests.support.folders import snapshot


def _memory_files(url: str) -> dict[str, bytes]:
    fs, root = fsspec.core.url_to_fs(url)
    return {fs._strip_protocol(p)[len(root) + 1 :]: fs.cat_file(p) for p in fs.find(root)}


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
    yield ray
    ray.shutdown()


def _no_rows_here(*args, **kwargs):
    raise AssertionError("the driver built rows itself; the Ray workers should have")


@pytest.mark.slow
@pytest.mark.parametrize("bench", registry.benchmark_names())
def test_a_ray_export_writes_the_bytes_of_one_process(
    bench, ray_cluster, demo_mirror, tiny_tokenizer, tmp_path, monkeypatch
):
    configs = [f"{bench}/{c}" for c in registry.samples(bench).DEMO_CONFIGS[:2]]
    options = dict(mirror=demo_mirror, tokenizer=tiny_tokenizer, pretruncation_tokenizer=tiny_tokenizer)
    export(configs, str(tmp_path / "one"), cache_dir=str(tmp_path / "c1"), **options)
    monkeypatch.setattr(SuiteBuilder, "_rows", _no_rows_here)  # in this process only, not in the workers
    result = export(configs, str(tmp_path / "ray"), cache_dir=str(tmp_path / "c2"), engine="ray", **options)
    one, ray = snapshot(tmp_path / "one"), snapshot(tmp_path / "ray")
    assert any(name.endswith(".parquet") for name in one)
    assert sorted(one) == sorted(ray) == sorted(result.files)
    assert [name for name in one if one[name] != ray[name]] == []


@pytest.mark.slow
def test_a_ray_export_to_an_fsspec_url(ray_cluster, demo_mirror, tiny_tokenizer, tmp_path, monkeypatch):
    options = dict(mirror=demo_mirror, tokenizer=tiny_tokenizer, histogram=False)
    export(["helmet/nq_8k"], str(tmp_path / "one"), cache_dir=str(tmp_path / "c1"), **options)
    monkeypatch.setattr(SuiteBuilder, "_rows", _no_rows_here)
    url = "memory://ray-export/helmet"
    args = ["export", "helmet/nq_8k", "--output", url, "--engine", "ray", "--no-histogram"]
    code = cli.main(
        [*args, "--mirror", demo_mirror, "--tokenizer", tiny_tokenizer, "--cache-dir", str(tmp_path / "c2")]
    )
    assert code == 0
    assert _memory_files(url) == snapshot(tmp_path / "one")


@pytest.mark.slow
def test_an_export_to_an_fsspec_url_merges_as_a_local_one(demo_mirror, tiny_tokenizer, tmp_path):
    options = dict(
        mirror=demo_mirror, tokenizer=tiny_tokenizer, cache_dir=str(tmp_path / "c"), histogram=False
    )
    local, url = tmp_path / "local", "memory://merge/longbench"
    for configs in (["longbench/qasper_4k"], ["longbench/hotpotqa_4k"], ["longbench/qasper_4k"]):
        export(configs, str(local), max_shard_size="50KB", **options)
        result = export(configs, url, max_shard_size="50KB", **options)
        assert result.directory == url
        assert _memory_files(url) == snapshot(local)
    names = _memory_files(url)
    assert any(n.startswith("qasper_4k/") for n in names) and any(n.startswith("hotpotqa_4k/") for n in names)
    assert sum(n.startswith("qasper_4k/eval-") for n in names) > 1  # several shards, all replaced


def test_a_smaller_reexport_to_an_fsspec_url_deletes_the_shards_it_no_longer_writes(
    demo_mirror, tiny_tokenizer, tmp_path
):
    options = dict(
        mirror=demo_mirror, tokenizer=tiny_tokenizer, cache_dir=str(tmp_path / "c"), histogram=False
    )
    url = "memory://shrink/longbench"
    export(["longbench/qasper_4k"], url, max_shard_size="50KB", **options)
    export(["longbench/qasper_4k"], url, **options)
    export(["longbench/qasper_4k"], str(tmp_path / "local"), **options)
    assert _memory_files(url) == snapshot(tmp_path / "local")


def test_an_fsspec_target_keeps_a_users_file_and_says_so(demo_mirror, tiny_tokenizer, tmp_path):
    fs = fsspec.filesystem("memory")
    fs.pipe_file("/foreign/helmet/nq_8k/notes.txt", b"mine")
    with pytest.raises(OptionError, match=r"memory://foreign/helmet/nq_8k/notes.txt is not a file an export"):
        export(["helmet/nq_8k"], "memory://foreign/helmet", mirror=demo_mirror, tokenizer=tiny_tokenizer)
    assert fs.find("/foreign") == ["/foreign/helmet/nq_8k/notes.txt"]


def test_a_file_url_is_the_local_folder(demo_mirror, tiny_tokenizer, tmp_path):
    options = dict(
        mirror=demo_mirror, tokenizer=tiny_tokenizer, cache_dir=str(tmp_path / "c"), histogram=False
    )
    export(["helmet/nq_8k"], f"file://{tmp_path}/out", **options)
    assert (tmp_path / "out" / "nq_8k" / "token_counts.json").is_file()


def test_engine_options_are_checked_before_anything_is_built(tmp_path):
    out = str(tmp_path / "out")
    with pytest.raises(OptionError, match=r"engine \(--engine\) must be one of local, ray, got 'spark'"):
        export(["helmet/nq_8k"], out, engine="spark")
    with pytest.raises(
        OptionError, match=r"address \(--address\) names a Ray cluster; it needs engine='ray'"
    ):
        export(["helmet/nq_8k"], out, address="auto")
    with pytest.raises(OptionError, match=r"with engine='ray' the cluster's CPUs run the shards"):
        export(["helmet/nq_8k"], out, engine="ray", num_proc=2)
    assert not os.path.exists(out)


def test_without_ray_the_engine_says_which_extra_to_install(
    demo_mirror, tiny_tokenizer, tmp_path, monkeypatch
):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "longbench-suite\[distributed\]"'):
        export(
            ["helmet/nq_8k"],
            str(tmp_path / "out"),
            engine="ray",
            mirror=demo_mirror,
            tokenizer=tiny_tokenizer,
        )
    assert not (tmp_path / "out").exists()


def test_the_cli_refuses_a_bad_engine_option_in_one_line(capsys, tmp_path):
    code = cli.main(["export", "helmet/nq_8k", "--output", str(tmp_path / "o"), "--address", "auto"])
    err = capsys.readouterr().err
    assert code == 2 and "needs engine='ray'" in err and "Traceback" not in err


def test_a_failed_card_upload_never_leaves_old_and_new_shards_under_one_card(
    demo_mirror, tiny_tokenizer, tmp_path, monkeypatch
):
    from longbench_suite.errors import StorageError

    options = dict(
        mirror=demo_mirror, tokenizer=tiny_tokenizer, cache_dir=str(tmp_path / "c"), histogram=False
    )
    url = "memory://halfway/longbench"
    export(["longbench/qasper_4k"], url, max_shard_size="50KB", **options)
    card_before = _memory_files(url)["README.md"]
    fs = fsspec.filesystem("memory")
    real = type(fs).put_file

    def no_card(self, lpath, rpath, **kwargs):
        if rpath.endswith("README.md"):
            raise PermissionError(13, "Permission denied", rpath)
        return real(self, lpath, rpath, **kwargs)

    monkeypatch.setattr(type(fs), "put_file", no_card)
    with pytest.raises(StorageError, match=r"^export --output memory://halfway/longbench: writing .* failed"):
        export(["longbench/qasper_4k"], url, **options)
    files = _memory_files(url)
    assert files["README.md"] == card_before
    shards = sorted(n for n in files if n.startswith("qasper_4k/eval-"))
    assert shards == ["qasper_4k/eval-00000-of-00001.parquet"]  # the old ones went before the card


def test_a_target_that_cannot_be_read_is_one_line(demo_mirror, tiny_tokenizer, monkeypatch):
    from longbench_suite.errors import StorageError

    fs = fsspec.filesystem("memory")

    def denied(self, path, **kwargs):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(type(fs), "isfile", denied)
    with pytest.raises(StorageError, match=r"^export --output memory://denied/helmet: reading .* failed"):
        export(["helmet/nq_8k"], "memory://denied/helmet", mirror=demo_mirror, tokenizer=tiny_tokenizer)


def test_an_address_nothing_listens_at_is_refused_at_once():
    import socket

    from longbench_suite.distributed import _reachable

    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(OptionError, match=rf"no Ray cluster at address '127.0.0.1:{port}' \(--address\)"):
        _reachable(f"127.0.0.1:{port}", timeout=2.0)
    _reachable("auto")  # ray.init's own lookup: nothing to probe
    _reachable("ray://head:10001")


def test_a_task_failing_with_anything_else_is_one_line_and_cancels_the_rest():
    from types import SimpleNamespace

    from longbench_suite.distributed import _take
    from longbench_suite.errors import SuiteError

    class RayError(Exception):
        pass

    cancelled = []

    def get(ref):
        error = RayError("worker died")
        error.cause = MemoryError("the worker was killed for memory")
        raise error

    ray = SimpleNamespace(
        get=get,
        cancel=lambda ref, force: cancelled.append(ref),
        exceptions=SimpleNamespace(RayError=RayError),
    )
    rows = _take(ray, {("eval", 0): "ref0", ("eval", 1): "ref1", ("dev", 0): "ref2"})
    with pytest.raises(
        SuiteError, match=r"^a Ray task building shard 0 of 'eval' failed: MemoryError: the worker"
    ):
        rows("eval", 0)
    assert sorted(cancelled) == ["ref1", "ref2"]


# -- a remote target (a loopback S3 server, moto) and an export killed mid-upload -----------------------

# The child exports one config to an s3:// URL and, after its first Parquet file is uploaded, writes a
# marker file and sleeps until it is killed.
UPLOAD_THEN_STALL = """
import sys, time
import s3fs
from longbench_suite import export

url, marker, shard_size, mirror, tokenizer, cache, engine, address = sys.argv[1:]
upload = s3fs.S3FileSystem._put_file

async def upload_then_stall(self, lpath, rpath, **kwargs):
    await upload(self, lpath, rpath, **kwargs)
    if rpath.endswith(".parquet"):
        open(marker, "w").close()
        time.sleep(600)

s3fs.S3FileSystem._put_file = upload_then_stall
export(["longbench/qasper_4k"], url, max_shard_size=shard_size, mirror=mirror, tokenizer=tokenizer,
       cache_dir=cache, histogram=False, engine=engine, address=address or None)
"""


@pytest.fixture
def s3_server(monkeypatch, tmp_path):
    """A moto S3 server on loopback, in its own process, and the environment that sends s3fs there."""
    import socket
    import subprocess
    import time

    pytest.importorskip("s3fs")
    pytest.importorskip("moto.server")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            assert server.poll() is None and time.monotonic() < deadline, "the moto server did not start"
            time.sleep(0.1)
    for name, value in (
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
        ("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}"),
    ):
        monkeypatch.setenv(name, value)
    s3fs = sys.modules["s3fs"]
    s3fs.S3FileSystem.clear_instance_cache()  # fsspec keeps instances, bound to an earlier server's port
    fsspec.filesystem("s3").mkdir("exports")
    yield server
    s3fs.S3FileSystem.clear_instance_cache()
    server.kill()
    server.wait()


def _s3_files(url: str) -> dict[str, bytes]:
    fs, root = fsspec.core.url_to_fs(url, skip_instance_cache=True)  # no listing cached from before
    return {p[len(root) + 1 :]: fs.cat_file(p) for p in fs.find(root)}


def _rows_a_reader_of_the_card_gets(files: dict[str, bytes], config: str, split: str) -> int:
    """What ``datasets.load_dataset`` reads for ``config``/``split``: the card's ``data_files`` glob
    over the target's files, every matching Parquet file whole."""
    import fnmatch

    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCardData
    from huggingface_hub.repocard import RepoCard

    card = RepoCard(files["README.md"].decode("utf-8"))
    configs = MetadataConfigs.from_dataset_card_data(DatasetCardData(**card.data.to_dict()))
    (pattern,) = [f["path"] for f in configs[config]["data_files"] if f["split"] == split]
    return sum(_parquet_rows(files[name]) for name in files if fnmatch.fnmatch(name, pattern))


def _query_ids(data: bytes) -> list[str]:
    import io

    import pyarrow.parquet as pq

    return pq.read_table(io.BytesIO(data), columns=["query_id"]).column("query_id").to_pylist()


def _parquet_rows(data: bytes) -> int:
    import io

    import pyarrow.parquet as pq

    return pq.read_metadata(io.BytesIO(data)).num_rows


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["local", "ray"])
def test_an_export_killed_mid_upload_to_s3_leaves_what_the_docs_say(
    engine, s3_server, demo_mirror, tiny_tokenizer, tmp_path, request
):
    """docs/distributed.md §4, on a target in another process (a loopback S3 server): an export killed
    after its first Parquet upload leaves every uploaded file whole, and the card of before — none on a
    fresh target, so a config asked for by name is not found; over an earlier export, the old card,
    whose glob then matches the old shards and the new one (a reader gets rows twice). A rerun gives
    the bytes of a local export. With ``engine="ray"`` the killed driver's rows were built by tasks on
    a Ray cluster (a fresh cache: nothing is taken from the local builds)."""
    import signal
    import subprocess
    import time

    cache = str(tmp_path / "cache")
    options = dict(mirror=demo_mirror, tokenizer=tiny_tokenizer, cache_dir=cache, histogram=False)
    export(["longbench/qasper_4k"], str(tmp_path / "one-shard"), **options)
    export(["longbench/qasper_4k"], str(tmp_path / "shards"), max_shard_size="50KB", **options)
    one_shard, shards = snapshot(tmp_path / "one-shard"), snapshot(tmp_path / "shards")
    rows = _rows_a_reader_of_the_card_gets(shards, "qasper_4k", "eval")
    assert sum(n.startswith("qasper_4k/eval-") for n in shards) > 1 and rows > 0
    address = ""
    if engine == "ray":  # the child joins this cluster as a driver; killed, its job ends with it
        address = request.getfixturevalue("ray_cluster").get_runtime_context().gcs_address

    def killed_after_the_first_parquet(url: str) -> None:
        marker = tmp_path / f"marker-{url.rsplit('/', 1)[1]}"
        child_cache = str(tmp_path / f"cache-{url.rsplit('/', 1)[1]}") if engine == "ray" else cache
        argv = [url, str(marker), "50KB", demo_mirror, tiny_tokenizer, child_cache, engine, address]
        child = subprocess.Popen([sys.executable, "-c", UPLOAD_THEN_STALL, *argv], stderr=subprocess.PIPE)
        deadline = time.monotonic() + 300
        while not marker.exists():
            assert child.poll() is None, f"the export ended before the kill: {child.stderr.read()}"
            assert time.monotonic() < deadline, "the export never uploaded a Parquet file"
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stderr.close()

    fresh = "s3://exports/fresh"
    killed_after_the_first_parquet(fresh)
    left = _s3_files(fresh)
    assert "README.md" not in left  # no card: no config is listed
    assert [n for n in left if n.endswith(".parquet")] and all(left[n] == shards[n] for n in left)
    export(["longbench/qasper_4k"], fresh, max_shard_size="50KB", **options)
    assert _s3_files(fresh) == shards

    again = "s3://exports/again"
    export(["longbench/qasper_4k"], again, **options)
    assert _s3_files(again) == one_shard
    killed_after_the_first_parquet(again)
    left = _s3_files(again)
    assert left["README.md"] == one_shard["README.md"]  # the card of before
    (new,) = [n for n in left if n not in one_shard]
    assert left[new] == shards[new]  # one whole new shard beside the old ones
    split = new.split("/")[1].split("-")[0]
    old_rows = _rows_a_reader_of_the_card_gets(one_shard, "qasper_4k", split)
    assert _rows_a_reader_of_the_card_gets(left, "qasper_4k", split) == old_rows + _parquet_rows(left[new])
    (old_shard,) = [n for n in one_shard if n.startswith(f"qasper_4k/{split}-")]
    assert set(_query_ids(left[new])) <= set(_query_ids(left[old_shard]))  # the same rows, twice
    export(["longbench/qasper_4k"], again, max_shard_size="50KB", **options)
    assert _s3_files(again) == shards


@pytest.mark.slow
def test_a_remote_target_that_cannot_be_reached_is_one_line(s3_server, demo_mirror, tiny_tokenizer, tmp_path):
    """The S3 server gone: the export fails in one line naming the target and the endpoint, before any
    config is built."""
    from longbench_suite.errors import StorageError

    s3_server.kill()
    s3_server.wait()
    with pytest.raises(StorageError) as raised:
        export(["helmet/nq_8k"], "s3://exports/gone", mirror=demo_mirror, tokenizer=tiny_tokenizer)
    message = str(raised.value)
    assert "\n" not in message, message
    assert message.startswith("export --output s3://exports/gone: reading exports/gone failed: "), message
    assert "Could not connect to the endpoint URL" in message and os.environ["AWS_ENDPOINT_URL"] in message
