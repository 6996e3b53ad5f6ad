"""The builder's cache identity: code, tokenizer and row-changing options each get their own cache."""

from __future__ import annotations

import os

from longbench_suite import builder as builder_module
from longbench_suite import get_builder


def test_tokenizer_identity_changes_the_cache_hash(tiny_tokenizer, llama2_tokenizer, tmp_path):
    a = get_builder("nq_8k", tokenizer=tiny_tokenizer, cache_dir=str(tmp_path))
    b = get_builder("nq_8k", tokenizer=llama2_tokenizer, cache_dir=str(tmp_path))
    same = get_builder("nq_8k", tokenizer=os.path.dirname(tiny_tokenizer), cache_dir=str(tmp_path))
    assert a.hash != b.hash and a.cache_dir != b.cache_dir
    assert same.hash == a.hash, "the same tokenizer.json, named differently, is the same tokenizer"


def test_code_changes_change_the_cache_hash(tiny_tokenizer, tmp_path, monkeypatch):
    before = get_builder("nq_8k", tokenizer=tiny_tokenizer, cache_dir=str(tmp_path)).hash
    builder_module.code_hash.cache_clear()
    monkeypatch.setattr(builder_module, "__version__", "99.0.0")
    after = get_builder("nq_8k", tokenizer=tiny_tokenizer, cache_dir=str(tmp_path)).hash
    builder_module.code_hash.cache_clear()
    assert before != after


def test_row_changing_options_get_their_own_config_id_without_leaking_paths(tiny_tokenizer, tmp_path):
    plain = get_builder("nq_8k", tokenizer=tiny_tokenizer, cache_dir=str(tmp_path))
    capped = get_builder("nq_8k", tokenizer=tiny_tokenizer, cache_dir=str(tmp_path), max_input_tokens=500)
    mirror = "http://user:secret@127.0.0.1:1/m"
    mirrored = get_builder("nq_8k", tokenizer=tiny_tokenizer, cache_dir=str(tmp_path), mirror=mirror)
    assert plain.config_id == "nq_8k"
    assert len({plain.cache_dir, capped.cache_dir, mirrored.cache_dir}) == 3
    assert "secret" not in mirrored.cache_dir and "127.0.0.1" not in mirrored.cache_dir
    assert mirrored.dataset_name == "longbench_suite_helmet"
