"""HELMET-derived tasks, one declaration each (``helmet.md`` §1.2, ``helmet-derived.md``)."""

from __future__ import annotations

from .rag import TEMPLATE as RAG_TEMPLATE
from .rag import RagTask

KILT_PASSAGES = {"8k": 50, "16k": 105, "32k": 220, "64k": 440, "128k": 1000}

RAG = dict(template=RAG_TEMPLATE, generation_max_length=20, use_chat_template=False, passages=KILT_PASSAGES)

TASKS = (
    RagTask(
        name="nq",
        helmet_name="kilt_nq",
        description="Natural Questions over KILT Wikipedia passages, gold passage at 6 depths.",
        test_file="data/kilt/nq-dev-multikilt_1000_k{k}_dep6.jsonl",
        demo_file="data/kilt/nq-train-multikilt_1000_k3_dep6.jsonl",
        sizes={"dev": 893, "eval": 600},
        **RAG,
    ),
    RagTask(
        name="triviaqa",
        helmet_name="kilt_triviaqa",
        description="TriviaQA over KILT Wikipedia passages, gold passage at 6 depths.",
        test_file="data/kilt/triviaqa-dev-multikilt_1000_k{k}_dep6.jsonl",
        demo_file="data/kilt/triviaqa-train-multikilt_1000_k3_dep6.jsonl",
        sizes={"dev": 876, "eval": 600},
        **RAG,
    ),
    RagTask(
        name="popqa",
        helmet_name="kilt_popqa_3",
        description="PopQA long-tail entity questions (eval: subject popularity below 10^3), 6 depths.",
        test_file="data/kilt/popqa_test_1000_k{k}_dep6.jsonl",
        demo_file="data/kilt/popqa_test_1000_k3_dep6.jsonl",
        key_field="id",
        popularity_threshold=3.0,
        sizes={"dev": 192, "eval": 600},
        **RAG,
    ),
    RagTask(
        name="hotpotqa",
        helmet_name="kilt_hotpotqa",
        description="HotpotQA multi-hop questions over KILT passages, 3 placements of the two gold passages.",
        test_file="data/kilt/hotpotqa-dev-multikilt_1000_k{k}_dep3.jsonl",
        demo_file="data/kilt/hotpotqa-train-multikilt_1000_k3_dep3.jsonl",
        sizes={"eval": 300},
        **RAG,
    ),
)
