"""LongBench v2's lengths: prompt-token budgets in LongBench's convention (``docs/longbench-v2.md`` §4).

A config's length names a model window (``window``, K = 1024, the rows' ``max_length``); the prompt
budget is what ``pred.py`` cuts the whole prompt to for such a model (the rows' ``input_budget``).
Upstream states one budget for these windows: ``config/model2maxlen.json`` gives 120000 for every
128k model (served with ``--max_model_len 131072``). The other rows keep the same share of the window,
120000/131072, which gives round budgets; 16k is the smallest window where that share still leaves
room for the CoT call's 1024 new tokens. ``full`` is the uncut prompt. A new length is one row.
"""

from longbench_suite.lengths import LengthTable

LENGTHS = LengthTable(
    ("window", "prompt_budget"),
    {
        "16k": (16384, 15000),
        "32k": (32768, 30000),
        "64k": (65536, 60000),
        "128k": (131072, 120000),
        "256k": (262144, 240000),
        "full": (None, None),
    },
)

#: the paper's length buckets (short < 32k, medium 32k-128k, long > 128k, in words), counted here in
#: tokens of the uncut prompt under the config's tokenizer, K = 1000 (``docs/longbench-v2.md`` §5)
SHORT_BELOW = 32_000
LONG_ABOVE = 128_000


def token_bucket(prompt_tokens: int) -> str:
    """``short``, ``medium`` or ``long`` of a prompt of ``prompt_tokens`` tokens."""
    if prompt_tokens < SHORT_BELOW:
        return "short"
    return "medium" if prompt_tokens <= LONG_ABOVE else "long"
