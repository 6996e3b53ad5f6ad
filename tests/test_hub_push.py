"""``push``: export + one ``upload_folder`` commit, through a patched ``HfApi`` (``docs/ecosystem.md`` §3.3).

The fake keeps each branch of each repo in a folder; the pushed result is read back from there with
plain ``datasets.load_dataset``.
"""

from __future__ import annotations

import logging
import os

import datasets
import pytest

from longbench_suite import cli, load_dataset, push
from longbench_suite.publish import hub
from tests.support.fake_hub import FakeHub

TOKEN = "hf_SECRETtestTOKEN0123456789"


@pytest.fixture(scope="module")
def opts(helmet_opts):
    return helmet_opts


@pytest.fixture
def fake(tmp_path, monkeypatch):
    state = FakeHub(str(tmp_path / "hub"))
    monkeypatch.setattr(hub, "HfApi", state.api_class())
    return state


def _calls(fake, name):
    return [args for call, args in fake.calls if call == name]


def test_push_creates_the_repo_and_merges_later_pushes(fake, opts, tmp_path, caplog, capsys):
    caplog.set_level(logging.DEBUG)
    push(["nq_8k"], "org/helmet-bench", private=True, revision="v1", token=TOKEN, histogram=False, **opts)
    args = [
        "push", "helmet/hotpotqa_8k", "--repo-id", "org/helmet-bench", "--private", "--revision", "v1",
        "--token", TOKEN, "--no-histogram",
        "--mirror", opts["mirror"], "--tokenizer", opts["tokenizer"], "--cache-dir", opts["cache_dir"],
    ]  # fmt: skip
    assert cli.main(args) == 0

    assert [c["token"] for c in _calls(fake, "__init__")] == [TOKEN, TOKEN]
    created = _calls(fake, "create_repo")[0]
    assert (created["repo_id"], created["repo_type"], created["private"], created["exist_ok"]) == (
        "org/helmet-bench",
        "dataset",
        True,
        True,
    )
    assert [c["branch"] for c in _calls(fake, "create_branch")] == ["v1", "v1"]
    uploads = _calls(fake, "upload_folder")
    assert [u["delete_patterns"] for u in uploads] == [["nq_8k/*"], ["hotpotqa_8k/*"]]
    assert all(u["revision"] == "v1" and u["repo_type"] == "dataset" for u in uploads)
    assert not fake.files("org/helmet-bench")  # main untouched: everything went to the branch

    repo = fake.repo_dir("org/helmet-bench", "v1")
    assert sorted(datasets.get_dataset_config_names(repo)) == ["hotpotqa_8k", "nq_8k"]
    for cfg in ("nq_8k", "hotpotqa_8k"):
        built = load_dataset("helmet", cfg, **opts)
        for split in ("dev", "eval"):
            assert datasets.load_dataset(repo, cfg, split=split).to_list() == built[split].to_list()
    with open(os.path.join(repo, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    assert "| `nq_8k` | `eval` | 600 |" in readme and "| `hotpotqa_8k` | `eval` | 300 |" in readme
    assert 'load_dataset("org/helmet-bench", "nq_8k", split="dev")' in readme

    # The token reached the client and nothing else: no file, log line or output holds it.
    for folder, _, names in os.walk(fake.root):
        for name in names:
            with open(os.path.join(folder, name), "rb") as f:
                assert TOKEN.encode() not in f.read(), name
        assert TOKEN not in folder
    assert TOKEN not in caplog.text
    out = capsys.readouterr()
    assert TOKEN not in out.out + out.err
    assert "uploaded to https://huggingface.co/datasets/org/helmet-bench (revision v1)" in out.out


def test_repushing_a_config_deletes_its_stale_shards(fake, opts):
    push(["nq_8k"], "org/r", max_shard_size="400KB", histogram=False, **opts)
    assert len([f for f in fake.files("org/r") if f.startswith("nq_8k/eval-")]) > 1
    push(["nq_8k"], "org/r", histogram=False, **opts)
    assert [f for f in fake.files("org/r") if f.startswith("nq_8k/")] == [
        "nq_8k/dev-00000-of-00001.parquet",
        "nq_8k/eval-00000-of-00001.parquet",
        "nq_8k/token_counts.json",
    ]
    assert datasets.load_dataset(fake.repo_dir("org/r"), "nq_8k", split="eval").num_rows == 600
    assert hub.MANIFEST not in fake.files("org/r")  # the export's own record stays local


def test_dry_run_never_contacts_the_hub(opts, tmp_path, monkeypatch, capsys):
    class NoHub:
        def __init__(self, *args, **kwargs):
            raise AssertionError("a dry run created a Hub client")

    monkeypatch.setattr(hub, "HfApi", NoHub)
    kept = tmp_path / "kept"
    result = push(["nq_8k"], "org/x", dry_run=True, output_dir=str(kept), histogram=False, **opts)
    assert "nq_8k/eval-00000-of-00001.parquet" in result.files
    assert datasets.load_dataset(str(kept), "nq_8k", split="dev").num_rows == 893
    args = ["push", "nq_8k", "--repo-id", "org/x", "--dry-run", "--no-histogram", "--mirror", opts["mirror"]]
    assert cli.main([*args, "--tokenizer", opts["tokenizer"], "--cache-dir", opts["cache_dir"]]) == 0
    assert "dry run: would upload to https://huggingface.co/datasets/org/x" in capsys.readouterr().out


def test_hub_errors_are_one_line_without_the_token(opts, monkeypatch, capsys):
    class Refusing:
        def __init__(self, token=None, **kwargs):
            self.token = token

        def create_repo(self, repo_id, **kwargs):
            raise PermissionError(f"401 Unauthorized for token {self.token}\nmore detail")

    monkeypatch.setattr(hub, "HfApi", Refusing)
    args = ["push", "nq_8k", "--repo-id", "org/x", "--token", TOKEN, "--mirror", opts["mirror"]]
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "401 Unauthorized" in err and TOKEN not in err and "***" in err


@pytest.mark.parametrize("command", ["export", "push"])
def test_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    assert "--max-shard-size" in capsys.readouterr().out
