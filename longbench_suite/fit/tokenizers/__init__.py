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
A transformers tokenizer object is counted with that same pipeline (``loading._from_transformers``): a
generic fast tokenizer's ``backend_tokenizer`` (its ``tokenizer.json``, verbatim), or, for a
model-specific class such as ``LlamaTokenizer`` whose pipeline transformers 5 rebuilds, the
``tokenizer.json`` it was loaded from; the object's own ``clean_up_tokenization_spaces`` decides decoding.
Decoding (the middle cut) honours the ``clean_up_tokenization_spaces`` of the ``tokenizer_config.json``
beside it, true where the config does not set it, as in the transformers 4 releases upstream pins
(``docs/ecosystem.md`` §5.4).

The package, by job: :mod:`.base` (the :class:`TokenCounter` interface), :mod:`.units` (words,
characters), :mod:`.hf` (``tokenizer.json`` pipelines), :mod:`.tiktoken_counter`, :mod:`.pieces`
(cutting long texts in pieces and joining their tokens), :mod:`.probes` (load-time probes) and
:mod:`.loading` (:func:`load_tokenizer`).
"""

from .base import Encoding, TokenCounter
from .hf import (
    COUNT_CACHE_PIECES,
    ENCODING_CACHE_CHARS,
    FAST_PIECE_CHARS,
    ID_CACHE_TOKENS,
    PIECE_CHARS,
    HFTokenizer,
    clean_up_tokenization,
)
from .loading import clean_up_setting, is_transformers_tokenizer, load_tokenizer, tokenizer_json_of
from .pieces import TAIL_CHARS, is_break, piece_starts
from .tiktoken_counter import TiktokenCounter
from .units import CharCounter, WordCounter

__all__ = [
    "COUNT_CACHE_PIECES",
    "ENCODING_CACHE_CHARS",
    "FAST_PIECE_CHARS",
    "ID_CACHE_TOKENS",
    "PIECE_CHARS",
    "TAIL_CHARS",
    "CharCounter",
    "Encoding",
    "HFTokenizer",
    "TiktokenCounter",
    "TokenCounter",
    "WordCounter",
    "clean_up_setting",
    "clean_up_tokenization",
    "is_break",
    "is_transformers_tokenizer",
    "load_tokenizer",
    "piece_starts",
    "tokenizer_json_of",
]
