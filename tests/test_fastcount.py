"""Token counts through fastokens (``fit/fastcount.py``): used only where its ids equal ``tokenizers``',
checked here against ``tokenizers.Tokenizer.encode`` of the whole text called directly."""

import pytest
from hypothesis import HealthCheck, given, settings
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

from longbench_suite.errors import InvalidTextError
from longbench_suite.fit import fastcount
from longbench_suite.fit.tokenizers import HFTokenizer
from longbench_suite.samplefiles import TextMaker
from tests.test_tokenizer_pieces import TEXTS, _byte_level

fastokens = pytest.importorskip("fastokens")
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _expected(tok: Tokenizer, texts, special: bool) -> list[int]:
    return [len(tok.encode(t, add_special_tokens=special).ids) for t in texts]


def _documents() -> list[str]:
    text = TextMaker("fastcount")
    doc = "\n\n".join(text.paragraph(6, 14) for _ in range(300))
    return [doc, doc[:5000] + "\n中文：长文本。😀 \t x\n", "", " ", "Question: {input}\nAnswer:"]


def _wordpiece(tmp_path) -> Tokenizer:
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    corpus = [TextMaker("wp").paragraph(4) for _ in range(200)]
    tok.train_from_iterator(
        corpus,
        trainers.WordPieceTrainer(
            vocab_size=300, special_tokens=["[UNK]", "[CLS]", "[SEP]"], show_progress=False
        ),
    )
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    return tok


def _unigram(tmp_path) -> Tokenizer:
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    corpus = [TextMaker("ug").paragraph(4) for _ in range(200)]
    tok.train_from_iterator(
        corpus,
        trainers.UnigramTrainer(
            vocab_size=300, special_tokens=["<unk>"], unk_token="<unk>", show_progress=False
        ),
    )
    return tok


@pytest.fixture(scope="module")
def kinds(llama2_tokenizer, tiny_tokenizer, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("kinds")
    return {
        "llama2": Tokenizer.from_file(llama2_tokenizer),
        "byte-level": Tokenizer.from_file(tiny_tokenizer),
        "byte-level prefix space": _byte_level(tmp, True, "<s> $A </s>"),
        "wordpiece": _wordpiece(tmp),
        "unigram": _unigram(tmp),
    }


def test_the_exact_tokenizers_of_the_benchmarks_count_through_fastokens(kinds):
    for name in ("llama2", "byte-level"):
        assert HFTokenizer(kinds[name], name).counting_backend == "fastokens", name


@pytest.mark.parametrize("kind", ["llama2", "byte-level", "byte-level prefix space", "wordpiece", "unigram"])
def test_counts_equal_whole_text_encodes_for_every_kind(kinds, kind):
    tok = kinds[kind]
    counter = HFTokenizer(tok, kind)
    texts = _documents()
    for special in (True, False):
        assert counter.count_batch(texts, special=special) == _expected(tok, texts, special), (kind, special)
    # whichever backend the probe chose, the counts are the tokenizer's own; the kinds whose ids
    # fastokens does not reproduce stay on tokenizers
    if kind in ("wordpiece", "unigram"):
        assert counter.counting_backend == "tokenizers"


@SETTINGS
@given(texts=TEXTS.map(lambda t: [t, t + "\n" + t[::-1]]))
def test_counts_equal_whole_text_encodes_on_adversarial_text(kinds, texts):
    for name in ("llama2", "byte-level"):
        tok = kinds[name]
        counter = _counters(kinds)[name]
        assert counter.count_batch(texts) == _expected(tok, texts, True), name
        assert counter.count_batch(texts, special=False) == _expected(tok, texts, False), name


_CACHE: dict = {}


def _counters(kinds) -> dict:
    if not _CACHE:
        _CACHE.update({name: HFTokenizer(kinds[name], name) for name in ("llama2", "byte-level")})
    return _CACHE


def test_a_backend_whose_ids_differ_is_never_used(kinds, monkeypatch):
    other = kinds["byte-level"].to_str()  # fastokens handed another vocabulary: different ids
    real = fastokens.Tokenizer.from_json_str
    monkeypatch.setattr(fastokens.Tokenizer, "from_json_str", staticmethod(lambda _json, **kw: real(other)))
    counter = HFTokenizer(kinds["llama2"], "llama2")
    assert counter.counting_backend == "tokenizers"
    texts = _documents()
    assert counter.count_batch(texts) == _expected(kinds["llama2"], texts, True)


def test_a_backend_that_fails_to_load_is_never_used(kinds, monkeypatch):
    def broken(*_a, **_k):
        raise RuntimeError("unsupported pipeline")

    monkeypatch.setattr(fastokens.Tokenizer, "from_json_str", staticmethod(broken))
    assert HFTokenizer(kinds["llama2"], "llama2").counting_backend == "tokenizers"


def test_the_environment_turns_it_off(kinds, monkeypatch):
    monkeypatch.setenv(fastcount.ENV, "0")
    assert HFTokenizer(kinds["llama2"], "llama2").counting_backend == "tokenizers"


def test_probe_texts_cover_every_added_token(kinds):
    added = [t.content for t in kinds["llama2"].get_added_tokens_decoder().values()]
    texts = fastcount.probe_texts(added)
    assert added and all(any(a in t and t != a for t in texts) for a in added)
    assert max(map(len, texts)) > 20_000  # a long text: BPE over one long word


def test_lone_surrogates_are_still_refused(kinds):
    counter = _counters(kinds)["llama2"]
    with pytest.raises(InvalidTextError, match="lone surrogate"):
        counter.count_batch(["fine", "bad \ud800 text"])


def _long_text() -> str:
    text = TextMaker("pieces")
    return "\n".join(text.paragraph(6, 14) for _ in range(400))


def test_an_encoding_asks_tokenizers_only_for_the_offsets_read(kinds, monkeypatch):
    tok = kinds["llama2"]
    counter = HFTokenizer(tok, "llama2", piece_chars=2000)
    text = _long_text()
    assert len(counter.pieces(text)) > 20
    encoded: list[str] = []
    real = counter._encode_batch
    monkeypatch.setattr(counter, "_encode_batch", lambda pieces: encoded.extend(pieces) or real(pieces))
    enc = counter.encode(text)
    whole = tok.encode(text)
    assert list(enc.ids) == whole.ids  # every id, from fastokens: only the first piece went to tokenizers
    assert len(encoded) == 1 and text.startswith(encoded[0])
    middle = len(whole.ids) // 2
    assert enc.offsets[middle] == whole.offsets[middle]  # one more piece: the one holding that token
    assert (
        len(encoded) == 2
        and encoded[1] in text[whole.offsets[middle][0] - 8000 : whole.offsets[middle][1] + 8000]
    )


def test_offsets_whose_ids_disagree_with_fastokens_fail_in_one_line(kinds, monkeypatch):
    from longbench_suite.errors import TokenizerMismatchError

    counter = HFTokenizer(kinds["llama2"], "llama2", piece_chars=2000)
    real = counter._fast.id_arrays
    monkeypatch.setattr(counter._fast, "id_arrays", lambda pieces: [a[::-1] for a in real(pieces)])
    enc = counter.encode(_long_text())
    with pytest.raises(TokenizerMismatchError, match=fastcount.ENV + "=0"):
        enc.offsets[len(enc) - 1]


def test_a_middle_cut_decodes_only_ids_checked_against_tokenizers(kinds, monkeypatch):
    from longbench_suite.errors import TokenizerMismatchError
    from longbench_suite.fit.truncation import keep_middle

    text = _long_text()
    plain = HFTokenizer(kinds["llama2"], "llama2", piece_chars=2000)
    budget = plain.count(text) // 2
    assert keep_middle(text, plain, budget) == keep_middle(text, plain, budget, fast=False)
    counter = HFTokenizer(kinds["llama2"], "llama2", piece_chars=2000)
    real = counter._fast.id_arrays
    # one wrong id per piece, where the middle cut decodes (the load-time probe would not see it)
    wrong = lambda pieces: [[*a[:-1], a[-1] ^ 1] for a in real(pieces)]  # noqa: E731
    monkeypatch.setattr(counter._fast, "id_arrays", wrong)
    with pytest.raises(TokenizerMismatchError, match=fastcount.ENV + "=0"):
        keep_middle(text, counter, budget)


def test_prompts_that_share_a_long_context_count_it_once(kinds, monkeypatch):
    counter = HFTokenizer(kinds["llama2"], "llama2", piece_chars=2000)
    context = _long_text()
    prompts = [f"{context}\n\nQuestion: {q}?\nAnswer:" for q in ("who", "where", "when")]
    counted: list[int] = []
    real = counter._fast.counts
    monkeypatch.setattr(
        counter._fast, "counts", lambda texts, **kw: counted.append(sum(map(len, texts))) or real(texts, **kw)
    )
    assert [counter.count(p) for p in prompts] == _expected(kinds["llama2"], prompts, True)
    assert counted[0] >= len(context) and sum(counted[1:]) < 2000  # later prompts: only their new lines


def test_a_copy_in_another_process_keeps_the_probes_verdicts(kinds, monkeypatch):
    import pickle

    from longbench_suite.fit.tokenizers import hf, probes

    counter = HFTokenizer(kinds["llama2"], "llama2")
    data = pickle.dumps(counter)
    # a fresh process: no counter to reuse, and no probe may run again
    monkeypatch.setattr(hf, "_LIVE", {})
    for name in ("no_token_spans_newlines", "piece_overhead"):
        monkeypatch.setattr(probes, name, lambda *a: pytest.fail("probed again"))
    monkeypatch.setattr(fastcount, "same_ids", lambda *a: pytest.fail("probed again"))
    copy = pickle.loads(data)
    assert copy.counting_backend == "fastokens" and copy.identity == counter.identity
    assert copy.newline_overhead == counter.newline_overhead
    texts = _documents()
    assert copy.count_batch(texts) == _expected(kinds["llama2"], texts, True)


def test_a_verdict_of_another_fastokens_release_is_probed_again(kinds, monkeypatch):
    import dataclasses

    from longbench_suite.fit.tokenizers import hf

    counter = HFTokenizer(kinds["llama2"], "llama2")
    state = counter.__getstate__()
    state["probed"] = dataclasses.replace(state["probed"], fastokens="0.0.1")
    monkeypatch.setattr(hf, "_LIVE", {})
    probes = []
    real = fastcount.same_ids
    monkeypatch.setattr(fastcount, "same_ids", lambda *a: probes.append(1) or real(*a))
    copy = HFTokenizer.__new__(HFTokenizer)
    copy.__setstate__(state)
    assert probes and copy.counting_backend == "fastokens"


def test_a_copy_in_a_process_that_holds_the_counter_reuses_it(kinds):
    import pickle

    counter = HFTokenizer(kinds["llama2"], "llama2")
    copy = pickle.loads(pickle.dumps(counter))
    assert copy.backend is counter.backend  # a forked worker parses and probes nothing
