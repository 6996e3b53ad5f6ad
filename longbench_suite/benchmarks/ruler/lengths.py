"""RULER's evaluated lengths (``scripts/config_tasks.sh`` runs 4k to 128k; K = 1024): the listed configs.
Any other token count is built on request (``niah_single_1_48k``, ``vt_3000``; ``docs/ruler.md`` §1)."""

from longbench_suite.lengths import LengthTable

LENGTHS = LengthTable(
    ("max_seq_length",),
    {
        "4k": (4096,),
        "8k": (8192,),
        "16k": (16384,),
        "32k": (32768,),
        "64k": (65536,),
        "128k": (131072,),
    },
)
