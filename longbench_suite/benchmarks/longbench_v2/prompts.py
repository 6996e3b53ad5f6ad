"""LongBench v2's prompts: the texts of THUDM/LongBench's root ``prompts/*.txt`` at commit
``2e00731f8d0bff23dc4325161044d0ed8af94c1e``, byte for byte (``docs/longbench-v2.md`` §3).

No file ends with a line break; the CoT files say ``Let’s`` with U+2019. ``pred.py`` fills a template
with a chain of ``str.replace`` calls, ``$DOC$`` first, then ``$Q$`` and ``$C_A$`` … ``$C_D$`` (and
``$COT$`` last in the CoT answer call), each value ``.strip()``-ed: a :class:`ReplacingTemplate` with
the placeholders in that order. A placeholder a file does not hold is left out of its chain: replacing
it first would change nothing, and values are put in only after it.
"""

from longbench_suite.render import ReplacingTemplate

#: ``prompts/0shot.txt``
ZERO_SHOT_TEXT = (
    "Please read the following text and answer the question below.\n\n<text>\n$DOC$\n</text>\n\n"
    "What is the correct answer to this question: $Q$\nChoices:\n(A) $C_A$\n(B) $C_B$\n(C) $C_C$\n"
    '(D) $C_D$\n\nFormat your response as follows: "The correct answer is (insert answer here)".'
)
#: ``prompts/0shot_cot.txt`` (note "questions", and no answer-format line)
COT_TEXT = (
    "Please read the following text and answer the questions below.\n\n<text>\n$DOC$\n</text>\n\n"
    "What is the correct answer to this question: $Q$\nChoices:\n(A) $C_A$\n(B) $C_B$\n(C) $C_C$\n"
    "(D) $C_D$\n\nLet\u2019s think step by step:"
)
#: ``prompts/0shot_cot_ans.txt``: the CoT mode's second call, without the document
COT_ANSWER_TEXT = (
    "Please read the following text and answer the questions below.\n\n"
    "The text is too long and omitted here.\n\n"
    "What is the correct answer to this question: $Q$\nChoices:\n(A) $C_A$\n(B) $C_B$\n(C) $C_C$\n"
    "(D) $C_D$\n\nLet\u2019s think step by step: $COT$\n\n"
    "Based on the above, what is the single, most likely answer choice? "
    'Format your response as follows: "The correct answer is (insert answer here)".'
)
#: ``prompts/0shot_no_context.txt``
NO_CONTEXT_TEXT = (
    "What is the correct answer to this question: $Q$\nChoices:\n(A) $C_A$\n(B) $C_B$\n(C) $C_C$\n"
    "(D) $C_D$\n\nWhat is the single, most likely answer choice? "
    'Format your response as follows: "The correct answer is (insert answer here)".'
)
#: ``prompts/0shot_rag.txt``: kept for reference only; its ``retrieved_context`` is not in the public data
RAG_TEXT = (
    "Please read the following retrieved text chunks and answer the question below.\n\n<text>\n$DOC$\n"
    "</text>\n\nWhat is the correct answer to this question: $Q$\nChoices:\n(A) $C_A$\n(B) $C_B$\n"
    '(C) $C_C$\n(D) $C_D$\n\nFormat your response as follows: "The correct answer is (insert answer here)".'
)

#: upstream's file name of each text
FILES = {
    "0shot.txt": ZERO_SHOT_TEXT,
    "0shot_cot.txt": COT_TEXT,
    "0shot_cot_ans.txt": COT_ANSWER_TEXT,
    "0shot_no_context.txt": NO_CONTEXT_TEXT,
    "0shot_rag.txt": RAG_TEXT,
}

#: ``pred.py``'s order of replacement, placeholder -> the template field holding the stripped value
DOCUMENT = ("$DOC$", "context")
QUESTION_AND_CHOICES = (
    ("$Q$", "question"),
    ("$C_A$", "choice_A"),
    ("$C_B$", "choice_B"),
    ("$C_C$", "choice_C"),
    ("$C_D$", "choice_D"),
)
#: the first call's stripped response, replaced last in the CoT answer call
COT_RESPONSE = ("$COT$", "cot_response")

ZERO_SHOT = ReplacingTemplate(ZERO_SHOT_TEXT, placeholders=(DOCUMENT, *QUESTION_AND_CHOICES))
COT = ReplacingTemplate(COT_TEXT, placeholders=(DOCUMENT, *QUESTION_AND_CHOICES))
NO_CONTEXT = ReplacingTemplate(NO_CONTEXT_TEXT, placeholders=QUESTION_AND_CHOICES)
#: the CoT mode's second call (``predict`` sends it with the first call's stripped response)
COT_ANSWER = ReplacingTemplate(COT_ANSWER_TEXT, placeholders=(*QUESTION_AND_CHOICES, COT_RESPONSE))
