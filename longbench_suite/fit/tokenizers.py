"""One interface over every way upstream benchmarks count tokens.

A *tokenizer spec* is one of

* ``"words"`` — whitespace words (``str.split``), the unit of LongBench's and LV-Eval's ``length``;
* ``"chars"`` — Unicode code points, the unit of their Chinese lengths;
* a tiktoken encoding name (``"cl100k_base"``, Ada-LEval's unit), optionally as ``"tiktoken:NAME"``;
* a path to a ``tokenizer.json`` file, or to a directory holding one;
* a Hugging Face Hub repo id (``"meta-llama/Llama-2-7b-hf"``, optionally ``"org/name@revision"``),
  whose ``tokenizer.json`` is fetched through ``huggingface_hub`` (honours ``HF_TOKEN``/offline mode);
* an object: a :class:`TokenCounter`, a ``tokenizers.Tokenizer``, a tiktoken encoding that tiktoken
  names (``tiktoken.get_encoding("cl100k_base")``), or a transformers tokenizer
  (``AutoTokenizer.from_pretrained(path)``, what training scripts hold).

Hugging Face tokenizers are loaded with ``tokenizers.Tokenizer`` from ``tokenizer.json`` and never
through transformers' ``LlamaTokenizer``: transformers 5 tokenizes Llama-2 differently at leading
spaces, while the raw ``tokenizer.json`` pipeline reproduces what upstream ran (``docs/ecosystem.md`` §5.1).
A transformers tokenizer object is counted with that same pipeline (:func:`_from_transformers`): a
generic fast tokenizer's ``backend_tokenizer`` (its ``tokenizer.json``, verbatim), or, for a
model-specific class such as ``LlamaTokenizer`` whose pipeline transformers 5 rebuilds, the
``tokenizer.json`` it was loaded from; the object's own ``clean_up_tokenization_spaces`` decides decoding.
Decoding (the middle cut) honours the ``clean_up_tokenization_spaces`` of the ``tokenizer_config.json``
beside it, true where the config does not set it, as in the transformers 4 releases upstream pins
(``docs/ecosystem.md`` §5.4).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import hashlib
import itertools
import json
import os
import re
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import (
    InvalidTextError,
    MissingDependencyError,
    TokenizerLoadError,
    TokenizerMismatchError,
    first_lone_surrogate,
)
from ..memo import LRU, text_length
from .fastcount import ENV as FASTOKENS_ENV
from .fastcount import exact_counter
from .hub import TOKENIZER_CONFIG, fetch_tokenizer_files

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

    def clear_cache(self) -> None:  # noqa: B027 (most counters remember nothing)
        """Forget remembered results (benchmarks call this between timed repeats)."""

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
    """A ``tokenizers.Tokenizer`` (the pipeline of a ``tokenizer.json``).

    A long text is tokenized in pieces of about ``piece_chars`` characters, cut at line breaks that no
    token spans (see :func:`is_break`), on all cores (``encode_batch``), and the pieces' tokens are
    joined. That gives the text's own tokens, ids and offsets, two to four times faster: BPE over one
    long word (Llama's ``tokenizer.json`` has no pre-tokenizer) slows down as the word grows. Each
    piece after the first starts with its line break, so the tokenizer's start-of-text handling (a
    dummy prefix ``▁``) adds the same few tokens to each; :func:`_piece_overhead` measures that number
    once on probe texts, and a tokenizer whose pieces do not join exactly is never cut.
    """

    def __init__(
        self,
        tokenizer,
        name: str,
        piece_chars: int | None = None,
        clean_up_tokenization_spaces: bool = False,
        *,
        probed: _Probed | None = None,
    ) -> None:
        # ``probed``: the probes' verdicts on this same tokenizer.json from the process a copy came from
        self._tok = tokenizer
        self.name = name
        self.clean_up_tokenization_spaces = clean_up_tokenization_spaces
        self._json = json_text = tokenizer.to_str()
        self._digest = hashlib.sha256(json_text.encode("utf-8")).hexdigest()[:32]
        self.identity = f"tokenizer.json:{self._digest}" + (
            "|clean-up-spaces" if clean_up_tokenization_spaces else ""
        )
        self.piece_chars = PIECE_CHARS if piece_chars is None else piece_chars
        added = list(tokenizer.get_added_tokens_decoder().values())
        # Text between added tokens is normalized alone (Llama gives it a dummy prefix), so a piece never
        # starts right after one; tokens that swallow neighbouring whitespace are never cut around.
        self._added = tuple(t.content for t in added)
        if probed is None or probed.digest != self._digest:
            splits = _no_token_spans_newlines(tokenizer)
            cuttable = not any(t.lstrip or t.rstrip or "\n" in t.content for t in added)
            probed = _Probed(self._digest, splits, _piece_overhead(tokenizer, splits) if cuttable else None)
        self.splits_at_newlines = probed.splits_at_newlines
        self._piece_overhead = probed.piece_overhead
        # Counting goes through fastokens when a probe finds its ids identical (``fastcount``).
        self._fast = exact_counter(tokenizer, json_text=json_text, probed=probed.fastokens)
        self._probed = dataclasses.replace(probed, fastokens=self._fast.version if self._fast else None)
        self.clear_cache()  # remembered token counts and encodings of pieces
        _LIVE[(self.identity, name, self.piece_chars, self._fast is not None)] = self

    @property
    def backend(self):
        return self._tok

    @property
    def newline_overhead(self) -> int | None:
        """``n`` such that ``count(a + "\\n" + b) == count(a) + count("\\n" + b) - n`` for every ``a`` and
        ``b`` (without special tokens), or ``None`` when no such rule holds: a line break then never
        joins two tokens, and a text starting with one gets ``n`` extra start-of-text tokens."""
        return self._piece_overhead if self.splits_at_newlines else None

    def pieces(self, text: str, size: int | None = None) -> list[int]:
        """Start offsets of the pieces ``text`` is tokenized in (``[0]``: in one piece), of at least
        ``size`` characters (default :attr:`piece_chars`)."""
        size = self.piece_chars if size is None else size
        if self._piece_overhead is None or not size:
            return [0]
        return piece_starts(text, size, self.splits_at_newlines, not_after=self._added)

    def clear_cache(self) -> None:
        self._counted = LRU(COUNT_CACHE_PIECES, digest=True)
        self._encoded = LRU(ENCODING_CACHE_CHARS, cost=text_length)
        self._fast_ids = LRU(ID_CACHE_TOKENS, cost=_id_count, digest=True)

    def _bounds(self, text: str, size: int | None = None) -> list[tuple[int, int]]:
        starts = self.pieces(text, size)
        return list(zip(starts, [*starts[1:], len(text)], strict=True))

    def _pieces_done(self, pieces: list[str], cache: LRU, batch: Callable[[list[str]], list]) -> list:
        """``batch(pieces)``, computed only for the pieces ``cache`` does not hold.

        A text tokenized again after a change near its end (a prompt re-rendered with a shorter
        context, a window grown by a few paragraphs) shares every earlier piece with the first time.
        """
        results = [cache.get(p) for p in pieces]
        missing = [i for i, r in enumerate(results) if r is None]
        if missing:
            for i, result in zip(missing, batch([pieces[i] for i in missing]), strict=True):
                results[i] = result
                cache.put(pieces[i], result)
        return results

    def _encode_batch(self, pieces: list[str]) -> list:
        return self._tok.encode_batch(pieces, add_special_tokens=False)

    def _lengths(self, pieces: list[str]) -> list[int]:
        if self._fast is not None:
            return self._fast.counts(pieces, special=False)
        return [len(e) for e in self._tok.encode_batch_fast(pieces, add_special_tokens=False)]

    def _id_arrays(self, pieces: list[str]) -> list:
        return self._fast.id_arrays(pieces)

    def _piece_encoding(self, piece: str):
        return self._pieces_done([piece], self._encoded, self._encode_batch)[0]

    def encode(self, text: str, *, special: bool = True) -> Encoding:
        try:
            return self._encode_pieces(text, special)
        except (TypeError, UnicodeEncodeError):  # what tokenizers, fastokens raise for an invalid str
            self._refuse_invalid([text])
            raise

    def _encode_pieces(self, text: str, special: bool) -> Encoding:
        # With fastokens, smaller pieces: a cut then tokenizes fewer characters for its offsets.
        fast_size = min(self.piece_chars, FAST_PIECE_CHARS) if self._fast is not None else None
        bounds = self._bounds(text, fast_size)
        if len(bounds) == 1:
            return _single(self._tok.encode(text, add_special_tokens=special))
        pieces = [text[a:b] for a, b in bounds]
        if self._fast is None:
            encodings = self._pieces_done(pieces, self._encoded, self._encode_batch)
        else:
            # The later pieces' ids come from fastokens; tokenizers computes a piece's offsets only when
            # one of them is read (a cut reads those of one or two pieces, a count or decode none).
            encodings = [self._piece_encoding(pieces[0])]
            ids = self._pieces_done(pieces[1:], self._fast_ids, self._id_arrays)
            encodings += [_FastPiece(self, p, i) for p, i in zip(pieces[1:], ids, strict=True)]
        first = self._tok.post_process(encodings[0], add_special_tokens=special)
        trailing = _trailing_added(first)
        parts = [_Part(first, 0, len(first) - trailing, 0)]
        parts += [
            _Part(e, self._piece_overhead, len(e), a)
            for e, (a, _) in zip(encodings[1:], bounds[1:], strict=True)
        ]
        if trailing:
            parts.append(_Part(first, len(first) - trailing, len(first), 0))
        return _joined(parts)

    def count(self, text: str, *, special: bool = True) -> int:
        return self.count_batch([text], special=special)[0]

    @property
    def counting_backend(self) -> str:
        """What counts tokens: ``fastokens`` (ids probed identical) or ``tokenizers``."""
        return "fastokens" if self._fast is not None else "tokenizers"

    def count_batch(self, texts: Sequence[str], *, special: bool = True) -> list[int]:
        try:
            return self._count_pieces(texts, special)
        except (TypeError, UnicodeEncodeError):
            self._refuse_invalid(texts)
            raise

    def _count_pieces(self, texts: Sequence[str], special: bool) -> list[int]:
        # Every piece of every text in one batch call: no offsets, all cores. With fastokens a text of
        # one piece is counted whole (cheaper than remembering it); a longer one is counted in pieces
        # all the same, because prompts that share a long context then count it once.
        pieces, owners, later, whole = [], [], [], []
        for index, text in enumerate(texts):
            bounds = self._bounds(text)
            if self._fast is not None and len(bounds) == 1:
                whole.append(index)
                continue
            for k, (a, b) in enumerate(bounds):
                pieces.append(text[a:b])
                owners.append(index)
                later.append(k > 0)
        added = self._tok.num_special_tokens_to_add(False) if special else 0
        counts = [added] * len(texts)
        if whole:
            for index, n in zip(
                whole, self._fast.counts([texts[i] for i in whole], special=special), strict=True
            ):
                counts[index] = n
        lengths = self._pieces_done(pieces, self._counted, self._lengths) if pieces else []
        for owner, n, is_later in zip(owners, lengths, later, strict=True):
            counts[owner] += n - self._piece_overhead if is_later else n
        return counts

    def decode_span(self, text: str, encoding: Encoding, start: int, stop: int) -> str:
        if self._fast is not None:
            # A cut's ids must be the tokenizer's own: reading the span's offsets encodes each of its
            # pieces with tokenizers and checks fastokens' ids against it (TokenizerMismatchError).
            encoding.offsets[start:stop]
        decoded = self._tok.decode(list(encoding.ids[start:stop]), skip_special_tokens=True)
        return clean_up_tokenization(decoded) if self.clean_up_tokenization_spaces else decoded

    # A copy goes to another process (datasets' num_proc workers, Ray) as its tokenizer.json and the
    # probes' verdicts. A forked worker already holds the counter it was copied from: it takes that one's
    # state, so it neither parses the tokenizer.json again nor probes it.

    def __getstate__(self):
        return {
            "json": self._json,
            "name": self.name,
            "identity": self.identity,
            "piece_chars": self.piece_chars,
            "clean_up_tokenization_spaces": self.clean_up_tokenization_spaces,
            "probed": self._probed,
            "fast": self._fast is not None,
        }

    def __setstate__(self, state):
        from tokenizers import Tokenizer

        live = _LIVE.get((state["identity"], state["name"], state.get("piece_chars"), state.get("fast")))
        if live is not None:
            self.__dict__.update(live.__dict__)
            return
        self.__init__(
            Tokenizer.from_str(state["json"]),
            state["name"],
            state.get("piece_chars"),
            state.get("clean_up_tokenization_spaces", False),
            probed=state.get("probed"),
        )
        self.identity = state["identity"]


#: transformers' ``clean_up_tokenization``: these replacements, one after the other, in this order.
_CLEAN_UP = (
    (" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"),
    (" n't", "n't"), (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"),
)  # fmt: skip


def clean_up_tokenization(text: str) -> str:
    """``text`` without the spaces transformers' decode clean-up removes (before ``.``, ``,``, ``'s`` …)."""
    for spaced, joined in _CLEAN_UP:
        text = text.replace(spaced, joined)
    return text


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


#: What an :class:`HFTokenizer` remembers of the pieces it tokenized: token counts of this many pieces
#: (by a 128-bit digest, ~225 bytes each, ~30 MB in all; the ~45k pieces of NarrativeQA's 355 books up
#: to 128k fit), and encodings of this many characters of pieces (~100 bytes per token, ~40 MB).
COUNT_CACHE_PIECES = 131_072
ENCODING_CACHE_CHARS = 2_000_000


@dataclass(frozen=True)
class _Probed:
    """What the load-time probes found for the ``tokenizer.json`` of sha256 ``digest``: whether no token
    holds a line break, the tokens a piece's start adds (``None``: never cut), and the fastokens version
    whose ids were found identical (``None``: none)."""

    digest: str
    splits_at_newlines: bool
    piece_overhead: int | None
    fastokens: str | None = None


#: the counters of this process, by identity, name and piece size (what a forked worker reuses)
_LIVE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


#: The pieces an encoding through fastokens is cut in (offsets are computed for a piece a cut reads).
FAST_PIECE_CHARS = 1024

#: Ids of pieces kept from fastokens, in tokens (4 bytes each: ~32 MB).
ID_CACHE_TOKENS = 8_000_000


def _id_count(key: object, value: Sequence[int]) -> int:
    return len(value)


#: The end of a text cut in pieces where every line break starts one (see :func:`piece_starts`).
TAIL_CHARS = 1024

#: Texts longer than about twice this many characters are tokenized in pieces (:class:`HFTokenizer`);
#: 4-8k characters per piece measured fastest with Llama-2 on 2 cores (``perf/README.md``).
PIECE_CHARS = 6144


def is_break(text: str, j: int, splits_at_newlines: bool) -> bool:
    """Whether the line break at ``j`` separates tokens in every context: the tokens of ``text[:j]``
    are the first tokens of ``text``, and those of ``text[j:]`` its last ones (up to start-of-text
    handling, which touches only that line break).

    Tokenizers with no token containing a line break (Llama, word and character counters) never merge
    across one. Byte-level BPEs (cl100k) merge runs of whitespace into line-break tokens and glue
    breaks to preceding punctuation, so for them only a break right after a letter or digit starts a
    new piece in every context.
    """
    if not 0 < j < len(text) - 1 or text[j] != "\n":
        return False
    return splits_at_newlines or text[j - 1].isalnum()


def piece_starts(
    text: str, size: int, splits_at_newlines: bool, not_after: tuple[str, ...] = ()
) -> list[int]:
    """``[0, j1, j2, ...]``: where the pieces of ``text`` start.

    Each later piece starts at a line break :func:`is_break` accepts that does not follow one of
    ``not_after``. Pieces hold at least ``size`` characters, found scanning from the start, so texts
    sharing a beginning share their pieces there; in the last :data:`TAIL_CHARS` characters of a text
    that is cut at all, every such line break starts a piece, so the few lines that end a prompt (its
    question) are pieces of their own and the text before them is shared by prompts that differ only
    there.
    """

    def accepted(j: int) -> bool:
        return is_break(text, j, splits_at_newlines) and not (not_after and text.endswith(not_after, 0, j))

    starts = [0]
    limit = len(text) - size
    j = size
    while j < limit:
        j = text.find("\n", j, limit)
        if j == -1:
            break
        if accepted(j):
            starts.append(j)
            j += size
        else:
            j += 1
    if len(starts) > 1:
        j = max(starts[-1] + size, len(text) - TAIL_CHARS)
        while (j := text.find("\n", j)) != -1:
            if accepted(j):
                starts.append(j)
            j += 1
    return starts


class _FastPiece:
    """A later piece's ids from fastokens (probed identical to the tokenizer's), standing in for its
    ``tokenizers.Encoding``: the offsets are tokenized on first use, and must come with the same ids."""

    __slots__ = ("_owner", "_text", "ids")

    def __init__(self, owner: HFTokenizer, text: str, ids: Sequence[int]) -> None:
        self._owner, self._text, self.ids = owner, text, ids

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def special_tokens_mask(self) -> list[int]:
        return [0] * len(self.ids)  # a piece is encoded without special tokens

    @property
    def offsets(self) -> list[tuple[int, int]]:
        encoding = self._owner._piece_encoding(self._text)
        if encoding.ids != list(self.ids):
            raise TokenizerMismatchError(
                f"tokenizer {self._owner.name}: fastokens and tokenizers give different ids for a "
                f"{len(self._text)}-character piece of text that the load-time probe did not cover; set "
                f"{FASTOKENS_ENV}=0 to count with tokenizers alone"
            )
        return encoding.offsets


@dataclass(frozen=True)
class _Part:
    """Tokens ``lo:hi`` of a ``tokenizers.Encoding`` of a piece starting at character ``shift``."""

    encoding: object
    lo: int
    hi: int
    shift: int


class _JoinedView(Sequence):
    """The ids, offsets or special-token mask of joined pieces, read from each piece on first use."""

    def __init__(self, parts: list[_Part], field: str) -> None:
        self._parts, self._field = parts, field
        self._ends = list(itertools.accumulate(p.hi - p.lo for p in parts))
        self._cache: dict[int, list] = {}

    def _values(self, k: int) -> list:
        if k not in self._cache:
            part = self._parts[k]
            values = getattr(part.encoding, self._field)[part.lo : part.hi]
            if self._field == "offsets" and part.shift:
                values = [(a + part.shift, b + part.shift) for a, b in values]
            self._cache[k] = values
        return self._cache[k]

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            out: list = []
            k = bisect.bisect_right(self._ends, start)
            while start < stop and k < len(self._parts):
                base = self._ends[k - 1] if k else 0
                out.extend(self._values(k)[start - base : min(stop, self._ends[k]) - base])
                start = self._ends[k]
                k += 1
            return out
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        k = bisect.bisect_right(self._ends, index)
        return self._values(k)[index - (self._ends[k - 1] if k else 0)]

    def __iter__(self):
        for k in range(len(self._parts)):
            yield from self._values(k)


def _leading(mask: Sequence[int]) -> int:
    n = 0
    while n < len(mask) and mask[n]:
        n += 1
    return n


def _trailing(mask: Sequence[int], lead: int) -> int:
    n = 0
    while n < len(mask) - lead and mask[len(mask) - 1 - n]:
        n += 1
    return n


def _trailing_added(encoding) -> int:
    """Special tokens the post-processor appended (they go after the last piece)."""
    return _trailing(encoding.special_tokens_mask, 0)


def _single(enc) -> Encoding:
    mask = enc.special_tokens_mask
    lead = _leading(mask)
    return Encoding(
        ids=enc.ids, offsets=enc.offsets, leading_specials=lead, trailing_specials=_trailing(mask, lead)
    )


def _joined(parts: list[_Part]) -> Encoding:
    mask = _JoinedView(parts, "special_tokens_mask")
    lead = _leading(mask)
    return Encoding(
        ids=_JoinedView(parts, "ids"),
        offsets=_JoinedView(parts, "offsets"),
        leading_specials=lead,
        trailing_specials=_trailing(mask, lead),
    )


_PROBE_HEADS = ("a", "The end", "x1", "中文")
_PROBE_HEADS_ANY = ("a ", "a.", "a\n", " ")  # also cut before when no token holds a line break
_PROBE_TAILS = (
    "x",
    " x",
    "  two words",
    "\nx",
    "\n\ny",
    "\t1",
    ". Done",
    "é",
    "。中文",
    "<s>",
    " <s> x",
    "</s>",
    "1234",
    " ",
    "\u2581x",
    "😀 🇫🇷",
    "{context}",
)


def _piece_overhead(tokenizer, splits_at_newlines: bool) -> int | None:
    """How many tokens start-of-text handling adds to a piece starting at a line break, or ``None``
    when pieces do not join exactly (probed on short texts; then texts are never cut).

    For each probe, the tokens of ``head + "\n" + tail`` must be those of ``head`` followed by those
    of ``"\n" + tail`` minus the same number of leading tokens, offsets included.
    """
    if tokenizer.truncation is not None or tokenizer.padding is not None:
        return None
    heads = _PROBE_HEADS + (_PROBE_HEADS_ANY if splits_at_newlines else ())
    overhead = None
    for head in heads:
        prefix = tokenizer.encode(head, add_special_tokens=False)
        for tail in _PROBE_TAILS:
            whole = tokenizer.encode(head + "\n" + tail, add_special_tokens=False)
            piece = tokenizer.encode("\n" + tail, add_special_tokens=False)
            n = len(prefix)
            extra = len(piece) - (len(whole) - n)
            if overhead is None:
                overhead = extra
            shifted = [(a + len(head), b + len(head)) for a, b in piece.offsets[extra:]]
            if (
                extra != overhead
                or extra < 0
                or whole.ids[:n] != prefix.ids
                or whole.offsets[:n] != prefix.offsets
                or whole.ids[n:] != piece.ids[extra:]
                or whole.offsets[n:] != shifted
            ):
                return None
    return overhead


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
            "the encoding on first use; offline, point TIKTOKEN_CACHE_DIR at a folder holding its cached "
            "file, pass another tokenizer with --tokenizer (tokenizer=), or build from the offline sample "
            "data with --demo (demo=True)"
        ) from None


def _tiktoken_names() -> set[str]:
    return set(_tiktoken().list_encoding_names())


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
    if is_transformers_tokenizer(spec):
        return _from_transformers(spec)
    if type(spec).__module__.startswith("tiktoken") and hasattr(spec, "encode_ordinary"):
        if spec.name not in _tiktoken_names():  # its identity and worker copies go by its name
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
