"""The interface every way of counting tokens implements: :class:`TokenCounter`, and the
:class:`Encoding` (ids with each token's character span) it returns."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import InvalidTextError, first_lone_surrogate


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

    def count_fresh(self, text: str, *, special: bool = True) -> int:
        """:meth:`count` of a text that will not come again (a generated prompt of new draws): a counter
        that remembers pieces of what it counts counts this by its cheapest route, remembering nothing."""
        return self.count(text, special=special)

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

    def decode_joined(self, spans: Sequence[tuple[str, Encoding, int, int]]) -> str:
        """The text of several token spans, each ``(text, encoding, start, stop)`` as for
        :meth:`decode_span`, decoded as one sequence of ids (LongBench v2's middle cut decodes the kept
        head and tail together, so a character or a leading space across the join survives).

        Word and character counters join the original characters of each span.
        """
        return "".join(self.decode_span(*span) for span in spans)

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
