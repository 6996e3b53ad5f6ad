"""The 11 LV-Eval datasets (``docs/lveval.md`` §2, §5): prompt, generation length, metric, groups, sizes.

Templates are ``config.py``'s ``DATASET_PROMPT``, each distinct text quoted once; datasets that
share a text share its template. Only ``{context}`` and ``{input}`` are filled.
"""

from __future__ import annotations

from longbench_suite.render import PromptTemplate

from .common import LvevalDataset

SOME_PASSAGES_EN = PromptTemplate(
    user=(
        "Answer the question based on the given passages. Questions and answers are only relevant "
        "to some passages. Only give me the answer and do not output any other explanation "
        "and evidence.\n\n"
        "Article: {context}\n\n"
        "Please answer the following question based on the above passages. Questions and answers "
        "are only relevant to some passages. Only give me the answer and do not output any "
        "other explanation and evidence.\n\n"
        "Question: {input}\nAnswer:"
    ),
)

ONE_PASSAGE_EN = PromptTemplate(
    user=(
        "Please answer the following question based on the given passages. Questions and answers "
        "are only relevant to one passage. Only give me the answer and do not output any other "
        "explanation and evidence.\n\n"
        "Article: {context}\n\n"
        "Please answer the following question based on the above passages. Questions and answers "
        "are only relevant to one passage. Only give me the answer and do not output any other "
        "explanation and evidence.\n\n"
        "Question: {input}\nAnswer:"
    ),
)

ONE_PASSAGE_ZH = PromptTemplate(
    user=(
        "请阅读以下文章并用中文回答问题，问题和答案只与其中一篇文章有关。只需要直接给出问题的答案，不要输出其他任何解释和证据。\n\n"
        "文章：{context}\n\n"
        "请基于上面的文章回答下面的问题，问题和答案只与其中一篇文章有关。只需要直接给出问题的答案，不要输出其他任何解释和证据。\n\n"
        "问题：{input}\n回答："
    ),
)

FACTRECALL_EN = PromptTemplate(
    user=(
        "Please answer the following questions based on the given article.\n\n"
        "Article: {context}\n\n"
        "Please answer the following questions based on the above article.\n\n"
        "Question: {input}\nAnswer:"
    ),
)

FACTRECALL_ZH = PromptTemplate(
    user=(
        "请基于给定的文章回答下述问题。\n\n"
        "文章：{context}\n\n"
        "现在请基于上述文章回答下面的问题。\n\n"
        "问题：{input}\n回答："
    ),
)

ONE_ARTICLE_ZH = PromptTemplate(
    user=(
        "请根据下面给定的文章回答问题，问题和答案只与其中一篇文章有关。\n\n"
        "文章：{context}\n\n"
        "现在请基于上述文章回答下面的问题，问题和答案只与其中一篇文章有关。\n\n"
        "问题：{input}\n回答："
    ),
)

ONE_ARTICLE_ZH_LIC = PromptTemplate(
    user=(
        "请根据下面给定的文章回答问题，问题和答案只与其中一篇文章有关。\n\n"
        "文章：{context}\n\n"
        "请现在基于上述文章回答下面的问题，问题和答案只与其中一篇文章有关。\n\n"
        "问题：{input}\n回答："
    ),
)


MIT = "MIT"
CC_BY_SA = "CC-BY-SA-4.0"
SINGLE, MULTI = "single-hop QA", "multi-hop QA"

#: In the order of upstream's ``DATASET_SELECTED``.
TASKS = (
    LvevalDataset(
        name="hotpotwikiqa_mixup",
        language="en",
        category=MULTI,
        template=SOME_PASSAGES_EN,
        max_new_tokens=64,
        metric="qa_f1_score_with_gold_ans",
        qa_pairs=124,
        has_answer_keywords=True,
        has_confusing_facts=True,
        licence=MIT,
        description="Multi-hop English QA over mixed-up passages; confusing facts inserted.",
    ),
    LvevalDataset(
        name="loogle_SD_mixup",
        language="en",
        category=SINGLE,
        template=ONE_PASSAGE_EN,
        max_new_tokens=64,
        metric="qa_f1_score_with_gold_ans",
        qa_pairs=160,
        has_answer_keywords=True,
        has_confusing_facts=False,
        licence=MIT,
        description="Single-hop English QA (LooGLE short dependency) over mixed-up documents.",
    ),
    LvevalDataset(
        name="loogle_CR_mixup",
        language="en",
        category=MULTI,
        template=ONE_PASSAGE_EN,
        max_new_tokens=64,
        metric="qa_f1_score_with_gold_ans",
        qa_pairs=99,
        has_answer_keywords=True,
        has_confusing_facts=False,
        licence=MIT,
        description="Multi-hop English QA (LooGLE comprehension & reasoning) over mixed-up documents.",
    ),
    LvevalDataset(
        name="loogle_MIR_mixup",
        language="en",
        category=MULTI,
        template=ONE_PASSAGE_EN,
        max_new_tokens=64,
        metric="qa_f1_score_with_gold_ans",
        qa_pairs=139,
        has_answer_keywords=True,
        has_confusing_facts=False,
        licence=MIT,
        description="Multi-hop English QA (LooGLE multiple information retrieval) over mixed-up documents.",
    ),
    LvevalDataset(
        name="multifieldqa_en_mixup",
        language="en",
        category=SINGLE,
        template=ONE_PASSAGE_EN,
        max_new_tokens=64,
        metric="qa_f1_score_with_gold_ans",
        qa_pairs=101,
        has_answer_keywords=True,
        has_confusing_facts=True,
        licence=MIT,
        description="Single-hop English QA (MultiFieldQA) over mixed-up documents; confusing facts inserted.",
    ),
    LvevalDataset(
        name="multifieldqa_zh_mixup",
        language="zh",
        category=SINGLE,
        template=ONE_PASSAGE_ZH,
        max_new_tokens=64,
        metric="qa_f1_zh_score_with_gold_ans",
        qa_pairs=133,
        has_answer_keywords=True,
        has_confusing_facts=True,
        licence=MIT,
        description="Single-hop Chinese QA (MultiFieldQA) over mixed-up documents; confusing facts inserted.",
    ),
    LvevalDataset(
        name="factrecall_en",
        language="en",
        category=SINGLE,
        template=FACTRECALL_EN,
        max_new_tokens=16,
        metric="qa_f1_score",
        qa_pairs=200,
        has_answer_keywords=False,
        has_confusing_facts=True,
        licence=MIT,
        description="English needle in a haystack: one QA pair in all 200 rows, the contexts differ.",
    ),
    LvevalDataset(
        name="factrecall_zh",
        language="zh",
        category=SINGLE,
        template=FACTRECALL_ZH,
        max_new_tokens=16,
        metric="qa_f1_zh_score",
        qa_pairs=200,
        has_answer_keywords=False,
        has_confusing_facts=True,
        licence=MIT,
        description="Chinese needle in a haystack: one QA pair in all 200 rows, the contexts differ.",
    ),
    LvevalDataset(
        name="cmrc_mixup",
        language="zh",
        category=SINGLE,
        template=ONE_ARTICLE_ZH,
        max_new_tokens=64,
        metric="qa_f1_zh_score_with_gold_ans",
        qa_pairs=200,
        has_answer_keywords=False,
        has_confusing_facts=True,
        licence=CC_BY_SA,
        description="Single-hop Chinese QA (CMRC) over mixed-up documents; keywords replaced.",
    ),
    LvevalDataset(
        name="lic_mixup",
        language="zh",
        category=MULTI,
        template=ONE_ARTICLE_ZH_LIC,
        max_new_tokens=64,
        metric="qa_f1_zh_score_with_gold_ans",
        qa_pairs=197,
        has_answer_keywords=True,
        has_confusing_facts=True,
        licence=CC_BY_SA,
        description="Multi-hop Chinese QA over mixed-up documents; confusing facts inserted.",
    ),
    LvevalDataset(
        name="dureader_mixup",
        language="zh",
        category=MULTI,
        template=ONE_ARTICLE_ZH,
        max_new_tokens=64,
        metric="rouge_zh_score_blacklist",
        qa_pairs=176,
        has_answer_keywords=False,
        has_confusing_facts=False,
        licence=MIT,
        description="Multi-hop Chinese QA (DuReader) over mixed-up documents.",
    ),
)
