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
from longbench_suite.errors import SuiteError
from longbench_suite.publish import hub
from tests.support.fake_hub import FakeHub
from tests.support.folders import snapshot

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
    before = fake.files("org/r")
    result = push(["nq_8k"], "org/r", histogram=False, **opts)
    gone = [f for f in before if f not in fake.files("org/r")]
    assert gone and result.deletions == gone
    assert [f for f in fake.files("org/r") if f.startswith("nq_8k/")] == [
        "nq_8k/dev-00000-of-00001.parquet",
        "nq_8k/eval-00000-of-00001.parquet",
        "nq_8k/token_counts.json",
    ]
    assert datasets.load_dataset(fake.repo_dir("org/r"), "nq_8k", split="eval").num_rows == 600


@pytest.mark.parametrize("fails_in", ["export", "upload"])
def test_a_failed_push_leaves_the_output_folder_as_it_was(fake, opts, tmp_path, monkeypatch, fails_in):
    """The repo's card and token counts are merged in the staging folder, never written into the output
    folder directly: a push that fails after fetching them changes nothing there."""
    push(["helmet/hotpotqa_8k"], "org/r", histogram=False, **opts)  # the repo holds a card and token counts
    kept = tmp_path / "kept"
    hub.export(["nq_8k"], str(kept), histogram=False, **opts)  # the output folder of an earlier export
    (kept / "notes.txt").write_text("mine")
    before = snapshot(kept)
    assert "hotpotqa_8k/token_counts.json" not in before

    def fail(*args, **kwargs):
        raise RuntimeError(f"failed during the {fails_in}")

    if fails_in == "export":
        monkeypatch.setattr(hub.cards, "write_card", fail)  # after the repo's files were fetched
    else:
        monkeypatch.setattr(hub.HfApi, "upload_folder", fail)
    with pytest.raises(RuntimeError, match=fails_in):
        push(["nq_8k"], "org/r", output_dir=str(kept), histogram=False, **opts)
    assert snapshot(kept) == before
    assert [entry for entry in os.listdir(tmp_path) if entry.startswith(".kept")] == []  # no staging left


def test_the_output_folder_of_a_push_is_what_was_uploaded(fake, opts, tmp_path):
    push(["helmet/hotpotqa_8k"], "org/r", histogram=False, **opts)
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "notes.txt").write_text("mine")
    result = push(["nq_8k"], "org/r", output_dir=str(kept), histogram=False, **opts)
    uploaded = {f.replace(os.sep, "/"): data for f, data in snapshot(fake.repo_dir("org/r")).items()}
    local = {f.replace(os.sep, "/"): data for f, data in snapshot(kept).items()}
    assert local["notes.txt"] == b"mine" and "notes.txt" not in uploaded  # the user's file is never published
    sent = {f: data for f, data in local.items() if f != "notes.txt" and not f.startswith("hotpotqa_8k/")}
    assert {f: uploaded.get(f) for f in sent} == sent and sorted(result.sizes) == sorted(sent)
    # the repo's other config: its card entry and token counts were fetched (not sent again), its
    # shards stay on the Hub
    kept_on_hub = set(uploaded) - set(local)
    assert kept_on_hub and all(f.startswith("hotpotqa_8k/") and f.endswith(".parquet") for f in kept_on_hub)
    assert local["hotpotqa_8k/token_counts.json"] == uploaded["hotpotqa_8k/token_counts.json"]
    card = local["README.md"].decode("utf-8")
    assert "config_name: hotpotqa_8k" in card and "config_name: nq_8k" in card  # the merged card


def test_a_repo_whose_card_longbench_suite_did_not_write_is_refused(fake, opts, tmp_path):
    repo = fake.repo_dir("org/theirs")
    os.makedirs(repo)
    with open(os.path.join(repo, "README.md"), "w") as f:
        f.write("# someone's dataset\n")
    kept = tmp_path / "kept"
    with pytest.raises(SuiteError, match=r"README\.md of org/theirs was not written by longbench-suite"):
        push(["nq_8k"], "org/theirs", output_dir=str(kept), histogram=False, **opts)
    assert not kept.exists() and not _calls(fake, "upload_folder")


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


def test_dry_run_lists_the_endpoint_files_sizes_message_and_deletions(opts, tmp_path, monkeypatch, capsys):
    from huggingface_hub import constants

    # HF_ENDPOINT is read once, into huggingface_hub.constants.ENDPOINT, which every client call uses
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9/hub-mirror")
    monkeypatch.setattr(hub, "HfApi", None)  # any Hub client call fails
    kept = tmp_path / "kept"
    args = ["push", "nq_8k", "helmet/hotpotqa_8k", "--repo-id", "org/x", "--dry-run", "--no-histogram"]
    args += ["--output", str(kept), "--commit-message", "Refresh nq and hotpotqa"]
    args += ["--mirror", opts["mirror"], "--tokenizer", opts["tokenizer"], "--cache-dir", opts["cache_dir"]]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "dry run: would upload to http://127.0.0.1:9/hub-mirror/datasets/org/x" in out
    assert "huggingface.co" not in out
    listed = {}
    for line in out.split("files for helmet (")[1].splitlines()[1:]:
        if not line.startswith("  "):
            break
        name, size = line.split(maxsplit=1)
        listed[name] = size
    on_disk = {
        os.path.relpath(os.path.join(d, n), kept).replace(os.sep, "/"): os.path.getsize(os.path.join(d, n))
        for d, _, names in os.walk(kept)
        for n in names
    }
    assert sorted(listed) == sorted(on_disk) and "README.md" in listed
    from datasets.utils.py_utils import size_str

    assert all(listed[name] == size_str(size) for name, size in on_disk.items())
    assert "commit message: Refresh nq and hotpotqa" in out
    assert (
        "deletions: the repo's files matching nq_8k/*, hotpotqa_8k/* that this commit does not upload" in out
    )


@pytest.mark.parametrize("repo_id", ["org/bad--name", "a/b/c", "org/name.git", "org/with space", "org/-x"])
def test_an_invalid_repo_id_fails_the_dry_run_before_anything_is_built(
    repo_id, monkeypatch, capsys, tmp_path
):
    from longbench_suite import api
    from longbench_suite.errors import OptionError

    def no_build(*args, **kwargs):
        raise AssertionError("built configs for an invalid repo id")

    monkeypatch.setattr(api, "prepare", no_build)
    with pytest.raises(OptionError, match=r"is not a Hub repo id"):
        push(["nq_8k"], repo_id, dry_run=True, output_dir=str(tmp_path / "o"))
    assert (
        cli.main(["push", "nq_8k", "--repo-id", repo_id, "--dry-run", "--output", str(tmp_path / "o")]) == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and repo_id in err and "--repo-id" in err
    assert not (tmp_path / "o").exists()


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


def test_a_hub_that_cannot_be_reached_is_one_line_naming_it(opts, monkeypatch, capsys):
    """A connection refused (here: a loopback port nothing listens at, as HF_ENDPOINT) names the Hub
    the push went to, in one line, without the token."""
    import socket

    from huggingface_hub import constants

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again once the probe is
    endpoint = f"http://127.0.0.1:{port}"
    monkeypatch.setattr(constants, "ENDPOINT", endpoint)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    args = ["push", "nq_8k", "--repo-id", "org/x", "--token", TOKEN, "--mirror", opts["mirror"]]
    assert cli.main([*args, "--tokenizer", opts["tokenizer"], "--cache-dir", opts["cache_dir"]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and TOKEN not in err, err
    assert f"cannot reach the Hub at {endpoint} (HF_ENDPOINT): " in err and "Connect" in err, err
