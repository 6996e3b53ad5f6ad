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

# RULER's per-task formulas over post-processed predictions (the row scorers share match_all/match_part),
# checked against RULER's evaluate.py by tests/test_ruler_metrics.py
string_match_all
string_match_part

# each RULER source's licence, as the ruler card states it (tests/test_ruler_sources.py: every source has one)
LICENCES

# what a samples module declares cannot build under the demo tokenizer (read by tests/test_sandbox.py)
UNBUILDABLE_IN_SANDBOX
