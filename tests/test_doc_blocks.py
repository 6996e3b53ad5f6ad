"""Every ```python and ```bash block of README.md and docs/*.md runs as written, against the offline
sandbox (the blocks say ``demo=True`` / ``--demo`` themselves).

A block may be preceded by one HTML comment, ``<!-- doc-test: MARK; MARK ... -->``, whose marks say what
the runner provides; the block's text is run unchanged:

- ``skip (reason)`` — not run; the reason says why and where it is tested instead (few blocks);
- ``xfail (reason)`` — run, and expected to fail for the reason given (an open issue);
- ``fake-hub`` — Hub calls go to the in-process stand-in for ``HfApi`` of ``tests/support/fake_hub.py``;
- ``fake-openai`` — the loopback OpenAI-compatible server of ``tests/support/fake_openai.py`` answers,
  at the URL the block names (``http://127.0.0.1:8000/v1`` is replaced by the server's own);
- ``predictions CONFIG=FILE ...`` — FILE holds predictions of CONFIG's ``eval`` split (its gold outputs);
- ``given NAME ...`` — placeholder callables the block names (a model's NLI judge, an LLM);
- ``model-folder PATH`` — PATH is a model folder: the sandbox's tokenizer with a Llama-2-chat template;
- ``runs DIR ...`` — each DIR is a ``predict --score`` output of a model named DIR (the fake server on a
  sample config), what ``compare`` reads.

In shell blocks each ``longbench-suite`` command runs in this process (``cli.main``) and must exit 0;
installation lines (``pip install ...``) are not re-run. Blocks without a language or in ``text`` are
layouts and outputs, not code; ``json`` blocks are data examples and must parse. A Python block's
streams (``IterableDataset``) are read, up to ``MAX_STREAM_ROWS`` rows each, since a stream builds
nothing until then. Running the blocks is the slow
lane; the fast lane checks the marks.
"""

from __future__ import annotations

import itertools
import json
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CODE = ("python", "bash")
LAYOUT = ("", "text")
#: data examples: each must parse
DATA = ("json",)
MARKS = ("skip", "xfail", "fake-hub", "fake-openai", "predictions", "given", "model-folder", "runs")
#: the server a block names, which the fake-openai mark replaces with the loopback one
DOCUMENTED_ENDPOINT = "http://127.0.0.1:8000/v1"
#: what ``given`` binds: stand-ins for the user's own model calls
GIVEN = {
    "my_nli": lambda premise, hypothesis: True,
    "my_llm": lambda prompt, max_tokens: None,
}
MAX_SKIPS = 8
#: rows read of each stream a Python block leaves (the sandbox's streams are shorter)
MAX_STREAM_ROWS = 1000


@dataclass
class Block:
    path: Path
    line: int
    language: str
    code: str
    marks: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _marks(comment: str) -> dict[str, str]:
    marks = {}
    for part in re.split(r";(?![^()]*\))", comment):  # not at a ";" inside a reason's parentheses
        word, _, rest = part.strip().partition(" ")
        marks[word] = rest.strip()
    return marks


def doc_blocks() -> list[Block]:
    found = []
    for path in DOCS:
        lines = path.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            opening = re.fullmatch(r"```(\S*)\s*", lines[i])
            if not opening:
                i += 1
                continue
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            before = lines[i - 1].strip() if i else ""
            comment = re.fullmatch(r"<!-- doc-test: (.*) -->", before)
            block = Block(path, i + 1, opening.group(1), "\n".join(lines[i + 1 : end]) + "\n")
            if comment:
                block.marks = _marks(comment.group(1))
            found.append(block)
            i = end + 1
    return found


BLOCKS = doc_blocks()
RUNNABLE = [b for b in BLOCKS if b.language in CODE and "skip" not in b.marks]


def test_every_block_is_code_or_layout_and_every_mark_is_known():
    assert len(RUNNABLE) >= 10
    for block in BLOCKS:
        assert block.language in CODE + LAYOUT + DATA, f"{block.name}: a ```{block.language} block"
        if block.language == "json":
            json.loads(block.code)
        assert set(block.marks) <= set(MARKS), f"{block.name}: unknown marks {block.marks}"
        if block.marks:
            assert block.language in CODE, f"{block.name}: marks on a layout block"


def test_skips_are_few_and_say_why():
    skips = [b for b in BLOCKS if "skip" in b.marks]
    assert len(skips) <= MAX_SKIPS, [b.name for b in skips]
    for block in [*skips, *(b for b in BLOCKS if "xfail" in b.marks)]:
        reason = block.marks.get("skip", block.marks.get("xfail"))
        assert re.fullmatch(r"\(.{10,}\)", reason), f"{block.name}: say why, in parentheses"


def test_no_doc_hard_codes_a_cache_path():
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        assert ".cache/huggingface" not in text, path.name


def _write_predictions(marks: str, folder: Path) -> None:
    from longbench_suite import load_dataset

    for pair in marks.split():
        config, _, filename = pair.partition("=")
        rows = load_dataset("longbench_suite", config, split="eval", demo=True)
        lines = [json.dumps({"index": i, "prediction": row["output"]}) for i, row in enumerate(rows)]
        (folder / filename).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _model_folder(path: Path) -> None:
    from longbench_suite.demo import offline_options
    from longbench_suite.fit import chat

    path.mkdir(parents=True)
    shutil.copy(offline_options()["tokenizer"], path / "tokenizer.json")
    template = (Path(chat.__file__).parent / "chat_templates" / "llama-2-chat.jinja").read_text()
    config = {"chat_template": template, "bos_token": "<s>", "eos_token": "</s>"}
    (path / "tokenizer_config.json").write_text(json.dumps(config | {"clean_up_tokenization_spaces": False}))


def _commands(code: str) -> list[list[str]]:
    """The block's commands, one per logical line (``\\`` continues a line), comments left out."""
    joined = re.sub(r"\\\n", " ", code)
    return [words for line in joined.splitlines() if (words := shlex.split(line, comments=True))]


def _run_shell(block: Block, endpoint: str | None) -> None:
    from longbench_suite import cli

    for words in _commands(block.code):
        if words[:2] == ["pip", "install"]:
            continue  # installation: the tests run in an environment that has it
        assert words[0] == "longbench-suite", f"{block.name}: {words[0]!r} is no command this runner knows"
        if endpoint is not None:
            words = [endpoint if word == DOCUMENTED_ENDPOINT else word for word in words]
        try:
            code = cli.main(words[1:])
        except SystemExit as exc:
            code = exc.code
        assert code == 0, f"{block.name}: {shlex.join(words)} exited {code}"


def _scored_runs(folders: list[str]) -> None:
    from longbench_suite import cli
    from tests.support.fake_openai import FakeOpenAI

    for folder in folders:
        with FakeOpenAI(lambda prompt: "an answer") as server:
            argv = ["predict", "longbench/qasper_4k", "--endpoint", server.url, "--model", folder]
            assert cli.main([*argv, "--output", folder, "--demo", "--score", "--no-plot"]) == 0


def _run_python(block: Block) -> None:
    import datasets

    names = {name: GIVEN[name] for name in block.marks.get("given", "").split()}
    exec(compile(block.code, block.name, "exec"), names)
    for value in list(names.values()):  # a stream builds nothing until it is read
        streams = value.values() if isinstance(value, datasets.IterableDatasetDict) else [value]
        for stream in streams:
            if isinstance(stream, datasets.IterableDataset):
                assert sum(1 for _ in itertools.islice(stream, MAX_STREAM_ROWS)) > 0, block.name


@pytest.mark.slow
@pytest.mark.parametrize("block", RUNNABLE, ids=[b.name for b in RUNNABLE])
def test_the_block_runs_as_written(block, tmp_path, monkeypatch, request):
    from longbench_suite.publish import hub
    from tests.support.fake_hub import FakeHub
    from tests.support.fake_openai import FakeOpenAI

    if "xfail" in block.marks:
        request.applymarker(pytest.mark.xfail(reason=block.marks["xfail"], strict=True))
    monkeypatch.chdir(tmp_path)
    if "fake-hub" in block.marks:
        monkeypatch.setattr(hub, "HfApi", FakeHub(str(tmp_path / "hub")).api_class())
    if "predictions" in block.marks:
        _write_predictions(block.marks["predictions"], tmp_path)
    if "model-folder" in block.marks:
        _model_folder(tmp_path / block.marks["model-folder"])
    if "runs" in block.marks:
        _scored_runs(block.marks["runs"].split())
    if block.language == "python":
        _run_python(block)
    elif "fake-openai" in block.marks:
        with FakeOpenAI(lambda prompt: "an answer") as server:
            _run_shell(block, server.url)
    else:
        _run_shell(block, None)
