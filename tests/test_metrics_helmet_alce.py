"""ALCE as HELMET scores it (docs/helmet.md §3.2, eval_alce.py), with a deterministic fake NLI judge."""

from __future__ import annotations

import json
import re

import pytest

from longbench_suite.benchmarks.helmet.metrics_alce import (
    T5NLIJudge,
    citation_scores,
    clean_output,
    nli_input,
    qampari_scores,
    remove_citations,
    sent_tokenize,
    str_em,
)
from longbench_suite.metrics import score_task

DOCS = [
    {"title": "Eiffel", "text": "The Eiffel Tower is in Paris."},
    {"title": "Height", "text": "It is 330 metres tall."},
    {"title": "Other", "text": "Unrelated."},
]
#: which documents (by title) a hypothesis needs
NEEDS = {
    "The tower is in Paris.": {"Eiffel"},
    "It is 330 metres tall.": {"Height"},
    "The tower is in Paris and 330 metres tall.": {"Eiffel", "Height"},
    "The tower is in Paris": {"Eiffel"},
}


class FakeNLI:
    """Entails iff the premise holds every document the hypothesis needs; records its calls."""

    def __init__(self):
        self.calls = []

    def __call__(self, premise: str, hypothesis: str) -> bool:
        self.calls.append((premise, hypothesis))
        titles = set(re.findall(r"^Title: (\w+)$", premise, flags=re.MULTILINE))
        return hypothesis in NEEDS and NEEDS[hypothesis] <= titles


def doc_text(*indices):
    return "\n".join(f"Title: {DOCS[i]['title']}\n{DOCS[i]['text']}" for i in indices)


def test_output_cleaning_and_citation_removal():
    assert clean_output("a\n\n\nb\nc<|im_end|>") == "a b c"
    assert (
        remove_citations("Paris is the capital [1][2]. It is big [3].") == "Paris is the capital. It is big."
    )
    assert remove_citations("x [12 | y]") == "x y"


def test_asqa_str_em_and_str_hit():
    pairs = [{"short_answers": ["Paris"]}, {"short_answers": ["1889", "eighteen eighty-nine"]}]
    assert str_em("The tower in PARIS", pairs) == (0.5, 0.0)
    assert str_em("Paris, built in 1889.", pairs) == (1.0, 1.0)


def test_qampari_recall_top5_and_precision():
    clusters = [["Paris", "City of Light"], ["Lyon"], ["Nice"]]
    got = qampari_scores("Paris, lyon, Marseille.", clusters)
    assert got["qampari_rec_top5"] == pytest.approx(2 / 3)
    assert got["qampari_prec"] == pytest.approx(2 / 3)
    assert got["num_preds"] == 3.0
    many = [[f"a{i}"] for i in range(7)]
    got = qampari_scores("a0, a1, a2, a3, a4, a5", many)
    assert got["qampari_rec_top5"] == 1.0  # min(5, 6) / min(5, 7)
    assert got["qampari_rec"] == pytest.approx(6 / 7)
    assert qampari_scores("the city of light", clusters)["qampari_rec_top5"] == pytest.approx(1 / 3)
    assert qampari_scores("", clusters)["qampari_prec"] == 0.0


def test_nli_input_is_t5_true_format():
    assert nli_input("P text", "H text") == "premise: P text hypothesis: H text"


def test_sentences_are_nltk_english_punkt():
    # NLTK's documented example of sent_tokenize
    text = "Good muffins cost $3.88\nin New York.  Please buy me\ntwo of them.\n\nThanks."
    assert sent_tokenize(text) == [
        "Good muffins cost $3.88\nin New York.",
        "Please buy me\ntwo of them.",
        "Thanks.",
    ]
    # abbreviations from the English model do not end a sentence
    assert sent_tokenize("Mr. Smith went to Washington. He met Dr. Jones.") == [
        "Mr. Smith went to Washington.",
        "He met Dr. Jones.",
    ]


def test_citation_recall_and_precision():
    nli = FakeNLI()
    output = "The tower is in Paris [1][3]. It is 330 metres tall [2]. No citation here."
    rec, prec = citation_scores(output, DOCS, "q", nli)
    # unit 1 supported (doc 3 is over-cited), unit 2 supported, unit 3 has no citation
    assert rec == pytest.approx(2 / 3)
    assert prec == pytest.approx(2 / 3)  # precise citations 2 (doc 1, doc 2) of 3
    assert nli.calls == [
        (doc_text(0, 2), "The tower is in Paris."),
        (doc_text(0), "The tower is in Paris."),
        (doc_text(2), "The tower is in Paris."),
        (doc_text(0), "The tower is in Paris."),  # without doc 3 it still holds: doc 3 is not precise
        (doc_text(1), "It is 330 metres tall."),
    ]


def test_citations_that_need_each_other_are_all_precise():
    rec, prec = citation_scores("The tower is in Paris and 330 metres tall [1][2].", DOCS, "q", FakeNLI())
    assert (rec, prec) == (1.0, 1.0)


def test_citation_edge_cases():
    # a citation beyond the documents makes the unit unsupported and is not counted
    assert citation_scores("The tower is in Paris [1][9].", DOCS, "q", FakeNLI()) == (0.0, 0.0)
    # at most three citations are used
    nli = FakeNLI()
    citation_scores("The tower is in Paris [3][3][3][1].", DOCS, "q", nli)
    assert nli.calls[0] == (doc_text(2, 2, 2), "The tower is in Paris.")
    # "[0]" becomes index -1, the last document (Python indexing, as upstream)
    nli = FakeNLI()
    citation_scores("It is 330 metres tall [0].", DOCS, "q", nli)
    assert nli.calls == [(doc_text(2), "It is 330 metres tall.")]
    # sentences under 5 characters are dropped; no unit at all -> the row does not count
    assert citation_scores("1. Ok.", DOCS, "q", FakeNLI()) is None


def test_qampari_units_are_question_plus_item():
    nli = FakeNLI()
    rec, prec = citation_scores("Paris [1], Lyon [2].", DOCS, "The tower is in", nli, qampari=True)
    assert [h for _, h in nli.calls] == ["The tower is in Paris", "The tower is in Lyon"]
    assert (rec, prec) == (0.5, 0.5)


def alce_row(task, meta, question="q"):
    meta = {"helmet_name": task, "docs": DOCS, **meta}
    return {
        "answers": ["long answer"],
        "use_chat_template": True,
        "answer_prefix": "\n\nAnswer:",
        "task": task,
        "question": question,
        "query_id": "x",
        "metadata": json.dumps(meta),
    }


def test_asqa_task_with_and_without_a_judge():
    row = alce_row("alce_asqa", {"qa_pairs": [{"short_answers": ["Paris"]}, {"short_answers": ["330"]}]})
    outputs = ["The tower is in Paris [1].\n\nIt is 330 metres tall [3].", ""]
    result = score_task("helmet", "alce_asqa", [row, row], outputs, judges=None)
    assert result.headline == {"str_em": 50.0, "citation_rec": None, "citation_prec": None}
    assert set(result.not_computed) == {"citation_rec", "citation_prec"}
    from longbench_suite.metrics import Judges

    judged = score_task("helmet", "alce_asqa", [row, row], outputs, judges=Judges(nli=FakeNLI()))
    # the empty output has no sentence and is skipped; the other: 1 of 2 units supported
    assert judged.headline == {"str_em": 50.0, "citation_rec": 50.0, "citation_prec": 50.0}
    assert judged.not_computed == {}


def test_citation_metrics_are_zero_when_no_row_has_units():
    from longbench_suite.metrics import Judges

    row = alce_row("alce_asqa", {"qa_pairs": [{"short_answers": ["Paris"]}]})
    result = score_task("helmet", "alce_asqa", [row], [""], judges=Judges(nli=FakeNLI()))
    assert result.headline["citation_rec"] == 0.0 and result.headline["citation_prec"] == 0.0


def test_qampari_task():
    from longbench_suite.metrics import Judges

    row = alce_row("alce_qampari", {"answer_clusters": [["Paris"], ["Lyon"]]}, question="The tower is in")
    result = score_task(
        "helmet", "alce_qampari", [row], ["Paris [1], Lyon [2]."], judges=Judges(nli=FakeNLI())
    )
    assert result.headline == {"qampari_rec_top5": 100.0, "citation_rec": 50.0, "citation_prec": 50.0}


class FakeTokenizer:
    """Encodes a text as its position in ``texts``; decodes "1" for texts ending in "holds"."""

    def __init__(self):
        self.texts = []

    def __call__(self, text, return_tensors=None):
        assert return_tensors == "pt"
        self.texts.append(text)
        return type("Encoded", (), {"input_ids": [len(self.texts) - 1]})()

    def decode(self, ids, skip_special_tokens=False):
        assert skip_special_tokens
        return "1" if self.texts[ids[0]].endswith("holds") else "0"


class FakeModel:
    def generate(self, input_ids, max_new_tokens):
        assert max_new_tokens == 10
        return [input_ids]


def test_t5_judge_feeds_the_true_format_and_reads_1_as_entailed():
    tokenizer = FakeTokenizer()
    judge = T5NLIJudge(FakeModel(), tokenizer)
    assert judge("doc", "it holds") is True
    assert judge("doc", "it fails") is False
    assert tokenizer.texts == ["premise: doc hypothesis: it holds", "premise: doc hypothesis: it fails"]


def test_an_nli_judge_at_an_openai_compatible_endpoint_scores_as_the_local_one():
    """The T5 judge's exact prompt and decision rule, sent to a completions server (loopback fake)."""
    pytest.importorskip("openai")
    from longbench_suite.metrics import Judges
    from longbench_suite.metrics.report import judges_from
    from tests.support.fake_openai import FakeOpenAI

    local = FakeNLI()
    premise_of = re.compile(r"^premise: (.*) hypothesis: (.*)$", re.S)

    def serve(prompt: str) -> str:
        premise, hypothesis = premise_of.match(prompt).groups()
        return "1" if local(premise, hypothesis) else "0"

    row = alce_row("alce_asqa", {"qa_pairs": [{"short_answers": ["Paris"]}, {"short_answers": ["330"]}]})
    outputs = ["The tower is in Paris [1].\n\nIt is 330 metres tall [3].", "It is 330 metres tall [2]."]
    with FakeOpenAI(serve) as server:
        judges = judges_from(None, "google/t5_xxl_true_nli_mixture", nli_endpoint=server.url)
        remote = score_task("helmet", "alce_asqa", [row, row], outputs, judges=judges)
        requests = [r["body"] for r in server.requests]
    expected = score_task("helmet", "alce_asqa", [row, row], outputs, judges=Judges(nli=FakeNLI()))
    assert remote.headline == expected.headline and remote.headline["citation_rec"] is not None
    assert {r["path"] for r in server.requests} == {"/v1/completions"}
    assert all(r["max_tokens"] == 10 and r["temperature"] == 0.0 for r in requests)
    assert all(r["model"] == "google/t5_xxl_true_nli_mixture" for r in requests)
    assert requests[0]["prompt"].startswith("premise: ") and " hypothesis: " in requests[0]["prompt"]
