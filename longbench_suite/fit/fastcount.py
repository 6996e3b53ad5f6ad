"""Exact token counts of a ``tokenizer.json`` through ``fastokens``, when its ids are the same.

``fastokens`` (PyPI, the ``fast`` extra) runs a ``tokenizer.json`` pipeline ~20x faster than
``tokenizers`` per CPU-second on long texts (Llama-2 has no pre-tokenizer, so ``tokenizers`` runs BPE
over one huge word) but gives no character offsets. Counting needs none, so budgets, fits, statistics
and token columns count with it. A cut needs offsets only where it cuts: :class:`HFTokenizer.encode`
takes a long text's ids from fastokens piece by piece and asks ``tokenizers`` for the offsets of a piece
only when one of them is read (checking that its ids are the same).

It is used for a tokenizer only after a probe at load time (:func:`exact_counter`): on texts that
exercise what tokenizers differ on (start-of-text handling, whitespace runs, byte fallback, scripts,
emoji, every added token in running text, a long text), with and without special tokens, its ids must
be exactly ``tokenizers``'; otherwise, or when it is not installed, counting stays on ``tokenizers``.
``LONGBENCH_SUITE_FASTOKENS=0`` turns it off.
"""

from __future__ import annotations

import array
import importlib.metadata
import itertools
import os
from collections.abc import Sequence

ENV = "LONGBENCH_SUITE_FASTOKENS"

_PROBE_TEXTS = (
    "",
    "a",
    " ",
    "  two  spaces ",
    "\n",
    "Hello world",
    " leading space",
    "trailing space ",
    "tabs\tand\nnew\n\nlines\r\n",
    "Numbers 1234567890 3.14159 -42 1,000,000",
    "Punctuation!?…—–“quotes” ‘single’ «guillemets» (brackets) [x] {y}",
    "Ünïcödé àccents: café, naïve, façade, Zürich, São Paulo",
    "中文文本：长上下文基准测试。日本語のテキスト。한국어 텍스트.",
    "Русский текст и ελληνικά και עברית ועربي",
    "Emoji 😀🇫🇷👩‍👩‍👧 and symbols ∑∫√∞ ≠ ≤",
    "\u2581x \u2581\u2581y",
    "{context}\n\nQuestion: {input}\nAnswer:",
    "Combining: e\u0301 a\u0308 \u200b zero\u200dwidth \ufeffbom",
    "x" * 300 + " " + "ab" * 200,
    "    def f(x):\n        return x  # code\n\n\n",
)


def _long_probe() -> str:
    words = ("the", "long", "context", "benchmark", "Document", "é", "中文", "42", "—", "\n", "\n\n", "  ")
    return " ".join(words[(i * 7 + i // 5) % len(words)] for i in range(6000))


def probe_texts(added: Sequence[str]) -> list[str]:
    """Texts on which a fast backend must give exactly the tokenizer's ids."""
    texts = list(_PROBE_TEXTS)
    for token in added:
        texts += [token, f"a{token}b", f" {token} x", f"\n{token}\n", f"{token}{token}"]
    texts.append(_long_probe())
    return texts


class FastCounter:
    """Token counts of many texts in one ``fastokens`` call (no per-token Python objects).

    ``version`` is the fastokens release it runs on: a probe's verdict holds for that release only.
    """

    def __init__(self, fast, version: str = "") -> None:
        self._fast = fast
        self.version = version

    def counts(self, texts: Sequence[str], *, special: bool) -> list[int]:
        import numpy

        _ids, offsets = self._fast.encode_batch_flat(list(texts), add_special_tokens=special)
        return numpy.diff(numpy.frombuffer(offsets, numpy.uint64)).tolist()

    def ids(self, texts: Sequence[str], *, special: bool) -> list[list[int]]:
        return [e.ids for e in self._fast.encode_batch(list(texts), add_special_tokens=special)]

    def id_arrays(self, texts: Sequence[str], *, special: bool = False) -> list[array.array]:
        """Each text's ids as a compact ``array('I')`` (4 bytes a token, where a list takes ~36)."""
        import numpy

        ids, offsets = self._fast.encode_batch_flat(list(texts), add_special_tokens=special)
        flat = memoryview(ids).cast("I")
        bounds = numpy.frombuffer(offsets, numpy.uint64).tolist()
        return [array.array("I", flat[a:b]) for a, b in itertools.pairwise(bounds)]


def exact_counter(
    tokenizer, *, json_text: str | None = None, probed: str | None = None
) -> FastCounter | None:
    """A :class:`FastCounter` for ``tokenizer`` (a ``tokenizers.Tokenizer``) whose ids were found equal
    to the tokenizer's on every probe text, or ``None``.

    ``json_text`` is the tokenizer's ``to_str()`` when the caller has it already; ``probed`` is the
    fastokens version on which a probe of this very ``tokenizer.json`` already passed (a counter sent
    to another process carries it): that probe is not run again when the same version is installed.
    """
    if os.environ.get(ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        return None
    if tokenizer.truncation is not None or tokenizer.padding is not None:
        return None
    try:
        import fastokens
    except ImportError:
        return None
    try:
        version = importlib.metadata.version("fastokens")
    except importlib.metadata.PackageNotFoundError:
        version = getattr(fastokens, "__version__", "")
    try:
        fast = FastCounter(fastokens.Tokenizer.from_json_str(json_text or tokenizer.to_str()), version)
        if probed and probed == version:
            return fast
        added = [t.content for t in tokenizer.get_added_tokens_decoder().values()]
        return fast if same_ids(tokenizer, fast, probe_texts(added)) else None
    except Exception:  # a pipeline fastokens does not support is simply not accelerated
        return None


def same_ids(tokenizer, fast: FastCounter, texts: Sequence[str]) -> bool:
    """Whether ``fast`` gives ``tokenizer``'s ids and counts on every text, with and without specials."""
    for special in (True, False):
        expected = [e.ids for e in tokenizer.encode_batch(list(texts), add_special_tokens=special)]
        if fast.ids(texts, special=special) != expected:
            return False
        if fast.counts(texts, special=special) != [len(ids) for ids in expected]:
            return False
    return True
