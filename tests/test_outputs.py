"""Outputs are atomic and never touch a file the user owns: ``build --output`` is written aside and
moved into place, may not be a folder nor lie among the build's sources; ``export`` deletes only what
an export wrote (its manifest), and refuses to overwrite, or leave beside its rows, anything else."""

from __future__ import annotations

import errno
import os

import datasets
import pytest

from longbench_suite import cli, export
from longbench_suite.errors import SuiteError
from longbench_suite.publish.hub import MANIFEST

ADA = "adaleval/bestanswer_1k"


@pytest.fixture
def ada(demo_mirror, cl100k, tmp_path) -> list[str]:
    return ["--mirror", demo_mirror, "--cache-dir", str(tmp_path / "cache")]


def _build(out, options, capsys) -> tuple[int, str]:
    code = cli.main(["build", ADA, "--split", "eval", "--output", str(out), *options])
    return code, capsys.readouterr().err.strip().split("\r")[-1].splitlines()[-1]


def test_a_failed_output_write_leaves_the_previous_file(ada, tmp_path, capsys, monkeypatch):
    out = tmp_path / "eval.jsonl"
    out.write_text("the user's previous export\n")

    def disk_full(self, path, **kwargs):
        with open(path, "w") as f:
            f.write('{"input": "half')
        raise OSError(errno.ENOSPC, "No space left on device", path)

    monkeypatch.setattr(datasets.Dataset, "to_json", disk_full)
    code, err = _build(out, ada, capsys)
    assert code == 2 and err.startswith("longbench-suite: error: ")
    assert f"cannot write {out}: " in err and "No space left on device" in err
    assert out.read_text() == "the user's previous export\n"
    assert sorted(os.listdir(tmp_path)) == ["cache", "eval.jsonl"]  # no partial file left
    monkeypatch.undo()
    assert _build(out, ada, capsys)[0] == 0
    assert len(out.read_text().splitlines()) == len(datasets.Dataset.from_json(str(out)))


def test_output_may_not_be_a_folder_nor_a_source(ada, demo_mirror, tmp_path, capsys):
    code, err = _build(tmp_path, ada, capsys)
    assert code == 2 and f"--output {tmp_path} is a directory" in err
    inside = os.path.join(demo_mirror, "eval.jsonl")
    code, err = _build(inside, ada, capsys)
    assert code == 2 and f"--output {inside} is inside {demo_mirror}, which the build reads" in err
    assert not os.path.exists(inside)


@pytest.fixture
def exported(helmet_opts, tmp_path):
    out = tmp_path / "export"
    export(["helmet/nq_8k"], str(out), histogram=False, **helmet_opts)
    return out


def test_export_deletes_only_what_an_export_wrote(exported, helmet_opts):
    folder = exported / "nq_8k"
    (folder / "notes.txt").write_text("mine")
    export(["helmet/nq_8k"], str(exported), histogram=False, max_shard_size="400KB", **helmet_opts)
    assert (folder / "notes.txt").read_text() == "mine"
    resharded = set(os.listdir(folder))
    assert len([n for n in resharded if n.startswith("eval-")]) > 1
    assert "eval-00000-of-00001.parquet" not in resharded  # the export's own old shard is gone
    assert (exported / MANIFEST).is_file()


def test_export_refuses_to_overwrite_or_read_a_file_it_did_not_write(helmet_opts, tmp_path):
    out = tmp_path / "export"
    (out / "nq_8k").mkdir(parents=True)
    (out / "nq_8k" / "eval-00000-of-00001.parquet").write_text("the user's")
    with pytest.raises(
        SuiteError, match=r"eval-00000-of-00001\.parquet was not written by an export .* overwritten"
    ):
        export(["helmet/nq_8k"], str(out), histogram=False, **helmet_opts)
    assert (out / "nq_8k" / "eval-00000-of-00001.parquet").read_text() == "the user's"
    assert os.listdir(out / "nq_8k") == ["eval-00000-of-00001.parquet"]


def test_export_output_that_is_a_file_is_one_line(helmet_opts, tmp_path, capsys):
    target = tmp_path / "file"
    target.write_text("x")
    args = ["export", "helmet/nq_8k", "--output", str(target), "--no-histogram"]
    args += ["--mirror", helmet_opts["mirror"], "--tokenizer", helmet_opts["tokenizer"]]
    assert cli.main(args) == 2
    assert f"export --output {target} is a file" in capsys.readouterr().err
    assert target.read_text() == "x"
