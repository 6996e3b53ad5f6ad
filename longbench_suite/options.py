"""The build options, in one frozen dataclass: :class:`BuildOptions`.

Every option a build takes is one field here, with its help text (the command line's, verbatim) and
how the command line reads it. Everything else follows from the fields: the entry points
(``load_dataset``, ``get_builder``, ``prepare``, ``export``, ``push``, ``mixture``, ``predict``,
``score``) take ``options=BuildOptions(...)`` and each field as a keyword; the command line's shared
build flags are made from them (:func:`add_arguments`); the builder's config carries them and its
cache identity is derived from them (:meth:`BuildOptions.config_identity`); ``predict``'s run record
serialises them. A keyword given beside ``options=`` replaces that field (:meth:`BuildOptions.of`).

This module imports nothing heavy: the command line builds its parser from it before ``datasets`` is
imported.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any

#: the hold-out's default share of ``dev`` (``holdout_fraction=``, ``--holdout-fraction``)
DEFAULT_HOLDOUT_FRACTION = 0.05
#: what ``over_length=`` may be: keep the rows whose prompt was cut to fit (the default), or skip them
OVER_LENGTH = ("truncate", "skip")


def _option(
    default: Any,
    help: str,
    *,
    cli: Mapping[str, Any] | None = None,
    path: bool = False,
    config_id: bool = False,
    where_only: bool = False,
) -> dict[str, Any]:
    """``dataclasses.field``'s keywords for a :class:`BuildOptions` field: its default and metadata,
    ``help`` (the command line's help text), ``cli`` (the flag's other ``add_argument`` keywords),
    ``path`` (names a local file or folder: recorded as an absolute path), ``config_id`` (part of the
    config's cache identity; the tokenizers and chat template enter the builder's hash by their loaded
    identity instead), ``where_only`` (says where, not what: never a contradiction between two runs)."""
    metadata = {"help": help, "cli": dict(cli or {}), "path": path, "config_id": config_id}
    return {"default": default, "metadata": {**metadata, "where_only": where_only}}


@dataclasses.dataclass(frozen=True, kw_only=True)
class BuildOptions:
    """What a build is made with besides the config's name. ``None`` (``False``) is the default."""

    demo: bool = field(
        **_option(
            False,
            "use the offline sandbox: its sample sources and, unless --tokenizer/--pretruncation-tokenizer "
            "are given, its BPE tokenizer (written on first use under --cache-dir or HF_HOME)",
            cli={"action": "store_true"},
        )
    )
    mirror: str | None = field(
        **_option(
            None,
            "mirror directory or http(s) base URL (default: $LONGBENCH_SUITE_MIRROR)",
            path=True,
            config_id=True,
        )
    )
    data_dir: str | None = field(
        **_option(
            None,
            "folder with source files you already have, in their upstream layout",
            path=True,
            config_id=True,
        )
    )
    #: a spec (``tokenizer.json`` path or folder, Hub id, tiktoken encoding, ``"words"``, ``"chars"``),
    #: a :class:`~longbench_suite.fit.tokenizers.TokenCounter` or a transformers tokenizer object
    tokenizer: Any = field(
        **_option(
            None,
            "tokenizer spec: tokenizer.json path or directory, Hub repo id, tiktoken encoding, 'words' or "
            "'chars' (default: the benchmark's own, e.g. meta-llama/Llama-2-7b-hf)",
            path=True,
        )
    )
    #: as ``tokenizer``
    pretruncation_tokenizer: Any = field(
        **_option(
            None,
            "tokenizer that pre-cuts documents before rendering, for tasks with that step (HELMET's "
            "long-document tasks; default meta-llama/Llama-2-7b-hf whatever --tokenizer is)",
            path=True,
        )
    )
    max_input_tokens: int | None = field(
        **_option(None, "cut every input to this many tokens", cli={"type": int}, config_id=True)
    )
    #: ``"tokenizer"``, a built-in name, a file, Jinja text, or a
    #: :class:`~longbench_suite.fit.chat.ChatTemplate`
    chat_template: Any = field(
        **_option(
            None,
            "fit chat-mode rows under this chat template, as HELMET does: 'tokenizer' (the tokenizer's "
            "own), a built-in name (llama-2-chat, chatml), a .jinja file or a tokenizer_config.json",
            path=True,
        )
    )
    cache_dir: str | None = field(
        **_option(
            None,
            "datasets cache directory (default: the Hugging Face datasets cache)",
            path=True,
            where_only=True,
        )
    )
    generate: Mapping[str, Any] | None = field(
        **_option(
            None,
            "an option of the generated gen_* configs, repeatable: seed=7, rows=100, haystack=noise, "
            "recipe=ruler, essay=PATH (docs/generate.md)",
            cli={"action": "append", "default": [], "metavar": "KEY=VALUE", "parse": "generate_options"},
            config_id=True,
        )
    )

    def __post_init__(self) -> None:
        if self.generate is not None:  # a copy: the caller's dict may change after
            object.__setattr__(self, "generate", dict(self.generate) or None)

    @classmethod
    def of(cls, options: BuildOptions | None = None, /, **keywords: Any) -> BuildOptions:
        """``options`` (default: all defaults) with each keyword given replacing that field; a keyword
        that is no build option is a ``TypeError``, as for any function."""
        unknown = sorted(set(keywords) - set(NAMES))
        if unknown:
            raise TypeError(f"unexpected build option{'s' * (len(unknown) > 1)}: {', '.join(unknown)}")
        if options is not None and not isinstance(options, BuildOptions):
            raise TypeError(f"options= takes a BuildOptions, got {type(options).__name__}")
        base = options if options is not None else cls()
        return dataclasses.replace(base, **keywords) if keywords else base

    def replace(self, **changes: Any) -> BuildOptions:
        return dataclasses.replace(self, **changes)

    def items(self) -> list[tuple[str, Any]]:
        """Every field and its value, in declaration order (the values themselves, not copies)."""
        return [(name, getattr(self, name)) for name in NAMES]

    def given(self) -> dict[str, Any]:
        """The fields that are not at their default (``None``, ``False``, an empty ``generate``)."""
        return {name: value for name, value in self.items() if value is not None and value is not False}

    def config_identity(self) -> dict[str, Any]:
        """What, besides the config's name, identifies its cache entry: the options that change the rows
        and are not loaded objects (``data_dir``, ``mirror``, ``max_input_tokens``, ``generate``), as the
        builder's config holds them; a local path absolute, an essay file by path, size and mtime."""
        from .source import local_identity

        identity = {
            name: value for name, value in self.items() if value is not None and _meta(name)["config_id"]
        }
        if "generate" in identity:
            generate = dict(identity["generate"])
            essay = generate.get("essay")
            if isinstance(essay, str) and os.path.isfile(essay):
                # the file is read, not named: an edited essay makes new rows
                generate["essay"] = (os.path.abspath(essay), local_identity([os.path.abspath(essay)]))
            identity["generate"] = sorted(generate.items())
        if "data_dir" in identity:
            identity["data_dir"] = os.path.normpath(os.path.abspath(identity["data_dir"]))
        return identity


#: the build options' names, in declaration order (the order of the command line's flags)
NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(BuildOptions))
_FIELDS = {f.name: f for f in dataclasses.fields(BuildOptions)}


def _meta(name: str) -> Mapping[str, Any]:
    return _FIELDS[name].metadata


def help_text(name: str) -> str:
    """The help text of build option ``name``."""
    return _meta(name)["help"]


def path_options() -> tuple[str, ...]:
    """The options that name a local file or folder."""
    return tuple(name for name in NAMES if _meta(name)["path"])


def where_only_options() -> tuple[str, ...]:
    """The options that say where a build goes, not what it holds."""
    return tuple(name for name in NAMES if _meta(name)["where_only"])


def split_keywords(keywords: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``keywords`` as (the build options among them, the rest)."""
    build = {k: v for k, v in keywords.items() if k in _FIELDS}
    return build, {k: v for k, v in keywords.items() if k not in _FIELDS}


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_arguments(parser: argparse.ArgumentParser, names: Sequence[str] = NAMES) -> None:
    """The command-line flags of build options ``names`` (all by default), one per field."""
    for name in names:
        cli = {k: v for k, v in _meta(name)["cli"].items() if k != "parse"}
        parser.add_argument(flag(name), help=help_text(name), **cli)


def from_arguments(args: argparse.Namespace) -> BuildOptions:
    """The build options parsed by :func:`add_arguments`."""
    values = {}
    for name in NAMES:
        value = getattr(args, name)
        parse = _meta(name)["cli"].get("parse")
        values[name] = _PARSERS[parse](value) if parse else value
    return BuildOptions(**values)


def generate_options(pairs: Sequence[str]) -> dict | None:
    """``--generate KEY=VALUE`` pairs as the ``generate`` option: numbers and ``null`` as JSON reads them,
    anything else as text."""
    from .errors import OptionError

    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise OptionError(f"--generate {pair!r}: expected KEY=VALUE, e.g. --generate seed=7")
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        options[key] = parsed if parsed is None or isinstance(parsed, int | float) else value
    return options or None


_PARSERS = {"generate_options": generate_options}


def mirror_identity(mirror: str | None) -> str | None:
    """The mirror a build reads from, as its cache identity: ``$LONGBENCH_SUITE_MIRROR`` when none is
    given, and a local directory as an absolute path (a relative one means another mirror in another
    working directory, so it must not reuse that one's build)."""
    from .source import MIRROR_ENV

    mirror = mirror if mirror is not None else (os.environ.get(MIRROR_ENV) or None)
    if mirror and not mirror.startswith(("http://", "https://")):
        return os.path.normpath(os.path.abspath(mirror))
    return mirror
