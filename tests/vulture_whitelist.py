"""Names the dead-code scan (``vulture``, tests/test_lint.py) cannot see used: each is called or read by
code outside ``longbench_suite`` (Python itself, ``datasets``, jinja2, NLTK, ``tokenizers``, ``zipfile``,
``io``) or by ``perf/``. Everything else unreferenced is dead and is deleted, not listed here."""

# ruff: noqa: B018, F821

__getattr__  # a module's lazy attributes (PEP 562): longbench_suite/__init__.py

# datasets.GeneratorBasedBuilder's hooks and settings: builder.py
_.create_config_id
BUILDER_CONFIG_CLASS
VERSION
DEFAULT_WRITER_BATCH_SIZE
_._info

# jinja2's SandboxedEnvironment: the binary operators it routes to call_binop, the code generator it
# compiles templates with, and its own name for call's first parameter (fit/chat.py)
intercepted_binops
code_generator_class
__self

# NLTK's PunktParameters, set for PunktSentenceTokenizer to read (generate/sentences.py)
_.abbrev_types
_.collocations
_.sent_starters
_.ortho_context

# the io.RawIOBase protocol of a checked archive member's stream (source/archives.py)
_.readable
_.readinto

# set for zipfile and tokenizers to read (samplefiles.py)
_.compress_type
_.pre_tokenizer
_.post_processor

# HELMET's pre-truncation of one text, as perf/truncation.py times it and docs/helmet.md names it
keep_head_with_marker

# the RULER family interface of generate/variable_tracking.py and generate/freq_words.py, which the ruler
# benchmark calls (tests/test_generate_vt_fwe.py and perf/vt_fwe.py call it until that is merged)
ruler_rows
screen_strings
TOKENS_TO_GENERATE
