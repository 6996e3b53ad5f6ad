"""LV-Eval end to end: every config from the per-dataset zips, over loopback HTTP and from data_dir.

The references here are written from ``docs/lveval.md``: the templates of §5 typed out below, the record
fields of §3 read straight from the fixture zips with ``zipfile`` and ``json``, and the ``query_id``
rule the dataset card states. Fixture zips cannot match the published sha256 of the real ones, so
the tests that download through the verified path first set the expected digests to the fixtures'
own (``ARCHIVE_SHA256`` is read at resolve time); one test keeps the production digest and expects
the mismatch error.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import zipfile

import pytest

from longbench_suite import cli, get_builder, load_dataset, prepare, registry
from longbench_suite.benchmarks.lveval import common, samples
from longbench_suite.errors import (
    DataFormatError,
    ShortSourceError,
    SourceError,
    SplitUnavailableError,
    TokenizerLoadError,
)
from longbench_suite.samplefiles import record_counts
from longbench_suite.source import mirrored
from longbench_suite.source.samples import RECORDS_NAME, declare_sample_records
from tests.specs import lveval as spec
from tests.support.hand_made import declare_as_written
from tests.support.http_mirror import MirrorServer

DATASETS = spec.DATASETS
LEVELS = spec.LEVELS
CONFIGS = spec.SPEC.configs
HUB = "https://huggingface.co/datasets/Infinigence/LVEval/resolve/86a3b0e6f2266281d481bcb46a0bda5b511cffb0"
PUBLISHED_SHA256 = {  # docs/lveval.md §1
    "cmrc_mixup": "bb5cd2ee324f0a9fc407d38eebf9622c29596cffeac1c75b57e2faaab280aeda",
    "dureader_mixup": "7e05c042bad3106436c261e1c088ff2ede36b00eb467e800be0f68175931dfdb",
    "hotpotwikiqa_mixup": "e274aac22f6f4537817117e48ef613bde9943fb3b269008ad8d03c8fc3e912be",
    "lic_mixup": "5bc281081242cfe0c746fd8ea466408867f5fe467e7f16dabb4066c939d21923",
    "loogle_CR_mixup": "dcc6c1e7e85a943dc0f761cde6cdfd10640d3f29af0461226928c03de83feb57",
    "loogle_MIR_mixup": "82373fa091abe7d93a1991c4bd98d76f1eb6af693aafbc34e4ee667e93a8b207",
    "loogle_SD_mixup": "8375934ba1737a7ec2fe2c7ea4a6972e6cbe25777658a6e5539eb1c5939a4ac8",
    "multifieldqa_zh_mixup": "bddda1fe0ab33a20f265f9de41bf86b0bf831baa225fe968c55c85e3da34f259",
}

# config.py DATASET_PROMPT, as quoted in docs/lveval.md §5 (each distinct text once).
SOME_PASSAGES_EN = (
    "Answer the question based on the given passages. "
    "Questions and answers are only relevant to some passages. "
    "Only give me the answer and do not output any other explanation and evidence.\n\n"
    "Article: {context}\n\nPlease answer the following question based on the above passages. "
    "Questions and answers are only relevant to some passages. "
    "Only give me the answer and do not output any other explanation and evidence.\n\n"
    "Question: {input}\nAnswer:"
)
ONE_PASSAGE_EN = (
    "Please answer the following question based on the given passages. "
    "Questions and answers are only relevant to one passage. "
    "Only give me the answer and do not output any other explanation and evidence.\n\n"
    "Article: {context}\n\nPlease answer the following question based on the above passages. "
    "Questions and answers are only relevant to one passage. "
    "Only give me the answer and do not output any other explanation and evidence.\n\n"
    "Question: {input}\nAnswer:"
)
ONE_PASSAGE_ZH = (
    "请阅读以下文章并用中文回答问题，问题和答案只与其中一篇文章有关。只需要直接给出问题的答案，"
    "不要输出其他任何解释和证据。\n\n文章：{context}\n\n请基于上面的文章回答下面的问题，"
    "问题和答案只与其中一篇文章有关。只需要直接给出问题的答案，不要输出其他任何解释和证据。\n\n"
    "问题：{input}\n回答："
)
FACTRECALL_EN = (
    "Please answer the following questions based on the given article.\n\n"
    "Article: {context}\n\n"
    "Please answer the following questions based on the above article.\n\n"
    "Question: {input}\nAnswer:"
)
FACTRECALL_ZH = (
    "请基于给定的文章回答下述问题。\n\n文章：{context}\n\n现在请基于上述文章回答下面的问题。"
    "\n\n问题：{input}\n回答："
)
ONE_ARTICLE_ZH = (
    "请根据下面给定的文章回答问题，问题和答案只与其中一篇文章有关。\n\n文章：{context}\n\n"
    "现在请基于上述文章回答下面的问题，问题和答案只与其中一篇文章有关。\n\n"
    "问题：{input}\n回答："
)
ONE_ARTICLE_ZH_LIC = (
    "请根据下面给定的文章回答问题，问题和答案只与其中一篇文章有关。\n\n文章：{context}\n\n"
    "请现在基于上述文章回答下面的问题，问题和答案只与其中一篇文章有关。\n\n"
    "问题：{input}\n回答："
)
TEMPLATES = {
    "hotpotwikiqa_mixup": SOME_PASSAGES_EN,
    "loogle_SD_mixup": ONE_PASSAGE_EN,
    "loogle_CR_mixup": ONE_PASSAGE_EN,
    "loogle_MIR_mixup": ONE_PASSAGE_EN,
    "multifieldqa_en_mixup": ONE_PASSAGE_EN,
    "multifieldqa_zh_mixup": ONE_PASSAGE_ZH,
    "factrecall_en": FACTRECALL_EN,
    "factrecall_zh": FACTRECALL_ZH,
    "cmrc_mixup": ONE_ARTICLE_ZH,
    "lic_mixup": ONE_ARTICLE_ZH_LIC,
    "dureader_mixup": ONE_ARTICLE_ZH,
}


def zip_url(dataset: str) -> str:
    return f"{HUB}/{dataset}.zip"


def read_level(zip_path: str, dataset: str, level: str) -> list[dict]:
    """The records of one level file, read directly from a zip in either layout."""
    with zipfile.ZipFile(zip_path) as zf:
        names = set(zf.namelist())
        member = f"{dataset}/{dataset}_{level}.jsonl"
        member = member if member in names else f"{dataset}_{level}.jsonl"
        return [json.loads(line) for line in zf.read(member).decode("utf-8").splitlines() if line.strip()]


def expected_row(dataset: str, record: dict) -> dict:
    """A row as docs/lveval.md §3-§5 and the row contract describe it (without query_id)."""
    facts = record.get("confusing_facts")
    facts = [] if facts in (None, "") else [facts] if isinstance(facts, str) else facts
    return {
        "input": TEMPLATES[dataset].format(**record),
        "output": record["answers"][0],
        "answers": record["answers"],
        "max_length": None,
        "input_budget": None,
        "input_tokens": None,
        "output_tokens": None,
        "input_truncated": False,
        "use_chat_template": True,
        "answer_prefix": "",
        "question": record["input"],
        "context": record["context"],
        "length": record["length"],
        "dataset": record["dataset"],
        "language": record["language"],
        "answer_keywords": record.get("answer_keywords"),
        "confusing_facts": facts,
        "max_new_tokens": spec.SPEC.declared[dataset]["max_new_tokens"],
    }


def without_id(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "query_id"}


def documented_query_id(dataset: str, question: str, answers: list[str], occurrence: int) -> str:
    """The card's rule: sha256 of the JSON [question, answers] (16 hex), then the occurrence."""
    pair = json.dumps([question, answers], ensure_ascii=False).encode("utf-8")
    return f"{dataset}-{hashlib.sha256(pair).hexdigest()[:16]}-{occurrence}"


def sha256_file(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.fixture(scope="module")
def mirror(tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("lveval-mirror"))
    samples.write_samples(root, samples.DEMO)
    return root


@pytest.fixture(scope="module")
def fixture_digests(mirror) -> dict[str, str]:
    return {d: sha256_file(mirrored(zip_url(d), mirror)) for d in DATASETS}


@pytest.fixture(scope="module")
def http(mirror):
    with MirrorServer(mirror) as server:
        yield server


@pytest.fixture(scope="module")
def built(fixture_digests, http, tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("lveval-cache"))
    builders = {c: get_builder(f"lveval/{c}", mirror=http.url, cache_dir=cache) for c in CONFIGS}
    with pytest.MonkeyPatch.context() as mp:
        # Expect the fixtures' own sha256 where a real one is published; the others stay unknown.
        for dataset in common.ARCHIVE_SHA256:
            mp.setitem(common.ARCHIVE_SHA256, dataset, fixture_digests[dataset])
        prepare(builders.values())
    return builders


def test_every_dataset_at_every_level_is_listed_under_upstream_names():
    assert registry.list_configs("lveval") == [f"lveval/{c}" for c in CONFIGS]
    assert registry.resolve("loogle_MIR_mixup_128k") == ("lveval", "loogle_MIR_mixup_128k")
    assert registry.resolve("factrecall_zh_256k") == ("lveval", "factrecall_zh_256k")


def test_declared_sizes_are_the_published_ones():
    bench = registry.benchmark("lveval")
    sizes = {c: bench.lookup(c)[0].expected_sizes(bench.lookup(c)[1]) for c in CONFIGS}
    assert sizes == {c: {"eval": spec.SPEC.eval_rows[c.rsplit("_", 1)[0]]} for c in CONFIGS}


def test_sources_are_pinned_zips_with_both_member_layouts():
    bench = registry.benchmark("lveval")
    for config in CONFIGS:
        task, level = bench.lookup(config)
        (source,) = task.sources(level).values()
        assert source.archive.url == zip_url(task.name)
        assert source.paths == (f"{task.name}/{config}.jsonl", f"{config}.jsonl")
        assert source.archive.sha256 == PUBLISHED_SHA256.get(task.name)
        assert source.archive.record_sha256


def test_every_config_builds_with_upstream_fields_and_prompts(built, mirror):
    for config, builder in built.items():
        dataset, level = config.rsplit("_", 1)
        assert set(builder.info.splits) == {"eval"}
        rows = builder.as_dataset(split="eval").to_list()
        records = read_level(mirrored(zip_url(dataset), mirror), dataset, level)
        assert [without_id(r) for r in rows] == [expected_row(dataset, r) for r in records], config


def test_five_levels_share_one_download_and_verified_checksums_are_recorded(built, http, fixture_digests):
    for dataset in DATASETS:
        path = zip_url(dataset).split("://", 1)[1]
        assert http.bytes_sent[path] == os.path.getsize(mirrored(zip_url(dataset), http.root)), dataset
        for level in LEVELS:
            checksums = built[f"{dataset}_{level}"].info.download_checksums
            assert checksums[zip_url(dataset)]["checksum"] == fixture_digests[dataset]


def test_query_id_is_the_qa_pair_and_is_shared_across_levels(built):
    reordered = 0
    for dataset in DATASETS:
        by_level = {lv: built[f"{dataset}_{lv}"].as_dataset(split="eval") for lv in LEVELS}
        first = by_level["16k"]
        pairs = {}
        for level, rows in by_level.items():
            ids = list(rows["query_id"])
            assert len(set(ids)) == len(ids), (dataset, level)
            assert set(ids) == set(first["query_id"]), (dataset, level)
            reordered += ids != list(first["query_id"])
            for qid, question, answers in zip(ids, rows["question"], rows["answers"], strict=True):
                assert pairs.setdefault(qid, (question, answers)) == (question, answers)
        if not dataset.startswith("factrecall"):
            for qid, (question, answers) in pairs.items():
                assert qid == documented_query_id(dataset, question, answers, 0)
    assert reordered, "the fixture levels should list their QA pairs in different orders"


def test_factrecall_rows_repeat_one_pair_and_are_told_apart_by_position(built):
    for dataset in ("factrecall_en", "factrecall_zh"):
        for level in LEVELS:
            rows = built[f"{dataset}_{level}"].as_dataset(split="eval")
            assert len({(q, tuple(a)) for q, a in zip(rows["question"], rows["answers"], strict=True)}) == 1
            question, answers = rows[0]["question"], rows[0]["answers"]
            assert list(rows["query_id"]) == [
                documented_query_id(dataset, question, answers, k) for k in range(len(rows))
            ]


def test_dev_is_refused_with_the_reason(mirror, tmp_path):
    opts = dict(mirror=mirror, cache_dir=str(tmp_path / "c"))
    for streaming in (False, True):
        with pytest.raises(SplitUnavailableError, match=r"evaluation data only.*factrecall_en_64k"):
            load_dataset("lveval", "factrecall_en_64k", split="dev", streaming=streaming, **opts)
    with pytest.raises(SplitUnavailableError, match=r"no 'dev' split"):
        load_dataset("longbench_suite", "factrecall_zh_16k", split="eval+dev", **opts)
    assert set(load_dataset("lveval", "factrecall_en_64k", **opts)) == {"eval"}


def test_cli_refuses_dev_in_one_line(mirror, tmp_path, capsys):
    assert cli.main(["build", "factrecall_en_64k", "--split", "dev", "--mirror", mirror]) == 2
    assert "evaluation data only" in capsys.readouterr().err


def test_demo_configs_build_from_the_samples_through_the_verified_download_path(tmp_path):
    samples.write_samples(str(tmp_path / "m"))
    for config in samples.DEMO_CONFIGS:
        rows = load_dataset(
            "lveval", config, split="eval", mirror=str(tmp_path / "m"), cache_dir=str(tmp_path)
        )
        assert len(rows) > 0, config


def test_building_without_a_budget_needs_no_tokenizer(mirror, tmp_path):
    # The default tokenizer is the gated Llama-2 one, unreachable here: nothing may try to load it.
    rows = load_dataset("lveval", "factrecall_en_16k", split="eval", mirror=mirror, cache_dir=str(tmp_path))
    assert len(rows) == samples.DEMO.factrecall_rows
    with pytest.raises(TokenizerLoadError, match=r"meta-llama/Llama-2-7b-hf"):
        get_builder("factrecall_en_16k", max_input_tokens=1000)
    lazy = get_builder("factrecall_en_16k")  # its tokenizer is loaded on first use (e.g. for --stats)
    with pytest.raises(TokenizerLoadError, match=r"meta-llama/Llama-2-7b-hf"):
        _ = lazy.tokenizer
    assert get_builder("factrecall_en_16k", tokenizer="words").tokenizer.name == "words"


def test_streaming_over_http_equals_prepared(built, http, tmp_path):
    for config in ("lic_mixup_64k", "factrecall_en_256k"):
        streamed = load_dataset(
            "lveval", config, split="eval", streaming=True, mirror=http.url, cache_dir=str(tmp_path / "s")
        )
        assert list(streamed) == built[config].as_dataset(split="eval").to_list()
    assert not (tmp_path / "s" / "longbench_suite_lveval").exists(), "streaming wrote Arrow files"


def test_published_sha256_mismatch_is_a_clear_error(mirror, http, tmp_path):
    # No patch: the production digest of hotpotwikiqa_mixup.zip cannot match the fixture zip.
    with pytest.raises(
        SourceError, match=r"sha256 mismatch for .*hotpotwikiqa_mixup\.zip: expected e274aac2"
    ):
        load_dataset(
            "lveval", "hotpotwikiqa_mixup_32k", split="eval", mirror=http.url, cache_dir=str(tmp_path)
        )
    leftovers = [f for _, _, files in os.walk(tmp_path) for f in files if f.endswith(".arrow")]
    assert leftovers == []
    downloads = [
        os.path.join(d, f)
        for d, _, files in os.walk(tmp_path / "downloads")
        for f in files
        if not f.endswith((".json", ".lock"))
    ]
    assert all(
        sha256_file(p) != sha256_file(mirrored(zip_url("hotpotwikiqa_mixup"), mirror)) for p in downloads
    ), "the mismatching download must not stay in the cache"


def test_wrong_expected_digest_for_an_unpublished_one_is_caught_too(mirror, tmp_path, monkeypatch):
    monkeypatch.setitem(common.ARCHIVE_SHA256, "factrecall_zh", "0" * 64)
    with pytest.raises(SourceError, match=r"sha256 mismatch .*factrecall_zh\.zip"):
        load_dataset("lveval", "factrecall_zh_16k", split="eval", mirror=mirror, cache_dir=str(tmp_path))


# -- data_dir layouts ---------------------------------------------------------------------------


def _flat_zip(source_zip: str, dest: str) -> None:
    with zipfile.ZipFile(source_zip) as src, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as out:
        for name in src.namelist():
            out.writestr(name.split("/")[-1], src.read(name))


@pytest.mark.parametrize("dataset, level", [("multifieldqa_zh_mixup", "64k"), ("loogle_CR_mixup", "256k")])
def test_data_dir_accepts_zips_in_both_layouts_extracted_folders_and_flat_files(
    built, mirror, tmp_path, dataset, level
):
    config = f"{dataset}_{level}"
    zip_path = mirrored(zip_url(dataset), mirror)
    layouts = {name: tmp_path / name for name in ("zip", "flat_zip", "extracted", "flat", "inside")}
    for path in layouts.values():
        path.mkdir()
    shutil.copy(zip_path, layouts["zip"] / f"{dataset}.zip")
    _flat_zip(zip_path, str(layouts["flat_zip"] / f"{dataset}.zip"))
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(layouts["extracted"])
        zf.extractall(layouts["inside"])
        (layouts["flat"] / f"{config}.jsonl").write_bytes(zf.read(f"{dataset}/{config}.jsonl"))
    expected = built[config].as_dataset(split="eval").to_list()
    for name, data_dir in layouts.items():
        where = data_dir / dataset if name == "inside" else data_dir
        declare_as_written(where, f"lveval/{config}")
        rows = load_dataset(
            "lveval", config, split="eval", data_dir=str(where), cache_dir=str(tmp_path / "c")
        )
        assert rows.to_list() == expected, name
        streamed = load_dataset("lveval", config, split="eval", data_dir=str(where), streaming=True)
        assert list(streamed) == expected, name


def test_flat_zip_from_a_mirror_over_http_prepared_and_streamed(tmp_path, monkeypatch):
    source = tmp_path / "src"
    samples.write_samples(str(source))
    flat_mirror = tmp_path / "flat"
    target = mirrored(zip_url("cmrc_mixup"), str(flat_mirror))
    os.makedirs(os.path.dirname(target))
    _flat_zip(mirrored(zip_url("cmrc_mixup"), str(source)), target)
    with open(target, "rb") as handle:  # the flat zip's members declare their counts, as samples do
        declare_sample_records(str(flat_mirror), record_counts(zip_url("cmrc_mixup"), handle.read()))
    monkeypatch.setitem(common.ARCHIVE_SHA256, "cmrc_mixup", sha256_file(target))
    expected = [expected_row("cmrc_mixup", r) for r in read_level(target, "cmrc_mixup", "128k")]
    with MirrorServer(str(flat_mirror)) as server:
        opts = dict(split="eval", mirror=server.url, cache_dir=str(tmp_path / "c"))
        prepared = load_dataset("lveval", "cmrc_mixup_128k", **opts).to_list()
        streamed = list(load_dataset("lveval", "cmrc_mixup_128k", streaming=True, **opts))
    assert [without_id(r) for r in prepared] == expected
    assert streamed == prepared


def test_a_zip_without_the_level_file_names_both_member_paths(tmp_path):
    with zipfile.ZipFile(tmp_path / "dureader_mixup.zip", "w") as zf:
        zf.writestr("dureader_mixup/dureader_mixup_16k.jsonl", "")
    with pytest.raises(
        SourceError, match=r"dureader_mixup/dureader_mixup_32k\.jsonl or dureader_mixup_32k\.jsonl"
    ):
        load_dataset(
            "lveval",
            "dureader_mixup_32k",
            split="eval",
            data_dir=str(tmp_path),
            cache_dir=str(tmp_path / "c"),
        )


# -- hand-checked records -----------------------------------------------------------------------


def _write_flat(data_dir, config: str, records: list) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    (data_dir / f"{config}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    declare_as_written(data_dir, f"lveval/{config}")


def _load_flat(tmp_path, config: str, records: list, **options):
    _write_flat(tmp_path / "data", config, records)
    return load_dataset(
        "lveval",
        config,
        split="eval",
        data_dir=str(tmp_path / "data"),
        cache_dir=str(tmp_path / "c"),
        **options,
    )


def test_hand_checked_english_prompt(tmp_path):
    record = {
        "input": "Who wrote the {letter}?",
        "context": "### Passage 1\nAda wrote the letter.\n\n### Passage 2\nA {brace} and a tab\there.",
        "answers": ["Ada"],
        "length": 17,
        "dataset": "hotpotwikiqa_mixup",
        "language": "en",
        "answer_keywords": "Ada",
        "confusing_facts": ["Bob wrote the letter."],
    }
    (row,) = _load_flat(tmp_path, "hotpotwikiqa_mixup_16k", [record])
    assert row["input"] == (
        "Answer the question based on the given passages. Questions and answers are only relevant to some "
        "passages. Only give me the answer and do not output any other explanation and evidence.\n\n"
        "Article: ### Passage 1\nAda wrote the letter.\n\n### Passage 2\nA {brace} and a tab\there.\n\n"
        "Please answer the following question based on the above passages. Questions and answers are only "
        "relevant to some passages. Only give me the answer and do not output any other explanation and "
        "evidence.\n\nQuestion: Who wrote the {letter}?\nAnswer:"
    )
    assert (row["output"], row["answer_keywords"], row["confusing_facts"]) == (
        "Ada",
        "Ada",
        ["Bob wrote the letter."],
    )
    assert (row["max_new_tokens"], row["use_chat_template"], row["answer_prefix"]) == (64, True, "")


def test_hand_checked_chinese_prompts(tmp_path):
    factrecall = {
        "input": "被世人广泛推崇为现代物理学奠基人的科学家叫什么名字？",
        "context": "文章 1\n\n标题：物理\n内容：贝多芬是现代物理学奠基人。",
        "answers": ["贝多芬"],
        "length": 40,
        "dataset": "factrecall_zh",
        "language": "zh",
        "confusing_facts": "贝克汉姆是现代物理学奠基人。",
    }
    (row,) = _load_flat(tmp_path / "f", "factrecall_zh_16k", [factrecall])
    assert row["input"] == (
        "请基于给定的文章回答下述问题。\n\n文章：文章 1\n\n标题：物理\n内容：贝多芬是现代物理学奠基人。\n\n"
        "现在请基于上述文章回答下面的问题。\n\n问题：被世人广泛推崇为现代物理学奠基人的科学家叫什么名字？\n回答："
    )
    assert row["confusing_facts"] == ["贝克汉姆是现代物理学奠基人。"] and row["max_new_tokens"] == 16
    lic = {
        "input": "谁建立了这座城市？",
        "context": "文章 9\n\n标题：城市\n内容：张三建立了这座城市。",
        "answers": ["张三"],
        "length": 30,
        "dataset": "lic_mixup",
        "language": "zh",
        "answer_keywords": "张三",
        "confusing_facts": ["李四建立了这座城市。"],
    }
    (row,) = _load_flat(tmp_path / "l", "lic_mixup_16k", [lic])
    assert row["input"] == (
        "请根据下面给定的文章回答问题，问题和答案只与其中一篇文章有关。\n\n"
        "文章：文章 9\n\n标题：城市\n内容：张三建立了这座城市。\n\n"
        "请现在基于上述文章回答下面的问题，问题和答案只与其中一篇文章有关。\n\n问题：谁建立了这座城市？\n回答："
    )
    (row,) = _load_flat(
        tmp_path / "m", "multifieldqa_zh_mixup_16k", [{**lic, "dataset": "multifieldqa_zh_mixup"}]
    )
    assert row["input"] == (
        "请阅读以下文章并用中文回答问题，问题和答案只与其中一篇文章有关。"
        "只需要直接给出问题的答案，不要输出其他任何解释和证据。\n\n"
        "文章：文章 9\n\n标题：城市\n内容：张三建立了这座城市。\n\n"
        "请基于上面的文章回答下面的问题，问题和答案只与其中一篇文章有关。"
        "只需要直接给出问题的答案，不要输出其他任何解释和证据。\n\n问题：谁建立了这座城市？\n回答："
    )


BASE = {
    "input": "q?",
    "context": "c",
    "answers": ["a", "b"],
    "length": 3,
    "dataset": "cmrc_mixup",
    "language": "zh",
}


def test_optional_fields_in_every_shape(tmp_path):
    records = [
        {**BASE, "confusing_facts": ["one", "two"], "answer_keywords": "a"},
        {**BASE, "confusing_facts": "one", "answer_keywords": None},
        {**BASE, "confusing_facts": None},
        {**BASE, "confusing_facts": []},
        {**BASE, "confusing_facts": ""},
        {**BASE, "extra_key": {"ignored": True}},
    ]
    rows = _load_flat(tmp_path, "cmrc_mixup_16k", records)
    assert rows["confusing_facts"] == [["one", "two"], ["one"], [], [], [], []]
    assert rows["answer_keywords"] == ["a", None, None, None, None, None]
    assert rows["answers"] == [["a", "b"]] * 6 and rows["output"] == ["a"] * 6
    assert "extra_key" not in rows.column_names


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"confusing_facts": 7}, r"line 2: field 'confusing_facts' must be null or a string or a list"),
        ({"confusing_facts": ["x", 1]}, r"line 2: field 'confusing_facts' must be"),
        ({"answer_keywords": ["x"]}, r"line 2: field 'answer_keywords' must be null or a string, got \['x'"),
        ({"answers": "a"}, r"line 2: field 'answers' must be a non-empty list of strings"),
        ({"answers": []}, r"line 2: field 'answers' must be a non-empty list of strings"),
        ({"length": "3"}, r"line 2: field 'length' must be an integer"),
        ({"input": None}, r"line 2: field 'input' must be a string"),
        ({"language": None}, r"line 2: field 'language' must be a string"),
        ({"context": None, "_drop": "context"}, r"line 2: the record has no field 'context'"),
        ({"dataset": None, "_drop": "dataset"}, r"line 2: the record has no field 'dataset'"),
    ],
)
def test_malformed_records_are_named_by_file_line_and_field(tmp_path, bad, message):
    record = {**BASE, **bad}
    record.pop(record.pop("_drop", "_none"), None)
    with pytest.raises(DataFormatError, match=r"cmrc_mixup_16k\.jsonl in .*" + message):
        _load_flat(tmp_path, "cmrc_mixup_16k", [BASE, record])


def test_malformed_json_and_empty_files(tmp_path):
    with pytest.raises(DataFormatError, match=r"cmrc_mixup_16k\.jsonl in .*line 2: malformed JSON"):
        _load_flat(tmp_path / "a", "cmrc_mixup_16k", [BASE, '{"input": "q?", "context": '])
    with pytest.raises(DataFormatError, match=r"'eval' split came out empty"):
        _load_flat(tmp_path / "b", "cmrc_mixup_16k", [""])  # a folder that declares its file empty
    data_dir = tmp_path / "b" / "data"
    (data_dir / RECORDS_NAME).unlink()  # held to upstream's count: an empty copy is short
    with pytest.raises(ShortSourceError, match=r"cmrc_mixup_16k\.jsonl in .*: holds 0 records, fewer than"):
        load_dataset(
            "lveval", "cmrc_mixup_16k", split="eval", data_dir=str(data_dir), cache_dir=str(tmp_path)
        )
