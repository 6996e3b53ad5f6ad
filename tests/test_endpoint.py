"""One client rule for every endpoint (predictions, the LLM judge, ALCE's NLI judge), and missing
optional packages named with the extra that installs them."""

from __future__ import annotations

import sys
from types import SimpleNamespace
from typing import ClassVar

import pytest

from longbench_suite.benchmarks.helmet.judge import OpenAIJudge
from longbench_suite.benchmarks.helmet.metrics_alce import EndpointNLIJudge
from longbench_suite.endpoint import openai_client
from longbench_suite.errors import MissingDependencyError
from longbench_suite.metrics.base import optional_import as metrics_import
from longbench_suite.predict.backends import OpenAIBackend
from longbench_suite.predict.backends import optional_import as predict_import


def test_a_local_server_gets_the_given_key_else_the_environment_s_else_a_placeholder(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert openai_client("http://127.0.0.1:9/v1", None, "x").api_key == "EMPTY"
    assert openai_client("http://127.0.0.1:9/v1", "sk-given", "x").api_key == "sk-given"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    client = openai_client("http://127.0.0.1:9/v1", None, "x", max_retries=3, timeout=5.0)
    assert (client.api_key, client.max_retries, client.timeout) == ("sk-env", 3, 5.0)
    assert str(client.base_url).startswith("http://127.0.0.1:9/v1")


def test_openai_itself_reads_its_own_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert openai_client(None, None, "x").api_key == "sk-env"
    assert openai_client(None, "sk-given", "x").api_key == "sk-given"
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(Exception, match="api_key"):  # OpenAI's own refusal, no placeholder for OpenAI
        openai_client(None, None, "x")


class _Recorded:
    """Stands in for ``openai.OpenAI``: keeps its arguments, answers every request with "1"."""

    built: ClassVar[list[dict]] = []

    def __init__(self, **kwargs):
        self.built.append(kwargs)
        reply = SimpleNamespace(text="1", message=SimpleNamespace(content="1"))
        answer = SimpleNamespace(create=lambda **_: SimpleNamespace(choices=[reply]))
        self.completions = answer
        self.chat = SimpleNamespace(completions=answer)


def test_every_endpoint_user_builds_its_client_the_same_way(monkeypatch):
    import openai

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(openai, "OpenAI", _Recorded)
    _Recorded.built.clear()
    OpenAIBackend("http://127.0.0.1:9/v1", "m")
    assert EndpointNLIJudge(model="m", base_url="http://127.0.0.1:9/v1")("premise", "hypothesis") is True
    assert OpenAIJudge(base_url="http://127.0.0.1:9/v1")("prompt", 5) == "1"
    built = [(b["base_url"], b["api_key"]) for b in _Recorded.built]
    assert built == [("http://127.0.0.1:9/v1", "EMPTY")] * 3


def test_a_missing_openai_names_the_predict_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "openai", None)
    wanted = r"the GPT-4o judge needs the package 'openai'.*\[predict\]"
    with pytest.raises(MissingDependencyError, match=wanted):
        openai_client(None, None, "the GPT-4o judge")
    with pytest.raises(MissingDependencyError, match=r"\[predict\]"):
        OpenAIBackend("http://127.0.0.1:9/v1", "m")


def test_missing_packages_name_the_extra_that_installs_them(monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(MissingDependencyError, match=r"longbench-suite\[transformers\]"):
        predict_import("transformers", "the transformers backend", "transformers")
    with pytest.raises(MissingDependencyError, match=r"longbench-suite\[transformers\]"):
        metrics_import("transformers", "transformers", "the T5 NLI citation judge", "transformers")
    monkeypatch.setitem(sys.modules, "jieba", None)
    with pytest.raises(MissingDependencyError, match=r"longbench-suite\[metrics\]"):
        metrics_import("jieba", "jieba", "Chinese tokenisation (jieba)")
