"""One interface over every way upstream benchmarks count tokens.

A *tokenizer spec* is one of

* ``"words"`` — whitespace words (``str.split``), the unit of LongBench's and LV-Eval's ``length``;
* ``"chars"`` — Unicode code points, the unit of their Chinese lengths;
* a tiktoken encoding name (``"cl100k_base"``, Ada-LEval's unit), optionally as ``"tiktoken:NAME"``;
* a path to a ``tokenizer.json`` file, or to a directory holding one;
* a Hugging Face Hub repo id (``"meta-llama/Llama-2-7b-hf"``, optionally ``"org/name@revision"``),
  whose ``tokenizer.json`` is fetched through ``huggingface_hub`` (honours ``HF_TOKEN``/offline mode);
* an object: a :class:`TokenCounter`, or a ``tokenizers.Tokenizer``.

Hugging Face tokenizers are loaded with ``tokenizers.Tokenizer`` from ``tokenizer.json`` and never
through transformers' ``LlamaTokenizer``: transformers 5 tokenizes Llama-2 differently at leading
spaces, while the raw ``tokenizer.json`` pipeline reproduces what upstream ran (``ecosystem.md`` §5.1).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import InvalidTextError, MissingDependencyError, TokenizerLoadError, first_lone_surrogate

_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Encoding:
    """Token ids with the character span of each token in the encoded text.

    ``leading_specials``/``trailing_specials`` count the special tokens (e.g. Llama's BOS) that the
    tokenizer added around the text; their spans are empty.
    """

    ids: Sequence[int]
    offsets: Sequence[tuple[int, int]]
    leading_specials: int = 0
    trailing_specials: int = 0

    def __len__(self) -> int:
        return len(self.ids)


class TokenCounter(ABC):
    """Counts, encodes and decodes text for one tokenizer.

    ``identity`` is a stable string that changes whenever the tokenization could change; it goes
    into the cache hash of every built dataset.
    """

    name: str
    identity: str
    #: True when no token can contain a line break, so text on either side of one tokenizes alone
    splits_at_newlines: bool = False

    @abstractmethod
    def encode(self, text: str, *, special: bool = True) -> Encoding:
        """Tokenize ``text``; ``special`` adds the tokenizer's special tokens as upstream does by default."""

    def count(self, text: str, *, special: bool = True) -> int:
        return len(self.encode(text, special=special))

    def count_batch(self, texts: Sequence[str], *, special: bool = True) -> list[int]:
        self._refuse_invalid(texts)
        return [self.count(t, special=special) for t in texts]

    def decode_span(self, text: str, encoding: Encoding, start: int, stop: int) -> str:
        """The text of tokens ``start:stop`` of ``encoding`` (an encoding of ``text``).

        Model tokenizers decode the ids, skipping special tokens, as LongBench's and LV-Eval's middle
        truncation does; word and character counters return the original characters.
        """
        spans = [s for s in encoding.offsets[start:stop] if s[1] > s[0]]
        if not spans:
            return ""
        return text[spans[0][0] : spans[-1][1]]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def _refuse_invalid(self, texts: Sequence[str]) -> None:
        """Raise :class:`InvalidTextError` if a text holds a lone surrogate, which no tokenizer can encode."""
        for n, text in enumerate(texts):
            at = first_lone_surrogate(text) if isinstance(text, str) else None
            if at is not None:
                which = f"text {n} of the batch" if len(texts) > 1 else "the text"
                raise InvalidTextError(
                    f"{which} holds a lone surrogate {text[at]!r} at character {at}, which {self.name} "
                    "cannot encode (invalid Unicode, e.g. a '\\ud800' escape in a JSON source)"
                )


class WordCounter(TokenCounter):
    """Whitespace-separated words, exactly ``str.split()``."""

    name = identity = "words"
    splits_at_newlines = True

    def encode(self, text: str, *, special: bool = True) -> Encoding:
        self._refuse_invalid([text])
        spans = [m.span() for m in _WORD.finditer(text)]
        return Encoding(ids=list(range(len(spans))), offsets=spans)

    def count(self, text: str, *, special: bool = True) -> int:
        self._refuse_invalid([text])
        return len(text.split())


class CharCounter(TokenCounter):
    """Unicode code points (the unit of upstream Chinese lengths)."""

    name = identity = "chars"
    splits_at_newlines = True

    def encode(self, text: str, *, special: bool = True) -> Encoding:
        self._refuse_invalid([text])
        return Encoding(ids=[ord(c) for c in text], offsets=[(i, i + 1) for i in range(len(text))])

    def count(self, text: str, *, special: bool = True) -> int:
        self._refuse_invalid([text])
        return len(text)


class HFTokenizer(TokenCounter):
    """A ``tokenizers.Tokenizer`` (the pipeline of a ``tokenizer.json``)."""

    def __init__(self, tokenizer, name: str) -> None:
        self._tok = tokenizer
        self.name = name
        self.identity = (
            "tokenizer.json:" + hashlib.sha256(tokenizer.to_str().encode("utf-8")).hexdigest()[:32]
        )
        self.splits_at_newlines = _no_token_spans_newlines(tokenizer)

    @property
    def backend(self):
        return self._tok

    def encode(self, text: str, *, special: bool = True) -> Encoding:
        try:
            enc = self._tok.encode(text, add_special_tokens=special)
        except TypeError:  # what tokenizers raises for a str it cannot convert
            self._refuse_invalid([text])
            raise
        mask = enc.special_tokens_mask
        lead = 0
        while lead < len(mask) and mask[lead]:
            lead += 1
        trail = 0
        while trail < len(mask) - lead and mask[len(mask) - 1 - trail]:
            trail += 1
        return Encoding(ids=enc.ids, offsets=enc.offsets, leading_specials=lead, trailing_specials=trail)

    def count_batch(self, texts: Sequence[str], *, special: bool = True) -> list[int]:
        # encode_batch_fast skips offsets and runs on all cores.
        try:
            encodings = self._tok.encode_batch_fast(list(texts), add_special_tokens=special)
        except TypeError:
            self._refuse_invalid(texts)
            raise
        return [len(e.ids) for e in encodings]

    def decode_span(self, text: str, encoding: Encoding, start: int, stop: int) -> str:
        return self._tok.decode(list(encoding.ids[start:stop]), skip_special_tokens=True)

    def __getstate__(self):
        return {"json": self._tok.to_str(), "name": self.name, "identity": self.identity}

    def __setstate__(self, state):
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_str(state["json"])
        self.name, self.identity = state["name"], state["identity"]
        self.splits_at_newlines = _no_token_spans_newlines(self._tok)


def _no_token_spans_newlines(tokenizer) -> bool:
    """No vocabulary entry holds a line break together with anything else.

    A line break is then its own (byte) token, and BPE merges never cross one. Byte-level
    vocabularies spell the line-break byte ``Ċ``; SentencePiece byte fallback spells it ``<0x0A>``.
    """
    for token in tokenizer.get_vocab(with_added_tokens=True):
        if ("\n" in token or "Ċ" in token) and token not in ("\n", "Ċ"):
            return False
    return True


class TiktokenCounter(TokenCounter):
    """A tiktoken encoding; special-token text is encoded as ordinary text (no specials are added)."""

    def __init__(self, encoding) -> None:
        self._enc = encoding
        self.name = encoding.name
        self.identity = "tiktoken:" + encoding.name

    # tiktoken silently replaces lone surrogates, so texts are checked before they are counted.

    def encode(self, text: str, *, special: bool = True) -> Encoding:
        self._refuse_invalid([text])
        ids = self._enc.encode_ordinary(text)
        if not ids:
            return Encoding(ids=[], offsets=[])
        _decoded, starts = self._enc.decode_with_offsets(ids)
        ends = [*starts[1:], len(text)]
        return Encoding(ids=ids, offsets=list(zip(starts, ends, strict=True)))

    def count(self, text: str, *, special: bool = True) -> int:
        self._refuse_invalid([text])
        return len(self._enc.encode_ordinary(text))

    def count_batch(self, texts: Sequence[str], *, special: bool = True) -> list[int]:
        self._refuse_invalid(texts)
        return [
            len(ids) for ids in self._enc.encode_ordinary_batch(list(texts), num_threads=os.cpu_count() or 1)
        ]

    def decode_span(self, text: str, encoding: Encoding, start: int, stop: int) -> str:
        return self._enc.decode(list(encoding.ids[start:stop]))

    def __getstate__(self):
        return {"name": self.name}

    def __setstate__(self, state):
        self.__init__(_tiktoken_encoding(state["name"]))


def _tiktoken():
    try:
        import tiktoken
    except ImportError:
        raise MissingDependencyError(
            "tiktoken encodings (such as cl100k_base, Ada-LEval's default tokenizer) need the tiktoken "
            "package: pip install tiktoken"
        ) from None
    return tiktoken


def _tiktoken_encoding(name: str):
    tiktoken = _tiktoken()
    try:
        return tiktoken.get_encoding(name)
    except Exception as exc:  # network failures surface as many different types
        raise TokenizerLoadError(
            f"cannot load tiktoken encoding {name!r}: {exc.__class__.__name__}: {exc}. tiktoken downloads "
            "the encoding on first use; offline, point TIKTOKEN_CACHE_DIR at a folder holding its cached file"
        ) from None


def _tiktoken_names() -> set[str]:
    return set(_tiktoken().list_encoding_names())


def _from_tokenizer_json(path: str, name: str) -> HFTokenizer:
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise MissingDependencyError(
            f"tokenizer {name!r} is a tokenizer.json, which needs the tokenizers package: "
            "pip install tokenizers"
        ) from None
    try:
        return HFTokenizer(Tokenizer.from_file(path), name=name)
    except Exception as exc:
        raise TokenizerLoadError(f"cannot load tokenizer {name!r} from {path}: {exc}") from None


def _from_hub(repo: str) -> HFTokenizer:
    from huggingface_hub import hf_hub_download

    repo_id, _, revision = repo.partition("@")
    try:
        path = hf_hub_download(repo_id, "tokenizer.json", revision=revision or None)
    except Exception as exc:
        hint = ""
        if repo_id.startswith("meta-llama/"):
            hint = " (a gated repo: accept its licence on the Hub and set HF_TOKEN, or pass tokenizer=PATH)"
        raise TokenizerLoadError(
            f"cannot load tokenizer {repo!r} from the Hugging Face Hub{hint}: {exc.__class__.__name__}: {exc}"
        ) from None
    return _from_tokenizer_json(path, name=repo)


@functools.lru_cache(maxsize=16)
def _load_file(path: str, name: str, version: tuple[int, int]) -> HFTokenizer:
    # ``version`` (size, mtime) is part of the key, so a tokenizer.json rewritten in place is reloaded.
    return _from_tokenizer_json(path, name=name)


def _file_version(path: str) -> tuple[int, int]:
    stat = os.stat(path)
    return stat.st_size, stat.st_mtime_ns


@functools.lru_cache(maxsize=16)
def _load_named(spec: str) -> TokenCounter:
    if spec == "words":
        return WordCounter()
    if spec == "chars":
        return CharCounter()
    if spec.startswith("tiktoken:"):
        return TiktokenCounter(_tiktoken_encoding(spec.split(":", 1)[1]))
    if "/" not in spec:
        try:
            tiktoken_names = _tiktoken_names()
        except MissingDependencyError:
            raise MissingDependencyError(
                f"cannot load tokenizer {spec!r}: it is no file, Hub repo id, 'words' or 'chars', and "
                "tiktoken encodings (such as cl100k_base, Ada-LEval's default) need the tiktoken package, "
                "which is not installed: pip install tiktoken"
            ) from None
        if spec in tiktoken_names:
            return TiktokenCounter(_tiktoken_encoding(spec))
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
    raise TokenizerLoadError(f"cannot load tokenizer {spec!r}: unsupported type {type(spec).__name__}")
