"""HELMET citation tasks: ALCE ASQA and QAMPARI (``docs/helmet.md`` §3.2), with HELMET's real prompt files.

Parity: ``eval`` equals HELMET's ``load_alce`` (demos drawn with the global ``random`` seeded 42, one
``random.sample`` per row in file order, before any subsetting), then ``shuffle(seed=42)`` and the
first 100 rows, then ``model_utils.tokenize`` — re-implemented below with ``random``, numpy and the
exact Llama-2 tokenizer. The prompt files are read from their pinned GitHub raw URL through a mirror.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil

import pytest
from tokenizers import Tokenizer

from longbench_suite import get_builder, load_dataset, prepare
from longbench_suite.benchmarks.helmet import samples
from longbench_suite.benchmarks.helmet.common import ARCHIVE
from longbench_suite.benchmarks.helmet.samples import archive as samples_archive
from longbench_suite.errors import DataFormatError
from longbench_suite.samplefiles import tar_gz_bytes, write_to_mirror
from longbench_suite.source import mirrored
from tests.conftest import HELMET_LENGTHS as LENGTHS
from tests.specs import helmet as helmet_spec
from tests.support.helmet_reference import fit, read_archive, shuffled

PROMPT_URL = "https://raw.githubusercontent.com/princeton-nlp/HELMET/4526dfbdc512bd9ff721da336bff4e3e75ecfd27/prompts/{}"
PROMPT_SHA256 = {  # of the files at that commit
    "asqa": "99ebb9d7371895dc352a7f9135ef9e84c3757a9d9d4ce2091b4e2b1d7c39299c",
    "qampari": "d73e184ec6d9fd6ba821ea1e537d2dec96be602aa693706862acc1b3d9586104",
}
TEST_FILE = "data/alce/{}_eval_gtr_top2000.json"
DOCS = {length: row.alce_docs for length, row in helmet_spec.LENGTHS.items()}
PROMPT = "{demo_text}{instruction}\n\nQuestion: {question}\n\n{context}" + "\n\n" + "Answer:"
ASQA_INSTRUCTION = (
    "Instruction: Write an accurate, engaging, and concise answer for the given question using only the "
    "provided search results (some of which might be irrelevant) and cite them properly. Use an unbiased "
    "and journalistic tone. Always cite for any factual claim. When citing a document, surround its ID with "
    "square brackets, such as [x] to cite document x. To cite multiple documents, simply concatenate the "
    "citation markers; for example, use [x][y][z] to cite the documents with ID x, y, and z. Cite at least "
    "one document and at most three documents in each sentence. If multiple documents support the "
    "sentence, only cite a minimum sufficient subset of the documents."
)
ROWS = 130
CONFIGS = [("asqa", "8k"), ("qampari", "8k"), ("asqa", "64k")]


@pytest.fixture(scope="module")
def alce_mirror(tmp_path_factory, helmet_alce_prompts):
    """A mirror with an ALCE-only data.tar.gz (130 rows per task) and HELMET's real prompt files."""
    root = str(tmp_path_factory.mktemp("alce-mirror"))
    scale = samples.Scale(alce_asqa=ROWS, alce_qampari=ROWS)
    write_to_mirror(root, ARCHIVE.url, tar_gz_bytes(samples_archive.alce_members(scale)))
    for kind, path in helmet_alce_prompts.items():
        target = mirrored(PROMPT_URL.format(f"{kind}_revised.json"), root)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy(path, target)
    return root


@pytest.fixture(scope="module")
def alce_built(alce_mirror, llama2_tokenizer, tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("alce-cache"))
    builders = {
        (kind, length): get_builder(
            f"alce_{kind}_{length}", tokenizer=llama2_tokenizer, mirror=alce_mirror, cache_dir=cache
        )
        for kind, length in CONFIGS
    }
    prepare(builders.values())
    return builders


def _render_docs(doc_prompt, docs):
    return "\n\n".join(doc_prompt.format(**d, ID=i + 1) for i, d in enumerate(docs))


def _helmet_eval(rows, prompt_file, length, tokenizer_path):
    """HELMET's load_alce + shuffle(42) + first 100 + model_utils.tokenize for one config."""
    with open(prompt_file, encoding="utf-8") as f:
        prompts = json.load(f)
    random.seed(42)  # eval.py, just before load_data
    draws = [random.sample(prompts["demos"], 2) for _ in rows]  # data.map: one call per row, in order
    tok = Tokenizer.from_file(tokenizer_path)
    budget = LENGTHS[length] - 300
    expected = []
    for i in shuffled(len(rows))[:100]:
        demo_text = "\n\n\n".join(
            prompts["demo_prompt"].format(
                **demo,
                instruction=prompts["instruction"],
                context=_render_docs(prompts["doc_prompt"], demo["docs"]),
            )
            for demo in draws[i]
        )
        fields = {
            "demo_text": demo_text + "\n\n\n",
            "instruction": prompts["instruction"],
            "question": rows[i]["question"],
            "context": _render_docs(prompts["doc_prompt"], rows[i]["docs"][: DOCS[length]]),
        }
        expected.append((fit(PROMPT, fields, tok, budget), rows[i]))
    return expected


@pytest.mark.parametrize("kind, length", CONFIGS)
def test_eval_equals_helmets_pipeline(
    alce_built, alce_mirror, helmet_alce_prompts, llama2_tokenizer, kind, length
):
    path = TEST_FILE.format(kind)
    rows = read_archive(mirrored(ARCHIVE.url, alce_mirror), [path])[path]
    expected = _helmet_eval(rows, helmet_alce_prompts[kind], length, llama2_tokenizer)
    built = alce_built[(kind, length)].as_dataset(split="eval")
    assert list(built["input"]) == [prompt for prompt, _ in expected]
    assert list(built["question"]) == [row["question"] for _, row in expected]
    if kind == "asqa":
        assert list(built["output"]) == [row["answer"] for _, row in expected]
        assert list(built["answers"]) == [[row["answer"]] for _, row in expected]
    else:
        assert list(built["output"]) == [", ".join(c[0] for c in row["answers"]) for _, row in expected]
        assert list(built["answers"]) == [[a for c in row["answers"] for a in c] for _, row in expected]
    for meta, (_, row) in zip(built["metadata"], expected, strict=True):
        meta = json.loads(meta)
        assert meta["helmet_name"] == f"alce_{kind}_{DOCS[length]}"
        assert meta["docs"] == [{"title": d["title"], "text": d["text"]} for d in row["docs"][: DOCS[length]]]
        if kind == "asqa":
            assert meta["qa_pairs"] == [
                {"question": p["question"], "short_answers": p["short_answers"]} for p in row["qa_pairs"]
            ]
        else:
            assert meta["answer_clusters"] == row["answers"]
    assert set(built["answer_prefix"]) == {"\n\nAnswer:"} and all(built["use_chat_template"])
    assert set(built["max_new_tokens"]) == {300}


def test_long_rows_are_cut_and_dev_is_the_rest(alce_built, llama2_tokenizer):
    tok = Tokenizer.from_file(llama2_tokenizer)
    for (kind, length), builder in alce_built.items():
        splits = builder.as_dataset()
        assert (len(splits["dev"]), len(splits["eval"])) == (ROWS - 100, 100)
        assert not set(splits["dev"]["query_id"]) & set(splits["eval"]["query_id"])
        counts = [len(tok.encode(t).ids) for t in splits["eval"]["input"]]
        assert max(counts) <= LENGTHS[length] - 300 and max(counts) > LENGTHS[length] - 400, (kind, length)


def test_prompt_files_come_from_the_pinned_commit(alce_built):
    for (kind, _), builder in alce_built.items():
        recorded = builder.info.download_checksums[PROMPT_URL.format(f"{kind}_revised.json")]
        assert recorded["checksum"] == PROMPT_SHA256[kind]


# -- hand-checked rows, both field forms, bad input (a HELMET checkout as data_dir) -------------------


def _checkout(tmp_path, kind, rows, helmet_alce_prompts):
    """``data/alce/<kind>_eval_gtr_top2000.json`` and ``prompts/<kind>_revised.json``, as in HELMET's repo."""
    (tmp_path / "data" / "alce").mkdir(parents=True)
    (tmp_path / TEST_FILE.format(kind)).write_text(json.dumps(rows), encoding="utf-8")
    (tmp_path / "prompts").mkdir()
    shutil.copy(helmet_alce_prompts[kind], tmp_path / "prompts" / f"{kind}_revised.json")
    return str(tmp_path)


def _asqa_rows(n, docs_of_row1=2):
    rows = []
    for i in range(n):
        docs = [
            {"id": "1", "title": f"T{i}a", "text": "a b", "score": 1.2},
            {"title": f"T{i}b", "text": "c d"},
        ]
        if i == 1:
            docs = [
                {"id": str(j), "title": f"D{j}", "text": f"x{j}", "answers_found": [0]}
                for j in range(docs_of_row1)
            ]
        rows.append(
            {
                "qa_pairs": [
                    {"context": "c", "question": f"q{i} sub?", "short_answers": [f"S{i}"], "wikipage": "W"}
                ],
                "wikipages": [{"title": "W", "url": "u"}],
                "annotations": [{"knowledge": [], "long_answer": f"Long {i}."}],
                "sample_id": str(9000 + i),
                "question": f"q{i}?",
                "docs": docs,
                "answer": f"A{i} [1].",
            }
        )
    return rows


def test_hand_checked_prompt_text(tmp_path, helmet_alce_prompts):
    data_dir = _checkout(tmp_path, "asqa", _asqa_rows(101, docs_of_row1=35), helmet_alce_prompts)
    splits = load_dataset(
        "helmet", "alce_asqa_8k", data_dir=data_dir, tokenizer="words", cache_dir=str(tmp_path / "c")
    )
    assert (len(splits["dev"]), len(splits["eval"])) == (1, 100)
    with open(helmet_alce_prompts["asqa"], encoding="utf-8") as f:
        prompt_file = json.load(f)
    assert prompt_file["instruction"] == ASQA_INSTRUCTION
    demos = prompt_file["demos"]
    first_draw = random.Random(42).sample(demos, 2)  # row 0's demos: the first draw
    rendered = []
    for demo in first_draw:
        docs = "\n\n".join(
            f"Document [{j + 1}](Title: {d['title']}): {d['text']}" for j, d in enumerate(demo["docs"])
        )
        rendered.append(
            f"{ASQA_INSTRUCTION}\n\nQuestion: {demo['question']}\n\n{docs}\n\nAnswer: {demo['answer']}"
        )
    row = next(r for s in ("dev", "eval") for r in splits[s] if r["question"] == "q0?")
    assert row["input"] == (
        f"{rendered[0]}\n\n\n{rendered[1]}\n\n\n{ASQA_INSTRUCTION}\n\nQuestion: q0?\n\n"
        "Document [1](Title: T0a): a b\n\nDocument [2](Title: T0b): c d\n\nAnswer:"
    )
    assert (
        row["output"] == "A0 [1]." and row["answers"] == ["A0 [1]."] and row["query_id"] == "alce_asqa-9000"
    )
    assert row["answer_prefix"] == "\n\nAnswer:" and row["use_chat_template"] is True
    meta = json.loads(row["metadata"])
    assert meta["qa_pairs"] == [{"question": "q0 sub?", "short_answers": ["S0"]}]
    row1 = next(r for s in ("dev", "eval") for r in splits[s] if r["question"] == "q1?")
    assert len(json.loads(row1["metadata"])["docs"]) == 30, "8k keeps the first 30 documents"
    assert (
        "Document [30](Title: D29): x29\n\nAnswer:" in row1["input"] and "Document [31]" not in row1["input"]
    )


def test_asqa_without_answer_falls_back_to_the_annotation(tmp_path, helmet_alce_prompts):
    rows = _asqa_rows(101)
    for row in rows:
        del row["answer"]
    data_dir = _checkout(tmp_path, "asqa", rows, helmet_alce_prompts)
    splits = load_dataset(
        "helmet", "alce_asqa_8k", data_dir=data_dir, tokenizer="words", cache_dir=str(tmp_path / "c")
    )
    row = next(r for s in ("dev", "eval") for r in splits[s] if r["question"] == "q3?")
    assert row["output"] == "Long 3." and row["answers"] == ["Long 3."]


@pytest.mark.parametrize("form", ["alias lists", "strings"])
def test_qampari_answer_forms(tmp_path, helmet_alce_prompts, form):
    rows = [
        {
            "id": f"{i}__wikidata_comp__dev",
            "question": f"which {i}?",
            "answers": [[f"X{i}", f"x{i}"], [f"Y{i}"]] if form == "alias lists" else [f"X{i}", f"Y{i}"],
            "docs": [{"title": "T", "text": "t", "id": "3"}],
        }
        for i in range(101)
    ]
    data_dir = _checkout(tmp_path, "qampari", rows, helmet_alce_prompts)
    splits = load_dataset(
        "helmet", "alce_qampari_8k", data_dir=data_dir, tokenizer="words", cache_dir=str(tmp_path / "c")
    )
    row = next(r for s in ("dev", "eval") for r in splits[s] if r["question"] == "which 7?")
    assert row["output"] == "X7, Y7" and row["query_id"] == "alce_qampari-7__wikidata_comp__dev"
    if form == "alias lists":
        assert row["answers"] == ["X7", "x7", "Y7"]
        assert json.loads(row["metadata"])["answer_clusters"] == [["X7", "x7"], ["Y7"]]
    else:
        assert row["answers"] == ["X7", "Y7"]
        assert json.loads(row["metadata"])["answer_clusters"] == [["X7"], ["Y7"]]


def test_a_document_without_title_and_text_is_named(tmp_path, helmet_alce_prompts):
    rows = _asqa_rows(101)
    rows[4]["docs"][1] = {"id": "7", "text": "no title here"}
    data_dir = _checkout(tmp_path, "asqa", rows, helmet_alce_prompts)
    with pytest.raises(
        DataFormatError, match=r"asqa_eval_gtr_top2000\.json in .*, record 5: passage 1 of 'docs'"
    ):
        load_dataset(
            "helmet", "alce_asqa_8k", data_dir=data_dir, tokenizer="words", cache_dir=str(tmp_path / "c")
        )


def test_malformed_json_names_file_and_line(tmp_path, helmet_alce_prompts):
    data_dir = _checkout(tmp_path, "asqa", _asqa_rows(101), helmet_alce_prompts)
    path = tmp_path / TEST_FILE.format("asqa")
    text = json.dumps(_asqa_rows(101), indent=1)
    broken = text.replace('"question": "q50?"', '"question": "q50?" "x"', 1)
    path.write_text(broken, encoding="utf-8")
    line = broken[: broken.index('"q50?" "x"')].count("\n") + 1
    with pytest.raises(
        DataFormatError,
        match=rf"asqa_eval_gtr_top2000\.json in .*, line {line}: malformed JSON",
    ):
        load_dataset(
            "helmet", "alce_asqa_8k", data_dir=data_dir, tokenizer="words", cache_dir=str(tmp_path / "c")
        )


def test_real_prompt_files_are_the_pinned_ones(helmet_alce_prompts):
    for kind, path in helmet_alce_prompts.items():
        with open(path, "rb") as f:
            assert hashlib.sha256(f.read()).hexdigest() == PROMPT_SHA256[kind]
