"""Record HELMET's own chat-mode prompts (``model_utils.tokenize`` with ``use_chat_template=True``) for
``helmet_chat/alce.json``. Two steps, each in its own interpreter (tests/upstream/README.md):

    # 1. with the project's venv: the inputs (ALCE sample files, HELMET's prompt files, tokenizer folders)
    python tests/upstream/record_helmet_chat.py prepare /tmp/helmet_chat_inputs
    # 2. with HELMET's (transformers 4.x), from an unmodified HELMET checkout at 4526dfb:
    python tests/upstream/record_helmet_chat.py record HELMET_CHECKOUT /tmp/helmet_chat_inputs \
        > tests/upstream/helmet_chat/alce.json

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
    elif sys.argv[1] == "record":
        json.dump(record(sys.argv[2], sys.argv[3]), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        raise SystemExit(__doc__)
