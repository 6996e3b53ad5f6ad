import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from longbench_suite.render import PromptTemplate, template_fields

RAG = PromptTemplate(
    user=(
        "Use the given documents to write a concise and short answer to the question. Write your answer "
        "in the following format:\nAnswer: [answer]\n\n{demos}{context}\n\nQuestion: {question}"
    ),
    answer_prefix="Answer:",
    separator="\n",
)
ICL_USER = (
    "Use the provided mapping from the text to label to assign a label to the text. "
    'Only output "label: {{label}}" and nothing else. \n\n{context}\n\n{question}'
)


def test_completion_is_upstream_format_of_the_joined_template():
    fields = {"demos": "D\n\n", "context": "C", "question": "Q?"}
    upstream_prompt_template = RAG.user + "\n" + RAG.answer_prefix
    assert RAG.render_completion(fields) == upstream_prompt_template.format(**fields)
    assert RAG.render_completion(fields).endswith("\n\nQuestion: Q?\nAnswer:")


def test_chat_mode_is_the_user_turn_only():
    fields = {"demos": "", "context": "C", "question": "Q?"}
    assert not RAG.render_user(fields).endswith("Answer:")
    assert RAG.render_suffix(fields) == "\nAnswer:"


def test_doubled_braces_become_literal_braces_and_trailing_space_is_kept():
    t = PromptTemplate(ICL_USER, "label:", "\n")
    out = t.render_completion({"context": "x\nlabel: 3", "question": "y"})
    assert 'Only output "label: {label}" and nothing else. \n\nx\nlabel: 3\n\ny\nlabel:' in out


def test_placeholders_in_values_are_not_interpreted():
    out = RAG.render_completion({"demos": "", "context": "{question} {0} }{", "question": "{context}"})
    assert "{question} {0} }{\n\nQuestion: {context}\nAnswer:" in out


def test_missing_field_names_the_field():
    with pytest.raises(KeyError, match="'question'"):
        RAG.render_completion({"demos": "", "context": ""})


def test_field_names_and_bad_templates():
    assert template_fields("{a} {b[0]} {{c}}") == {"a", "b"}
    assert RAG.fields == {"demos", "context", "question"}
    with pytest.raises(ValueError):
        PromptTemplate("{}")
    with pytest.raises(ValueError):
        PromptTemplate("unbalanced {")
    with pytest.raises(ValueError):
        PromptTemplate("x", separator="\n")


@given(st.text(), st.text(), st.text())
def test_rendering_equals_str_format_for_any_values(demos, context, question):
    fields = {"demos": demos, "context": context, "question": question}
    assert RAG.render_completion(fields) == (RAG.user + "\n" + RAG.answer_prefix).format(**fields)


# Adversarial values: placeholders and braces inside documents, format-spec look-alikes, CJK, astral
# characters (surrogate pairs in UTF-16), combining marks, control characters, very long lines, "".
PIECES = [
    *(
        "{context}",
        "{question}",
        "{demos}",
        "{",
        "}",
        "{{",
        "}}",
        "{0}",
        "{}",
        "{context!r}",
        "{question:>9}",
    ),
    *(
        "%s",
        "%(context)s",
        "$context",
        "\\n",
        "中文",
        "請基於",
        "文章：",
        "😀",
        "🇫🇷",
        "\U0001d400",
        "\U0002f800",
    ),
    *("e\u0301", "\u200b", "\u202e", "\x00", "\n", "\r\n", "\t", " ", ""),
]
ADVERSARIAL = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=60).map("".join),
    st.text(),
    st.builds(
        lambda piece, n: piece * n,
        st.sampled_from(["x", "{context}", "中", "😀", " ", "}{"]),
        st.integers(0, 30000),
    ),
)
RAG_HEAD = (
    "Use the given documents to write a concise and short answer to the question. Write your answer "
    "in the following format:\nAnswer: [answer]\n\n"
)


@settings(max_examples=200, deadline=None)
@given(demos=ADVERSARIAL, context=ADVERSARIAL, question=ADVERSARIAL)
def test_adversarial_values_are_inserted_verbatim(demos, context, question):
    fields = {"demos": demos, "context": context, "question": question}
    prompt = RAG.render_completion(fields)
    # The template's own text, with the values put in by hand: nothing in a value is interpreted.
    assert prompt == RAG_HEAD + demos + context + "\n\nQuestion: " + question + "\nAnswer:"
    assert RAG.render_user(fields) == prompt[: -len("\nAnswer:")]
    icl = PromptTemplate(ICL_USER, "label:", "\n").render_completion(
        {"context": context, "question": question}
    )
    assert icl.startswith(
        "Use the provided mapping from the text to label to assign a label to the text. "
        'Only output "label: {label}"'
    )
    assert icl.endswith(f"\n\n{context}\n\n{question}\nlabel:")


def test_lone_surrogates_render_and_are_refused_when_counted():
    # Rendering is plain text work; the tokenizer is where invalid Unicode must fail clearly.
    from longbench_suite.errors import InvalidTextError
    from longbench_suite.fit.tokenizers import load_tokenizer

    prompt = RAG.render_completion({"demos": "", "context": "doc \ud800", "question": "q"})
    assert "doc \ud800\n\nQuestion: q" in prompt
    with pytest.raises(InvalidTextError, match=r"lone surrogate '\\ud800'"):
        load_tokenizer("words").count(prompt)
