"""Record HELMET's own chat-mode prompts (``model_utils.tokenize`` with ``use_chat_template=True``) for
``helmet_chat/alce.json`` and ``helmet_chat/longdoc.json``. Two steps, each in its own interpreter
(tests/upstream/README.md):

    # 1. with the project's venv: the inputs (ALCE sample files, HELMET's prompt files, tokenizer
    #    folders, and the long-document tasks' template fields)
    python tests/upstream/record_helmet_chat.py prepare /tmp/helmet_chat_inputs
    # 2. with HELMET's (transformers 4.x), from an unmodified HELMET checkout at 4526dfb:
    python tests/upstream/record_helmet_chat.py record HELMET_CHECKOUT /tmp/helmet_chat_inputs \
        > tests/upstream/helmet_chat/alce.json
    python tests/upstream/record_helmet_chat.py record-longdoc HELMET_CHECKOUT /tmp/helmet_chat_inputs \
        > tests/upstream/helmet_chat/longdoc.json

The long-document tasks' loaders read Hub datasets (``load_dataset("narrativeqa")``, a loading script
for Multi-LexSum), which cannot run offline; for them step 1 keeps the template fields the project's
loaders give for each ``eval`` row of the DEMO samples (demos, pre-truncated document, question; their
parity with HELMET's loaders is ``tests/test_helmet_longdoc.py``'s), step 2 checks that each task's user
template is a string literal of HELMET's ``data.py`` and runs ``model_utils.tokenize`` on those fields.

Step 2 runs HELMET's ``data.load_data`` (``load_alce``, then ``shuffle(seed=42)`` and the first 100, after
``random.seed(42)`` as ``eval.py`` does) and ``model_utils.tokenize`` with each tokenizer folder's chat
template and no system message (HELMET's ``--system_message`` default), at each budget. Per row it keeps
the question, the sha256 of the user turn (``user_template`` filled with the cut context), the cut
context's length and the templated prompt's token count.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import sys
import types

KINDS = ("asqa", "qampari")
#: (length, documents N, max_input_tokens or None for HELMET's own input_max_length − 300). The sample
#: rows hold ALCE_DOCS short documents, and two demonstrations of ~2000-2600 tokens: the small budgets
#: cut nearly every row, each at its own place; the default ones cut the long row.
RUNS = {
    "asqa": (("8k", 30, None), ("8k", 30, 2750), ("8k", 30, 2900), ("16k", 75, None), ("16k", 75, 3000)),
    "qampari": (("8k", 30, None), ("8k", 30, 2450), ("8k", 30, 2600), ("16k", 75, None), ("16k", 75, 2700)),
}
WINDOW = {"8k": 8192, "16k": 16384}
GENERATION = 300
TEMPLATES = ("llama-2-chat", "chatml")
ROWS = 130
ALCE_DOCS = 80
HERE = os.path.dirname(os.path.abspath(__file__))


def prepare(out: str) -> None:
    sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
    from longbench_suite.benchmarks.helmet import samples
    from longbench_suite.benchmarks.helmet.samples import archive
    from tests.support import tokenizer_fixtures

    members = archive.alce_members(samples.Scale(alce_asqa=ROWS, alce_qampari=ROWS, alce_docs=ALCE_DOCS))
    for path, data in members.items():
        os.makedirs(os.path.join(out, os.path.dirname(path)), exist_ok=True)
        with open(os.path.join(out, path), "wb") as f:
            f.write(data)
    prompts = os.path.join(HERE, "..", "realdata", "helmet", "prompts")
    for kind in KINDS:
        shutil.copy(os.path.join(prompts, f"{kind}_revised.json"), os.path.join(out, f"{kind}_revised.json"))
    for name in TEMPLATES:
        folder = os.path.join(out, "tokenizers", name)
        os.makedirs(folder, exist_ok=True)
        shutil.copy(tokenizer_fixtures.llama2_tokenizer_json(), os.path.join(folder, "tokenizer.json"))
        shutil.copy(os.path.join(HERE, "helmet_chat", name, "tokenizer_config.json"), folder)
    _prepare_longdoc(out)


LONGDOC = ("narrativeqa_8k", "infbench_qa_8k", "infbench_mc_8k", "infbench_sum_8k", "multi_lexsum_8k")
#: max_input_tokens of the long-document runs (None: HELMET's own budget, which cuts only some rows)
LONGDOC_BUDGETS = (None, 6000)


def longdoc_rows(mirror: str, tokenizer: str, name: str, max_input_tokens, chat_template=None) -> list[dict]:
    """The ``eval`` rows of ``helmet/<name>`` from the DEMO samples in ``mirror`` (streamed: no ``dev``)."""
    from longbench_suite import load_dataset

    return list(
        load_dataset(
            "helmet",
            name,
            split="eval",
            streaming=True,
            tokenizer=tokenizer,
            pretruncation_tokenizer=os.path.join(tokenizer, "tokenizer.json"),
            mirror=mirror,
            max_input_tokens=max_input_tokens,
            chat_template=chat_template,
        )
    )


def _prepare_longdoc(out: str) -> None:
    from longbench_suite.benchmarks.helmet import samples
    from longbench_suite.fit.rules import CutContextTail

    mirror = os.path.join(out, "mirror")
    samples.write_samples(mirror, samples.DEMO)
    seen = []
    real_apply = CutContextTail.apply

    def capture(self, template, fields, tokenizer, budget, what, chat=None):
        seen.append({"user_template": template.user, "fields": dict(fields), "budget": budget.tokens})
        return real_apply(self, template, fields, tokenizer, budget, what, chat)

    CutContextTail.apply = capture
    try:
        with open(os.path.join(out, "longdoc_fields.jsonl"), "w", encoding="utf-8") as f:
            for name in LONGDOC:
                for max_input_tokens in LONGDOC_BUDGETS:
                    seen.clear()
                    rows = longdoc_rows(
                        mirror, os.path.join(out, "tokenizers", "llama-2-chat"), name, max_input_tokens
                    )
                    for row, fit in zip(rows, seen, strict=True):
                        gen = row["max_new_tokens"]
                        record = {
                            "config": name,
                            "max_input_tokens": max_input_tokens,
                            "query_id": row["query_id"],
                        }
                        f.write(
                            json.dumps({**record, **fit, "max_new_tokens": gen}, ensure_ascii=False) + "\n"
                        )
    finally:
        CutContextTail.apply = real_apply


def record_longdoc(checkout: str, inputs: str) -> dict:
    sys.path.insert(0, checkout)
    import model_utils
    from transformers import AutoTokenizer

    with open(os.path.join(checkout, "data.py"), encoding="utf-8") as f:
        source = f.read()
    result = {"helmet_commit": "4526dfbdc512bd9ff721da336bff4e3e75ecfd27", "runs": []}
    with open(os.path.join(inputs, "longdoc_fields.jsonl"), encoding="utf-8") as f:
        items = [json.loads(line) for line in f]
    for name in TEMPLATES:
        tokenizer = AutoTokenizer.from_pretrained(os.path.join(inputs, "tokenizers", name))
        runs = {}
        for item in items:
            user_template = item["user_template"]
            assert json.dumps(user_template) in source, f"{item['config']}: not HELMET's user template"
            sample = dict(item["fields"])
            whole = sample["context"]
            data = {"user_template": user_template, "prompt_template": user_template, "system_template": ""}
            tokenized = model_utils.tokenize(
                sample,
                data,
                tokenizer=tokenizer,
                max_length=item["budget"] + item["max_new_tokens"],
                generation_max_length=item["max_new_tokens"],
                use_chat_template=True,
                system_message=None,
            )
            key = (item["config"], item["max_input_tokens"])
            run = runs.setdefault(
                key,
                {
                    "template": name,
                    "config": key[0],
                    "max_input_tokens": key[1],
                    "budget": item["budget"],
                    "rows": [],
                },
            )
            run["rows"].append(
                {
                    "query_id": item["query_id"],
                    "user_sha256": _sha(user_template.format(**sample)),
                    "context_chars": len(sample["context"]),
                    "truncated": len(sample["context"]) < len(whole),
                    "prompt_tokens": int(tokenized.input_ids.size(1)),
                }
            )
        result["runs"] += list(runs.values())
    return result


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record(checkout: str, inputs: str) -> dict:
    sys.path.insert(0, checkout)
    import data as helmet_data
    import model_utils
    from transformers import AutoTokenizer

    result = {"helmet_commit": "4526dfbdc512bd9ff721da336bff4e3e75ecfd27", "inputs": {}, "runs": []}
    for kind in KINDS:
        path = os.path.join(inputs, "data", "alce", f"{kind}_eval_gtr_top2000.json")
        with open(path, "rb") as f:
            result["inputs"][kind] = hashlib.sha256(f.read()).hexdigest()
    for name in TEMPLATES:
        tokenizer = AutoTokenizer.from_pretrained(os.path.join(inputs, "tokenizers", name))
        for kind in KINDS:
            for length, docs, max_input_tokens in RUNS[kind]:
                args = types.SimpleNamespace(max_test_samples=100, shots=2, seed=42)
                random.seed(args.seed)  # eval.py's run_test, right before load_data
                loaded = helmet_data.load_data(
                    args,
                    f"alce_{kind}_{docs}",
                    os.path.join(inputs, "data", "alce", f"{kind}_eval_gtr_top2000.json"),
                    os.path.join(inputs, f"{kind}_revised.json"),
                )
                budget = max_input_tokens or WINDOW[length] - GENERATION
                rows = []
                for sample in loaded["data"]:
                    whole = sample["context"]
                    tokenized = model_utils.tokenize(
                        sample,
                        loaded,
                        tokenizer=tokenizer,
                        max_length=budget + GENERATION,
                        generation_max_length=GENERATION,
                        use_chat_template=True,
                        system_message=None,
                    )
                    user = loaded["user_template"].format(**sample)
                    rows.append(
                        {
                            "question": sample["question"],
                            "user_sha256": _sha(user),
                            "context_chars": len(sample["context"]),
                            "truncated": len(sample["context"]) < len(whole),
                            "prompt_tokens": int(tokenized.input_ids.size(1)),
                        }
                    )
                result["runs"].append(
                    {
                        "template": name,
                        "config": f"alce_{kind}_{length}",
                        "max_input_tokens": max_input_tokens,
                        "budget": budget,
                        "rows": rows,
                    }
                )
    return result


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2])
    elif sys.argv[1] in ("record", "record-longdoc"):
        recorder = record if sys.argv[1] == "record" else record_longdoc
        json.dump(recorder(sys.argv[2], sys.argv[3]), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        raise SystemExit(__doc__)
