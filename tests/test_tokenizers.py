import pickle

import pytest

from longbench_suite.errors import TokenizerLoadError
from longbench_suite.tokenizers import load_tokenizer


def test_words_and_chars_units():
    text = "  two words\n和 中文 "
    words = load_tokenizer("words")
    assert words.count(text) == len(text.split()) == 4
    assert [text[a:b] for a, b in words.encode(text).offsets] == text.split()
    chars = load_tokenizer("chars")
    assert chars.count(text) == len(text)


def test_llama2_tokenizer_matches_sentencepiece_reference_ids(llama2_tokenizer):
    tok = load_tokenizer(llama2_tokenizer)
    assert list(tok.encode("Hello world!").ids) == [1, 15043, 3186, 29991]
    # The dummy-prefix behaviour transformers 5's LlamaTokenizer lost (ecosystem.md §5.1).
    assert list(tok.encode(" grabbed").ids) == [1, 29871, 2646, 1327, 287]
    enc = tok.encode("Hello world!")
    assert enc.leading_specials == 1 and enc.offsets[0] == (0, 0)
    assert [("Hello world!")[a:b] for a, b in enc.offsets[1:]] == ["Hello", " world", "!"]


def test_llama2_from_directory_and_identity(llama2_tokenizer, tmp_path, tiny_tokenizer):
    import os

    by_file = load_tokenizer(llama2_tokenizer)
    by_dir = load_tokenizer(os.path.dirname(llama2_tokenizer))
    assert by_file.identity == by_dir.identity
    assert by_file.identity != load_tokenizer(tiny_tokenizer).identity


def test_cl100k_base(cl100k):
    tok = load_tokenizer("cl100k_base")
    assert list(tok.encode("Hello world!").ids) == [9906, 1917, 0]
    assert tok.identity == load_tokenizer("tiktoken:cl100k_base").identity == "tiktoken:cl100k_base"
    text = "Hello 世界 😀!"
    enc = tok.encode(text)
    assert "".join(text[a:b] for a, b in enc.offsets) == text


def test_tokenizers_pickle(llama2_tokenizer, cl100k):
    for spec in (llama2_tokenizer, "cl100k_base", "words"):
        tok = load_tokenizer(spec)
        clone = pickle.loads(pickle.dumps(tok))
        assert clone.identity == tok.identity
        assert list(clone.encode("a b c").ids) == list(tok.encode("a b c").ids)


def test_tokenizers_object_is_accepted(llama2_tokenizer):
    from tokenizers import Tokenizer

    tok = load_tokenizer(Tokenizer.from_file(llama2_tokenizer))
    assert tok.identity == load_tokenizer(llama2_tokenizer).identity


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "empty"),
        ("/no/such/tokenizer.json", "not 'words'"),
        ("not a spec at all", "not 'words'"),
        ("meta-llama/Llama-2-7b-hf", "gated repo"),
    ],
)
def test_unloadable_specs_name_the_spec(spec, message):
    with pytest.raises(TokenizerLoadError, match=message):
        load_tokenizer(spec)


def test_directory_without_tokenizer_json_and_garbage_file(tmp_path):
    with pytest.raises(TokenizerLoadError, match=r"no tokenizer.json"):
        load_tokenizer(str(tmp_path))
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json")
    with pytest.raises(TokenizerLoadError, match=str(bad)):
        load_tokenizer(str(bad))
