"""An unavailable Hub tokenizer (offline, unreachable, gated, missing) fails fast, in one line naming the
ways out (``--tokenizer``, ``HF_TOKEN``, ``--demo``); an unreachable Hub still serves a cached copy.

Each case runs in a fresh process: ``huggingface_hub`` reads ``HF_ENDPOINT`` and ``HF_HUB_OFFLINE`` when
imported. The loopback server stands in for the Hub (``tests/support/http_mirror.py``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.http_mirror import Fault, MirrorServer

ROOT = Path(__file__).resolve().parent.parent
REPO = "meta-llama/Llama-2-7b-hf"
#: the requirement (issue 28): one line within 2 s, where huggingface_hub alone retries for ~25 s
LIMIT_SECONDS = 2.0

LOAD = """
import sys, time
import huggingface_hub.file_download  # imported before the clock starts
from longbench_suite.errors import TokenizerLoadError
from longbench_suite.fit.tokenizers import load_tokenizer
start = time.monotonic()
try:
    result = f"loaded: {load_tokenizer(sys.argv[1]).count('river')} tokens"
except TokenizerLoadError as exc:
    result = str(exc)
print(f"{time.monotonic() - start:.3f}")
print(result)
"""


def _env(hf_home: Path, **changes: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_") and k != "PYTHONPATH"}
    return env | {"HF_HOME": str(hf_home), "PYTHONPATH": str(ROOT)} | changes


def _load(spec: str, env: dict[str, str]) -> tuple[float, str]:
    done = subprocess.run(
        [sys.executable, "-c", LOAD, spec], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seconds, result = done.stdout.split("\n", 1)
    return float(seconds), result.rstrip("\n")


def _assert_fast_one_line(seconds: float, message: str) -> None:
    assert seconds < LIMIT_SECONDS, (seconds, message)
    assert "\n" not in message
    assert message.startswith(f"cannot load tokenizer {REPO!r} from the Hugging Face Hub: ")
    for way_out in ("--tokenizer PATH", "HF_TOKEN", "--demo"):
        assert way_out in message, way_out


def test_offline_is_one_line_at_once(tmp_path):
    seconds, message = _load(REPO, _env(tmp_path, HF_HUB_OFFLINE="1"))
    _assert_fast_one_line(seconds, message)
    assert "offline (HF_HUB_OFFLINE=1)" in message


@pytest.mark.parametrize("status", [401, 403, 404])
def test_a_refusing_hub_is_one_line_after_one_request(tmp_path, status):
    path = f"{REPO}/resolve/main/tokenizer.json"
    with MirrorServer(str(tmp_path / "hub")) as hub:
        hub.faults[path] = Fault(status=status)
        seconds, message = _load(REPO, _env(tmp_path, HF_ENDPOINT=hub.url))
        asked = [request for request in hub.requests if request[1] == path]
    assert asked == [("HEAD", path)]  # asked once: a refusal is never retried
    _assert_fast_one_line(seconds, message)
    assert f"127.0.0.1:{hub.port} " in message and f"(HTTP {status}:" in message


def test_an_unreachable_hub_is_one_line_without_retries(tmp_path):
    with MirrorServer(str(tmp_path / "hub")) as hub:
        url = hub.url
    seconds, message = _load(REPO, _env(tmp_path, HF_ENDPOINT=url))  # the port is closed now
    _assert_fast_one_line(seconds, message)
    assert f"127.0.0.1:{hub.port} is unreachable" in message


def test_an_unreachable_hub_still_serves_the_cached_copy(tmp_path, tiny_tokenizer):
    """What ``huggingface_hub`` itself does: a file it downloaded before is used while the Hub is away."""
    commit = "0" * 40
    repo_cache = tmp_path / "hub" / "models--org--tok"
    snapshot = repo_cache / "snapshots" / commit
    snapshot.mkdir(parents=True)
    shutil.copy(tiny_tokenizer, snapshot / "tokenizer.json")
    (snapshot / "tokenizer_config.json").write_text('{"clean_up_tokenization_spaces": false}')
    (repo_cache / "refs").mkdir()
    (repo_cache / "refs" / "main").write_text(commit)
    with MirrorServer(str(tmp_path / "server")) as hub:
        url = hub.url
    seconds, result = _load("org/tok", _env(tmp_path, HF_ENDPOINT=url))
    assert result.startswith("loaded: "), result
    assert seconds < LIMIT_SECONDS


@pytest.mark.parametrize("hub", ["offline", "unreachable"])
def test_the_cli_says_it_in_one_line(tmp_path, hub):
    """Nothing else reaches stderr either (``huggingface_hub`` logs each retry there)."""
    env = _env(tmp_path, HF_HUB_OFFLINE="1") if hub == "offline" else _env(tmp_path, HF_ENDPOINT="http://127.0.0.1:9")
    done = subprocess.run(
        [sys.executable, "-m", "longbench_suite.cli", "build", "nq_8k", "--mirror", str(tmp_path / "none")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"longbench-suite: error: cannot load tokenizer {REPO!r}")
    assert "--tokenizer PATH" in line and "HF_TOKEN" in line and "--demo" in line


def test_an_unavailable_tiktoken_encoding_is_one_line_naming_the_ways_out(tmp_path):
    """Ada-LEval's default, cl100k_base, without its cached file and without a network (a proxy that
    refuses stands in for it): one line at once, naming --tokenizer and --demo as the Hub's does."""
    empty = tmp_path / "tiktoken"
    empty.mkdir()
    refused = "http://127.0.0.1:9"
    env = _env(tmp_path, HF_HUB_OFFLINE="1", TIKTOKEN_CACHE_DIR=str(empty), HTTPS_PROXY=refused)
    env = {k: v for k, v in env.items() if k.lower() != "no_proxy"} | {"https_proxy": refused}
    seconds, message = _load("cl100k_base", env)
    assert seconds < LIMIT_SECONDS and "\n" not in message, (seconds, message)
    assert message.startswith("cannot load tiktoken encoding 'cl100k_base': ")
    for way_out in ("TIKTOKEN_CACHE_DIR", "--tokenizer", "--demo"):
        assert way_out in message, way_out
