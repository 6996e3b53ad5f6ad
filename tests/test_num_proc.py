"""``num_proc``: a prepared build in N processes (``datasets``' multiprocessing over the builder's
shards) gives the rows of one process, for every benchmark, and an export the same Parquet bytes.

(The Arrow files of N processes are N files, so a split's record batches are cut differently;
``Dataset.to_parquet`` writes pages along those batches, so only the rows are compared there, and the
export, which writes the Hub's files, is compared byte for byte.)"""

from __future__ import annotations

import glob
import os

import pytest

from longbench_suite import api, load_dataset, registry
from longbench_suite.cli import main
from longbench_suite.errors import OptionError
from longbench_suite.publish import hub


def _rows(built) -> dict[str, list[dict]]:
    return {split: dataset.to_list() for split, dataset in built.items()}


def _arrow_files(cache) -> list[str]:
    return sorted(
        os.path.basename(p) for p in glob.glob(os.path.join(str(cache), "**", "*.arrow"), recursive=True)
    )


@pytest.mark.slow
@pytest.mark.parametrize("bench", registry.benchmark_names())
def test_two_processes_build_the_rows_of_one(bench, demo_mirror, tiny_tokenizer, tmp_path):
    config = registry.samples(bench).DEMO_CONFIGS[0]
    options = dict(mirror=demo_mirror, tokenizer=tiny_tokenizer, pretruncation_tokenizer=tiny_tokenizer)
    one = _rows(load_dataset(bench, config, cache_dir=str(tmp_path / "c1"), num_proc=1, **options))
    two = _rows(load_dataset(bench, config, cache_dir=str(tmp_path / "c2"), num_proc=2, **options))
    assert one == two and all(one.values()), config
    task = registry.benchmark(bench).lookup(config)[0]
    if task.shardable:  # two processes really wrote a part each
        assert any("-00001-of-00002.arrow" in name for name in _arrow_files(tmp_path / "c2")), config
    assert not any("-of-" in name for name in _arrow_files(tmp_path / "c1"))


@pytest.mark.slow
def test_export_in_two_processes_writes_the_same_parquet(demo_mirror, tiny_tokenizer, tmp_path):
    options = dict(mirror=demo_mirror, tokenizer=tiny_tokenizer, histogram=False)
    hub.export(["helmet/nq_8k"], str(tmp_path / "one"), cache_dir=str(tmp_path / "c1"), **options)
    hub.export(["helmet/nq_8k"], str(tmp_path / "two"), cache_dir=str(tmp_path / "c2"), num_proc=2, **options)
    names = sorted(os.listdir(tmp_path / "one" / "nq_8k"))
    assert names == sorted(os.listdir(tmp_path / "two" / "nq_8k"))
    for name in names:
        assert (tmp_path / "one" / "nq_8k" / name).read_bytes() == (
            tmp_path / "two" / "nq_8k" / name
        ).read_bytes()
    assert any("-00001-of-00002.arrow" in n for n in _arrow_files(tmp_path / "c2"))


@pytest.mark.parametrize("value", [0, -1, 1.5, "2", True])
def test_a_bad_num_proc_is_one_clear_error(value):
    with pytest.raises(OptionError, match=r"num_proc must be a positive integer"):
        api.check_num_proc(value)


def test_the_cli_refuses_a_bad_num_proc_in_one_line(capsys, tmp_path):
    code = main(["build", "helmet/nq_8k", "--num-proc", "0", "--cache-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code != 0 and "num_proc must be a positive integer, got 0" in err and "Traceback" not in err


def test_export_refuses_a_bad_num_proc_before_building(tmp_path):
    with pytest.raises(OptionError, match=r"num_proc must be a positive integer, got -2"):
        hub.export(["helmet/nq_8k"], str(tmp_path / "out"), num_proc=-2, histogram=False)
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_workers_neither_plan_the_split_again_nor_load_the_tokenizer(
    demo_mirror, tiny_tokenizer, tmp_path, monkeypatch
):
    """The split's plan is made once, before the workers are forked; a worker uses the parent's plan
    and the tokenizer it was forked with (no parse, no probe)."""
    from longbench_suite.fit.tokenizers import hf

    calls = tmp_path / "calls.txt"

    def logged(name, real):
        def wrapper(*args, **kwargs):
            with open(calls, "a") as f:
                f.write(f"{name} {os.getpid()}\n")
            return real(*args, **kwargs)

        return wrapper

    task = registry.benchmark("helmet").lookup("nq_8k")[0]
    monkeypatch.setattr(type(task), "plan", logged("plan", type(task).plan))
    monkeypatch.setattr(hf, "exact_counter", logged("tokenizer", hf.exact_counter))
    options = dict(mirror=demo_mirror, tokenizer=tiny_tokenizer, pretruncation_tokenizer=tiny_tokenizer)
    one = _rows(load_dataset("helmet", "nq_8k", cache_dir=str(tmp_path / "c1"), **options))
    calls.unlink(missing_ok=True)
    two = _rows(load_dataset("helmet", "nq_8k", cache_dir=str(tmp_path / "c2"), num_proc=2, **options))
    assert one == two and len(one) == 2
    assert any("-00001-of-00002.arrow" in name for name in _arrow_files(tmp_path / "c2"))
    lines = calls.read_text().split() if calls.exists() else []
    assert sorted(lines[0::2]) == ["plan", "plan"]  # one plan per split, nothing loaded
    assert set(lines[1::2]) == {str(os.getpid())}  # made here, before the workers were forked
