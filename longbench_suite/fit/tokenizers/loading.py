"""Turning a tokenizer spec (a name, a path, a Hub repo id, or an object) into a
:class:`~.base.TokenCounter`, loaded once per process (see the package docstring for the specs)."""

from __future__ import annotations

import functools
import json
import os
import re

from ...errors import MissingDependencyError, TokenizerLoadError
from ..hub import TOKENIZER_CONFIG, fetch_tokenizer_files
from .base import TokenCounter
from .hf import HFTokenizer
from .tiktoken_counter import TiktokenCounter, tiktoken_encoding, tiktoken_names
from .units import CharCounter, WordCounter


def clean_up_setting(config_path: str | None) -> bool:
    """The ``clean_up_tokenization_spaces`` a ``tokenizer_config.json`` sets (true when it sets none
    or there is no such file, transformers 4's default)."""
    if config_path is None or not os.path.isfile(config_path):
        return True
    try:
        with open(config_path, encoding="utf-8") as handle:
            config = json.load(handle)
    except (OSError, ValueError) as exc:
        raise TokenizerLoadError(f"cannot read {config_path}: {exc}") from None
    value = config.get("clean_up_tokenization_spaces", True) if isinstance(config, dict) else None
    if not isinstance(value, bool):
        raise TokenizerLoadError(
            f"{config_path}: 'clean_up_tokenization_spaces' must be true or false, got {value!r}"
        )
    return value


def _from_tokenizer_json(
    path: str, name: str, config_path: str | None, clean_up: bool | None = None
) -> HFTokenizer:
    """The tokenizer in ``path``, decoding with the clean-up its ``config_path`` sets (None: no config),
    or with ``clean_up`` where given."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise MissingDependencyError(
            f"tokenizer {name!r} is a tokenizer.json, which needs the tokenizers package: "
            "pip install tokenizers"
        ) from None
    try:
        tokenizer = Tokenizer.from_file(path)
    except Exception as exc:
        raise TokenizerLoadError(f"cannot load tokenizer {name!r} from {path}: {exc}") from None
    if clean_up is None:
        clean_up = clean_up_setting(config_path)
    return HFTokenizer(tokenizer, name=name, clean_up_tokenization_spaces=clean_up)


def _from_hub(repo: str) -> HFTokenizer:
    path, config_path = fetch_tokenizer_files(repo)
    return _from_tokenizer_json(path, repo, config_path)


@functools.lru_cache(maxsize=16)
def _load_file(path: str, name: str, version: tuple, clean_up: bool | None = None) -> HFTokenizer:
    # ``version`` (size, mtime of tokenizer.json and of its config) is part of the key, so a file
    # rewritten in place is reloaded. ``clean_up``: a transformers object's own setting (None: the
    # config's beside the file).
    return _from_tokenizer_json(path, name, os.path.join(os.path.dirname(path), TOKENIZER_CONFIG), clean_up)


def _file_version(path: str) -> tuple:
    config = os.path.join(os.path.dirname(path), TOKENIZER_CONFIG)
    stats = [os.stat(p) for p in (path, config) if os.path.exists(p)]
    return tuple((s.st_size, s.st_mtime_ns) for s in stats)


@functools.lru_cache(maxsize=16)
def _load_named(spec: str) -> TokenCounter:
    if spec == "words":
        return WordCounter()
    if spec == "chars":
        return CharCounter()
    if spec.startswith("tiktoken:"):
        return TiktokenCounter(tiktoken_encoding(spec.split(":", 1)[1]))
    if "/" not in spec:
        try:
            known = tiktoken_names()
        except MissingDependencyError:
            raise MissingDependencyError(
                f"cannot load tokenizer {spec!r}: it is no file, Hub repo id, 'words' or 'chars', and "
                "tiktoken encodings (such as cl100k_base, Ada-LEval's default) need the tiktoken package, "
                "which is not installed: pip install tiktoken"
            ) from None
        if spec in known:
            return TiktokenCounter(tiktoken_encoding(spec))
    if re.fullmatch(r"[\w.-]+/[\w.-]+(@[\w./-]+)?", spec) and not spec.startswith((".", "/")):
        return _from_hub(spec)
    raise TokenizerLoadError(
        f"cannot load tokenizer {spec!r}: it is not 'words', 'chars', a tiktoken encoding, an existing "
        "tokenizer.json file or directory, or a Hub repo id"
    )


def load_tokenizer(spec: str | TokenCounter | object) -> TokenCounter:
    """Turn a tokenizer spec (see the module docstring) into a :class:`TokenCounter`."""
    if isinstance(spec, TokenCounter):
        return spec
    if isinstance(spec, str):
        if not spec.strip():
            raise TokenizerLoadError("cannot load tokenizer '': the spec is empty")
        path = spec
        if os.path.isdir(spec):
            path = os.path.join(spec, "tokenizer.json")
            if not os.path.isfile(path):
                raise TokenizerLoadError(
                    f"cannot load tokenizer {spec!r}: the directory has no tokenizer.json"
                )
        if os.path.isfile(path):
            return _load_file(path, spec, _file_version(path))
        return _load_named(spec)
    if type(spec).__module__.startswith("tokenizers") and hasattr(spec, "encode_batch"):
        return HFTokenizer(spec, name=f"tokenizers.Tokenizer<{id(spec):x}>")
    if is_transformers_tokenizer(spec):
        return _from_transformers(spec)
    if type(spec).__module__.startswith("tiktoken") and hasattr(spec, "encode_ordinary"):
        if spec.name not in tiktoken_names():  # its identity and worker copies go by its name
            raise TokenizerLoadError(
                f"cannot count with the tiktoken encoding {spec.name!r}: it is not one tiktoken names; "
                "pass a registered one (or its name, e.g. 'cl100k_base')"
            )
        return TiktokenCounter(spec)
    raise TokenizerLoadError(
        f"cannot load tokenizer: unsupported type {type(spec).__name__}; pass a tokenizer.json path or "
        "folder, a Hub repo id, a tiktoken encoding or its name, 'words' or 'chars', or a tokenizers/"
        "transformers tokenizer"
    )


#: transformers' generic fast-tokenizer classes: their ``backend_tokenizer`` is the ``tokenizer.json``
#: pipeline as written (``PreTrainedTokenizerFast`` is an alias of ``TokenizersBackend`` in transformers 5)
_GENERIC_FAST = ("TokenizersBackend", "PreTrainedTokenizerFast")


def is_transformers_tokenizer(spec: object) -> bool:
    """Whether ``spec`` is a transformers tokenizer (checked without importing transformers)."""
    return any(
        cls.__name__ == "PreTrainedTokenizerBase" and cls.__module__.startswith("transformers.")
        for cls in type(spec).__mro__
    )


def _from_transformers(tokenizer) -> HFTokenizer:
    """A transformers tokenizer object, counted with the ``tokenizer.json`` pipeline (module docstring)."""
    kind = type(tokenizer).__name__
    origin = getattr(tokenizer, "name_or_path", "") or ""
    name = origin or f"{kind}<{id(tokenizer):x}>"
    clean_up = getattr(tokenizer, "clean_up_tokenization_spaces", True)
    clean_up = clean_up if isinstance(clean_up, bool) else True
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if kind in _GENERIC_FAST and backend is not None:
        return _from_json_text(backend.to_str(), name, clean_up)
    path = tokenizer_json_of(origin)
    if path is None:
        raise TokenizerLoadError(
            f"cannot count with the {kind} object: transformers builds its pipeline itself, and no "
            f"tokenizer.json it was loaded from is found{f' at {origin!r}' if origin else ''}; "
            "pass tokenizer=PATH (a folder holding tokenizer.json) or a Hub repo id instead"
        )
    return _load_file(path, name, _file_version(path), clean_up)


def tokenizer_json_of(origin: str) -> str | None:
    """The ``tokenizer.json`` a transformers tokenizer was loaded from: in the folder ``origin``, or the
    Hub repo ``origin``'s copy in the Hugging Face cache (never downloaded here); ``None`` if none."""
    if not origin:
        return None
    if os.path.isdir(origin):
        path = os.path.join(origin, "tokenizer.json")
        return path if os.path.isfile(path) else None
    if origin.endswith("tokenizer.json") and os.path.isfile(origin):
        return origin
    if re.fullmatch(r"[\w.-]+/[\w.-]+", origin) and not origin.startswith("."):
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(origin, "tokenizer.json")
        return cached if isinstance(cached, str) else None
    return None


@functools.lru_cache(maxsize=16)
def _from_json_text(json_text: str, name: str, clean_up_tokenization_spaces: bool) -> HFTokenizer:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(json_text)
    tokenizer.no_truncation()  # transformers sets these per call; counting never pads or truncates
    tokenizer.no_padding()
    return HFTokenizer(tokenizer, name=name, clean_up_tokenization_spaces=clean_up_tokenization_spaces)
