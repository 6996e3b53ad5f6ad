"""The ``openai`` client behind every endpoint the library calls: predictions, the LLM judges and
ALCE's NLI judge. One place for the key rule and the missing-package message."""

from __future__ import annotations

import importlib
import os

from .errors import MissingDependencyError


def openai_client(base_url: str | None, api_key: str | None, purpose: str, **options):
    """An ``openai.OpenAI`` client for OpenAI itself (``base_url=None``) or an OpenAI-compatible server.

    Without ``base_url`` the client reads ``OPENAI_API_KEY`` itself. A local server takes any key, but
    the client refuses to start without one, so it gets ``api_key``, else ``$OPENAI_API_KEY``, else
    ``"EMPTY"``. ``options`` go to the client (``max_retries``, ``timeout``).
    """
    try:
        openai = importlib.import_module("openai")
    except ImportError:
        raise MissingDependencyError(
            f"{purpose} needs the package 'openai', which is not installed; "
            "install the predict extra: pip install 'longbench-suite[predict]'"
        ) from None
    if base_url is None:
        return openai.OpenAI(api_key=api_key, **options) if api_key else openai.OpenAI(**options)
    key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
    return openai.OpenAI(base_url=base_url, api_key=key, **options)
