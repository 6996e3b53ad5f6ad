import pytest
from hypothesis import given
from hypothesis import strategies as st

from longbench_suite.templates import PromptTemplate, template_fields

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
    assert RAG.render_chat(fields) == [{"role": "user", "content": RAG.render_user(fields)}]
    assert not RAG.render_chat(fields)[0]["content"].endswith("Answer:")
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
