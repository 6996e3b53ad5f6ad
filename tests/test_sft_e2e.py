"""End to end: a config streamed straight into TRL's SFTTrainer, training a tiny random Llama.

No download: the model is built from a config, the tokenizer is the test BPE, the rows come from the
synthetic HELMET archive. Prompts are cut to 600 tokens (``max_input_tokens``) to keep it fast.
"""

from __future__ import annotations

import math

import pytest
import torch  # the [test] extra installs torch==2.13.0 (CPU), trl and accelerate
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
from trl import SFTConfig, SFTTrainer

from longbench_suite import load_dataset

# A minimal chat template: the user turn, then the assistant's text closed by </s>.
CHAT_TEMPLATE = (
    "{% for m in messages %}{% if m['role'] == 'user' %}[USER]\n{{ m['content'] }}\n[ASSISTANT]\n"
    "{% else %}{{ m['content'] }}</s>{% endif %}{% endfor %}"
)


@pytest.fixture(scope="module")
def tokenizer(tiny_tokenizer):
    tok = PreTrainedTokenizerFast(
        tokenizer_file=tiny_tokenizer, bos_token="<s>", eos_token="</s>", unk_token="<unk>", pad_token="</s>"
    )
    tok.chat_template = CHAT_TEMPLATE
    return tok


def _model(tokenizer):
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return LlamaForCausalLM(config)


def _trainer(tokenizer, dataset, steps, tmp_path):
    args = SFTConfig(
        output_dir=str(tmp_path / "out"),
        max_steps=steps,
        per_device_train_batch_size=2,
        learning_rate=1e-3,
        max_length=700,
        logging_steps=1,
        report_to=[],
        save_strategy="no",
        use_cpu=True,
        disable_tqdm=True,
    )
    return SFTTrainer(model=_model(tokenizer), args=args, train_dataset=dataset, processing_class=tokenizer)


def _trained_text(tokenizer, batch, row: int) -> str:
    ids, labels = batch["input_ids"][row].tolist(), batch["labels"][row].tolist()
    return tokenizer.decode([i for i, label in zip(ids, labels, strict=True) if label != -100])


@pytest.fixture(scope="module")
def opts(helmet_opts):
    return {**helmet_opts, "max_input_tokens": 600}


def test_stream_trains_a_tiny_model_on_completion_mode_examples(tokenizer, opts, tmp_path):
    stream = load_dataset("helmet", "nq_8k", split="dev", streaming=True, format="prompt_completion", **opts)
    first_rows = load_dataset("helmet", "nq_8k", split="dev[:2]", **opts)
    trainer = _trainer(tokenizer, stream, steps=2, tmp_path=tmp_path)
    before = [p.detach().clone() for p in trainer.model.parameters()]

    batch = next(iter(trainer.get_train_dataloader()))
    # Completion-only loss: the trained tokens are exactly " " + output + EOS, in stream order.
    for i in range(2):
        assert _trained_text(tokenizer, batch, i) == " " + first_rows[i]["output"] + "</s>"

    result = trainer.train()
    assert result.global_step == 2
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    assert len(losses) == 2 and all(math.isfinite(x) for x in losses)
    after = list(trainer.model.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(before, after, strict=True))


def test_chat_mode_examples_train_through_the_chat_template(tokenizer, opts, tmp_path):
    stream = load_dataset(
        "helmet", "popqa_8k", split="eval", streaming=True, format="prompt_completion", chat=True, **opts
    )
    first = load_dataset("helmet", "popqa_8k", split="eval[:1]", **opts)[0]
    trainer = _trainer(tokenizer, stream, steps=1, tmp_path=tmp_path)
    batch = next(iter(trainer.get_train_dataloader()))
    assert _trained_text(tokenizer, batch, 0) == first["output"] + "</s>"
    ids = batch["input_ids"][0].tolist()
    text = tokenizer.decode(ids)
    assert "\nAnswer:" not in text.split("[ASSISTANT]")[0][-20:]  # the user turn lacks the prefix
    assert trainer.train().global_step == 1
