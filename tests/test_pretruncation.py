"""HELMET's Llama-2 pre-truncation: one tokenization per document, cut points equal to HELMET's method.

HELMET's ``truncate_llama2`` and ``filter_length`` tokenize the whole document with offsets, once per
length and filter (``docs/helmet.md`` §1.4). The library tokenizes the longest prefix any length needs once
(:func:`head_cuts`) and keeps the offsets on disk (a :class:`~longbench_suite.memo.Memo`). The parity
test compares both on long documents with the exact Llama-2 tokenizer, including documents with exactly
the threshold count.
"""

from __future__ import annotations

import json
import os

import pytest
from tokenizers import Tokenizer

from longbench_suite import cli, get_builder
from longbench_suite.benchmarks.helmet import infbench, longdoc, multi_lexsum, narrativeqa
from longbench_suite.benchmarks.helmet.longdoc import Pretruncation
from longbench_suite.errors import TokenizerLoadError
from longbench_suite.fit.tokenizers import TokenCounter, load_tokenizer
from longbench_suite.fit.truncation import head_cuts
from longbench_suite.memo import Memo
from longbench_suite.options import BuildOptions
from longbench_suite.samplefiles import TextMaker
from longbench_suite.task import BuildEnv

MARKER = " ... [the rest of the text is omitted]"
TASKS = {
    "narrativeqa": narrativeqa.TASKS[0],
    "infbench_qa": infbench.TASKS[0],
    "infbench_sum": infbench.TASKS[2],
    "multi_lexsum": multi_lexsum.TASKS[0],
}
OFFSETS = {"narrativeqa": 300, "infbench_qa": 210, "infbench_sum": 1400, "multi_lexsum": 700}
THRESHOLDS = {"narrativeqa": 131072, "infbench_qa": 65536, "infbench_sum": 65536, "multi_lexsum": 65536}
LENGTHS = {"8k": 8192, "16k": 16384, "32k": 32768, "64k": 65536, "128k": 131072}


def _document(seed: str, lines: int) -> str:
    """Varied text: prose, numbers, accents, CJK, emoji, tabs, runs of spaces, blank lines, long lines."""
    text = TextMaker(seed)
    pieces = [
        "café",
        "naïve",
        "请基于给定的文章",
        "😀",
        "🇫🇷",
        "\t",
        "   ",
        "—",
        "{x}",
        "Ⅷ",
        "ﬁ",
        "0.5%",
        "A.I.",
    ]
    out = []
    for i in range(lines):
        line = " ".join(
            text.choice([text.words(1), text.choice(pieces), str(text.randint(0, 99999))]) for _ in range(14)
        )
        if i % 97 == 0:
            line = line * 30  # a long line: no line break near many token positions
        out.append(line if i % 13 else "")
    return "\n".join(out)


def _helmet_truncate(tok: Tokenizer, encoding, text: str, budget: int) -> str:
    separator = len(tok.encode(MARKER).ids)
    if len(encoding.ids) > budget:
        return text[: encoding.offsets[budget - separator][1]] + MARKER
    return text


@pytest.fixture(scope="module")
def documents(llama2_tokenizer):
    """Long documents, and prefixes of them with exactly the filter thresholds' counts (and one more)."""
    tok = Tokenizer.from_file(llama2_tokenizer)
    long = _document("pretruncation", 13_000)
    docs = {"long": long, "one line": long.replace("\n", " ")[:200_000]}
    encoding = tok.encode(long)
    assert len(encoding.ids) > 140_000
    for target in (65535, 65536, 65537, 131072, 131073):
        end = encoding.offsets[target - 1][1]
        for shift in range(0, 40):  # the first prefix whose own tokenization has exactly `target` tokens
            prefix = long[: end - shift]
            if len(tok.encode(prefix).ids) == target:
                docs[f"exactly {target}"] = prefix
                break
        else:
            raise AssertionError(f"no prefix with exactly {target} tokens")
    return {name: (text, tok.encode(text)) for name, text in docs.items()}


@pytest.mark.parametrize("task", list(TASKS))
@pytest.mark.slow
def test_pretruncation_equals_helmets_full_tokenization(task, documents, llama2_tokenizer):
    tok = Tokenizer.from_file(llama2_tokenizer)
    counter = load_tokenizer(llama2_tokenizer)
    env = BuildEnv(config_name="x", length="8k", tokenizer=counter, pretruncation_tokenizer=counter)
    pretruncation = Pretruncation(TASKS[task], env)
    for name, (text, encoding) in documents.items():
        kept = len(encoding.ids) > THRESHOLDS[task] if task == "narrativeqa" else len(encoding.ids) >= 65536
        assert pretruncation.is_long(text) == kept, (task, name)
        for length, size in LENGTHS.items():
            expected = _helmet_truncate(tok, encoding, text, size - OFFSETS[task])
            assert pretruncation.cut(text, length) == expected, (task, name, length)


def test_head_cuts_by_hand_with_words():
    words = load_tokenizer("words")
    cuts = head_cuts("a b c d e", words, [1, 3], count_above=3)
    assert cuts.n_tokens == 5 and cuts.ends == {1: 3, 3: 7}
    assert cuts.exceeds(4) and not cuts.exceeds(5)
    assert cuts.cut_with_marker("a b c d e", 4, 1, " ...") == "a b c d ..."
    assert cuts.cut_with_marker("a b c d e", 5, 1, " ...") == "a b c d e"
    long = " ".join(f"w{i}\n" if i % 10 == 9 else f"w{i}" for i in range(100_000))
    partial = head_cuts(long, words, [10], count_above=20)
    assert partial.n_tokens is None and partial.at_least > 20 and partial.exceeds(20)
    with pytest.raises(ValueError, match="at least"):
        partial.exceeds(partial.at_least)


class Counting(TokenCounter):
    def __init__(self, inner: TokenCounter, identity: str | None = None) -> None:
        self.inner, self.name = inner, "counting"
        self.identity = identity or inner.identity
        self.splits_at_newlines = inner.splits_at_newlines
        self.calls = 0

    def encode(self, text, *, special=True):
        self.calls += 1
        return self.inner.encode(text, special=special)


def test_head_cuts_are_read_back_from_disk_and_keyed_on_tokenizer_and_text(tmp_path, monkeypatch):
    monkeypatch.setattr(longdoc, "_CUTS", Memo("head-cuts", entries=64, codec=longdoc._CUTS.codec))
    text = "\n".join(f"line {i} of the book " * 20 for i in range(3000))
    task = TASKS["narrativeqa"]

    def cuts(counter, document):
        env = BuildEnv("x", "8k", counter, pretruncation_tokenizer=counter, cache_root=str(tmp_path))
        pretruncation = Pretruncation(task, env)
        before = counter.calls
        return pretruncation.cuts(document), counter.calls - before

    counter = Counting(load_tokenizer("words"))
    first, calls = cuts(counter, text)
    assert calls > 0
    longdoc._CUTS.clear()  # what a new process has: nothing in memory
    assert cuts(counter, text) == (first, 0)  # read from the disk: no tokenization
    other = Counting(load_tokenizer("chars"))
    found, calls = cuts(other, text)
    assert found != first and calls > 0
    assert cuts(counter, text + " more")[1] > 0
    for root, _, names in os.walk(tmp_path):
        for name in names:
            with open(os.path.join(root, name), "w") as f:
                f.write("{not json")
    longdoc._CUTS.clear()
    found, calls = cuts(counter, text)
    assert found == first and calls > 0  # a bad entry: recomputed
    valid = 0
    for root, _, names in os.walk(tmp_path):
        for name in names:
            with open(os.path.join(root, name)) as f:
                try:
                    json.load(f)
                    valid += 1
                except ValueError:
                    pass
    assert valid == 1  # the recomputed entry was written again


def test_pretruncation_tokenizer_option_goes_into_the_cache_hash(llama2_tokenizer, tiny_tokenizer):
    a = get_builder("helmet/infbench_qa_8k", tokenizer="words", pretruncation_tokenizer=llama2_tokenizer)
    b = get_builder("helmet/infbench_qa_8k", tokenizer="words", pretruncation_tokenizer=tiny_tokenizer)
    assert a.pretruncation_tokenizer.identity == load_tokenizer(llama2_tokenizer).identity
    assert a.hash != b.hash
    # tasks without pre-truncation ignore the option and keep their cache
    rag = get_builder("helmet/nq_8k", tokenizer="words", pretruncation_tokenizer=tiny_tokenizer)
    assert rag.pretruncation_tokenizer is None
    assert rag.hash == get_builder("helmet/nq_8k", tokenizer="words").hash


def test_the_default_pretruncation_tokenizer_needs_the_hub_and_says_how_to_avoid_it():
    # tests run with HF_HUB_OFFLINE=1, so the gated default cannot load
    with pytest.raises(TokenizerLoadError, match="pretruncation_tokenizer=PATH"):
        get_builder("helmet/narrativeqa_8k", tokenizer="words")


def test_cli_passes_the_pretruncation_tokenizer(monkeypatch, llama2_tokenizer):
    seen = {}

    def fake_get_builder(name, *, split=None, options=None, **keywords):
        seen.update(BuildOptions.of(options, **keywords).given())
        raise SystemExit(0)

    monkeypatch.setattr("longbench_suite.api.get_builder", fake_get_builder)
    with pytest.raises(SystemExit):
        cli.main(["build", "helmet/infbench_qa_8k", "--pretruncation-tokenizer", llama2_tokenizer])
    assert seen["pretruncation_tokenizer"] == llama2_tokenizer
