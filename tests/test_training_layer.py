"""The training layer: no example silently lost, a stable hold-out, mixtures, over-length rows, rewards.

The README's TRL snippet is run as written (only the model, the sources and the step count are the
test's), on an 8k config whose every row is longer than TRL's default ``max_length``.
"""

from __future__ import annotations

import logging
import math
import re
from pathlib import Path

import datasets
import pytest
import torch
from datasets.distributed import split_dataset_by_node
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
from trl import GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer

from longbench_suite import load_dataset, mixture, registry, reward_function, sft_lengths
from longbench_suite.errors import (
    CompletionTypeError,
    DataFormatError,
    OptionError,
    SuiteError,
    UnknownNameError,
)
from longbench_suite.metrics import score_task
from longbench_suite.training import TrainingLengthError, longest_example, source_counts
from longbench_suite.training.holdout import in_valid
from tests.conftest import HELMET_LENGTHS

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.fixture(scope="module")
def tokenizer(tiny_tokenizer):
    tok = PreTrainedTokenizerFast(
        tokenizer_file=tiny_tokenizer, bos_token="<s>", eos_token="</s>", unk_token="<unk>", pad_token="</s>"
    )
    # for chat-mode tasks: the user turn, then the assistant's text closed by </s>
    tok.chat_template = (
        "{% for m in messages %}{% if m['role'] == 'user' %}[USER]\n{{ m['content'] }}\n[ASSISTANT]\n"
        "{% else %}{{ m['content'] }}</s>{% endif %}{% endfor %}"
        "{% if add_generation_prompt %}[ASSISTANT]\n{% endif %}"
    )
    return tok


def tiny_model(tokenizer, positions: int = 9216):
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=positions,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return LlamaForCausalLM(config)


@pytest.fixture(scope="module")
def demo(demo_mirror, tiny_tokenizer, tmp_path_factory) -> dict:
    return dict(mirror=demo_mirror, tokenizer=tiny_tokenizer, cache_dir=str(tmp_path_factory.mktemp("train")))


def _trainer_args(tmp_path, **overrides) -> dict:
    return dict(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=1,
        report_to=[],
        save_strategy="no",
        use_cpu=True,
        disable_tqdm=True,
        **overrides,
    )


def _examples_reaching_the_model(trainer) -> int:
    """How many examples one pass of the trainer's data loader yields (TRL has dropped the others)."""
    if isinstance(trainer.train_dataset, datasets.Dataset) and len(trainer.train_dataset) == 0:
        return 0  # TRL dropped every example: there is nothing to load
    return sum(len(batch["input_ids"]) for batch in trainer.get_train_dataloader())


# -- no silent loss -----------------------------------------------------------------------------------


def _readme_training_snippet() -> str:
    section = README.read_text(encoding="utf-8").split("## Training with TRL", 1)[1]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    return next(b for b in blocks if "SFTTrainer(" in b)


@pytest.mark.slow
def test_the_readme_snippet_trains_on_every_row_of_an_8k_config(demo, tokenizer, tmp_path):
    snippet = _readme_training_snippet()
    assert "sft_lengths" in snippet and 'model="ORG/MODEL"' in snippet
    config = "trec_coarse_8k"  # every prompt is 8172 tokens: far beyond TRL's default max_length
    rows = load_dataset("helmet", config, split="dev", **demo)
    reached = {}

    def readme_load_dataset(bench, name, **kwargs):
        kwargs.pop("demo", None)  # the README's demo=True: the test's own sample sources stand in
        return load_dataset(bench, config, **kwargs, **demo)

    def readme_config(**kwargs):
        return SFTConfig(**_trainer_args(tmp_path, **{**kwargs, "max_steps": 2}))

    class ReadmeTrainer(SFTTrainer):
        def __init__(self, model, **kwargs):
            super().__init__(model=tiny_model(tokenizer), processing_class=tokenizer, **kwargs)

        def train(self, *args, **kwargs):
            reached["rows"] = _examples_reaching_the_model(self)
            result = super().train(*args, **kwargs)
            reached["steps"] = result.global_step
            reached["losses"] = [e["loss"] for e in self.state.log_history if "loss" in e]
            return result

    namespace = {"__name__": "readme"}
    code = snippet.replace("from trl import SFTConfig, SFTTrainer\n", "")
    code = code.replace("from longbench_suite import load_dataset, sft_lengths\n", "")
    # the README's own code, with the test's model and sources
    exec(
        code,
        {
            **namespace,
            "load_dataset": readme_load_dataset,
            "sft_lengths": sft_lengths,
            "SFTConfig": readme_config,
            "SFTTrainer": ReadmeTrainer,
        },
    )
    assert reached["rows"] == len(rows) == 149  # every row reaches the model
    assert reached["steps"] == 2 and all(math.isfinite(x) for x in reached["losses"])

    # What the README used to say — SFTConfig(max_steps=...) with TRL's defaults — trains on nothing.
    stream = readme_load_dataset("helmet", config, split="dev", streaming=True, format="prompt_completion")
    defaults = SFTTrainer(
        model=tiny_model(tokenizer),
        processing_class=tokenizer,
        args=SFTConfig(**_trainer_args(tmp_path, max_steps=1)),
        train_dataset=stream,
    )
    assert defaults.args.max_length == 1024
    assert _examples_reaching_the_model(defaults) == 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("bench", "config"), [("helmet", "trec_coarse_8k"), ("longbench", "qasper_4k"), ("adaleval", "tsort_64k")]
)
def test_rows_reaching_the_trainer_with_defaults_and_with_sft_lengths(
    bench, config, demo, tokenizer, tmp_path
):
    rows = load_dataset(bench, config, split="eval", **demo)
    examples = load_dataset(bench, config, split="eval", format="prompt_completion", **demo)

    def reaching(**length):
        trainer = SFTTrainer(
            model=tiny_model(tokenizer),
            processing_class=tokenizer,
            args=SFTConfig(**_trainer_args(tmp_path, max_steps=1, **length)),
            train_dataset=examples,
        )
        return _examples_reaching_the_model(trainer)

    before, after = reaching(), reaching(**sft_lengths(rows))
    exact = sft_lengths(rows, tokenizer=tokenizer)  # the trainer's own chat template, counted
    assert reaching(**exact) == len(rows) and exact["max_length"] <= sft_lengths(rows)["max_length"]
    print(
        f"{bench}/{config} eval: {before} of {len(rows)} rows reach TRL with its defaults, "
        f"{after} with sft_lengths"
    )
    assert after == len(rows)
    assert before < len(rows) and longest_example(rows) > 1024


def test_sft_lengths_reads_the_rows_counts_and_refuses_a_length_that_cuts(demo):
    rows = load_dataset("helmet", "nq_8k", split="eval", **demo)
    longest = max(i + o for i, o in zip(rows["input_tokens"], rows["output_tokens"], strict=True)) + 2
    assert sft_lengths(rows) == {"max_length": longest}
    assert sft_lengths(rows, max_length=longest) == {"max_length": longest}
    over = sum(i + o + 2 > 1024 for i, o in zip(rows["input_tokens"], rows["output_tokens"], strict=True))
    with pytest.raises(TrainingLengthError, match=rf"max_length=1024 cuts {over} of 600 examples"):
        sft_lengths(rows, max_length=1024)
    stream = load_dataset("helmet", "nq_8k", split="eval", streaming=True, **demo)
    assert sft_lengths(stream) == {"max_length": None}  # a stream is never cut
    examples = load_dataset("helmet", "nq_8k", split="eval", format="prompt_completion", **demo)
    assert sft_lengths(examples) == {"max_length": None}  # no counts to read: never cut either


def test_sft_lengths_refuses_a_length_it_cannot_check_on_formatted_rows(demo, tokenizer):
    """Rows in a training format carry no counts: a given max_length is refused without a tokenizer,
    and with one it is counted on the examples themselves, as the unformatted rows are."""
    rows = load_dataset("helmet", "nq_8k", split="eval", **demo)
    examples = load_dataset("helmet", "nq_8k", split="eval", format="prompt_completion", **demo)
    with pytest.raises(TrainingLengthError, match=r"max_length=64 cuts 600 of 600 examples"):
        sft_lengths(rows, max_length=64)
    with pytest.raises(TrainingLengthError, match=r"max_length=64 cannot be checked: .*prompt, completion"):
        sft_lengths(examples, max_length=64)
    with pytest.raises(TrainingLengthError, match=r"max_length=64 cuts 600 of 600 examples .*tokenizer"):
        sft_lengths(examples, max_length=64, tokenizer=tokenizer)
    enough = sft_lengths(rows)["max_length"]
    assert sft_lengths(examples, max_length=enough, tokenizer=tokenizer) == {"max_length": enough}
    texts = load_dataset("helmet", "nq_8k", split="eval", format="messages", **demo)  # completion mode: text
    with pytest.raises(TrainingLengthError, match=r"max_length=64 cannot be checked: .*\(text\)"):
        sft_lengths(texts, max_length=64)
    assert sft_lengths(texts, max_length=enough, tokenizer=tokenizer) == {"max_length": enough}
    for stream in (  # a stream is not read ahead: a length given for it is not taken unchecked
        load_dataset("helmet", "nq_8k", split="eval", streaming=True, **demo),
        load_dataset("helmet", "nq_8k", split="eval", streaming=True, format="prompt_completion", **demo),
    ):
        with pytest.raises(TrainingLengthError, match=r"max_length=64 cannot be checked on a stream"):
            sft_lengths(stream, max_length=64, tokenizer=tokenizer)
    uncounted = rows.remove_columns(["input_tokens"])
    with pytest.raises(TrainingLengthError, match=r"max_length=64 cannot be checked: the rows carry no"):
        sft_lengths(uncounted, max_length=64)


@pytest.mark.slow
@pytest.mark.parametrize("streaming", [False, True])
def test_packing_works_on_prepared_and_streamed_examples(streaming, demo, tokenizer, tmp_path):
    examples = load_dataset(
        "helmet", "nq_8k", split="dev", streaming=streaming, format="prompt_completion", **demo
    )
    trainer = SFTTrainer(
        model=tiny_model(tokenizer, positions=2048),
        processing_class=tokenizer,
        args=SFTConfig(**_trainer_args(tmp_path, max_steps=2, packing=True, max_length=2048)),
        train_dataset=examples,
    )
    batch = next(iter(trainer.get_train_dataloader()))
    # one row of the batch holds several whole examples (their boundaries: cu_seq_lens)
    assert batch["input_ids"].shape[-1] <= 2048 and len(batch["cu_seq_lens_q"]) > 2
    assert trainer.train().global_step == 2


# -- the hold-out ----------------------------------------------------------------------------------------


def test_holdout_is_the_same_at_every_length_and_never_overlaps(helmet_opts):
    valid, train = {}, {}
    for length in HELMET_LENGTHS:
        config = f"nq_{length}"
        dev = set(load_dataset("helmet", config, split="dev", **helmet_opts)["query_id"])
        valid[length] = set(
            load_dataset("helmet", config, split="dev", holdout="valid", **helmet_opts)["query_id"]
        )
        train[length] = set(
            load_dataset("helmet", config, split="dev", holdout="train", **helmet_opts)["query_id"]
        )
        assert valid[length] | train[length] == dev and not valid[length] & train[length]
    print({length: (len(train[length]), len(valid[length])) for length in HELMET_LENGTHS})
    assert all(valid[length] == valid["8k"] for length in HELMET_LENGTHS)
    trained_anywhere = set().union(*train.values())
    assert not trained_anywhere & set().union(*valid.values())  # overlap = 0 across all lengths
    assert 0.02 < len(valid["8k"]) / (len(valid["8k"]) + len(train["8k"])) < 0.09
    # the rule is the hash of the query id alone: independent of row order, length and tokenizer
    assert all(in_valid(q, 0.05) for q in valid["8k"]) and not any(in_valid(q, 0.05) for q in train["8k"])


def test_holdout_streams_like_it_is_prepared_and_refuses_other_splits(demo):
    prepared = load_dataset("helmet", "popqa_16k", split="dev", holdout="valid", holdout_fraction=0.3, **demo)
    streamed = load_dataset(
        "helmet", "popqa_16k", split="dev", holdout="valid", holdout_fraction=0.3, streaming=True, **demo
    )
    assert [r["query_id"] for r in streamed] == prepared["query_id"] and len(prepared) > 0
    with pytest.raises(UnknownNameError, match="holdout='valid' splits the dev split: pass split='dev'"):
        load_dataset("helmet", "popqa_16k", split="eval", holdout="valid", **demo)
    with pytest.raises(OptionError, match=r"holdout_fraction \(--holdout-fraction\) must be a number"):
        load_dataset("helmet", "popqa_16k", split="dev", holdout="valid", holdout_fraction=1.5, **demo)


def test_tsort_holds_out_whole_books(tmp_path, tiny_tokenizer):
    from longbench_suite.benchmarks.adaleval import samples

    mirror = str(tmp_path / "m")
    samples.write_samples(mirror, samples.FULL)
    options = dict(mirror=mirror, tokenizer=tiny_tokenizer, cache_dir=str(tmp_path / "c"))
    valid = load_dataset(
        "adaleval", "tsort_64k", split="dev", holdout="valid", holdout_fraction=0.4, **options
    )
    train = load_dataset(
        "adaleval", "tsort_64k", split="dev", holdout="train", holdout_fraction=0.4, **options
    )
    assert len(valid) and len(train) and not set(valid["book_id"]) & set(train["book_id"])


@pytest.mark.slow
def test_export_writes_the_holdout_as_train_and_validation_splits(demo, tmp_path):
    from longbench_suite import export

    export(["helmet/nq_8k"], str(tmp_path / "repo"), holdout_fraction=0.3, histogram=False, **demo)
    read = datasets.load_dataset(str(tmp_path / "repo"), "nq_8k")
    assert set(read) == {"dev", "eval", "train", "validation"}
    assert set(read["validation"]["query_id"]) == set(
        load_dataset("helmet", "nq_8k", split="dev", holdout="valid", holdout_fraction=0.3, **demo)[
            "query_id"
        ]
    )
    assert len(read["train"]) + len(read["validation"]) == len(read["dev"])


# -- over-length rows --------------------------------------------------------------------------------


def test_over_length_rows_are_marked_and_can_be_skipped(demo, caplog):
    rows = load_dataset("helmet", "nq_8k", split="eval", **demo)
    cut = sum(rows["input_truncated"])
    assert 0 < cut < len(rows)
    assert all(t == 8172 for t, c in zip(rows["input_tokens"], rows["input_truncated"], strict=True) if c)
    with caplog.at_level(logging.WARNING, logger="longbench_suite"):
        kept = load_dataset("helmet", "nq_8k", split="eval", over_length="skip", **demo)
    assert len(kept) == len(rows) - cut and not any(kept["input_truncated"])
    assert f"helmet/nq_8k eval: skipped {cut} of {len(rows)} rows" in caplog.text
    streamed = load_dataset("helmet", "nq_8k", split="eval", over_length="skip", streaming=True, **demo)
    assert [r["query_id"] for r in streamed] == kept["query_id"]


def test_build_stats_and_check_show_the_cut_to_fit_count(demo, capsys):
    from longbench_suite import cli

    options = ["--mirror", demo["mirror"], "--tokenizer", demo["tokenizer"], "--cache-dir", demo["cache_dir"]]
    assert cli.main(["build", "helmet/nq_8k", "--stats", *options]) == 0
    out = capsys.readouterr().out
    rows = load_dataset("helmet", "nq_8k", split="eval", **demo)
    eval_line = next(line for line in out.splitlines() if " eval " in line)
    assert "cut to fit" in out and "over length" not in out
    assert eval_line.split()[-1] == str(sum(rows["input_truncated"])) != "0"
    assert cli.main(["check", "helmet/nq_8k", *options]) in (0, 1)
    out = capsys.readouterr().out
    assert "cut to fit" in out and "over length" not in out


# -- mixtures --------------------------------------------------------------------------------------------


def _ids(rows) -> list[tuple[str, str]]:
    return [(r["source"], r["query_id"]) for r in rows]


def test_mixture_is_deterministic_resumable_and_counts_its_sources(demo):
    weights = {"helmet/nq_8k": 2, "helmet/json_kv_*": 1}
    first = _ids(mixture(weights, seed=3, **demo).take(60))
    assert first == _ids(mixture(weights, seed=3, **demo).take(60))
    assert first != _ids(mixture(weights, seed=4, **demo).take(60))
    counts = source_counts({"source": s} for s, _ in first)
    assert set(counts) <= {"helmet/nq_8k", *(f"helmet/json_kv_{n}" for n in HELMET_LENGTHS)}
    assert counts["helmet/nq_8k"] > max(v for k, v in counts.items() if k != "helmet/nq_8k")

    stream = mixture(weights, seed=3, **demo)
    iterator = iter(stream)
    head = [next(iterator) for _ in range(25)]
    state = stream.state_dict()
    resumed = mixture(weights, seed=3, **demo)
    resumed.load_state_dict(state)
    rest = iter(resumed)
    assert _ids(head) + _ids(next(rest) for _ in range(35)) == first


def test_mixture_divides_among_nodes_and_formats_examples(demo):
    weights = {"helmet/nq_8k": 1, "helmet/ruler_mv_8k": 1}
    every_row = {
        (f"helmet/{config}", q)
        for config in ("nq_8k", "ruler_mv_8k")
        for q in load_dataset("helmet", config, split="dev", **demo)["query_id"]
    }
    nodes = [set(_ids(split_dataset_by_node(mixture(weights, seed=0, **demo), r, 2))) for r in range(2)]
    # each node draws from its own shards of every source: the nodes share no row, and between them
    # they see every row of every source (all_exhausted)
    assert nodes[0] and nodes[1] and nodes[0].isdisjoint(nodes[1])
    assert nodes[0] | nodes[1] == every_row
    examples = mixture(weights, seed=0, format="prompt_completion", **demo)
    first = next(iter(examples))
    assert set(first) == {"prompt", "completion", "source"}


def test_mixture_patterns_and_errors(demo):
    across = mixture({"helmet/nq_8k": 1, "longbench/qasper_4k": 1}, seed=0, **demo)
    row = next(iter(across))
    assert set(row) == set(registry.benchmark("helmet").features) & set(
        registry.benchmark("longbench").features
    ) | {"source"}
    with pytest.raises(UnknownNameError, match="'helmet/nope_\\*' matches no config"):
        mixture({"helmet/nope_*": 1}, **demo)
    with pytest.raises(ValueError, match="must be a non-negative number"):
        mixture({"helmet/nq_8k": -1}, **demo)


def _readme_mixture_snippet() -> str:
    section = README.read_text(encoding="utf-8").split("**Mixtures across tasks and lengths.**", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def test_the_readme_mixture_runs_as_written(demo, caplog):
    """HELMET's completion-mode nq with LongBench's chat-mode tasks: the mixture takes chat mode."""
    snippet = _readme_mixture_snippet()
    assert 'format="prompt_completion"' in snippet and "chat=" not in snippet
    scope = {}
    with caplog.at_level(logging.INFO, logger="longbench_suite"):
        code = snippet.replace("from longbench_suite import mixture", "")
        exec(code, {"mixture": _demo_mixture(demo)}, scope)
    assert "every example is in chat mode" in caplog.text
    rows = list(scope["train"])
    sources = source_counts(rows)
    assert {s.split("/")[0] for s in sources} == {"helmet", "longbench"}
    assert any(s.startswith("helmet/nq_") for s in sources)
    for row in rows:
        assert [turn["role"] for turn in row["prompt"]] == ["user"]
        assert [turn["role"] for turn in row["completion"]] == ["assistant"]


def _demo_mixture(demo):
    def readme_mixture(weights, demo=False, **kwargs):  # the README's demo=True: the test's sources stand in
        return mixture(weights, **kwargs, **sources)

    sources = demo
    return readme_mixture


def test_a_mixture_decides_its_mode_when_it_is_made(demo):
    across = {"helmet/nq_8k": 1, "longbench/qasper_4k": 1}  # completion mode, chat mode
    turns = datasets.List({"role": datasets.Value("string"), "content": datasets.Value("large_string")})
    assert mixture(across, format="prompt_completion", **demo).features["prompt"] == turns
    forced = mixture(across, format="prompt_completion", chat=False, **demo)
    assert forced.features["prompt"] == datasets.Value("large_string")
    assert {type(row["prompt"]) for row in forced.take(6)} == {str}
    agreeing = mixture({"helmet/nq_8k": 1, "helmet/json_kv_8k": 1}, format="messages", **demo)
    assert set(agreeing.features) == {"text", "source"}  # both completion mode: no chat turns
    # completion mode for rows fitted under a chat template: refused before any source is loaded
    with pytest.raises(DataFormatError, match="helmet/narrativeqa_8k are fitted under chat_template="):
        weights = {"helmet/narrativeqa_8k": 1, "helmet/nq_8k": 1}
        mixture(weights, chat=False, chat_template="llama-2-chat", **demo)


# -- rewards --------------------------------------------------------------------------------------------

#: one config per benchmark and kind of metric, with a wrong answer to score too
REWARD_CASES = [
    ("helmet", "nq_8k"),
    ("helmet", "json_kv_8k"),
    ("helmet", "ruler_mv_8k"),
    ("helmet", "trec_coarse_8k"),
    ("helmet", "msmarco_8k"),
    ("longbench", "qasper_4k"),
    ("longbench", "hotpotqa_e_8k"),
    ("longbench", "lsht_full"),
    ("lveval", "factrecall_en_16k"),
    ("lveval", "multifieldqa_en_mixup_16k"),
    ("adaleval", "bestanswer_1k"),
    ("adaleval", "tsort_2k"),
]


@pytest.mark.parametrize(("bench", "config"), REWARD_CASES)
def test_rewards_equal_the_scorers_per_row_values(bench, config, demo):
    source = dict(demo) if bench != "lveval" else {**demo, "data_dir": demo["mirror"], "mirror": None}
    rows = load_dataset(bench, config, split="eval", **source)
    prompts = load_dataset(bench, config, split="eval", format="prompt", **source)
    columns = {name: list(prompts[name]) for name in prompts.column_names if name != "prompt"}
    reward = reward_function(f"{bench}/{config}")
    task = registry.benchmark(bench).lookup(config)[0].name
    for outputs in (rows["output"], ["the wrong answer " + o[::-1] for o in rows["output"]]):
        expected = score_task(bench, task, list(rows), outputs)
        metric = next(iter(expected.headline))
        values = reward(prompts["prompt"], outputs, **columns)
        assert values == [r["scores"].get(metric) or 0.0 for r in expected.rows]
    assert max(reward(prompts["prompt"], rows["output"], **columns)) > 0


def test_every_task_scored_without_a_judge_has_a_reward_function():
    judged = set()
    for bench in registry.benchmark_names():
        for task in registry.benchmark(bench).tasks:
            try:
                assert callable(reward_function(f"{bench}/{task.name}"))
            except UnknownNameError as exc:
                assert "scored by a model judge" in str(exc)
                judged.add(f"{bench}/{task.name}")
    assert judged == {
        "helmet/alce_asqa",
        "helmet/alce_qampari",
        "helmet/narrativeqa",
        "helmet/infbench_sum",
        "helmet/multi_lexsum",
    }
    with pytest.raises(UnknownNameError, match="'hotpotqa' is ambiguous; use one of helmet/hotpotqa"):
        reward_function("hotpotqa")


def test_a_completion_neither_text_nor_messages_is_one_line_naming_it():
    reward = reward_function("helmet/nq")
    with pytest.raises(CompletionTypeError) as caught:
        reward(["a prompt", "a prompt"], [7, "Paris"])
    message = str(caught.value)
    assert message == "completions[0]: a completion must be a string or a list of messages, got int"
    assert isinstance(caught.value, SuiteError) and isinstance(caught.value, TypeError)


@pytest.mark.slow
def test_a_few_grpo_steps_on_a_streamed_split(demo, tokenizer, tmp_path):
    # nq is a completion-mode task: its prompts are text, no chat template is applied
    train = load_dataset(
        "helmet", "nq_8k", split="dev", streaming=True, format="prompt", max_input_tokens=600, **demo
    )
    rewards = []
    nq = reward_function("helmet/nq")

    def recorded(prompts, completions, **columns):
        values = nq(prompts, completions, **columns)
        rewards.extend(values)
        return values

    trainer = GRPOTrainer(
        model=tiny_model(tokenizer, positions=1024),
        processing_class=tokenizer,
        reward_funcs=recorded,
        args=GRPOConfig(
            **{**_trainer_args(tmp_path, max_steps=2), "per_device_train_batch_size": 2},
            num_generations=2,
            max_completion_length=8,
            logging_steps=1,
        ),
        train_dataset=train,
    )
    assert trainer.train().global_step == 2
    assert rewards and all(v in (0.0, 1.0) for v in rewards)
