"""Backends that answer :class:`~.requests.Request` s: any OpenAI-compatible server, through the
``openai`` client (whose own retry machinery handles 429, 5xx, timeouts and dropped connections,
honouring ``Retry-After``)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Protocol

from ..endpoint import openai_client
from ..errors import GenerationError, MissingDependencyError, describe
from .requests import Request

EXTRA = "predict"


def optional_import(module: str, purpose: str, extra: str = EXTRA):
    """Import a dependency of ``predict`` or raise a :class:`MissingDependencyError`."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependencyError(
            f"{purpose} needs the package {module!r}, which is not installed; "
            f"install the {extra} extra: pip install 'longbench-suite[{extra}]'"
        ) from None


@dataclass(frozen=True)
class Reply:
    """A model's answer to one request: the text (stop string excluded), and how many tokens it took
    (``None`` where the backend does not say)."""

    text: str
    tokens: int | None = None
    finish_reason: str | None = None


class Backend(Protocol):
    """Anything that turns a request into a reply; ``concurrency`` is how many calls may run at once."""

    name: str
    concurrency: int

    def generate(self, request: Request) -> Reply: ...


class OpenAIBackend:
    """An OpenAI-compatible server (vLLM, SGLang, TGI, llama.cpp's server, OpenAI): chat rows go to
    ``/chat/completions`` as the user turn, completion rows to ``/completions``."""

    def __init__(
        self,
        endpoint: str,
        model: str,
        *,
        api_key: str | None = None,
        concurrency: int = 8,
        max_retries: int = 8,
        timeout: float = 600.0,
    ) -> None:
        openai = optional_import("openai", "an OpenAI-compatible backend")
        self.name = f"{model} at {endpoint}"
        self.model = model
        self.endpoint = endpoint
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.client = openai_client(
            endpoint, api_key, "an OpenAI-compatible backend", max_retries=max_retries, timeout=timeout
        )
        self._errors = (openai.APIError,)

    def _arguments(self, request: Request) -> dict:
        g = request.generation
        arguments: dict = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "temperature": g.temperature,
            "top_p": g.top_p,
        }
        if g.stop:
            arguments["stop"] = list(g.stop)
        if g.seed is not None:
            arguments["seed"] = g.seed
        return arguments

    def generate(self, request: Request) -> Reply:
        where = f"{self.endpoint}: {request.where}"
        try:
            if request.chat:
                response = self.client.chat.completions.create(
                    messages=request.messages(), **self._arguments(request)
                )
            else:
                response = self.client.completions.create(prompt=request.prompt, **self._arguments(request))
        except self._errors as exc:
            retries = f"up to {self.max_retries}, with backoff: --max-retries"
            raise GenerationError(f"{where} failed after retries ({retries}): {describe(exc)}") from None
        except ValueError as exc:  # a 200 whose body is not JSON (the client parses it, retrying nothing)
            raise GenerationError(f"{where}: the server's reply is not JSON ({describe(exc)})") from None
        choices = getattr(response, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise GenerationError(f"{where}: the server's reply has no 'choices' (a 200 without an answer)")
        choice = choices[0]
        holder = getattr(choice, "message", None) if request.chat else choice
        text = getattr(holder, "content" if request.chat else "text", None)
        if text is not None and not isinstance(text, str):
            raise GenerationError(f"{where}: the server's reply has a {type(text).__name__} as its text")
        usage = getattr(response, "usage", None)
        tokens = getattr(usage, "completion_tokens", None) if usage is not None else None
        return Reply(text=text or "", tokens=tokens, finish_reason=getattr(choice, "finish_reason", None))
