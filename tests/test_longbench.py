"""LongBench + LongBench-E: configs, the dev/eval rule, row columns, sources and errors.

The synthetic ``data.zip`` (``longbench_suite/benchmarks/longbench/samples.py``) has every task's file in
the upstream layout; expectations are computed here from the zip's own records, from
``docs/longbench.md`` §2-§4 and from the spec (``tests/specs/longbench.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import zipfile

import pytest

from longbench_suite import cli, get_builder, list_configs, load_dataset, prepare
from longbench_suite.errors import (
    DataFormatError,
    SourceError,
    SplitUnavailableError,
    TokenizerLoadError,
    UnknownNameError,
)
from longbench_suite.registry import resolve
from longbench_suite.source import mirrored
from tests.specs import longbench as spec
from tests.specs.longbench import base, sibling

ZIP_URL = "https://huggingface.co/datasets/THUDM/LongBench/resolve/4a90f81c8db79f60c15f77dcd207a1099038c775/data.zip"
#: length -> the model window (K = 1024, the rows' max_length) and the prompt budget (their input_budget)
WINDOWS = {length: window for length, (window, _) in spec.LENGTHS.items()}
BUDGETS = {length: budget for length, (_, budget) in spec.LENGTHS.items()}
TASKS = spec.LONGBENCH + spec.LONGBENCH_E
FIELDS = ["input", "context", "answers", "length", "dataset", "language", "all_classes", "_id"]


def content(record: dict) -> str:
    return json.dumps([record["input"], record["context"], record["answers"]], ensure_ascii=False)


def bucket(length: int) -> str:
    return "0-4k" if length < 4000 else "4-8k" if length < 8000 else "8k+"


@pytest.fixture(scope="module")
def files(longbench_mirror) -> dict[str, list[dict]]:
    with zipfile.ZipFile(mirrored(ZIP_URL, longbench_mirror)) as zf:
        return {
            name[len("data/") : -len(".jsonl")]: [json.loads(line) for line in zf.read(name).splitlines()]
            for name in zf.namelist()
        }


def expected_dev(files, task: str) -> list[dict]:
    """The sibling file's rows whose content and _id both differ from every row of the task's file."""
    own = files[task]
    contents, ids = {content(r) for r in own}, {r["_id"] for r in own}
    return [r for r in files[sibling(task)] if content(r) not in contents and r["_id"] not in ids]


def test_every_task_at_every_length_is_listed():
    listed = list_configs("longbench")
    assert len(listed) == len(TASKS) * len(spec.LENGTHS) == len(set(listed))
    assert set(listed) == {f"longbench/{t}_{length}" for t in TASKS for length in spec.LENGTHS}
    assert resolve("2wikimqa_4k") == ("longbench", "2wikimqa_4k")
    assert resolve("repobench-p_e_full") == ("longbench", "repobench-p_e_full")
    assert resolve("longbench/hotpotqa_e_32k") == ("longbench", "hotpotqa_e_32k")
    with pytest.raises(
        UnknownNameError, match=r"ambiguous; use one of helmet/hotpotqa_8k, longbench/hotpotqa_8k"
    ):
        resolve("hotpotqa_8k")


def test_sample_zip_has_the_upstream_layout(longbench_mirror, files):
    with zipfile.ZipFile(mirrored(ZIP_URL, longbench_mirror)) as zf:
        assert sorted(zf.namelist()) == sorted(f"data/{t}.jsonl" for t in TASKS)
    for task, records in files.items():
        for r in records:
            assert list(r) == FIELDS
            assert isinstance(r["answers"], list) and all(isinstance(a, str) for a in r["answers"])
            assert isinstance(r["length"], int)
            assert (r["all_classes"] is None) == (base(task) not in ("trec", "lsht"))
            assert len(r["_id"]) == 48 and r["dataset"] == base(task)
    for task in spec.LONGBENCH_E:
        shared = {content(r) for r in files[task]} & {content(r) for r in files[base(task)]}
        assert 0 < len(shared) < len(files[task])
        assert {bucket(r["length"]) for r in files[task]} == {"0-4k", "4-8k", "8k+"}


@pytest.mark.slow
def test_every_config_builds_with_the_dev_rule(longbench_mirror, files, tmp_path):
    # Streaming runs the same generation as a prepared build, without writing Arrow files.
    for task in TASKS:
        for length, budget in BUDGETS.items():
            options = dict(mirror=longbench_mirror, tokenizer="words", cache_dir=str(tmp_path))
            rows = list(
                load_dataset("longbench", f"{task}_{length}", split="eval", streaming=True, **options)
            )
            assert [r["question"] for r in rows] == [r["input"] for r in files[task]]
            assert [r["_id"] for r in rows] == [r["_id"] for r in files[task]]
            assert {r["max_length"] for r in rows} == {WINDOWS[length]}
            assert {r["input_budget"] for r in rows} == {budget}
            assert {r["use_chat_template"] for r in rows} == {spec.line(task).chat}
            assert {r["max_new_tokens"] for r in rows} == {spec.line(task).max_new_tokens}
            if sibling(task):
                dev = list(
                    load_dataset("longbench", f"{task}_{length}", split="dev", streaming=True, **options)
                )
                assert [r["_id"] for r in dev] == [r["_id"] for r in expected_dev(files, task)]
                assert not {r["query_id"] for r in dev} & {r["query_id"] for r in rows}
            else:
                with pytest.raises(SplitUnavailableError, match="LongBench publishes evaluation data only"):
                    load_dataset("longbench", f"{task}_{length}", split="dev", streaming=True, **options)


def test_rows_keep_every_upstream_field_and_add_the_common_columns(longbench_mirror, files, tmp_path):
    for task in ("trec_e", "lsht", "repobench-p", "multi_news_e"):
        splits = load_dataset(
            "longbench", f"{task}_full", mirror=longbench_mirror, cache_dir=str(tmp_path / "c")
        )
        sources = {"eval": files[task], "dev": expected_dev(files, task) if sibling(task) else None}
        assert set(splits) == ({"dev", "eval"} if sibling(task) else {"eval"})
        for split, rows in splits.items():
            for row, record in zip(rows, sources[split], strict=True):
                assert row["question"] == record["input"]
                assert {k: row[k] for k in FIELDS[1:]} == {k: record[k] for k in FIELDS[1:]}
                assert row["output"] == record["answers"][0]
                assert row["max_length"] is None and row["input_budget"] is None
                assert row["answer_prefix"] == ""
                assert row["use_chat_template"] is spec.line(task).chat
                assert row["max_new_tokens"] == spec.line(task).max_new_tokens
                assert row["length_bucket"] == bucket(record["length"])
                digest = hashlib.sha256(content(record).encode("utf-8")).hexdigest()
                assert row["query_id"] == f"{base(task)}-{digest[:16]}"


def test_rows_shared_by_both_sets_have_one_query_id(longbench_mirror, tmp_path):
    opts = dict(mirror=longbench_mirror, cache_dir=str(tmp_path))
    lb = load_dataset("longbench", "hotpotqa_full", **opts)
    lbe = load_dataset("longbench", "hotpotqa_e_full", **opts)
    shared = set(lb["eval"]["query_id"]) & set(lbe["eval"]["query_id"])
    assert len(shared) == 2
    # every row of the two files is in exactly one split of each config
    everything = set(lb["eval"]["query_id"]) | set(lbe["eval"]["query_id"])
    assert set(lb["eval"]["query_id"]) | set(lb["dev"]["query_id"]) == everything
    assert set(lbe["eval"]["query_id"]) | set(lbe["dev"]["query_id"]) == everything
    assert not set(lb["dev"]["query_id"]) & set(lbe["dev"]["query_id"])


def _record(i: int, **changes) -> dict:
    r = {
        "input": f"question {i}?",
        "context": f"Passage 1:\nTitle {i}\nText {i}.",
        "answers": [f"answer {i}"],
        "length": 9 + i,
        "dataset": "hotpotqa",
        "language": "en",
        "all_classes": None,
        "_id": f"{i:048x}",
    }
    return {**r, **changes}


def _write_jsonl(path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def test_dev_compares_content_and_id_not_only_id(tmp_path):
    a, b, c, g = _record(1), _record(2), _record(3), _record(7)
    same_content_new_id = {**a, "_id": "f" * 48, "dataset": "hotpotqa_e", "length": 4100}
    same_id_new_content = _record(3, context="another context")
    other_context = _record(1, context="a different set of passages", _id="e" * 48)
    new = _record(4, dataset="hotpotqa_e")
    _write_jsonl(tmp_path / "hotpotqa.jsonl", [a, b, c, g])
    _write_jsonl(
        tmp_path / "hotpotqa_e.jsonl", [same_content_new_id, b, new, same_id_new_content, other_context]
    )
    opts = dict(data_dir=str(tmp_path), cache_dir=str(tmp_path / "cache"))
    lb = load_dataset("longbench", "hotpotqa_full", **opts)
    assert lb["dev"]["_id"] == [new["_id"], other_context["_id"]]
    assert lb["dev"]["dataset"] == ["hotpotqa_e", "hotpotqa"]  # both forms of the field load as they are
    lbe = load_dataset("longbench", "hotpotqa_e_full", **opts)
    assert lbe["dev"]["_id"] == [g["_id"]]
    # the same content is the same QA pair, whatever its _id and length
    assert lbe["eval"][0]["query_id"] == lb["eval"][0]["query_id"]
    assert lbe["eval"][0]["length_bucket"] == "4-8k" and lb["eval"][0]["length_bucket"] == "0-4k"
    for splits in (lb, lbe):
        assert not set(splits["dev"]["query_id"]) & set(splits["eval"]["query_id"])


def test_a_sibling_set_that_adds_no_rows_leaves_no_dev(tmp_path):
    # e.g. if LongBench-E's multifieldqa_en_e held exactly LongBench's 150 rows
    _write_jsonl(tmp_path / "trec.jsonl", [_record(1), _record(2)])
    _write_jsonl(tmp_path / "trec_e.jsonl", [_record(2), _record(1, _id="a" * 48)])
    opts = dict(data_dir=str(tmp_path), tokenizer="words", cache_dir=str(tmp_path / "c"))
    message = r"trec_e_8k has no dev split: every row of data/trec\.jsonl also occurs in data/trec_e\.jsonl"
    assert list(load_dataset("longbench", "trec_e_8k", **opts)) == ["eval"]
    with pytest.raises(SplitUnavailableError, match=message):
        load_dataset("longbench", "trec_e_8k", split="dev", **opts)
    with pytest.raises(SplitUnavailableError, match=message):
        load_dataset("longbench", "trec_e_8k", split="dev", streaming=True, **opts)


def test_unavailable_dev_is_a_clear_error(longbench_mirror, tmp_path, capsys):
    opts = dict(mirror=longbench_mirror, tokenizer="words", cache_dir=str(tmp_path))
    message = r"LongBench publishes evaluation data only for narrativeqa"
    with pytest.raises(SplitUnavailableError, match=message):
        load_dataset("longbench", "narrativeqa_4k", split="dev", **opts)
    with pytest.raises(SplitUnavailableError, match=message):
        load_dataset("longbench", "narrativeqa_4k", split="dev", streaming=True, **opts)
    assert list(load_dataset("longbench", "narrativeqa_4k", **opts)) == ["eval"]
    common = ["--mirror", longbench_mirror, "--tokenizer", "words", "--cache-dir", str(tmp_path)]
    capsys.readouterr()
    assert cli.main(["build", "longbench/lsht_8k", "--split", "dev", *common]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "LongBench publishes evaluation data only for lsht" in err


@pytest.mark.parametrize("layout", ["zip", "zip-file", "extracted", "flat"])
def test_data_dir_accepts_the_zip_the_extracted_tree_and_a_flat_folder(
    layout, longbench_mirror, tiny_tokenizer, tmp_path
):
    archive = mirrored(ZIP_URL, longbench_mirror)
    mine = tmp_path / "mine"
    mine.mkdir()
    data_dir = mine
    if layout == "zip":
        shutil.copy(archive, mine / "data.zip")
    elif layout == "zip-file":  # data_dir names the zip itself
        data_dir = mine / "LongBench-data.zip"
        shutil.copy(archive, data_dir)
    else:
        with zipfile.ZipFile(archive) as zf:
            for name in ("data/gov_report.jsonl", "data/gov_report_e.jsonl"):
                target = mine / (name if layout == "extracted" else os.path.basename(name))
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(zf.read(name))
    opts = dict(tokenizer=tiny_tokenizer, cache_dir=str(tmp_path / "c"))
    got = load_dataset("longbench", "gov_report_e_4k", data_dir=str(data_dir), **opts)
    want = load_dataset("longbench", "gov_report_e_4k", mirror=longbench_mirror, **opts)
    for split in ("dev", "eval"):
        assert got[split].to_list() == want[split].to_list()


@pytest.mark.parametrize("streaming", [False, True])
@pytest.mark.parametrize(("own", "sibling_set"), [("qasper", "qasper_e"), ("qasper_e", "qasper")])
def test_eval_reads_only_its_own_file_and_dev_names_the_sibling_it_lacks(
    tmp_path, own, sibling_set, streaming
):
    """Like upstream's pred.py, eval needs only the task's own file; only dev reads the sibling set."""
    _write_jsonl(tmp_path / f"{own}.jsonl", [_record(1), _record(2)])
    opts = dict(data_dir=str(tmp_path), cache_dir=str(tmp_path / "c"), streaming=streaming)
    rows = list(load_dataset("longbench", f"{own}_full", split="eval", **opts))
    assert [r["_id"] for r in rows] == [_record(1)["_id"], _record(2)["_id"]]
    message = (
        rf"longbench/{own}_full has no 'dev' split in this build: dev also reads data/{sibling_set}\.jsonl .*"
        rf"data/{sibling_set}\.jsonl not in data_dir .* neither is data\.zip.*'eval' does not need them"
    )
    with pytest.raises(SplitUnavailableError, match=message):
        list(load_dataset("longbench", f"{own}_full", split="dev", **opts))


def test_once_the_sibling_is_there_dev_is_built(tmp_path):
    _write_jsonl(tmp_path / "qasper.jsonl", [_record(1)])
    _write_jsonl(tmp_path / "qasper_e.jsonl", [_record(1), _record(5)])
    dev = load_dataset(
        "longbench", "qasper_full", split="dev", data_dir=str(tmp_path), cache_dir=str(tmp_path / "c")
    )
    assert dev["_id"] == [_record(5)["_id"]]


def test_a_missing_own_file_is_named(tmp_path):
    _write_jsonl(tmp_path / "qasper_e.jsonl", [_record(1)])
    with pytest.raises(SourceError, match=r"data/qasper\.jsonl not in data_dir .* neither is data\.zip"):
        load_dataset("longbench", "qasper_full", data_dir=str(tmp_path), cache_dir=str(tmp_path / "c"))


def test_prepared_from_http_reads_the_zip_once_and_extracts_nothing(
    longbench_http, longbench_mirror, tiny_tokenizer, tmp_path
):
    cache = tmp_path / "cache"
    builders = [
        get_builder(
            f"longbench/{t}_4k", tokenizer=tiny_tokenizer, mirror=longbench_http.url, cache_dir=str(cache)
        )
        for t in ("qasper", "qasper_e", "lcc", "dureader")
    ]
    before = longbench_http.total_bytes("data.zip")
    prepare(builders)
    assert longbench_http.total_bytes("data.zip") - before == os.path.getsize(
        mirrored(ZIP_URL, longbench_mirror)
    )
    assert not (cache / "longbench_suite" / "sources" / "members").exists()
    assert len(builders[2].as_dataset("dev")) > 0 and len(builders[3].as_dataset("eval")) > 0


def test_streaming_over_http_equals_prepared(longbench_http, longbench_mirror, tiny_tokenizer, tmp_path):
    streamed = load_dataset(
        "longbench", "samsum_e_4k", split="dev", streaming=True, mirror=longbench_http.url,
        tokenizer=tiny_tokenizer, cache_dir=str(tmp_path / "s"),
    )  # fmt: skip
    prepared = load_dataset(
        "longbench", "samsum_e_4k", split="dev", mirror=longbench_mirror, tokenizer=tiny_tokenizer,
        cache_dir=str(tmp_path / "p"),
    )  # fmt: skip
    rows = list(streamed)
    assert rows == prepared.to_list() and len(rows) == 2
    assert not (tmp_path / "s" / "longbench_suite_longbench").exists(), "streaming wrote Arrow files"


def test_full_configs_need_no_tokenizer_but_max_input_tokens_does(longbench_mirror, tmp_path, capsys):
    opts = dict(mirror=longbench_mirror, cache_dir=str(tmp_path))
    # The default tokenizer (gated Llama-2 on the Hub) is unreachable here: full configs never load it.
    assert len(load_dataset("longbench", "qmsum_full", split="eval", **opts)) == 4
    with pytest.raises(TokenizerLoadError, match=r"meta-llama/Llama-2-7b-hf"):
        load_dataset("longbench", "qmsum_full", split="eval", max_input_tokens=100, **opts)
    with pytest.raises(TokenizerLoadError, match=r"meta-llama/Llama-2-7b-hf"):
        load_dataset("longbench", "qmsum_4k", split="eval", **opts)
    # --stats reads the rows' token counts: none were made without a tokenizer, and none is loaded for it
    assert cli.main(["build", "longbench/qmsum_full", "--stats", "--mirror", longbench_mirror]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if "qmsum_full" in line)
    assert line.split()[2:] == ["4", "-", "-", "-", "0"]


def test_max_input_tokens_overrides_the_budget_and_keeps_max_length(longbench_mirror, tmp_path):
    rows = load_dataset(
        "longbench", "passage_count_e_full", split="eval", mirror=longbench_mirror, tokenizer="words",
        max_input_tokens=40, cache_dir=str(tmp_path),
    )  # fmt: skip
    full = load_dataset(
        "longbench", "passage_count_e_full", split="eval", mirror=longbench_mirror, cache_dir=str(tmp_path)
    )
    for row, whole in zip(rows, full, strict=True):
        assert row["max_length"] is None and row["input_budget"] == 40
        # words are cut as spans of the original text: first 20 words, then the last 20
        spans = [m.span() for m in re.finditer(r"\S+", whole["input"])]
        head = whole["input"][spans[0][0] : spans[19][1]]
        tail = whole["input"][spans[-20][0] : spans[-1][1]]
        assert row["input"] == head + tail
        assert row["input"].startswith("There are some paragraphs below sourced from Wikipedia.")
        assert row["input"].endswith("The final answer is:")


@pytest.mark.parametrize(
    "change, message",
    [
        ({"context": None}, r"line 2: field 'context' must be a string"),
        ({"answers": []}, r"line 2: field 'answers' must be a non-empty list of strings"),
        ({"answers": "Ozalj"}, r"line 2: field 'answers' must be a non-empty list of strings"),
        ({"length": "4696"}, r"line 2: field 'length' must be an integer"),
        ({"all_classes": "Food"}, r"line 2: field 'all_classes' must be null or a list of strings"),
    ],
)
def test_malformed_records_name_file_line_and_field(tmp_path, change, message):
    _write_jsonl(tmp_path / "musique.jsonl", [_record(1), _record(2, **change)])
    with pytest.raises(DataFormatError, match=r"musique\.jsonl in .*" + message):
        load_dataset("longbench", "musique_full", data_dir=str(tmp_path), cache_dir=str(tmp_path / "c"))


def test_a_record_without_a_field_is_named(tmp_path):
    record = _record(2)
    del record["_id"]
    _write_jsonl(tmp_path / "musique.jsonl", [_record(1), record])
    with pytest.raises(DataFormatError, match=r"musique\.jsonl in .*, line 2: the record has no field '_id'"):
        load_dataset("longbench", "musique_full", data_dir=str(tmp_path), cache_dir=str(tmp_path / "c"))


def test_cli_info_names_budget_sources_and_metadata(capsys):
    assert cli.main(["info", "repobench-p_e_16k"]) == 0
    out = capsys.readouterr().out
    assert "max_length 16384" in out and "splits:            dev, eval" in out
    assert re.search(r"input budget:\s+15500 tokens \(model2maxlen, middle cut\)", out)
    assert f"data/repobench-p_e.jsonl in {ZIP_URL}\n" in out
    assert f"sibling (dev only): data/repobench-p.jsonl in {ZIP_URL}" in out  # eval reads only its own
    assert re.search(r"downloads:\s+data\.zip, about 114 MB \(once per cache", out)
    assert "dev also" not in out  # the sibling is in the same archive
    assert (
        "code_sim_score" in out and "Code Completion" in out and re.search(r"expected eval:\s+300 rows", out)
    )
    assert cli.main(["info", "longbench/vcsum_full"]) == 0
    out = capsys.readouterr().out
    assert "max_length None" in out and "splits:            eval" in out and "rouge_zh_score" in out
