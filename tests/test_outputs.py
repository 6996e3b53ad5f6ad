"""Outputs are atomic and never touch a file the user owns: ``build --output`` is written aside and
moved into place, may not be a folder nor lie among the build's sources; ``export`` into a file is
one line."""

from __future__ import annotations

import errno
import os

import datasets
import pytest

from longbench_suite import cli, export
from longbench_suite.errors import SuiteError

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


def test_files_written_together_are_all_replaced_or_none(tmp_path):
    """A run's reports are written aside together: a full disk while writing the second leaves both
    files of before (no new one beside an old one) and no partial file, in one line naming them."""
    from longbench_suite.errors import StorageError
    from longbench_suite.outputs import written_aside_together

    files = [tmp_path / "results.md", tmp_path / "results.json"]
    paths = [str(f) for f in files]
    for file in files:
        file.write_text("before\n")
    with pytest.raises(StorageError) as raised, written_aside_together(paths) as (md, _json):
        with open(md, "w") as f:
            f.write("after\n")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert str(raised.value) == (
        f"cannot write {paths[0]}, {paths[1]}: OSError: [Errno 28] No space left on device; "
        "the files there were left as they were"
    )
    assert [f.read_text() for f in files] == ["before\n", "before\n"]
    assert sorted(os.listdir(tmp_path)) == ["results.json", "results.md"]
    with written_aside_together(paths) as partials:
        for partial in partials:
            with open(partial, "w") as f:
                f.write("after\n")
    assert [f.read_text() for f in files] == ["after\n", "after\n"]
    assert sorted(os.listdir(tmp_path)) == ["results.json", "results.md"]


def test_output_may_not_be_a_folder_nor_a_source(ada, demo_mirror, tmp_path, capsys):
    code, err = _build(tmp_path, ada, capsys)
    assert code == 2 and f"--output {tmp_path} is a directory" in err
    nowhere = tmp_path / "nowhere" / "eval.jsonl"
    code, err = _build(nowhere, ada, capsys)  # refused before the build
    assert code == 2 and err.endswith(f"--output {nowhere}: the folder {nowhere.parent} does not exist")
    mine = tmp_path / "notes.txt"
    mine.write_text("mine\n")
    code, err = _build(mine / "eval.jsonl", ada, capsys)
    assert code == 2 and err.endswith(f"--output {mine / 'eval.jsonl'}: the folder {mine} is a file")
    assert mine.read_text() == "mine\n"
    inside = os.path.join(demo_mirror, "eval.jsonl")
    code, err = _build(inside, ada, capsys)
    assert code == 2 and f"--output {inside} is inside {demo_mirror}, which the build reads" in err
    assert not os.path.exists(inside)


def test_export_output_that_is_a_file_is_one_line(helmet_opts, tmp_path, capsys):
    target = tmp_path / "file"
    target.write_text("x")
    args = ["export", "helmet/nq_8k", "--output", str(target), "--no-histogram"]
    args += ["--mirror", helmet_opts["mirror"], "--tokenizer", helmet_opts["tokenizer"]]
    assert cli.main(args) == 2
    assert f"export --output {target} is a file" in capsys.readouterr().err
    assert target.read_text() == "x"


def test_a_re_export_never_drops_a_file_it_did_not_write(helmet_opts, tmp_path, capsys):
    out = tmp_path / "export"
    export(["helmet/nq_8k"], str(out), histogram=False, **helmet_opts)
    shards = sorted(p.name for p in (out / "nq_8k").iterdir())
    export(["helmet/nq_8k"], str(out), histogram=False, **helmet_opts)  # only its own files: fine
    assert sorted(p.name for p in (out / "nq_8k").iterdir()) == shards
    mine = out / "nq_8k" / "notes.txt"
    mine.write_text("my notes\n")
    with pytest.raises(SuiteError, match=r"nq_8k/notes\.txt is not a file an export writes; move it out"):
        export(["helmet/nq_8k"], str(out), histogram=False, **helmet_opts)
    assert mine.read_text() == "my notes\n" and sorted(p.name for p in (out / "nq_8k").iterdir()) == sorted(
        [*shards, "notes.txt"]
    )
