"""The parity cases: RULER settings (task arguments from its ``synthetic.yaml``), tokenizer, length, seed."""

# RULER's niah task template and answer prefix (scripts/data/synthetic/constants.py), joined as its
# prepare.py joins them for the "base" model template.
RULER_TEMPLATE = (
    "Some special magic {type_needle_v} are hidden within the following text. Make sure to memorize it. "
    "I will quiz you about the {type_needle_v} afterwards.\n{context}\nWhat are all the special magic "
    "{type_needle_v} for {query} mentioned in the provided text?"
    " The special magic {type_needle_v} for {query} mentioned in the provided text are"
)
TOKENS_TO_GENERATE = 128

TASK_ARGS = {
    "niah_single_1": dict(type_haystack="noise", type_needle_k="words", type_needle_v="numbers"),
    "niah_multikey_2": dict(type_haystack="needle", type_needle_k="words", type_needle_v="numbers"),
    "niah_multikey_3": dict(type_haystack="needle", type_needle_k="uuids", type_needle_v="uuids"),
    # RULER's multivalue and multiquery settings on the noise haystack (their own is the essay one)
    "niah_multivalue": dict(
        type_haystack="noise", type_needle_k="words", type_needle_v="numbers", num_needle_v=4
    ),
    "niah_multiquery": dict(
        type_haystack="noise", type_needle_k="words", type_needle_v="numbers", num_needle_q=4
    ),
}

#: RULER's essay variants with their own settings; the essay is ``essay.json.gz`` (``make_essay.py``)
ESSAY_TASK_ARGS = {
    "niah_single_2": dict(type_haystack="essay", type_needle_k="words", type_needle_v="numbers"),
    "niah_multikey_1": dict(
        type_haystack="essay", type_needle_k="words", type_needle_v="numbers", num_needle_k=4
    ),
    "niah_multivalue": dict(
        type_haystack="essay", type_needle_k="words", type_needle_v="numbers", num_needle_v=4
    ),
    "niah_multiquery": dict(
        type_haystack="essay", type_needle_k="words", type_needle_v="numbers", num_needle_q=4
    ),
}


def _cases():
    for tokenizer in ("llama2", "cl100k"):
        for length in (4096, 8192):
            for task, args in [*TASK_ARGS.items(), *ESSAY_TASK_ARGS.items()]:
                essay = args["type_haystack"] == "essay"
                seeds = (42, 7) if task == "niah_multikey_2" or essay else (42,)
                for seed in seeds:
                    yield {
                        "name": f"{task}-{args['type_haystack']}-{tokenizer}-{length}-seed{seed}",
                        "task": task,
                        "args": args,
                        "tokenizer": tokenizer,
                        "length": length,
                        "seed": seed,
                        "rows": 2,
                    }


CASES = list(_cases())
