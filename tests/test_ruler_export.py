"""``export`` of ``ruler`` configs: the Hub layout plain ``datasets`` reads, and a card that says which
tokenizer, RULER commit, sources and ``generate=`` options built each config (``docs/ruler.md`` §8)."""

from __future__ import annotations

import gzip
import importlib.metadata
import json
import re
from pathlib import Path

import datasets
import pytest
import yaml

from longbench_suite import export, load_dataset, registry
from longbench_suite.benchmarks.ruler import sources
from longbench_suite.generate.niah import essay_digest

ESSAY_FIXTURE = Path(__file__).parent / "upstream" / "ruler_niah" / "essay.json.gz"
RULER = registry.benchmark("ruler")


def _section(card: str, heading: str) -> str:
    return card.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]


def _cells(section: str, config: str) -> dict[str, str]:
    """The row of ``config`` in the section's table, by column."""
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    [row] = [line for line in lines if line.startswith(f"| `{config}` ")]
    return dict(zip(header, (c.strip() for c in row.strip("|").split("|")), strict=True))


@pytest.fixture(scope="module")
def demo_options(tmp_path_factory) -> dict:
    return {"demo": True, "cache_dir": str(tmp_path_factory.mktemp("ruler-cache")), "histogram": False}


@pytest.fixture(scope="module")
def exported(demo_options, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ruler-export") / "ruler"
    export(["ruler/niah_single_1_4k", "ruler/qa_2_4k"], str(out), generate={"rows": 3}, **demo_options)
    return out


@pytest.mark.slow
def test_plain_datasets_reads_the_export_and_the_card_names_tokenizer_commit_and_sources(
    exported, demo_options
):
    recorded = {}
    for config in ("niah_single_1_4k", "qa_2_4k"):
        plain = datasets.load_dataset(str(exported), config)
        built = load_dataset(
            "ruler", config, demo=True, cache_dir=demo_options["cache_dir"], generate={"rows": 3}
        )
        assert set(plain) == {"eval", "dev"} and (len(plain["eval"]), len(plain["dev"])) == (500, 3)
        for split in ("eval", "dev"):
            assert plain[split].to_list() == built[split].to_list()
        recorded[config] = built["eval"].info.download_checksums

    card = (exported / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(re.match(r"---\n(.*?)\n---\n", card, re.S).group(1))
    assert [c["config_name"] for c in front["configs"]] == ["niah_single_1_4k", "qa_2_4k"]
    assert front["longbench_suite"] == {"benchmark": "ruler"}
    counts = json.loads((exported / "niah_single_1_4k" / "token_counts.json").read_text())
    assert f"counted with `{counts['tokenizer']}` (`{counts['tokenizer_identity']}`)" in card
    assert "commit `c3f5e3b`" in card and "RULER/tree/c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a" in card
    for source in ("baber/paul_graham_essays", "namlh2004/hotpotqa", "dev-v2.0.json", "english_words.json"):
        assert source in _section(card, "Sources")
    assert "`niah_single_1_4k` (DEMO scale)" in _section(card, "Sample data")

    built = _section(card, "How each config was built")
    niah = _cells(built, "niah_single_1_4k")
    assert niah["prompt"].startswith("completion") and "`prepare.py`'s rows, byte for byte" in niah["eval"]
    assert niah["dev"] == "seed 0, 3 rows, screened against eval"
    assert niah["HotpotQA copy"] == "-" and niah["tokenizer"] == f"`{counts['tokenizer']}`"
    assert niah["wonderwords"] == importlib.metadata.version("wonderwords")
    # the sandbox mirror serves the authors' URL, with the sample file's own sha256 (not upstream's)
    sampled = recorded["qa_2_4k"][sources.HOTPOTQA.url]["checksum"]
    assert sampled != sources.HOTPOTQA.sha256
    assert _cells(built, "qa_2_4k")["wonderwords"] == "-"  # QA draws no words
    assert _cells(built, "qa_2_4k")["HotpotQA copy"] == f"{sources.HOTPOTQA.url} (sha256 `{sampled[:8]}…`)"


@pytest.mark.slow
def test_the_card_states_non_default_options_config_by_config(exported, demo_options, tmp_path):
    """A config exported with another prompt mode, dev seed, no screen and the user's essay file says
    so, beside a default config of an earlier export into the same folder."""
    essay = tmp_path / "PaulGrahamEssays.json"
    with gzip.open(ESSAY_FIXTURE, "rt", encoding="utf-8") as f:
        text = json.load(f)["text"]
    essay.write_text(json.dumps({"text": text}), encoding="utf-8")
    generate = {"prompt": "user", "seed": 9, "screen": False, "rows": 2, "essay": str(essay)}
    export(["ruler/niah_single_2_4k"], str(exported), generate=generate, **demo_options)
    card = (exported / "README.md").read_text(encoding="utf-8")
    built = _section(card, "How each config was built")

    user = _cells(built, "niah_single_2_4k")
    assert user["prompt"] == "user (answer prefix in the user turn, no prefill; 512 tokens to generate)"
    assert "not `prepare.py`'s" in user["eval"] and "byte for byte" not in user["eval"]
    assert user["dev"] == "seed 9, 2 rows, **not screened** (may share what eval asks)"
    assert user["essay"] == (
        f"the user's file `PaulGrahamEssays.json` (`generate={{'essay': PATH}}`, text sha256 "
        f"`{essay_digest(text)}…`)"
    )
    default = _cells(built, "niah_single_1_4k")  # the earlier export's config keeps its own account
    assert default["dev"] == "seed 0, 3 rows, screened against eval" and default["essay"] == "-"
    # the declared essay copy is not RULER's own scrape: its eval is RULER's procedure, not RULER's rows
    facts = RULER.task("niah_single_2").generated_facts("4k", None)
    assert facts["eval"].startswith("`prepare.py`'s procedure on the pinned essay copy, not RULER's scrape")
    assert facts["essay"].startswith(
        "`baber/paul_graham_essays` at `792d672` (`essays.parquet`, sha256 `82544803"
    )
    rows = datasets.load_dataset(str(exported), "niah_single_2_4k", split="dev")
    assert len(rows) == 2 and all(json.loads(m)["seed"] == 9 for m in rows["metadata"])


def test_the_card_names_the_hotpotqa_copy_that_served():
    """The authors' host, the pinned Hub copy RULER falls back to when the host cannot be had, or a
    ``data_dir`` file, from what the build recorded of its downloads."""
    qa_2 = RULER.task("qa_2")

    def copy(read):
        return qa_2.generated_facts("4k", None, sources_read=read)["HotpotQA copy"]

    hub = sources.HOTPOTQA_HUB
    assert copy({sources.HOTPOTQA.url: {"checksum": sources.HOTPOTQA.sha256}}) == (
        f"{sources.HOTPOTQA.url} (sha256 `4e9ecb5c…`)"
    )
    fallback = copy({hub.url: {"checksum": hub.sha256}})
    assert fallback.startswith(
        "the fallback, https://huggingface.co/datasets/namlh2004/hotpotqa/resolve/7e54db4"
    )
    assert fallback.endswith("(sha256 `e3da074d…`): the canonical host could not be had")
    assert copy(None) == "a local file (data_dir): no download recorded"
    assert "HotpotQA copy" not in RULER.task("qa_1").generated_facts("4k", None)


def test_the_assistant_mode_is_named_with_its_chat_template():
    facts = RULER.task("vt").generated_facts("8k", None, chat_template="tokenizer:abc")
    assert facts["prompt"] == "assistant (after the chat template's user turn, `tokenizer:abc`)"
    assert facts["eval"] == "RULER's 500 rows of seed 42 with the chat template as RULER's model template"
    assert "essay" not in facts and "HotpotQA copy" not in facts
