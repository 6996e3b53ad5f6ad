"""HELMET chat-mode prompts fitted under a chat template (``docs/helmet.md`` §1.4, ``chat_template=``).

Parity (``tests/upstream/README.md``): ``helmet_chat/longdoc.json`` holds HELMET's ``tokenize`` of the
long-document tasks' fields; ``helmet_chat/alce.json`` holds HELMET's own chat-mode prompts (``load_data`` +
``model_utils.tokenize`` with ``use_chat_template=True``, run at 4526dfb with transformers 4.46 by
``tests/upstream/record_helmet_chat.py``) for ALCE ASQA and QAMPARI (the HELMET tasks whose configs
use the chat template and whose source is the data archive), under a Llama-2-chat and a ChatML
template, at budgets that cut every row and at HELMET's own. Each built row's user turn must hash to
HELMET's, with HELMET's token count of the templated prompt.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil

import pytest
from tokenizers import Tokenizer

from longbench_suite import get_builder, load_dataset, prepare
from longbench_suite.benchmarks.helmet import samples
from longbench_suite.benchmarks.helmet.common import ARCHIVE
from longbench_suite.benchmarks.helmet.samples import archive as samples_archive
from longbench_suite.check import LeakageKeys, check, check_split
from longbench_suite.errors import OptionError
from longbench_suite.fit.chat import ChatTemplateError, load_chat_template
from longbench_suite.fit.rules import chat_budget
from longbench_suite.samplefiles import tar_gz_bytes, write_to_mirror
from longbench_suite.source import mirrored
from longbench_suite.training import training_format
from tests.upstream import record_helmet_chat as recorder

UPSTREAM = os.path.join(os.path.dirname(__file__), "upstream", "helmet_chat")
PROMPT_URL = "https://raw.githubusercontent.com/princeton-nlp/HELMET/4526dfbdc512bd9ff721da336bff4e3e75ecfd27/prompts/{}"
with open(os.path.join(UPSTREAM, "alce.json"), encoding="utf-8") as _f:
    RECORDED = json.load(_f)
RUNS = [(r["template"], r["config"], r["max_input_tokens"]) for r in RECORDED["runs"]]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.fixture(scope="module")
def chat_mirror(tmp_path_factory, helmet_alce_prompts):
    """The recorder's inputs: ALCE sample files (130 rows, short documents) and HELMET's prompt files."""
    root = str(tmp_path_factory.mktemp("chat-mirror"))
    scale = samples.Scale(alce_asqa=recorder.ROWS, alce_qampari=recorder.ROWS, alce_docs=recorder.ALCE_DOCS)
    members = samples_archive.alce_members(scale)
    for kind in recorder.KINDS:
        data = members[f"data/alce/{kind}_eval_gtr_top2000.json"]
        assert hashlib.sha256(data).hexdigest() == RECORDED["inputs"][kind], "not the recorded inputs"
    write_to_mirror(root, ARCHIVE.url, tar_gz_bytes(members))
    for kind, path in helmet_alce_prompts.items():
        target = mirrored(PROMPT_URL.format(f"{kind}_revised.json"), root)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy(path, target)
    return root


@pytest.fixture(scope="module")
def chat_tokenizers(llama2_tokenizer, tmp_path_factory) -> dict[str, str]:
    """Llama-2 tokenizer folders whose tokenizer_config.json carries each recorded chat template."""
    folders = {}
    for name in recorder.TEMPLATES:
        folder = tmp_path_factory.mktemp(name)
        shutil.copy(llama2_tokenizer, folder / "tokenizer.json")
        shutil.copy(os.path.join(UPSTREAM, name, "tokenizer_config.json"), folder)
        folders[name] = str(folder)
    return folders


def _build(chat_mirror, tokenizer, cache, config, max_input_tokens, chat_template="tokenizer"):
    builder = get_builder(
        config,
        tokenizer=tokenizer,
        mirror=chat_mirror,
        cache_dir=cache,
        max_input_tokens=max_input_tokens,
        chat_template=chat_template,
    )
    prepare([builder])
    return builder


def _assert_helmets(builder, template, config, max_input_tokens):
    run = next(
        r
        for r in RECORDED["runs"]
        if (r["template"], r["config"], r["max_input_tokens"]) == (template, config, max_input_tokens)
    )
    rows = builder.as_dataset(split="eval")
    expected = run["rows"]
    assert rows["question"] == [r["question"] for r in expected]
    users = [text[: len(text) - len(p)] for text, p in zip(rows["input"], rows["answer_prefix"], strict=True)]
    mismatched = [
        i for i, (u, r) in enumerate(zip(users, expected, strict=True)) if _sha(u) != r["user_sha256"]
    ]
    assert not mismatched, f"{len(mismatched)} user turns differ from HELMET's, rows {mismatched[:5]}"
    assert rows["input_tokens"] == [r["prompt_tokens"] for r in expected]
    assert rows["input_truncated"] == [r["truncated"] for r in expected]
    assert set(rows["input_budget"]) == {run["budget"]}
    assert set(rows["chat_template"]) == {builder.chat_template.identity}
    assert builder.chat_template.identity.startswith("tokenizer:")


@pytest.mark.parametrize("template, config, max_input_tokens", RUNS)
def test_user_turns_are_helmets_chat_prompts(
    chat_mirror, chat_tokenizers, tmp_path, template, config, max_input_tokens
):
    builder = _build(chat_mirror, chat_tokenizers[template], str(tmp_path), config, max_input_tokens)
    _assert_helmets(builder, template, config, max_input_tokens)


def test_recorded_runs_cut_rows_under_both_templates():
    """The fixture covers what the issue asks: truncated rows, both templates, both ALCE tasks."""
    cut = {
        (r["template"], r["config"].rsplit("_", 1)[0])
        for r in RECORDED["runs"]
        if all(x["truncated"] for x in r["rows"])
    }
    assert cut == {(t, f"alce_{k}") for t in recorder.TEMPLATES for k in recorder.KINDS}


@pytest.mark.slow
def test_a_named_template_gives_the_tokenizers_rows(chat_mirror, chat_tokenizers, llama2_tokenizer, tmp_path):
    """The built-in ``chatml`` (a plain tokenizer.json, no config) and a given tokenizer_config.json fit
    the same rows as the tokenizer's own template, under their own names."""
    config, budget = "alce_qampari_8k", 2450
    own = _build(chat_mirror, chat_tokenizers["chatml"], str(tmp_path / "a"), config, budget).as_dataset(
        split="eval"
    )
    named = _build(chat_mirror, llama2_tokenizer, str(tmp_path / "b"), config, budget, "chatml")
    given = _build(
        chat_mirror,
        chat_tokenizers["llama-2-chat"],
        str(tmp_path / "c"),
        config,
        budget,
        os.path.join(chat_tokenizers["chatml"], "tokenizer_config.json"),
    )
    for builder in (named, given):
        rows = builder.as_dataset(split="eval")
        assert rows["input"] == own["input"] and rows["input_tokens"] == own["input_tokens"]
    assert named.chat_template.identity.startswith("chatml@")


@pytest.mark.slow
def test_without_a_template_rows_stay_completion_fitted(
    chat_mirror, chat_tokenizers, llama2_tokenizer, tmp_path
):
    """No ``chat_template``: the completion prompt is fitted (its count includes BOS), nothing is recorded;
    with one the same config differs exactly in the rows HELMET's chat cut changes."""
    plain = get_builder(
        "alce_asqa_8k",
        tokenizer=llama2_tokenizer,
        mirror=chat_mirror,
        cache_dir=str(tmp_path),
        max_input_tokens=2750,
    )
    prepare([plain])
    rows = plain.as_dataset(split="eval")
    assert set(rows["chat_template"]) == {None}
    tok = Tokenizer.from_file(llama2_tokenizer)
    assert rows["input_tokens"] == [len(tok.encode(t).ids) for t in rows["input"]]
    chat = _build(chat_mirror, chat_tokenizers["llama-2-chat"], str(tmp_path), "alce_asqa_8k", 2750)
    assert chat.cache_dir != plain.cache_dir  # the template is part of the cache identity
    assert chat.as_dataset(split="eval")["input"] != rows["input"]


def test_training_formats_give_the_fitted_user_turn(chat_mirror, chat_tokenizers, tmp_path):
    folder = chat_tokenizers["llama-2-chat"]
    builder = _build(chat_mirror, folder, str(tmp_path), "alce_asqa_8k", 2750)
    rows = builder.as_dataset(split="eval")
    template = load_chat_template("tokenizer", folder)
    examples = training_format(rows, "messages")
    expected = RECORDED["runs"][1]["rows"]
    for example, row in zip(examples, expected, strict=True):
        user = example["messages"][0]["content"]
        assert _sha(user) == row["user_sha256"]
        prompt = template.render(user)
        assert prompt.startswith("<s>[INST] ") and prompt.endswith(" [/INST]")
    with pytest.raises(Exception, match="chat template"):
        training_format(rows, "prompt_completion", chat=False)


def test_chat_template_errors_name_the_option(llama2_tokenizer, tmp_path):
    with pytest.raises(ChatTemplateError, match=r"tokenizer_config\.json"):
        get_builder("alce_asqa_8k", tokenizer=llama2_tokenizer, chat_template="tokenizer")
    with pytest.raises(ChatTemplateError, match="bos_token"):
        get_builder("alce_asqa_8k", tokenizer=llama2_tokenizer, chat_template="llama-2-chat")
    with pytest.raises(ChatTemplateError, match="no-such-template"):
        get_builder("alce_asqa_8k", tokenizer=llama2_tokenizer, chat_template="no-such-template")
    with pytest.raises(OptionError, match="chat_template"):
        load_dataset("longbench", "qasper_4k", chat_template="chatml")


def test_check_counts_the_templated_user_turn(chat_mirror, chat_tokenizers, tmp_path):
    """``check`` holds a chat build to its template: HELMET's ChatML cut (+1 token on most rows) passes
    within the single-cut tolerance; rows checked against another template are reported."""
    builder = _build(chat_mirror, chat_tokenizers["chatml"], str(tmp_path), "alce_qampari_8k", 2450)
    report = check([builder])
    assert [v for v in report.violations if v.check == "budget"] == []
    run = next(r for r in RECORDED["runs"] if (r["template"], r["max_input_tokens"]) == ("chatml", 2450))
    result = next(s for s in report.splits if s.split == "eval")
    assert result.max_tokens == max(r["prompt_tokens"] for r in run["rows"]) > run["budget"]
    assert result.budget.tolerance > 0 and "chatml" in result.budget.rule

    other = load_chat_template("tokenizer", chat_tokenizers["llama-2-chat"])
    task = builder.config.task
    budget = chat_budget(task.budget_rule("8k", 1000), other)
    _, found = check_split(
        "helmet/alce_qampari_8k",
        "eval",
        builder.as_dataset(split="eval"),
        task,
        budget,
        builder.tokenizer,
        LeakageKeys(),
        chat=other,
    )
    messages = " ".join(v.message for v in found)
    assert "100 of 100 chat-mode rows were not fitted under" in messages
    assert "100 of 100 inputs exceed 1000 tokens" in messages


def test_export_records_the_template(chat_mirror, chat_tokenizers, tmp_path):
    from longbench_suite.publish.hub import export

    folder = chat_tokenizers["llama-2-chat"]
    export(
        ["helmet/alce_asqa_8k"],
        str(tmp_path / "out"),
        tokenizer=folder,
        mirror=chat_mirror,
        cache_dir=str(tmp_path / "cache"),
        max_input_tokens=2750,
        chat_template="tokenizer",
        histogram=False,
    )
    identity = load_chat_template("tokenizer", folder).identity
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert f"`{identity}`" in card
    assert "Configs with a `chat_template` value were built with each chat-mode row's user turn" in card
    exported = load_dataset("parquet", data_files=str(tmp_path / "out" / "alce_asqa_8k" / "eval-*.parquet"))
    assert set(exported["train"]["chat_template"]) == {identity}


# -- the long-document chat-mode tasks (NarrativeQA, InfiniteBench, Multi-LexSum) -------------------

with open(os.path.join(UPSTREAM, "longdoc.json"), encoding="utf-8") as _f:
    LONGDOC = json.load(_f)


@pytest.fixture(scope="module")
def demo_samples(tmp_path_factory) -> str:
    root = str(tmp_path_factory.mktemp("helmet-demo"))
    samples.write_samples(root, samples.DEMO)
    return root


@pytest.mark.slow
@pytest.mark.parametrize("template", recorder.TEMPLATES)
def test_long_document_user_turns_are_helmets(demo_samples, chat_tokenizers, template):
    """Every long-document chat task at 8k, at HELMET's own budget and at one that cuts every row."""
    runs = [r for r in LONGDOC["runs"] if r["template"] == template]
    assert {r["config"] for r in runs} == set(recorder.LONGDOC)
    assert sum(x["truncated"] for r in runs for x in r["rows"]) >= 140
    for run in runs:
        rows = recorder.longdoc_rows(
            demo_samples, chat_tokenizers[template], run["config"], run["max_input_tokens"], "tokenizer"
        )
        expected = run["rows"]
        assert [r["query_id"] for r in rows] == [x["query_id"] for x in expected], run["config"]
        users = [r["input"][: len(r["input"]) - len(r["answer_prefix"])] for r in rows]
        assert [_sha(u) for u in users] == [x["user_sha256"] for x in expected], run["config"]
        assert [r["input_tokens"] for r in rows] == [x["prompt_tokens"] for x in expected]
        assert [r["input_truncated"] for r in rows] == [x["truncated"] for x in expected]


@pytest.mark.slow
def test_rows_are_the_same_in_two_processes(chat_mirror, chat_tokenizers, tmp_path):
    """The template crosses into worker processes (it pickles without its compiled form), and a build in
    two processes gives the rows of one."""
    one = _build(chat_mirror, chat_tokenizers["chatml"], str(tmp_path / "one"), "alce_asqa_8k", 2750)
    two = get_builder(
        "alce_asqa_8k",
        tokenizer=chat_tokenizers["chatml"],
        mirror=chat_mirror,
        cache_dir=str(tmp_path / "two"),
        max_input_tokens=2750,
        chat_template="tokenizer",
    )
    copy = pickle.loads(pickle.dumps(two.chat_template))
    assert copy.identity == two.chat_template.identity and copy.render("x") == two.chat_template.render("x")
    prepare([two], num_proc=2)
    for split in ("dev", "eval"):
        assert two.as_dataset(split=split).to_list() == one.as_dataset(split=split).to_list()
