"""``export`` without a tokenizer, its atomicity, and the card's histogram (issue 20, items 4 and 7)."""

from __future__ import annotations

import math
import os

import pytest

from longbench_suite import export, registry
from longbench_suite.publish import card as cards
from longbench_suite.publish import hub
from longbench_suite.publish.card import ConfigCounts
from longbench_suite.publish.histogram import histogram_figure, token_axis
from tests.support.folders import snapshot

LVEVAL = [f"lveval/{c}" for c in registry.samples("lveval").DEMO_CONFIGS]


@pytest.fixture(scope="module")
def lveval_export(demo_mirror, tmp_path_factory):
    """LV-Eval's demo configs exported with no tokenizer: building LV-Eval loads none, and the default
    (gated Llama-2) cannot be had offline, so a statistics step that loaded it would fail."""
    out = tmp_path_factory.mktemp("lveval") / "repo"
    cache = str(tmp_path_factory.mktemp("lveval-cache"))
    result = export(LVEVAL, str(out), mirror=demo_mirror, cache_dir=cache)
    return out, result, cache


def test_lveval_exports_offline_without_a_tokenizer(lveval_export, monkeypatch):
    out, result, _ = lveval_export
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    readme = (out / "README.md").read_text(encoding="utf-8")
    for config in registry.samples("lveval").DEMO_CONFIGS:
        assert (out / config / "eval-00000-of-00001.parquet").is_file()
        counts = ConfigCounts.read(str(out / config / cards.TOKEN_COUNTS))
        assert counts.splits == {} and counts.rows["eval"] > 0 and counts.tokenizer == "none"
        assert f"| `{config}` | `eval` | {counts.rows['eval']} | - | - | - |" in readme
    assert "built without a tokenizer" in readme and "`--tokenizer`" in readme
    assert "lveval_input_tokens.png" not in readme and not (out / "lveval_input_tokens.png").exists()
    assert [s.min_tokens for s in result.stats] == [None] * len(LVEVAL)


def test_a_failed_export_leaves_no_folder(demo_mirror, tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("card writer broke")

    monkeypatch.setattr(cards, "write_card", broken)
    with pytest.raises(RuntimeError, match="card writer broke"):
        export(LVEVAL[:1], str(tmp_path / "new"), mirror=demo_mirror, cache_dir=str(tmp_path / "cache"))
    assert sorted(os.listdir(tmp_path)) == ["cache"]  # no folder, no staging left behind


def test_a_failed_reexport_leaves_the_folder_as_it_was(lveval_export, demo_mirror, tmp_path, monkeypatch):
    out, _, cache = lveval_export
    before = snapshot(out)
    real = hub._write_config
    calls = []

    def second_config_fails(directory, builder, *args):
        calls.append(builder.config.name)
        if len(calls) == 2:
            raise OSError("disk full")
        return real(directory, builder, *args)

    monkeypatch.setattr(hub, "_write_config", second_config_fails)
    with pytest.raises(OSError, match="disk full"):
        export(LVEVAL, str(out), mirror=demo_mirror, cache_dir=cache)
    assert len(calls) == 2
    assert snapshot(out) == before
    assert sorted(os.listdir(out.parent)) == ["repo"]


def test_a_reexport_replaces_linked_files_without_writing_through(lveval_export, demo_mirror, tmp_path):
    # The staging folder hard-links what the target holds: rewriting the card there must not change
    # the copy that a reader of the old folder (or a hard link elsewhere) still has.
    out, _, cache = lveval_export
    keep = tmp_path / "old-readme"
    os.link(out / "README.md", keep)
    with open(keep, "ab") as f:  # a change only the old inode has
        f.write(b"\n<!-- old -->\n")
    before = keep.read_bytes()
    export(LVEVAL[:1], str(out), mirror=demo_mirror, cache_dir=cache)
    assert keep.read_bytes() == before
    assert os.stat(keep).st_ino != os.stat(out / "README.md").st_ino
    assert b"<!-- old -->" not in (out / "README.md").read_bytes()


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_a_staged_folder_gets_the_permissions_of_any_new_folder(tmp_path, umask):
    from longbench_suite.publish.staging import staged

    old = os.umask(umask)
    try:
        with staged(str(tmp_path / "export")) as staging:
            assert os.path.dirname(staging) == str(tmp_path)
            with open(os.path.join(staging, "README.md"), "w") as f:
                f.write("card\n")
        plain = tmp_path / "made-plainly"
        plain.mkdir()
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "export").st_mode & 0o777 == 0o777 & ~umask == plain.stat().st_mode & 0o777
    assert sorted(os.listdir(tmp_path)) == ["export", "made-plainly"]


def _counts(name: str, **splits: list[int]) -> ConfigCounts:
    return ConfigCounts(name, "tok", "id", splits, rows={s: len(v) for s, v in splits.items()})


@pytest.mark.parametrize(
    ("low", "high", "scale"),
    [
        (870, 1010, "linear"),
        (330, 930, "linear"),
        (256, 16000, "log2"),
        (3, 131072, "log2"),
        (5, 5, "linear"),
    ],
)
def test_token_axis_always_has_labelled_ticks_inside_it(low, high, scale):
    found, edges, ticks = token_axis(low, high)
    assert found == scale
    assert edges[0] <= low and edges[-1] >= high
    inside = [t for t in ticks if edges[0] <= t <= edges[-1]]
    assert len(inside) >= 2
    if scale == "log2":
        assert all(math.log2(t) == int(math.log2(t)) for t in ticks)


def test_histogram_panels_ticks_and_identical_configs():
    same = list(range(900, 1000, 7))
    counts = [
        _counts("tsort_2k", eval=same),
        _counts("tsort_4k", eval=same),  # identical to tsort_2k: must not hide behind it
        _counts("bestanswer_1k", dev=[880, 890], eval=[870, 900, 905]),
        ConfigCounts("uncounted_1k", "none", "-", {}, rows={"eval": 4}),
    ]
    fig = histogram_figure(counts)
    fig.draw_without_rendering()  # tick labels exist once the figure is laid out
    panels = [ax for ax in fig.axes if ax.get_visible()]
    titles = [ax.get_title(loc="left") for ax in panels]
    assert titles == [
        "tsort_2k\ndev (none)",
        f"tsort_2k\neval · {len(same)} rows",
        "tsort_4k\ndev (none)",
        f"tsort_4k\neval · {len(same)} rows",
        "bestanswer_1k\ndev · 2 rows",
        "bestanswer_1k\neval · 3 rows",
    ]
    drawn = [p for p in panels if p.patches]
    assert len(drawn) == 4
    for ax in drawn:
        ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
        assert len(ticks) >= 2 and all(float(t).is_integer() for t in ticks), ax.get_title(loc="left")
    labelled = [ax for ax in panels if any(t.get_text() for t in ax.get_xticklabels())]
    assert labelled, "no panel labels its token axis"
    for ax in labelled:
        texts = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
        assert len(texts) >= 2 and all(t.replace(",", "").isdigit() for t in texts)


def test_histogram_png_is_written_for_every_counted_export(tmp_path):
    path = tmp_path / "h.png"
    from longbench_suite.publish.histogram import plot_histogram

    plot_histogram([_counts("a_1k", eval=[10, 12, 14])], str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no config has token counts"):
        plot_histogram([ConfigCounts("u", "none", "-", {}, rows={"eval": 2})], str(path))


def test_exported_card_yaml_counts_its_rows(lveval_export):
    from huggingface_hub import DatasetCard

    out, result, _ = lveval_export
    data = DatasetCard.load(str(out / "README.md"), ignore_metadata_errors=False).data
    rows = sum(s.rows for s in result.stats)
    assert 0 < rows < 1000 and data.size_categories == ["n<1K"]
    assert data.license == ["mit", "cc-by-sa-4.0"] and data.pretty_name


def _nothing_is_built(*args, **kwargs):
    raise AssertionError("the export built configs before checking its target")


def test_an_export_target_that_cannot_be_made_is_one_line_before_anything_is_built(
    demo_mirror, tmp_path, monkeypatch
):
    """A folder under a file, or beside which nothing can be written (a read-only mount, simulated: the
    real one, a read-only tmpfs, was checked by hand and gives the same line), is refused naming the
    path, before a config is built; nothing is written."""
    import errno

    from longbench_suite.errors import OptionError, StorageError

    monkeypatch.setattr(hub.api, "prepare", _nothing_is_built)
    a_file = tmp_path / "a-file"
    a_file.write_text("mine")
    with pytest.raises(OptionError, match=rf"^export --output {a_file}/sub: {a_file} is a file, so no"):
        export(LVEVAL[:1], str(a_file / "sub"), mirror=demo_mirror)
    assert a_file.read_text() == "mine"

    read_only = tmp_path / "read-only"
    read_only.mkdir()
    make_folder = os.mkdir

    def mkdir(path, *args, **kwargs):
        if str(path).startswith(str(read_only)):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return make_folder(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", mkdir)
    for output in (str(read_only / "sub"), f"file://{read_only}/sub/deeper"):
        with pytest.raises(StorageError) as raised:
            export(LVEVAL[:1], output, mirror=demo_mirror)
        message = str(raised.value)
        assert "\n" not in message and message.startswith(f"export --output {read_only}/sub"), message
        assert f"cannot write in {read_only} (OSError: [Errno 30] Read-only file system" in message
    assert os.listdir(read_only) == []


def test_a_dir_url_target_is_its_path_on_the_filesystem_beneath(lveval_export, demo_mirror, tmp_path):
    """``dir::URL`` roots fsspec's filesystem at URL's path (and returns that path too): written once
    rooted, locally (renamed into place) and on another filesystem, with the files of a plain export."""
    import fsspec

    out, _, cache = lveval_export
    export(LVEVAL, f"dir::file://{tmp_path}/local", mirror=demo_mirror, cache_dir=cache)
    assert snapshot(tmp_path / "local") == snapshot(out)
    export(LVEVAL, f"dir::{tmp_path}/bare", mirror=demo_mirror, cache_dir=cache)  # dir::PATH, no scheme
    assert snapshot(tmp_path / "bare") == snapshot(out)
    export(LVEVAL, "dir::memory://dir-url/lveval", mirror=demo_mirror, cache_dir=cache)
    fs = fsspec.filesystem("memory")
    files = {p[len("/dir-url/lveval/") :]: fs.cat_file(p) for p in fs.find("/dir-url/lveval")}
    assert files == snapshot(out)


def test_a_card_says_when_its_rows_come_from_sample_data(lveval_export, tmp_path):
    """Built from a sample mirror (one with the manifest the sandbox writes), the card warns that the
    rows are samples and names the configs; from any other mirror it does not."""
    from longbench_suite.demo import write_sandbox

    out, _, _ = lveval_export
    assert "## Sample data" not in (out / "README.md").read_text(encoding="utf-8")
    sandbox = str(tmp_path / "sandbox")
    write_sandbox(sandbox)
    export(LVEVAL, str(tmp_path / "out"), mirror=sandbox, cache_dir=str(tmp_path / "cache"))
    readme = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Sample data\n\n")[1].split("\n\n")[0]
    assert section.startswith("**These rows come from longbench-suite's sample data, not from upstream's")
    assert all(f"`{c.split('/')[1]}` (DEMO scale)" in section for c in LVEVAL)
