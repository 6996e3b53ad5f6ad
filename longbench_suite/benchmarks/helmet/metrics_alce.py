"""ALCE (ASQA, QAMPARI) as HELMET scores it with ``eval_alce.py`` (``docs/helmet.md`` §3.2).

The output is first cleaned (runs of newlines become one space, ``<|im_end|>`` is removed); the
correctness metrics then also strip citations. Citation recall/precision (AutoAIS) ask an NLI judge
whether the cited documents entail each unit of the answer: ASQA units are NLTK Punkt sentences of at
least 5 characters, QAMPARI units are ``question + " " + item`` per comma-separated item. HELMET's
judge is ``google/t5_xxl_true_nli_mixture`` fed ``"premise: {P} hypothesis: {H}"``
(:class:`T5NLIJudge`); any ``(premise, hypothesis) -> bool`` callable can stand in for it.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from longbench_suite.endpoint import openai_client
from longbench_suite.errors import DataFormatError
from longbench_suite.generate.sentences import sent_tokenize
from longbench_suite.metrics.base import (
    Judges,
    Row,
    RowScores,
    column,
    normalize_answer,
    optional_import,
    scaled,
)

from .parsing import meta_field

AUTOAIS_MODEL = "google/t5_xxl_true_nli_mixture"
AT_MOST_CITATIONS = 3
NEEDS = "an NLI judge (HELMET uses google/t5_xxl_true_nli_mixture; CLI: --nli-model)"
#: citation metrics over the rows that have units; 0 when none has (as ``compute_autoais``)
CITATION_AGGREGATES = {"citation_rec": scaled(100.0, empty=0.0), "citation_prec": scaled(100.0, empty=0.0)}

NLIJudge = Callable[[str, str], bool]


def clean_output(output: str) -> str:
    return re.sub(r"\n+", " ", output).replace("<|im_end|>", "")


def remove_citations(text: str) -> str:
    """Drop ``" [n"`` and ``"[n"`` markers, then every ``" |"`` and ``"]"``."""
    return re.sub(r"\[\d+", "", re.sub(r" \[\d+", "", text)).replace(" |", "").replace("]", "")


def exact_presence(short_answers: Sequence[str], context: str) -> bool:
    normalized = normalize_answer(context)
    return any(normalize_answer(a) in normalized for a in short_answers)


def str_em(output: str, qa_pairs: Sequence[Mapping]) -> tuple[float, float]:
    """ASQA ``(str_em, str_hit)``: share of QA pairs with a short answer in the output, and whether
    all are."""
    if not qa_pairs:
        raise DataFormatError("'metadata.qa_pairs' is empty")
    hits = [exact_presence(pair["short_answers"], output) for pair in qa_pairs]
    em = sum(hits) / len(hits)
    return em, float(em == 1)


def qampari_scores(output: str, answer_clusters: Sequence[Sequence[str]]) -> dict[str, float]:
    """QAMPARI precision, recall, recall@5, F1s and the number of predicted items."""
    if not answer_clusters:
        raise DataFormatError("'metadata.answer_clusters' is empty")
    items = output.rstrip().rstrip(".").rstrip(",").split(",")
    preds = [p for p in (normalize_answer(x.strip()) for x in items) if p]
    clusters = [[normalize_answer(a) for a in cluster] for cluster in answer_clusters]
    flat = [a for cluster in clusters for a in cluster]
    hits = sum(any(a in preds for a in cluster) for cluster in clusters)
    prec = sum(p in flat for p in preds) / len(preds) if preds else 0.0
    rec = hits / len(clusters)
    rec_top5 = min(5, hits) / min(5, len(clusters))
    return {
        "num_preds": float(len(preds)),
        "qampari_prec": prec,
        "qampari_rec": rec,
        "qampari_rec_top5": rec_top5,
        "qampari_f1": 2 * prec * rec / (prec + rec) if prec + rec else 0.0,
        "qampari_f1_top5": 2 * prec * rec_top5 / (prec + rec_top5) if prec + rec_top5 else 0.0,
    }


def _meta(row: Row, name: str):
    return meta_field(row, name)


def asqa_row(prediction: str, row: Row) -> RowScores:
    output = remove_citations(clean_output(prediction))
    em, hit = str_em(output, _meta(row, "qa_pairs"))
    return {"str_em": em, "str_hit": hit, "length": float(len(output.split()))}


def qampari_row(prediction: str, row: Row) -> RowScores:
    output = remove_citations(clean_output(prediction))
    return {**qampari_scores(output, _meta(row, "answer_clusters")), "length": float(len(output.split()))}


# -- citations (AutoAIS) ---------------------------------------------------------------------------


def nli_input(premise: str, hypothesis: str) -> str:
    """The T5 TRUE model's input text."""
    return f"premise: {premise} hypothesis: {hypothesis}"


def format_document(doc: Mapping) -> str:
    return "Title: {}\n{}".format(doc["title"], doc["sent"] if "sent" in doc else doc["text"])
def citation_units(output: str, question: str, qampari: bool) -> list[str]:
    if qampari:
        return [question + " " + x.strip() for x in output.rstrip().rstrip(".").rstrip(",").split(",")]
    return [s for s in sent_tokenize(output) if len(s.strip()) >= 5]


def citation_scores(
    output: str, docs: Sequence[Mapping], question: str, nli: NLIJudge, qampari: bool = False
) -> tuple[float, float] | None:
    """``(citation recall, citation precision)`` of one cleaned output; ``None`` without units.

    A unit without citations, or citing a document beyond ``docs``, is unsupported. Otherwise its
    first three citations are joined (``"\\n"``) as the premise. A supported unit with several
    citations counts each cited document as precise unless it fails alone and the others still
    entail the unit without it.
    """
    units = citation_units(output, question, qampari)
    if not units:
        return None
    entailed = precise = citations = 0
    for unit in units:
        target = remove_citations(unit).strip()
        refs = [int(r[1:]) - 1 for r in re.findall(r"\[\d+", unit)]
        if not refs or any(r >= len(docs) for r in refs):
            supported = False
        else:
            refs = refs[:AT_MOST_CITATIONS]
            citations += len(refs)
            supported = bool(nli("\n".join(format_document(docs[r]) for r in refs), target))
        entailed += supported
        if supported and len(refs) > 1:
            for ref in refs:
                if nli(format_document(docs[ref]), target):
                    precise += 1
                    continue
                others = list(refs)
                others.remove(ref)
                if not nli("\n".join(format_document(docs[r]) for r in others), target):
                    precise += 1
        else:
            precise += supported
    return entailed / len(units), (precise / citations if citations else 0.0)


def citations_judged(
    predictions: Sequence[str], rows: Sequence[Row], judges: Judges
) -> list[RowScores] | None:
    if judges.nli is None:
        return None
    out: list[RowScores] = []
    for prediction, row in zip(predictions, rows, strict=True):
        qampari = column(row, "task") == "alce_qampari"
        scores = citation_scores(
            clean_output(prediction), _meta(row, "docs"), column(row, "question"), judges.nli, qampari
        )
        rec, prec = scores if scores is not None else (None, None)
        out.append({"citation_rec": rec, "citation_prec": prec})
    return out


class T5NLIJudge:
    """HELMET's AutoAIS judge: a seq2seq NLI model whose decoded output ``"1"`` means entailed.

    ``T5NLIJudge.from_pretrained()`` loads ``google/t5_xxl_true_nli_mixture`` (bf16, slow tokenizer)
    with ``transformers`` and ``torch``; any model/tokenizer pair with the same interface works.
    """

    def __init__(self, model, tokenizer) -> None:
        self.model = model
        self.tokenizer = tokenizer

    @classmethod
    def from_pretrained(cls, name: str = AUTOAIS_MODEL, **model_kwargs) -> T5NLIJudge:
        torch = optional_import("torch", "torch", "the T5 NLI citation judge", "train")
        transformers = optional_import(
            "transformers", "transformers", "the T5 NLI citation judge", "transformers"
        )
        model_kwargs.setdefault("torch_dtype", torch.bfloat16)
        model_kwargs.setdefault("device_map", "auto")
        model = transformers.AutoModelForSeq2SeqLM.from_pretrained(name, **model_kwargs)
        tokenizer = transformers.AutoTokenizer.from_pretrained(name, use_fast=False)
        return cls(model, tokenizer)

    def __call__(self, premise: str, hypothesis: str) -> bool:
        input_ids = self.tokenizer(nli_input(premise, hypothesis), return_tensors="pt").input_ids
        if hasattr(input_ids, "to") and hasattr(self.model, "device"):
            input_ids = input_ids.to(self.model.device)
        with _inference_mode():
            outputs = self.model.generate(input_ids, max_new_tokens=10)
        return self.tokenizer.decode(outputs[0], skip_special_tokens=True) == "1"


@dataclass
class EndpointNLIJudge:
    """The same judge served behind an OpenAI-compatible completions endpoint (TGI, vLLM, ...): the
    prompt ``"premise: {P} hypothesis: {H}"``, greedy, at most 10 new tokens, and entailed exactly when
    the completion is ``"1"``, as :class:`T5NLIJudge` decides it."""

    model: str
    base_url: str
    api_key: str | None = None
    client: object = None

    def __call__(self, premise: str, hypothesis: str) -> bool:
        if self.client is None:
            self.client = openai_client(self.base_url, self.api_key, "an NLI judge at an endpoint")
        response = self.client.completions.create(
            model=self.model, prompt=nli_input(premise, hypothesis), max_tokens=10, temperature=0.0
        )
        return response.choices[0].text == "1"


def _inference_mode():
    try:
        import torch
    except ImportError:  # a stand-in model that does not need torch
        return contextlib.nullcontext()
    return torch.inference_mode()
