"""``longbench-suite check`` on RULER's ``dev``: held to the ``eval`` the same options build (the essay
file, the prompt mode, the chat template; not ``dev``'s seed, rows or screen), at every listed length
and the config's own, by strings read from the rows' text, not from their ``screened`` column
(``docs/ruler.md`` §4)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import datasets
import pytest

from longbench_suite import api, cli, get_builder, registry
from longbench_suite.benchmarks.ruler.lengths import LENGTHS
from longbench_suite.benchmarks.ruler.tasks import RulerTask
from longbench_suite.check import LeakageKeys, check_split, eval_references, reference_keys
from longbench_suite.check import _reference_builders as reference_builders
from longbench_suite.partition.leakage import EvalReference

ESSAY = Path(__file__).parent / "upstream" / "ruler_niah" / "essay.json.gz"


@pytest.fixture(scope="module")
def essay_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("essay") / "PaulGrahamEssays.json"
    with gzip.open(ESSAY, "rt", encoding="utf-8") as f:
        path.write_text(json.dumps({"text": json.load(f)["text"]}), encoding="utf-8")
    return str(path)


def test_dev_is_checked_against_the_eval_its_own_options_build(essay_file, tiny_tokenizer, tmp_path):
    """The essay file and the prompt mode shape ``eval``; ``dev``'s seed, rows and screen do not; an
    unlisted length is checked at itself too. The screen draws from the same list."""
    options = dict(tokenizer=tiny_tokenizer, cache_dir=str(tmp_path))
    dev_only = {"seed": 3, "rows": 5, "screen": True}
    builder = get_builder("ruler/niah_single_2_6000", generate={"essay": essay_file, **dev_only}, **options)
    built = [(b.config.name, b.config.generate, b.chat_template) for b in reference_builders(builder)]
    lengths = [*LENGTHS, "6000"]
    assert built == [(f"niah_single_2_{n}", {"essay": essay_file}, None) for n in lengths]
    assert all(b.config.splits == ("eval",) for b in reference_builders(builder))  # never their dev's screen

    user = get_builder("ruler/niah_single_2_6000", generate={"prompt": "user", **dev_only}, **options)
    assert [(b.config.name, b.config.generate) for b in reference_builders(user)] == [
        *((f"niah_single_2_{n}", None) for n in lengths),
        ("niah_single_2_6000", {"prompt": "user"}),
    ]
    chat = get_builder("ruler/niah_single_2_4k", chat_template="chatml", **options)
    *_, own = reference_builders(chat)
    assert own.config.name == "niah_single_2_4k" and own.chat_template.identity == chat.chat_template.identity
    assert str(eval_references(chat)[-1]) == "4k (the build's chat template)"

    # the screen reads the same list: a RULER task's leakage references are its screen's
    task = registry.benchmark("ruler").task("niah_single_2")
    assert eval_references(user) == task.leakage_references(task, "6000", {"prompt": "user"}, False)


def _only_own_length(self, reference, length, generate, chat):
    return (EvalReference(length),)


def test_a_dev_row_asking_an_eval_key_is_found_in_its_input_not_its_screened_column(
    tiny_tokenizer, tmp_path, monkeypatch
):
    """A leak the screen let through and the row's ``screened`` column does not show (as if that column
    were out of step with the text) is reported: one line naming the config, split, row and fields."""
    # eval at the config's own length only, to keep the test fast (which lengths is the test above's)
    monkeypatch.setattr(RulerTask, "leakage_references", _only_own_length)
    config, given = "ruler/niah_single_1_2k", {"tokenizer": tiny_tokenizer, "cache_dir": str(tmp_path)}
    builder = get_builder(config, generate={"seed": 1, "rows": 3, "screen": False}, **given)
    dev, reference, task = api.prepared(builder, "dev"), reference_keys(builder), builder.config.task

    def leakage(split):
        return check_split(config, "dev", split, task, None, None, LeakageKeys(), reference=reference)

    result, found = leakage(dev)
    assert (result.leaked, found) == (0, [])

    asked = api.prepared(get_builder(config, **given), "eval")[7]
    rows = dev.to_list()
    rows[1]["input"] = asked["input"]  # asks eval row 7's key; its screened column stays dev's own
    assert not set(rows[1]["screened"]) & reference.found.keys()
    result, found = leakage(datasets.Dataset.from_list(rows, features=dev.features))
    assert result.leaked == 1
    [violation] = found
    line = str(violation)
    assert "\n" not in line
    assert line.startswith(
        "[leakage] ruler/niah_single_1_2k dev: 1 of 3 rows share a key, value or needle with the eval rows "
        "of ruler/niah_single_1 (2k): row 1 ("
    )
    assert "in ruler/niah_single_1_2k eval)" in line
    assert line.endswith("keys read from the rows' input, answers")


@pytest.mark.slow
def test_cli_check_of_an_unlisted_length_built_with_an_essay_file(essay_file, tmp_path, capsys):
    """End to end: a 3000-token config whose dev reads the user's essay is checked against eval at the
    six listed lengths and 3000, each built with that essay."""
    argv = ["check", "ruler/niah_single_2_3000", "--demo", "--cache-dir", str(tmp_path)]
    code = cli.main([*argv, "--generate", f"essay={essay_file}", "--generate", "rows=20"])
    report = capsys.readouterr().out
    assert code == 0, report
    lengths = ", ".join(f"{n} (essay={essay_file})" for n in [*LENGTHS, "3000"])
    assert f"of the eval rows of ruler/niah_single_2 ({lengths})" in report
    assert "check: OK — 1 configs, 2 splits, no violations" in report
