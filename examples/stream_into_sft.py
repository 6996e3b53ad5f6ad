"""Stream a config straight into TRL's SFTTrainer: no Arrow files, rows built as training consumes them.

    python examples/stream_into_sft.py nq_32k --model Qwen/Qwen2.5-0.5B-Instruct --max-steps 100
    python examples/stream_into_sft.py nq_8k --demo --tiny --max-steps 3     # offline, random tiny model

Each row keeps its task's upstream mode: completion-mode tasks (HELMET RAG) train on
prompt = the exact prompt, completion = " " + answer; chat-mode tasks go through the model's chat
template with the user template alone. `--chat` forces chat mode (e.g. for an instruct model).
Streamed splits come in 16 contiguous shards where the source is read locally, so DataLoader
workers (`--workers`) and multi-node runs split the rows between them.

A stream has no length, so training counts optimizer steps (`--max-steps`), each of `--batch-size` x
`--grad-accum` rows; a split with fewer rows than one step is refused (the trainer would wait forever
for a first step). Every benchmark works: HELMET and LongBench train on `dev`; LV-Eval publishes no
dev data and Ada-LEval's hosted files may hold none, so there `--split eval` trains on evaluation
rows (then evaluate on something else).
"""

from __future__ import annotations

import argparse

import torch
from trl import SFTConfig, SFTTrainer

from longbench_suite import load_dataset, sft_lengths
from longbench_suite.demo import offline_options


def tiny_model_and_tokenizer(tokenizer_json: str):
    """A randomly initialised 2-layer Llama on the given tokenizer.json: no download."""
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = PreTrainedTokenizerFast(
        tokenizer_file=tokenizer_json, bos_token="<s>", eos_token="</s>", unk_token="<unk>", pad_token="</s>"
    )
    tok.chat_template = (
        "{% for m in messages %}{% if m['role'] == 'user' %}[USER]\n{{ m['content'] }}\n[ASSISTANT]\n"
        "{% else %}{{ m['content'] }}</s>{% endif %}{% endfor %}"
    )
    config = LlamaConfig(
        vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=2, max_position_embeddings=4096, bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
    )  # fmt: skip
    return LlamaForCausalLM(config), tok


def main(argv=None) -> SFTTrainer:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("config")
    parser.add_argument("--split", default="dev", help="train on dev; keep eval for evaluation")
    parser.add_argument("--model", help="a Hub model id or local path")
    parser.add_argument("--tiny", action="store_true", help="a random tiny model on the dataset's tokenizer")
    parser.add_argument("--format", default="prompt_completion", choices=["prompt_completion", "messages"])
    parser.add_argument("--chat", action="store_true", help="put every row in chat mode")
    parser.add_argument("--max-steps", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=1, help="rows per device and forward pass")
    parser.add_argument("--grad-accum", type=int, default=1, help="forward passes per optimizer step")
    parser.add_argument("--max-input-tokens", type=int, help="cut prompts shorter than the config's budget")
    parser.add_argument("--workers", type=int, default=0, help="DataLoader workers")
    parser.add_argument("--demo", action="store_true", help="build offline from sample data")
    parser.add_argument("--cache-dir")
    parser.add_argument("--output-dir", default="sft-output")
    args = parser.parse_args(argv)
    options = offline_options(args.cache_dir) if args.demo else {"cache_dir": args.cache_dir}

    stream = load_dataset(
        "longbench_suite",
        args.config,
        split=args.split,
        streaming=True,
        format=args.format,
        chat=True if args.chat else None,
        max_input_tokens=args.max_input_tokens,
        **options,
    )
    print(f"{args.config}/{args.split}: {stream.num_shards} shards, columns {stream.column_names}")
    step = args.batch_size * args.grad_accum
    rows = sum(1 for _ in stream.take(step))
    if rows < step:
        raise SystemExit(
            f"{args.config}/{args.split} has {rows} rows, fewer than one optimizer step of {step} "
            f"(--batch-size {args.batch_size} x --grad-accum {args.grad_accum}); lower them"
        )

    if args.tiny:
        if "tokenizer" not in options:
            parser.error("--tiny needs --demo (or adapt it to a local tokenizer.json)")
        model, tokenizer = tiny_model_and_tokenizer(options["tokenizer"])
    elif args.model:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        model = AutoModelForCausalLM.from_pretrained(args.model)
        tokenizer = AutoTokenizer.from_pretrained(args.model)
    else:
        parser.error("give --model or --tiny")

    config = SFTConfig(
        output_dir=args.output_dir,
        max_steps=args.max_steps,  # a stream has no length: steps, not epochs
        per_device_train_batch_size=args.batch_size,
        gradient_accumulation_steps=args.grad_accum,
        learning_rate=1e-4,
        **sft_lengths(stream),  # max_length=None: TRL never cuts an example (its default drops long ones)
        logging_steps=1,
        dataloader_num_workers=args.workers,
        report_to=[],
        save_strategy="no",
        use_cpu=not torch.cuda.is_available(),
    )
    trainer = SFTTrainer(model=model, args=config, train_dataset=stream, processing_class=tokenizer)
    trainer.train()
    return trainer


if __name__ == "__main__":
    main()
