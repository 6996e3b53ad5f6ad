# ruff: noqa: E501 (the spec's template JSON and the hand-checked Chinese texts are quoted whole)
"""LongBench prompts and middle truncation against upstream's method, on real and Chinese records.

The reference below is ``pred.py``'s truncation as ``docs/longbench.md`` §6 describes it, written here with
``tokenizers.Tokenizer`` and the exact Llama-2 tokenizer: render ``template.format(**record)``, encode
the whole prompt with the default special tokens (BOS counts), and if it has more than ``budget``
tokens keep ``decode(ids[:half]) + decode(ids[-half:])`` with ``half = int(budget / 2)`` and special
tokens skipped. The templates are the spec's §5 JSON, verbatim.

Real records: ``tests/realdata/longbench`` (records of THUDM/LongBench ``data.zip``), copied into
temporary data folders at test time, both as cleaned and as found with eight extra keys.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from longbench_suite import load_dataset
from longbench_suite.source import mirrored
from tests.support.realdata import REALDATA_DIR

REALDATA = REALDATA_DIR / "longbench"
REAL_TASKS = ("qasper", "2wikimqa", "multi_news", "trec", "samsum")
FIELDS = ("input", "context", "answers", "length", "dataset", "language", "all_classes", "_id")
ZIP_URL = "https://huggingface.co/datasets/THUDM/LongBench/resolve/4a90f81c8db79f60c15f77dcd207a1099038c775/data.zip"

# docs/longbench.md §5 (LongBench/config/dataset2prompt.json), verbatim.
SPEC_TEMPLATES = json.loads(r"""{
  "narrativeqa": "You are given a story, which can be either a novel or a movie script, and a question. Answer the question asconcisely as you can, using a single phrase if possible. Do not provide any explanation.\n\nStory: {context}\n\nNow, answer the question based on the story asconcisely as you can, using a single phrase if possible. Do not provide any explanation.\n\nQuestion: {input}\n\nAnswer:",
  "qasper": "You are given a scientific article and a question. Answer the question as concisely as you can, using a single phrase or sentence if possible. If the question cannot be answered based on the information in the article, write \"unanswerable\". If the question is a yes/no question, answer \"yes\", \"no\", or \"unanswerable\". Do not provide any explanation.\n\nArticle: {context}\n\n Answer the question based on the above article as concisely as you can, using a single phrase or sentence if possible. If the question cannot be answered based on the information in the article, write \"unanswerable\". If the question is a yes/no question, answer \"yes\", \"no\", or \"unanswerable\". Do not provide any explanation.\n\nQuestion: {input}\n\nAnswer:",
  "multifieldqa_en": "Read the following text and answer briefly.\n\n{context}\n\nNow, answer the following question based on the above text, only give me the answer and do not output any other words.\n\nQuestion: {input}\nAnswer:",
  "multifieldqa_zh": "阅读以下文字并用中文简短回答：\n\n{context}\n\n现在请基于上面的文章回答下面的问题，只告诉我答案，不要输出任何其他字词。\n\n问题：{input}\n回答：",
  "hotpotqa": "Answer the question based on the given passages. Only give me the answer and do not output any other words.\n\nThe following are given passages.\n{context}\n\nAnswer the question based on the given passages. Only give me the answer and do not output any other words.\n\nQuestion: {input}\nAnswer:",
  "2wikimqa": "Answer the question based on the given passages. Only give me the answer and do not output any other words.\n\nThe following are given passages.\n{context}\n\nAnswer the question based on the given passages. Only give me the answer and do not output any other words.\n\nQuestion: {input}\nAnswer:",
  "musique": "Answer the question based on the given passages. Only give me the answer and do not output any other words.\n\nThe following are given passages.\n{context}\n\nAnswer the question based on the given passages. Only give me the answer and do not output any other words.\n\nQuestion: {input}\nAnswer:",
  "dureader": "请基于给定的文章回答下述问题。\n\n文章：{context}\n\n请基于上述文章回答下面的问题。\n\n问题：{input}\n回答：",
  "gov_report": "You are given a report by a government agency. Write a one-page summary of the report.\n\nReport:\n{context}\n\nNow, write a one-page summary of the report.\n\nSummary:",
  "qmsum": "You are given a meeting transcript and a query containing a question or instruction. Answer the query in one or more sentences.\n\nTranscript:\n{context}\n\nNow, answer the query based on the above meeting transcript in one or more sentences.\n\nQuery: {input}\nAnswer:",
  "multi_news": "You are given several news passages. Write a one-page summary of all news. \n\nNews:\n{context}\n\nNow, write a one-page summary of all the news.\n\nSummary:",
  "vcsum": "下面有一段会议记录，请你阅读后，写一段总结，总结会议的内容。\n会议记录：\n{context}\n\n会议总结：",
  "trec": "Please determine the type of the question below. Here are some examples of questions.\n\n{context}\n{input}",
  "triviaqa": "Answer the question based on the given passage. Only give me the answer and do not output any other words. The following are some examples.\n\n{context}\n\n{input}",
  "samsum": "Summarize the dialogue into a few short sentences. The following are some examples.\n\n{context}\n\n{input}",
  "lsht": "请判断给定新闻的类别，下面是一些例子。\n\n{context}\n{input}",
  "passage_count": "There are some paragraphs below sourced from Wikipedia. Some of them may be duplicates. Please carefully read these paragraphs and determine how many unique paragraphs there are after removing duplicates. In other words, how many non-repeating paragraphs are there in total?\n\n{context}\n\nPlease enter the final count of unique paragraphs after removing duplicates. The output format should only contain the number, such as 1, 2, 3, and so on.\n\nThe final answer is: ",
  "passage_retrieval_en": "Here are 30 paragraphs from Wikipedia, along with an abstract. Please determine which paragraph the abstract is from.\n\n{context}\n\nThe following is an abstract.\n\n{input}\n\nPlease enter the number of the paragraph that the abstract is from. The answer format must be like \"Paragraph 1\", \"Paragraph 2\", etc.\n\nThe answer is: ",
  "passage_retrieval_zh": "以下是若干段落文字，以及其中一个段落的摘要。请确定给定的摘要出自哪一段。\n\n{context}\n\n下面是一个摘要\n\n{input}\n\n请输入摘要所属段落的编号。答案格式必须是\"段落1\"，\"段落2\"等格式\n\n答案是：",
  "lcc": "Please complete the code given below. \n{context}Next line of code:\n",
  "repobench-p": "Please complete the code given below. \n{context}{input}Next line of code:\n"
}""")  # fmt: skip

# Hand-checked starts and ends of the untruncated prompts of the real records (template text typed
# from docs/longbench.md §5, record text read off the records).
QASPER_INSTRUCTION = (
    "Answer the question as concisely as you can, using a single phrase or sentence if possible. If the "
    'question cannot be answered based on the information in the article, write "unanswerable". If the '
    'question is a yes/no question, answer "yes", "no", or "unanswerable". Do not provide any explanation.'
)
MULTI_DOC_INSTRUCTION = "Answer the question based on the given passages. Only give me the answer and do not output any other words."
NEWS_HEAD = (
    "You are given several news passages. Write a one-page summary of all news. \n\nNews:\nPassage 1:\n"
)
NEWS_TAIL = "\n\nNow, write a one-page summary of all the news.\n\nSummary:"
EXPECTED_ENDS = {
    "qasper": [
        (
            "You are given a scientific article and a question. " + QASPER_INSTRUCTION + "\n\nArticle: 10pt\n"
            "1.10pt\n[ Characterizing Political Fake News in Twitter ",
            "Disclosure Statement\nNo competing financial interest exist.\n\n Answer the question based on the "
            "above article as concisely as you can, using a single phrase or sentence if possible. If the "
            'question cannot be answered based on the information in the article, write "unanswerable". If '
            'the question is a yes/no question, answer "yes", "no", or "unanswerable". Do not provide any '
            "explanation.\n\nQuestion: How is the ground truth for fake news established?\n\nAnswer:",
        )
    ],
    "2wikimqa": [
        (
            MULTI_DOC_INSTRUCTION + "\n\nThe following are given passages.\nPassage 1:\nWaldrada of "
            "Lotharingia\nWaldrada was the mistress",
            "See also\nOttoman dynasty\nOttoman Empire\n\n" + MULTI_DOC_INSTRUCTION + "\n\nQuestion: Where "
            "was the wife of Francis I Rákóczi born?\nAnswer:",
        )
    ],
    "multi_news": [
        (
            NEWS_HEAD + "Members of Occupy Philadelphia",
            "Editing by Greg McCune and Cynthia Johnston)\n" + NEWS_TAIL,
        ),
        (
            NEWS_HEAD + "An airport security officer",
            "The charges carry a potential death sentence.\n" + NEWS_TAIL,
        ),
        (NEWS_HEAD + "In the Mediterranean, the Navy’s", "article or visit www.djreprints.com\n" + NEWS_TAIL),
    ],
    "trec": [
        (
            "Please determine the type of the question below. Here are some examples of questions.\n\n"
            "Question: What detective lives on Punchbowl Hill and has 11 children ?\nType: Individual\n",
            "Question: Where are the busiest ports in the world ?\nType: Other location\n"
            "Question: Where was the first golf course in the United States ?\nType:",
        )
    ],
    "samsum": [
        (
            "Summarize the dialogue into a few short sentences. The following are some examples.\n\n"
            "Dialogue: Lisa: hey there, good monring\r\nJack: hey friend\r\n",
            "She will have coffe with Anne on Sunday afternoon.\n\n\n"
            "Dialogue: William: are you still angry?\r\nEmilia: YES \r\nWilliam: :(\nSummary: ",
        )
    ],
}


def reference_prompt(task: str, record: dict, tok: Tokenizer, budget: int | None) -> str:
    """``pred.py``: format, encode with BOS, keep the decoded first and last ``int(budget/2)`` tokens."""
    prompt = SPEC_TEMPLATES[task.removesuffix("_e")].format(**record)
    if budget is None:
        return prompt
    ids = tok.encode(prompt).ids
    if len(ids) > budget:
        half = int(budget / 2)
        prompt = tok.decode(ids[:half], skip_special_tokens=True) + tok.decode(
            ids[-half:], skip_special_tokens=True
        )
    return prompt


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module", params=["clean", "spectralkv_mixture_raw"])
def real(request, tmp_path_factory) -> tuple[Path, dict[str, list[dict]]]:
    """A flat data folder: the real files, and as each sibling ``<task>_e.jsonl`` the task's first real
    line (so it is shared by content) followed by one record written here."""
    source = REALDATA if request.param == "clean" else REALDATA / request.param
    folder = tmp_path_factory.mktemp(f"longbench-real-{request.param}")
    files = {}
    for task in REAL_TASKS:
        shutil.copy(source / f"{task}.jsonl", folder / f"{task}.jsonl")
        first_line = (source / f"{task}.jsonl").read_text(encoding="utf-8").splitlines()[0]
        extra = {
            "input": "An extra question?", "context": "Passage 1:\nAn extra passage.", "answers": ["extra"],
            "length": 9, "dataset": task, "language": "en", "all_classes": None, "_id": "0" * 48,
        }  # fmt: skip
        (folder / f"{task}_e.jsonl").write_text(
            first_line + "\n" + json.dumps(extra) + "\n", encoding="utf-8"
        )
        files[task] = read_jsonl(folder / f"{task}.jsonl")
        files[f"{task}_e"] = read_jsonl(folder / f"{task}_e.jsonl")
    return folder, files


@pytest.fixture(scope="module")
def llama2(llama2_tokenizer) -> Tokenizer:
    return Tokenizer.from_file(llama2_tokenizer)


def test_real_records_load_with_every_value_intact(real, tmp_path):
    folder, files = real
    for task in REAL_TASKS:
        splits = load_dataset("longbench", f"{task}_full", data_dir=str(folder), cache_dir=str(tmp_path))
        for row, record in zip(splits["eval"], files[task], strict=True):
            assert set(row) == {
                "input", "output", "answers", "query_id", "max_length", "input_budget", "input_tokens",
                "output_tokens", "input_truncated", "use_chat_template", "answer_prefix",
                "question", "context", "length", "dataset", "language", "all_classes", "_id", "length_bucket",
                "max_new_tokens",
            }  # fmt: skip
            assert row["question"] == record["input"]
            for field in FIELDS[1:]:
                assert row[field] == record[field], (task, field)
            assert row["input"] == SPEC_TEMPLATES[task].format(**record)
        # the sibling's first line is this file's first record: only the extra record is dev
        assert splits["dev"]["_id"] == ["0" * 48]
        sibling = load_dataset("longbench", f"{task}_e_full", data_dir=str(folder), cache_dir=str(tmp_path))
        assert sibling["eval"][0]["query_id"] == splits["eval"][0]["query_id"]
        assert sibling["eval"][0]["context"] == files[task][0]["context"]
        if len(files[task]) > 1:
            assert sibling["dev"]["_id"] == [r["_id"] for r in files[task][1:]]
        else:  # every row of the task's file is in the sibling: no dev
            assert list(sibling) == ["eval"]


def test_real_prompts_start_and_end_as_hand_checked(real, llama2_tokenizer, tmp_path):
    folder, _ = real
    was_cut = {}
    for task in REAL_TASKS:
        opts = dict(split="eval", data_dir=str(folder), cache_dir=str(tmp_path))
        full = load_dataset("longbench", f"{task}_full", **opts)
        cut = load_dataset("longbench", f"{task}_4k", tokenizer=llama2_tokenizer, **opts)
        for row, short, (start, end) in zip(full, cut, EXPECTED_ENDS[task], strict=True):
            assert row["input"].startswith(start) and row["input"].endswith(end), task
            # the middle cut keeps the instruction head and the question tail
            assert short["input"].startswith(start) and short["input"].endswith(end), task
        was_cut[task] = any(len(s) < len(f) for s, f in zip(cut["input"], full["input"], strict=True))
    # Llama-2 tokens of the prompts: qasper 4588, 2wikimqa 8168, multi_news <= 3202, trec 5660, samsum 11475
    assert was_cut == {"qasper": True, "2wikimqa": True, "multi_news": False, "trec": True, "samsum": True}


@pytest.mark.parametrize("length, budget", [("4k", 3500), ("8k", 7500), ("16k", 15500)])
def test_real_prompts_are_cut_exactly_as_pred_py_does(
    real, llama2, llama2_tokenizer, tmp_path, length, budget
):
    folder, files = real
    cut = 0
    for task in (*REAL_TASKS, *(f"{t}_e" for t in REAL_TASKS)):
        rows = load_dataset(
            "longbench", f"{task}_{length}", split="eval", data_dir=str(folder), tokenizer=llama2_tokenizer,
            cache_dir=str(tmp_path),
        )  # fmt: skip
        for row, record in zip(rows, files[task], strict=True):
            expected = reference_prompt(task, record, llama2, budget)
            assert row["input"] == expected, (task, length)
            cut += expected != SPEC_TEMPLATES[task.removesuffix("_e")].format(**record)
    assert cut > 0 if budget < 15500 else cut == 0


@pytest.mark.parametrize("budget", [1001, 2000])
def test_max_input_tokens_cuts_real_prompts_as_pred_py_does(real, llama2, llama2_tokenizer, tmp_path, budget):
    folder, files = real
    for task in REAL_TASKS:
        rows = load_dataset(
            "longbench", f"{task}_32k", split="eval", data_dir=str(folder), tokenizer=llama2_tokenizer,
            max_input_tokens=budget, cache_dir=str(tmp_path),
        )  # fmt: skip
        assert rows["max_length"] == [32768] * len(rows) and rows["input_budget"] == [budget] * len(rows)
        assert rows["input"] == [reference_prompt(task, r, llama2, budget) for r in files[task]]


@pytest.mark.slow
def test_every_task_renders_its_template_and_cuts_as_pred_py_does(longbench_mirror, llama2, llama2_tokenizer):
    with zipfile.ZipFile(mirrored(ZIP_URL, longbench_mirror)) as zf:
        files = {n[5:-6]: [json.loads(x) for x in zf.read(n).splitlines()] for n in zf.namelist()}
    # the tasks of the dataset2prompt.json typed above (the pinned upstream commit's)
    files = {task: records for task, records in files.items() if task.removesuffix("_e") in SPEC_TEMPLATES}
    cut = 0
    for task, records in files.items():
        for length, budget in (("full", None), ("4k", 3500), ("8k", 7500)):
            rows = load_dataset(
                "longbench", f"{task}_{length}", split="eval", streaming=True, mirror=longbench_mirror,
                tokenizer=llama2_tokenizer,
            )  # fmt: skip
            got = [r["input"] for r in rows]
            expected = [reference_prompt(task, r, llama2, budget) for r in records]
            assert got == expected, (task, length)
            cut += sum(
                e != reference_prompt(task, r, llama2, None) for e, r in zip(expected, records, strict=True)
            )
    # every file has a record over 4k tokens; LongBench-E's three, and one over 8k
    assert cut >= sum(4 if task.endswith("_e") else 1 for task in files)


# -- Chinese tasks: lengths in characters ---------------------------------------------------------

SENTENCES = [
    "今天上午，市政府召开新闻发布会，介绍了今年经济社会发展的主要情况。",
    "研究人员表示，这项技术已经在多个城市进行试点，效果良好。",
    "会议认为，要进一步加强文化建设，推动历史文化遗产保护工作。",
    "学生们在老师的带领下参观了博物馆，了解了许多有趣的历史故事。",
    "据统计，该公司上半年营业收入同比增长百分之十二。",
]
LSHT_CLASSES = ["体育", "财经", "教育", "科技", "文化", "军事", "房产", "汽车"]


def chinese(n_sentences: int, offset: int = 0) -> str:
    return "".join(SENTENCES[(offset + k * 3) % len(SENTENCES)] for k in range(n_sentences))


def zh_record(task: str, i: int, question: str, context: str, answers: list[str], classes=None) -> dict:
    """A record as upstream stores it: ``length`` counts the characters of input, context and answers."""
    length = len(question) + len(context) + sum(len(a) for a in answers)
    return {
        "input": question, "context": context, "answers": answers, "length": length, "dataset": task,
        "language": "zh", "all_classes": classes, "_id": f"{task}-{i}".encode().hex()[:48].ljust(48, "0"),
    }  # fmt: skip


def chinese_records() -> dict[str, list[dict]]:
    retrieval = "\n\n".join(f"段落{k}：{chinese(4, k)}" for k in range(1, 31))
    lsht_demos = "".join(f"新闻：{chinese(2, k)}\n类别：{LSHT_CLASSES[k % 8]}\n" for k in range(150))
    return {
        "multifieldqa_zh": [
            zh_record("multifieldqa_zh", 0, "试点效果怎么样？", chinese(60), ["效果良好"]),
            zh_record("multifieldqa_zh", 1, "收入增长了多少？", chinese(300, 1), ["百分之十二"]),
        ],
        "dureader": [
            zh_record(
                "dureader",
                0,
                "发布会介绍了什么",
                "\n".join(f"文档{k}：{chinese(9, k)}" for k in range(30)),
                ["经济社会发展情况"],
            ),
            zh_record("dureader", 1, "学生参观了哪里", chinese(8), ["博物馆"]),
        ],
        "vcsum": [
            zh_record(
                "vcsum",
                0,
                "",
                "\n".join(f"发言人{k % 3}：{chinese(3, k)}" for k in range(200)),
                ["会议讨论了文化建设。"],
            )
        ],
        "lsht": [zh_record("lsht", 0, f"新闻：{chinese(2, 4)}\n类别：", lsht_demos, ["财经"], LSHT_CLASSES)],
        "passage_retrieval_zh": [zh_record("passage_retrieval_zh", 0, chinese(1, 2), retrieval, ["段落7"])],
    }


@pytest.fixture(scope="module")
def zh_folder(tmp_path_factory) -> tuple[Path, dict[str, list[dict]]]:
    folder = tmp_path_factory.mktemp("longbench-zh")
    records = chinese_records()
    for task, rows in records.items():
        lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        (folder / f"{task}.jsonl").write_text(lines, encoding="utf-8")
    return folder, records


def test_chinese_lengths_are_characters_and_buckets_follow_them(zh_folder, tmp_path):
    folder, records = zh_folder
    buckets = {}
    for task, source in records.items():
        rows = load_dataset(
            "longbench", f"{task}_full", split="eval", data_dir=str(folder), cache_dir=str(tmp_path)
        )
        for row, record in zip(rows, source, strict=True):
            assert row["length"] == record["length"] and row["language"] == "zh"
            assert row["all_classes"] == record["all_classes"] and row["answers"] == record["answers"]
            buckets[(task, row["_id"])] = row["length_bucket"]
            # Chinese text has (almost) no spaces: a word count would put every record in 0-4k
            assert len((record["input"] + record["context"]).split()) < 4000
    assert sorted(buckets.values()) == ["0-4k", "0-4k", "0-4k", "4-8k", "8k+", "8k+", "8k+"]
    assert buckets[("multifieldqa_zh", records["multifieldqa_zh"][1]["_id"])] == "8k+"


def test_chinese_prompts_start_and_end_as_hand_checked(zh_folder, tmp_path):
    folder, _ = zh_folder
    expected = {
        "multifieldqa_zh": ("阅读以下文字并用中文简短回答：\n\n今天上午，", "现在请基于上面的文章回答下面的问题，只告诉我答案，不要输出任何其他字词。\n\n问题：试点效果怎么样？\n回答："),
        "dureader": ("请基于给定的文章回答下述问题。\n\n文章：文档0：今天上午，", "\n\n请基于上述文章回答下面的问题。\n\n问题：发布会介绍了什么\n回答："),
        "vcsum": ("下面有一段会议记录，请你阅读后，写一段总结，总结会议的内容。\n会议记录：\n发言人0：今天上午，", "\n\n会议总结："),
        "lsht": ("请判断给定新闻的类别，下面是一些例子。\n\n新闻：今天上午，", "\n类别：军事\n\n新闻：据统计，该公司上半年营业收入同比增长百分之十二。会议认为，要进一步加强文化建设，推动历史文化遗产保护工作。\n类别："),
        "passage_retrieval_zh": ("以下是若干段落文字，以及其中一个段落的摘要。请确定给定的摘要出自哪一段。\n\n段落1：研究人员表示，", "\n\n下面是一个摘要\n\n会议认为，要进一步加强文化建设，推动历史文化遗产保护工作。\n\n请输入摘要所属段落的编号。答案格式必须是\"段落1\"，\"段落2\"等格式\n\n答案是："),
    }  # fmt: skip
    for task, (start, end) in expected.items():
        row = load_dataset(
            "longbench", f"{task}_full", split="eval", data_dir=str(folder), cache_dir=str(tmp_path)
        )[0]
        assert row["input"].startswith(start) and row["input"].endswith(end), task


@pytest.mark.parametrize("length, max_input_tokens", [("4k", None), ("16k", 301)])
def test_chinese_prompts_are_cut_exactly_as_pred_py_does(
    zh_folder, llama2, llama2_tokenizer, tmp_path, length, max_input_tokens
):
    folder, records = zh_folder
    budget = max_input_tokens or 3500
    cut = 0
    for task, source in records.items():
        rows = load_dataset(
            "longbench", f"{task}_{length}", split="eval", data_dir=str(folder), tokenizer=llama2_tokenizer,
            max_input_tokens=max_input_tokens, cache_dir=str(tmp_path),
        )  # fmt: skip
        expected = [reference_prompt(task, r, llama2, budget) for r in source]
        assert rows["input"] == expected, task
        cut += sum(e != SPEC_TEMPLATES[task].format(**r) for e, r in zip(expected, source, strict=True))
    # Llama-2 tokens: 2450, 11858, 10883, 386, 24783, 14120, 5133
    assert cut == (5 if max_input_tokens is None else 7)


def test_chinese_prompts_cut_by_characters(zh_folder, tmp_path):
    folder, records = zh_folder
    for task, source in records.items():
        rows = load_dataset(
            "longbench",
            f"{task}_4k",
            split="eval",
            data_dir=str(folder),
            tokenizer="chars",
            cache_dir=str(tmp_path),
        )
        for row, record in zip(rows, source, strict=True):
            prompt = SPEC_TEMPLATES[task].format(**record)
            assert row["input"] == (prompt if len(prompt) <= 3500 else prompt[:1750] + prompt[-1750:])
