import json
import pickle
import shutil
from pathlib import Path

import pytest

from longbench_suite.errors import TokenizerLoadError
from longbench_suite.fit.tokenizers import load_tokenizer


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
    # The dummy-prefix behaviour transformers 5's LlamaTokenizer lost (docs/ecosystem.md §5.1).
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


@pytest.mark.parametrize("spec", ["tiny", "llama2", "cl100k", "words", "chars"])
def test_lone_surrogates_are_a_clear_error_for_every_tokenizer(
    spec, tiny_tokenizer, llama2_tokenizer, cl100k
):
    from longbench_suite.errors import InvalidTextError

    counter = load_tokenizer(
        {"tiny": tiny_tokenizer, "llama2": llama2_tokenizer, "cl100k": "cl100k_base"}.get(spec, spec)
    )
    text = "abc\ud800def"
    for call in (counter.encode, counter.count):
        with pytest.raises(
            InvalidTextError, match=r"the text holds a lone surrogate '\\ud800' at character 3"
        ):
            call(text)
    with pytest.raises(
        InvalidTextError, match=r"text 1 of the batch holds a lone surrogate '\\udfff' at character 0"
    ):
        counter.count_batch(["fine 😀 文字", "\udfff"])
    assert counter.count("a 😀 b") == counter.count_batch(["a 😀 b"])[0]  # pairs are fine


def test_a_tokenizer_json_rewritten_in_place_is_reloaded(tiny_tokenizer, llama2_tokenizer, tmp_path):
    import shutil

    path = tmp_path / "tokenizer.json"
    shutil.copy(Path(tiny_tokenizer).with_name("tokenizer_config.json"), tmp_path)
    shutil.copy(tiny_tokenizer, path)
    first = load_tokenizer(str(path))
    shutil.copy(llama2_tokenizer, path)
    second = load_tokenizer(str(path))
    assert first.identity == load_tokenizer(tiny_tokenizer).identity
    assert second.identity == load_tokenizer(llama2_tokenizer).identity != first.identity
    assert load_tokenizer(str(tmp_path)).identity == second.identity  # the directory form too


def test_without_tiktoken_only_tiktoken_specs_fail(monkeypatch, tiny_tokenizer):
    import sys

    from longbench_suite.errors import MissingDependencyError
    from longbench_suite.fit.tokenizers import loading

    monkeypatch.setitem(sys.modules, "tiktoken", None)
    loading._load_named.cache_clear()
    try:
        with pytest.raises(MissingDependencyError, match=r"'cl100k_base'.*pip install tiktoken"):
            load_tokenizer("cl100k_base")
        with pytest.raises(MissingDependencyError, match=r"pip install tiktoken"):
            load_tokenizer("tiktoken:o200k_base")
        with pytest.raises(TokenizerLoadError, match=r"from the Hugging Face Hub"):  # not about tiktoken
            load_tokenizer("meta-llama/Llama-2-7b-hf")
        assert load_tokenizer(tiny_tokenizer).count("river") > 0
        assert load_tokenizer("words").count("a b") == 2
    finally:
        loading._load_named.cache_clear()


# -- transformers' decode clean-up (clean_up_tokenization_spaces) -----------------------------------

CLEAN_UP_TEXT = (
    "He would patronise 'men of letters' , they said . Isn't it ? Yes ! I 'm sure we 've "
    "seen they 're right ; it 's John 's ' book ' . Don 't , won 't ... "
)


def _tokenizer_dir(tmp_path, source: str, config: dict | None) -> Path:
    folder = tmp_path / ("with-config" if config is not None else "no-config")
    folder.mkdir()
    shutil.copy(source, folder / "tokenizer.json")
    if config is not None:
        (folder / "tokenizer_config.json").write_text(json.dumps(config))
    return folder


@pytest.mark.parametrize(
    "config", [None, {}, {"clean_up_tokenization_spaces": True}, {"clean_up_tokenization_spaces": False}]
)
def test_middle_cut_decoding_equals_transformers_decode_under_the_configs_clean_up(
    llama2_tokenizer, tmp_path, config
):
    transformers = pytest.importorskip("transformers")  # the test extra has it; the floors run may not

    folder = _tokenizer_dir(tmp_path, llama2_tokenizer, config)
    counter = load_tokenizer(str(folder))
    clean_up = (config or {}).get("clean_up_tokenization_spaces", True)  # transformers 4's default
    # transformers 5 skips the clean-up for BPE unless forced; the 4.x releases upstream pins apply it
    reference = transformers.PreTrainedTokenizerFast(
        tokenizer_file=str(folder / "tokenizer.json"),
        clean_up_tokenization_spaces=clean_up,
        clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output=True,
    )
    encoding = counter.encode(CLEAN_UP_TEXT)
    n = len(encoding.ids)
    spans = [(0, n), (0, n // 2), (n // 3, n), (5, 17), (1, n - 1)]
    for a, b in spans:
        expected = reference.decode(list(encoding.ids[a:b]), skip_special_tokens=True)
        assert counter.decode_span(CLEAN_UP_TEXT, encoding, a, b) == expected, (config, a, b)
    whole = counter.decode_span(CLEAN_UP_TEXT, encoding, 0, n)
    assert ("patronise'men" in whole) is clean_up
    assert ("patronise 'men" in whole) is not clean_up


def test_the_clean_up_setting_is_part_of_the_tokenizer_identity(llama2_tokenizer, tmp_path):
    raw = load_tokenizer(
        str(_tokenizer_dir(tmp_path, llama2_tokenizer, {"clean_up_tokenization_spaces": False}))
    )
    cleaned = load_tokenizer(str(_tokenizer_dir(tmp_path, llama2_tokenizer, None)))
    assert raw.identity != cleaned.identity
    assert raw.identity == load_tokenizer(llama2_tokenizer).identity  # the fixture's config says false
    assert pickle.loads(pickle.dumps(cleaned)).decode_span("a .", cleaned.encode("a ."), 0, 3) == "a."


def test_a_bad_clean_up_setting_is_one_line_naming_the_file(llama2_tokenizer, tmp_path):
    folder = _tokenizer_dir(tmp_path, llama2_tokenizer, {"clean_up_tokenization_spaces": "yes"})
    with pytest.raises(
        TokenizerLoadError, match=r"tokenizer_config.json: 'clean_up_tokenization_spaces' must"
    ):
        load_tokenizer(str(folder))


def _serve_hub_files(monkeypatch, files: dict[str, str | None]) -> None:
    """``hf_hub_download`` answering from ``files``: a path, ``None`` (not in the repo) or ``"offline"``."""
    import huggingface_hub
    from huggingface_hub import utils as errors

    # what hf_hub_download raises for a file the repo lacks (RemoteEntryNotFoundError since hub 1.0)
    missing = getattr(errors, "RemoteEntryNotFoundError", errors.EntryNotFoundError)

    class NotInRepo(missing):
        def __init__(self, name: str) -> None:
            Exception.__init__(self, f"404: {name}")

    def download(repo_id, filename, revision=None, **_):
        found = files[filename]
        if found is None:
            raise NotInRepo(filename)
        if found == "offline":
            raise errors.LocalEntryNotFoundError(f"{filename} is not cached")
        return found

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)


def test_a_hub_tokenizer_reads_its_config_and_defaults_to_clean_up_when_the_repo_has_none(
    llama2_tokenizer, tmp_path, monkeypatch
):
    config = tmp_path / "tokenizer_config.json"
    config.write_text(json.dumps({"clean_up_tokenization_spaces": False}))
    _serve_hub_files(monkeypatch, {"tokenizer.json": llama2_tokenizer, "tokenizer_config.json": str(config)})
    assert not load_tokenizer("example/with-config").clean_up_tokenization_spaces
    _serve_hub_files(monkeypatch, {"tokenizer.json": llama2_tokenizer, "tokenizer_config.json": None})
    assert load_tokenizer("example/without-config").clean_up_tokenization_spaces


def test_an_offline_hub_tokenizer_without_its_cached_config_is_refused_not_guessed(
    llama2_tokenizer, monkeypatch
):
    _serve_hub_files(monkeypatch, {"tokenizer.json": llama2_tokenizer, "tokenizer_config.json": "offline"})
    with pytest.raises(TokenizerLoadError, match=r"'example/offline'.*tokenizer_config.json is not in the"):
        load_tokenizer("example/offline")


# -- transformers tokenizer objects ------------------------------------------------------------------

#: Meta's Llama-2 tokenizer_config.json names this class, which transformers 5 rebuilds (§5.1)
LLAMA_CONFIG = {
    "tokenizer_class": "LlamaTokenizer",
    "clean_up_tokenization_spaces": False,
    "bos_token": "<s>",
    "eos_token": "</s>",
    "unk_token": "<unk>",
    "chat_template": "{% for m in messages %}[INST] {{ m['content'] }} [/INST]{% endfor %}",
}


def _auto(folder, **kwargs):
    transformers = pytest.importorskip("transformers")  # the test extra has it; the floors run may not
    return transformers.AutoTokenizer.from_pretrained(str(folder), **kwargs)


@pytest.fixture(scope="module")
def llama_folder(llama2_tokenizer, tmp_path_factory) -> Path:
    """Llama-2's tokenizer.json beside a config naming transformers' LlamaTokenizer."""
    return _tokenizer_dir(tmp_path_factory.mktemp("llama"), llama2_tokenizer, LLAMA_CONFIG)


@pytest.fixture(scope="module")
def llama(llama_folder):
    """``AutoTokenizer.from_pretrained(folder)``: a LlamaTokenizer (tests restore what they change)."""
    return _auto(llama_folder)


def test_a_transformers_llama_tokenizer_counts_with_its_tokenizer_json(llama, llama_folder):
    assert type(llama).__name__ == "LlamaTokenizer"
    assert llama(" grabbed")["input_ids"] == [1, 2646, 1327, 287]  # transformers 5's rebuilt pipeline
    counter = load_tokenizer(llama)
    assert list(counter.encode(" grabbed").ids) == [1, 29871, 2646, 1327, 287]  # the tokenizer.json's
    assert counter.identity == load_tokenizer(str(llama_folder)).identity  # same rows, same build cache


def test_a_generic_transformers_tokenizer_uses_its_backend_json(tiny_tokenizer, llama2_tokenizer):
    from tokenizers import Tokenizer

    generic = _auto(Path(tiny_tokenizer).parent)
    assert type(generic).__name__ in ("TokenizersBackend", "PreTrainedTokenizerFast")
    assert load_tokenizer(generic).identity == load_tokenizer(tiny_tokenizer).identity
    # built in memory, from no folder at all
    transformers = pytest.importorskip("transformers")
    in_memory = transformers.PreTrainedTokenizerFast(tokenizer_object=Tokenizer.from_file(llama2_tokenizer))
    counter = load_tokenizer(in_memory)
    assert counter.identity.startswith(load_tokenizer(llama2_tokenizer).identity)
    assert counter.count("Hello world!") == 4


def test_a_transformers_tokenizer_decodes_under_its_own_clean_up_setting(llama, monkeypatch):
    raw = load_tokenizer(llama)  # as the config says: false
    monkeypatch.setattr(llama, "clean_up_tokenization_spaces", True)
    cleaned = load_tokenizer(llama)
    assert not raw.clean_up_tokenization_spaces and cleaned.clean_up_tokenization_spaces
    assert raw.identity != cleaned.identity
    encoding = raw.encode(CLEAN_UP_TEXT)
    assert "patronise 'men" in raw.decode_span(CLEAN_UP_TEXT, encoding, 0, len(encoding))
    assert "patronise'men" in cleaned.decode_span(CLEAN_UP_TEXT, encoding, 0, len(encoding))


def test_a_hub_loaded_transformers_tokenizer_finds_its_cached_tokenizer_json(
    llama, llama2_tokenizer, monkeypatch
):
    import huggingface_hub

    monkeypatch.setattr(llama, "name_or_path", "example/llama")  # as from_pretrained("example/llama")
    asked = []

    def cached(repo_id, filename, **_):
        asked.append((repo_id, filename))
        return llama2_tokenizer

    monkeypatch.setattr(huggingface_hub, "try_to_load_from_cache", cached)
    assert load_tokenizer(llama).identity == load_tokenizer(llama2_tokenizer).identity
    assert asked == [("example/llama", "tokenizer.json")]


def test_an_unusable_tokenizer_object_is_one_short_line(llama, tmp_path, monkeypatch):
    # the folder it came from no longer holds the file
    monkeypatch.setattr(llama, "name_or_path", str(tmp_path / "gone"))
    with pytest.raises(TokenizerLoadError) as refused:
        load_tokenizer(llama)
    message = str(refused.value)
    assert "LlamaTokenizer" in message and "tokenizer=PATH" in message
    assert "\n" not in message and len(message) < 300
    with pytest.raises(TokenizerLoadError, match=r"^cannot load tokenizer: unsupported type list; pass "):
        load_tokenizer(["not", "a", "tokenizer"])


def test_a_tiktoken_encoding_object_counts_as_its_name(cl100k):
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base")
    counter = load_tokenizer(encoding)
    by_name = load_tokenizer("cl100k_base")
    text = "Long-context benchmarks, counted twice."
    assert counter.identity == by_name.identity == "tiktoken:cl100k_base"
    assert counter.count(text) == by_name.count(text) == len(encoding.encode_ordinary(text))
    custom = tiktoken.Encoding("mine", pat_str=r"\S+|\s+", mergeable_ranks={b"a": 0}, special_tokens={})
    with pytest.raises(TokenizerLoadError, match=r"^cannot count with the tiktoken encoding 'mine'"):
        load_tokenizer(custom)


def test_chat_template_tokenizer_uses_the_objects_template(llama, llama_folder, monkeypatch):
    from longbench_suite.fit.chat import ChatTemplateError, load_chat_template

    # as loaded, the object's template is the config's: the same template as for the folder
    as_loaded = load_chat_template("tokenizer", llama)
    assert as_loaded.identity == load_chat_template("tokenizer", str(llama_folder)).identity
    monkeypatch.setattr(
        llama, "chat_template", "{{ bos_token }}{% for m in messages %}<<{{ m['content'] }}>>{% endfor %}"
    )
    template = load_chat_template("tokenizer", llama)
    assert template.template == llama.chat_template
    assert template.render("hi") == "<s><<hi>>"
    monkeypatch.setattr(llama, "chat_template", None)
    with pytest.raises(ChatTemplateError, match="LlamaTokenizer object given as tokenizer, and it has none"):
        load_chat_template("tokenizer", llama)


@pytest.mark.slow
def test_a_build_under_a_transformers_tokenizer_equals_the_build_under_its_folder(
    demo_mirror, tiny_tokenizer, tmp_path
):
    from longbench_suite import load_dataset

    folder = _tokenizer_dir(tmp_path, tiny_tokenizer, {**LLAMA_CONFIG, "tokenizer_class": None})
    options = dict(mirror=demo_mirror, pretruncation_tokenizer=tiny_tokenizer, cache_dir=str(tmp_path / "c"))

    def rows(tokenizer) -> list[dict]:
        stream = load_dataset(
            "helmet", "narrativeqa_8k", split="eval", streaming=True, tokenizer=tokenizer,
            chat_template="tokenizer", **options,
        )  # fmt: skip
        return list(stream.take(2))

    by_object = rows(_auto(folder))
    assert by_object == rows(str(folder))
    assert by_object[0]["chat_template"].startswith("tokenizer:")
