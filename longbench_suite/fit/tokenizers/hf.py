"""The counter of a Hugging Face ``tokenizers.Tokenizer`` (a ``tokenizer.json`` pipeline): long texts in
pieces, counts through fastokens where probed identical, and transformers' decode clean-up."""

from __future__ import annotations

import dataclasses
import hashlib
import weakref
from collections.abc import Callable, Sequence

from ...errors import TokenizerMismatchError
from ...memo import LRU, text_length
from ..fastcount import ENV as FASTOKENS_ENV
from ..fastcount import exact_counter
from . import probes
from .base import Encoding, TokenCounter
from .pieces import Part, join_parts, one_piece, piece_starts, trailing_added
from .probes import Probed


class HFTokenizer(TokenCounter):
    """A ``tokenizers.Tokenizer`` (the pipeline of a ``tokenizer.json``).

    A long text is tokenized in pieces of about ``piece_chars`` characters, cut at line breaks that no
    token spans (see :func:`is_break`), on all cores (``encode_batch``), and the pieces' tokens are
    joined. That gives the text's own tokens, ids and offsets, two to four times faster: BPE over one
    long word (Llama's ``tokenizer.json`` has no pre-tokenizer) slows down as the word grows. Each
    piece after the first starts with its line break, so the tokenizer's start-of-text handling (a
    dummy prefix ``▁``) adds the same few tokens to each; :func:`.probes.piece_overhead` measures that
    number once on probe texts, and a tokenizer whose pieces do not join exactly is never cut.
    """

    def __init__(
        self,
        tokenizer,
        name: str,
        piece_chars: int | None = None,
        clean_up_tokenization_spaces: bool = False,
        *,
        probed: Probed | None = None,
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
            splits = probes.no_token_spans_newlines(tokenizer)
            cuttable = not any(t.lstrip or t.rstrip or "\n" in t.content for t in added)
            overhead = probes.piece_overhead(tokenizer, splits) if cuttable else None
            probed = Probed(self._digest, splits, overhead)
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
            return one_piece(self._tok.encode(text, add_special_tokens=special))
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
        trailing = trailing_added(first)
        parts = [Part(first, 0, len(first) - trailing, 0)]
        parts += [
            Part(e, self._piece_overhead, len(e), a)
            for e, (a, _) in zip(encodings[1:], bounds[1:], strict=True)
        ]
        if trailing:
            parts.append(Part(first, len(first) - trailing, len(first), 0))
        return join_parts(parts)

    def count(self, text: str, *, special: bool = True) -> int:
        return self.count_batch([text], special=special)[0]

    def count_fresh(self, text: str, *, special: bool = True) -> int:
        # with fastokens in one call over the whole text, neither cut into pieces nor remembered: the
        # pieces' threads and digests cost more CPU than they save on text never seen twice
        if self._fast is None:
            return self.count(text, special=special)
        try:
            return self._fast.counts([text], special=special)[0]
        except (TypeError, UnicodeEncodeError):
            self._refuse_invalid([text])
            raise

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

    def decode_joined(self, spans: Sequence[tuple[str, Encoding, int, int]]) -> str:
        ids: list[int] = []
        for _text, encoding, start, stop in spans:
            if self._fast is not None:
                encoding.offsets[start:stop]  # fastokens' ids checked against tokenizers' (see decode_span)
            ids.extend(encoding.ids[start:stop])
        decoded = self._tok.decode(ids, skip_special_tokens=True)
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


#: What an :class:`HFTokenizer` remembers of the pieces it tokenized: token counts of this many pieces
#: (by a 128-bit digest, ~225 bytes each, ~30 MB in all; the ~45k pieces of NarrativeQA's 355 books up
#: to 128k fit), and encodings of this many characters of pieces (~100 bytes per token, ~40 MB).
COUNT_CACHE_PIECES = 131_072
ENCODING_CACHE_CHARS = 2_000_000


#: the counters of this process, by identity, name and piece size (what a forked worker reuses)
_LIVE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


#: The pieces an encoding through fastokens is cut in (offsets are computed for a piece a cut reads).
FAST_PIECE_CHARS = 1024


#: Ids of pieces kept from fastokens, in tokens (4 bytes each: ~32 MB).
ID_CACHE_TOKENS = 8_000_000


def _id_count(key: object, value: Sequence[int]) -> int:
    return len(value)


#: Texts longer than about twice this many characters are tokenized in pieces (:class:`HFTokenizer`);
#: 4-8k characters per piece measured fastest with Llama-2 on 2 cores (``perf/README.md``).
PIECE_CHARS = 6144


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
