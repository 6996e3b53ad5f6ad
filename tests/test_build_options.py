"""One typed options object: every build option is a field of ``BuildOptions``, a command-line flag
with the field's help, and ``options=`` of every entry point (a keyword given beside it wins)."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import longbench_suite
from longbench_suite import cli
from longbench_suite.api import get_builder, load_dataset, prepare
from longbench_suite.errors import OptionError
from longbench_suite.metrics import score
from longbench_suite.options import NAMES, BuildOptions, flag, from_arguments, help_text
from longbench_suite.predict import predict
from longbench_suite.predict import record as run_record

#: the commands that build, and so take every build option
BUILDING = ("build", "score", "predict", "export", "push", "check")


def _commands():
    return cli._parser()._subparsers._group_actions[0].choices


@pytest.mark.parametrize("command", BUILDING)
def test_every_field_is_a_flag_with_its_help(command):
    actions = {s: a for a in _commands()[command]._actions for s in a.option_strings}
    for name in NAMES:
        action = actions.get(flag(name))
        assert action is not None, f"{command} lacks {flag(name)}"
        assert action.dest == name
        assert action.help == help_text(name) and action.help


def test_the_flags_parse_into_build_options():
    parser = cli._parser()
    assert from_arguments(parser.parse_args(["check"])) == BuildOptions()
    flags = ["--tokenizer", "words", "--max-input-tokens", "900", "--demo", "--cache-dir", "C"]
    args = parser.parse_args(
        ["build", "nq_8k", *flags, "--generate", "seed=7", "--generate", "haystack=noise"]
    )
    generate = {"seed": 7, "haystack": "noise"}
    expected = BuildOptions(
        tokenizer="words", max_input_tokens=900, demo=True, generate=generate, cache_dir="C"
    )
    assert from_arguments(args) == expected


def test_the_options_are_frozen_and_keyword_only():
    options = BuildOptions(mirror="m")
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.mirror = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        BuildOptions("m")  # type: ignore[misc]
    with pytest.raises(TypeError, match="unexpected build option: mirrror"):
        BuildOptions.of(options, mirrror="x")
    assert BuildOptions.of(options, max_input_tokens=5) == BuildOptions(mirror="m", max_input_tokens=5)


ENTRY_POINTS = {
    "load_dataset": load_dataset,
    "get_builder": get_builder,
    "prepare": prepare,
    "export": longbench_suite.export,
    "push": longbench_suite.push,
    "mixture": longbench_suite.mixture,
    "predict": predict,
    "score": score,
}


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_each_entry_point_takes_options(name):
    parameter = inspect.signature(ENTRY_POINTS[name]).parameters.get("options")
    assert parameter is not None and parameter.kind is inspect.Parameter.KEYWORD_ONLY, name


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> BuildOptions:
    return BuildOptions(demo=True, cache_dir=str(tmp_path_factory.mktemp("options-cache")))


def test_options_and_keywords_make_the_same_builder_and_a_keyword_wins(demo):
    given = BuildOptions.of(demo, max_input_tokens=3000)
    by_object = get_builder("helmet/nq_8k", options=given)
    by_keywords = get_builder("helmet/nq_8k", demo=True, cache_dir=demo.cache_dir, max_input_tokens=3000)
    assert (by_object.config_id, by_object.hash) == (by_keywords.config_id, by_keywords.hash)
    assert by_object.config.options == by_object.options and by_object.config.max_input_tokens == 3000
    overridden = get_builder("helmet/nq_8k", options=given, max_input_tokens=2000)
    assert overridden.config.max_input_tokens == 2000 and overridden.config_id != by_object.config_id


def test_the_cache_identity_comes_from_the_options_that_change_rows(demo, monkeypatch):
    monkeypatch.delenv("LONGBENCH_SUITE_MIRROR", raising=False)
    words = BuildOptions(tokenizer="words", cache_dir=demo.cache_dir)
    plain = get_builder("helmet/nq_8k", options=words)
    assert plain.config_id == "nq_8k"
    # a tokenizer enters the builder's hash (by its loaded identity), not the config id
    chars = get_builder("helmet/nq_8k", options=words, tokenizer="chars")
    assert chars.config_id == plain.config_id and chars.hash != plain.hash
    for changed in (dict(max_input_tokens=3000), dict(demo=True, tokenizer=None)):
        other = get_builder("helmet/nq_8k", options=words, **changed)
        assert other.config_id.startswith("nq_8k-"), changed


def test_the_builder_shows_what_it_loaded_publicly(demo):
    untokenized = get_builder("lveval/factrecall_en_16k", cache_dir=demo.cache_dir)
    assert untokenized.loaded_tokenizer is None  # LV-Eval without a budget or a tokenizer counts nothing
    assert untokenized.cache_root == demo.cache_dir
    builder = get_builder("lveval/factrecall_en_16k", options=demo)  # the sandbox's tokenizer, given
    assert (
        builder.loaded_tokenizer is not None
        and builder.loaded_tokenizer.identity == builder.tokenizer.identity
    )


def test_load_dataset_prepare_and_score_take_options(demo):
    rows = load_dataset("longbench", "qasper_4k", split="eval", options=demo)
    assert rows.to_list() == load_dataset("longbench", "qasper_4k", split="eval", **vars(demo)).to_list()
    [builder] = prepare(["longbench/qasper_4k"], options=demo)
    assert builder.options.demo and builder.config.name == "qasper_4k"
    answers = [row["answers"][0] for row in rows]
    built = score("longbench/qasper_4k", None, answers, options=demo)
    assert built.headline == score("longbench/qasper_4k", rows, answers).headline and built.headline
    with pytest.raises(OptionError, match="options= builds the rows"):
        score("longbench/qasper_4k", rows, answers, options=demo)


def test_the_run_record_serialises_the_options(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m").mkdir()
    options = BuildOptions(mirror="m", max_input_tokens=100, generate={"seed": 7})
    record = run_record.build_record(options)
    assert record == {"mirror": str(tmp_path / "m"), "max_input_tokens": 100, "generate": {"seed": 7}}
    read_back = run_record.score_options({"build": record}, BuildOptions(), "run.json")
    assert read_back == BuildOptions(mirror=str(tmp_path / "m"), max_input_tokens=100, generate={"seed": 7})


class _Constant:
    """A backend that answers every request alike (no model, no server)."""

    name = "constant"
    concurrency = 1

    def generate(self, request):
        from longbench_suite.predict import Reply

        return Reply(text="an answer")


def test_predict_mixture_and_push_take_options(demo, tmp_path):
    out = str(tmp_path / "run")
    run = predict(
        ["longbench/qasper_4k"], out, model="m", backend=_Constant(), options=demo, tokenizer="words"
    )
    build = run.record["build"]
    assert build["demo"] is True and build["cache_dir"] == demo.cache_dir
    assert build["tokenizer"] == "words" and build["tokenizer_identity"] == "words"  # the keyword won
    mixed = longbench_suite.mixture({"longbench/qasper_4k": 1.0}, split="eval", options=demo)
    first = next(iter(mixed))
    assert first["source"] == "longbench/qasper_4k"
    rows = load_dataset("longbench", "qasper_4k", split="eval", options=demo)
    assert first["query_id"] in set(rows["query_id"])
    pushed = longbench_suite.push(
        ["longbench/qasper_4k"],
        "someone/qasper",
        dry_run=True,
        output_dir=str(tmp_path / "out"),
        histogram=False,
        options=BuildOptions.of(demo, max_input_tokens=500),
    )
    assert "qasper_4k/eval-00000-of-00001.parquet" in pushed.files
    exported = load_dataset("parquet", data_files=str(tmp_path / "out" / "qasper_4k" / "eval-*.parquet"))
    assert max(exported["train"]["input_budget"]) == 500


def test_the_readme_options_table_has_a_row_per_field():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| option | meaning |") :].split("\n\n", 1)[0]
    rows = {line.split("|")[1].strip().strip("`") for line in table.splitlines()[2:]}
    assert set(NAMES) <= rows, f"README's options table lacks {set(NAMES) - rows}"
