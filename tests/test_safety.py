"""Safety: archives never write outside the cache, code in downloads never runs, secrets never leak.

Tar-slip through a mirror is in ``test_sources.py::test_tar_slip_never_writes_outside_the_cache``; here
are zips, archives handed over as ``data_dir``, and whole builds.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import os
import shutil
import stat
import sys
import tarfile
import zipfile

import datasets
import pytest
from datasets.download.download_config import DownloadConfig
from datasets.download.download_manager import DownloadManager

from longbench_suite import cli, get_builder, load_dataset
from longbench_suite.api import prepared
from longbench_suite.benchmarks.helmet.common import ARCHIVE as HELMET_ARCHIVE
from longbench_suite.errors import DataFormatError, SourceError
from longbench_suite.records import iter_jsonl
from longbench_suite.samplefiles import jsonl_bytes, tar_gz_bytes, write_to_mirror
from longbench_suite.source import Member, RemoteFile, SourceResolver, hub_url, mirrored
from tests.support.http_mirror import Fault, MirrorServer

ZIP = RemoteFile(hub_url("org/repo", "data.zip"))
TAR = RemoteFile(hub_url("org/repo", "data.tar.gz"))
GOOD = {"data/a/good.jsonl": jsonl_bytes([{"x": 1}])}


def _resolver(tmp_path, **kw) -> SourceResolver:
    dl = DownloadManager(download_config=DownloadConfig(cache_dir=str(tmp_path / "downloads")))
    return SourceResolver(dl, cache_root=str(tmp_path / "cache"), **kw)


def _evil_zip(outside: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in (outside, "../evil-up.txt", "data/../../evil-mid.txt", "data/a/../../../evil-deep.txt"):
            zf.writestr(name, b"evil")
        link = zipfile.ZipInfo("data/a/link.jsonl")  # a symlink entry pointing outside
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
        for name, data in GOOD.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _evil_tar(outside: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name in (outside, "../evil-up.txt", "data/../../evil-mid.txt"):
            info = tarfile.TarInfo(name)
            info.size = 4
            tar.addfile(info, io.BytesIO(b"evil"))
        link = tarfile.TarInfo("data/a/link.jsonl")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
        for name, data in GOOD.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _written_outside(tmp_path, outside: str) -> list[str]:
    suspects = [
        outside,
        tmp_path / "evil-up.txt",
        tmp_path.parent / "evil-mid.txt",
        tmp_path / "evil-mid.txt",
    ]
    suspects += [tmp_path.parent / "evil-deep.txt", tmp_path / "evil-deep.txt"]
    return [str(p) for p in suspects if os.path.exists(p)]


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
@pytest.mark.parametrize("given_as", ["mirror", "data_dir"])
def test_archive_members_never_write_outside_the_cache(tmp_path, kind, given_as):
    outside = str(tmp_path / f"outside-{kind}-{given_as}.txt")
    archive, data = (ZIP, _evil_zip(outside)) if kind == "zip" else (TAR, _evil_tar(outside))
    root = tmp_path / "given"
    if given_as == "mirror":
        write_to_mirror(str(root), archive.url, data)
        resolver = _resolver(tmp_path, mirror=str(root))
    else:  # the archive itself in a folder of the user's
        root.mkdir()
        (root / archive.name).write_bytes(data)
        resolver = _resolver(tmp_path, data_dir=str(root))

    good = resolver.resolve({"good": Member(archive, "data/a/good.jsonl")})["good"]
    assert [r for _, r in iter_jsonl(good)] == [{"x": 1}]
    if kind == "tar.gz":  # links are not regular files: not a member a build can ask for
        with pytest.raises(SourceError, match=r"has no member data/a/link\.jsonl"):
            resolver.resolve({"link": Member(archive, "data/a/link.jsonl")})
    else:  # a zip's link entry is read as its own bytes (the link's text), never followed
        link = resolver.resolve({"link": Member(archive, "data/a/link.jsonl")})["link"]
        with pytest.raises(DataFormatError, match=r"link\.jsonl in .*, line 1: malformed JSON"):
            list(iter_jsonl(link))
    for unsafe in ("../evil-up.txt", "/etc/passwd", "data/../../evil-mid.txt"):
        with pytest.raises(ValueError, match="unsafe"):
            resolver.resolve({"x": Member(archive, unsafe)})

    assert _written_outside(tmp_path, outside) == []
    copies = [
        os.path.relpath(os.path.join(d, f), tmp_path / "cache" / "members").split(os.sep)[1:]
        for d, _, fs in os.walk(tmp_path / "cache" / "members")
        for f in fs
        if not f.endswith(".complete")
    ]
    # zips are read in place; a tar's copies are the requested regular files, under the cache only
    assert copies == ([] if kind == "zip" else [["data", "a", "good.jsonl"]])


# -- no code from downloads runs ------------------------------------------------------------------

MARKER_CODE = "open({marker!r}, 'w').write('ran')\n"


def _planted_code(directory, marker: str) -> list[str]:
    """Python files that would leave ``marker`` if anything imported or ran them."""
    code = MARKER_CODE.format(marker=marker)
    names = [
        "helmet.py",
        "HELMET.py",
        "__init__.py",
        "sitecustomize.py",
        "data/kilt/__init__.py",
        "data/kilt/x.py",
    ]
    written = []
    for name in names:
        path = os.path.join(directory, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(code)
        written.append(path)
    with open(os.path.join(directory, "evil.pth"), "w") as f:
        f.write(f"import os; {code}")
    return written


@pytest.mark.slow
def test_code_in_archives_mirrors_and_data_dirs_never_runs(demo_mirror, tiny_tokenizer, tmp_path):
    marker = str(tmp_path / "code-ran")
    code = MARKER_CODE.format(marker=marker).encode()
    # An archive with Python files next to the data (and named like the data's package).
    with tarfile.open(mirrored(HELMET_ARCHIVE.url, demo_mirror)) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isreg()}
    members.update({"data/kilt/__init__.py": code, "data/__init__.py": code, "data/kilt/helmet.py": code})
    mirror = tmp_path / "mirror"
    write_to_mirror(str(mirror), HELMET_ARCHIVE.url, tar_gz_bytes(members))
    # Loading scripts at the Hub repo's paths, as a dataset repo with a script would have them.
    repo = mirror / "huggingface.co" / "datasets" / "princeton-nlp" / "HELMET" / "resolve" / "main"
    _planted_code(str(repo), marker)
    # A data_dir holding the extracted tree plus Python files.
    data_dir = tmp_path / "mine"
    for name, data in members.items():
        if "hotpotqa" in name or name.endswith(".py"):
            (data_dir / name).parent.mkdir(parents=True, exist_ok=True)
            (data_dir / name).write_bytes(data)
    _planted_code(str(data_dir), marker)

    with MirrorServer(str(mirror)) as server:
        over_http = load_dataset(
            "helmet",
            "hotpotqa_8k",
            mirror=server.url,
            tokenizer=tiny_tokenizer,
            cache_dir=str(tmp_path / "c1"),
        )
        streamed = list(
            load_dataset(
                "helmet",
                "hotpotqa_8k",
                split="eval",
                streaming=True,
                mirror=server.url,
                tokenizer=tiny_tokenizer,
                cache_dir=str(tmp_path / "c2"),
            )
        )
        requested = [path for _, path in server.requests]
    from_dir = load_dataset(
        "helmet",
        "hotpotqa_8k",
        data_dir=str(data_dir),
        tokenizer=tiny_tokenizer,
        cache_dir=str(tmp_path / "c3"),
    )
    assert over_http["eval"].to_list() == streamed == from_dir["eval"].to_list()
    assert not os.path.exists(marker)
    assert not [p for p in requested if p.endswith(".py")], "a loading script was fetched"
    planted = [m for m in list(sys.modules.values()) if str(tmp_path) in str(getattr(m, "__file__", ""))]
    assert planted == []


def test_a_dataset_repo_with_a_loading_script_is_refused_not_run(tmp_path):
    marker = str(tmp_path / "script-ran")
    repo = tmp_path / "some_dataset"
    _planted_code(str(repo), marker)
    (repo / "some_dataset.py").write_text(MARKER_CODE.format(marker=marker))
    for kwargs in ({}, {"trust_remote_code": True}):
        with pytest.raises(RuntimeError, match=r"Dataset scripts are no longer supported"):
            load_dataset(str(repo), cache_dir=str(tmp_path / "c"), **kwargs)
    assert not os.path.exists(marker)


def test_a_tokenizer_folder_with_code_loads_only_its_tokenizer_json(tiny_tokenizer, tmp_path):
    from longbench_suite.fit.tokenizers import load_tokenizer

    marker = str(tmp_path / "tokenizer-code-ran")
    folder = tmp_path / "tok"
    folder.mkdir()
    shutil.copy(tiny_tokenizer, folder / "tokenizer.json")
    (folder / "tokenization_evil.py").write_text(MARKER_CODE.format(marker=marker))
    (folder / "tokenizer_config.json").write_text(
        json.dumps(
            {
                "auto_map": {"AutoTokenizer": ["tokenization_evil.EvilTokenizer", None]},
                "clean_up_tokenization_spaces": False,  # as the tiny tokenizer's own config says
            }
        )
    )
    counter = load_tokenizer(str(folder))
    assert counter.identity == load_tokenizer(tiny_tokenizer).identity
    assert counter.count("river mountain") > 0
    assert not os.path.exists(marker)


# -- secrets never leak ---------------------------------------------------------------------------

TOKEN = "hf_ReliabilitySecretToken0123"
PASSWORD = "MirrorPassw0rdSecret"


def test_tokens_and_mirror_credentials_never_appear_in_logs_paths_info_or_files(
    demo_mirror, tiny_tokenizer, cl100k, tmp_path, monkeypatch, caplog, capsys
):
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    secrets = [TOKEN, PASSWORD, base64.b64encode(f"alice:{PASSWORD}".encode()).decode()]
    cache = str(tmp_path / "cache")
    caplog.set_level(logging.DEBUG)
    datasets.logging.set_verbosity_debug()
    try:
        with MirrorServer(demo_mirror) as server:
            mirror = server.url.replace("http://", f"http://alice:{PASSWORD}@")
            infos = []
            for bench, config, tokenizer in (
                ("helmet", "hotpotqa_8k", tiny_tokenizer),
                ("lveval", "factrecall_en_16k", None),
                ("adaleval", "bestanswer_1k", None),
            ):
                builder = get_builder(
                    f"{bench}/{config}", mirror=mirror, tokenizer=tokenizer, cache_dir=cache
                )
                prepared(builder, None)
                list(
                    load_dataset(
                        bench,
                        config,
                        split="eval",
                        streaming=True,
                        mirror=mirror,
                        cache_dir=cache,
                        tokenizer=tokenizer,
                    )
                )
                infos.append(json.dumps(builder.info._to_yaml_dict(), default=str))
                infos.append(builder.cache_dir)
            common = ["--mirror", mirror, "--cache-dir", cache]
            assert (
                cli.main(
                    ["build", "lveval/factrecall_en_16k", "--stats", "--tokenizer", tiny_tokenizer, *common]
                )
                == 0
            )
            assert (
                cli.main(["check", "lveval/factrecall_en_16k", *common]) == 1
            )  # DEMO sizes are not the spec's
            server.faults["opencompass.openxlab.space/utils/AdaLEval/stackselect_2k.json"] = Fault(status=403)
            assert cli.main(["build", "adaleval/bestanswer_2k", *common]) == 2
            sent = set(server.authorizations)
    finally:
        datasets.logging.set_verbosity_warning()
    assert sent == {"Basic " + secrets[2]}, "the mirror's credentials were not sent"
    out = capsys.readouterr()
    texts = {"log": caplog.text, "stdout": out.out, "stderr": out.err, "info": "\n".join(infos)}
    assert "cannot download http://127.0.0.1" in out.err
    for directory, _, files in os.walk(cache):
        texts[f"path {directory}"] = directory
        for name in files:
            with open(os.path.join(directory, name), "rb") as f:
                texts[os.path.join(directory, name)] = name + f.read().decode("utf-8", "replace")
    benchmarks_dir = os.path.join(os.path.dirname(__file__), "..", "longbench_suite", "benchmarks")
    for name in os.listdir(benchmarks_dir):
        card = os.path.join(benchmarks_dir, name, "card.md")
        if os.path.isfile(card):
            with open(card, encoding="utf-8") as f:
                texts[f"card {name}"] = f.read()
    leaks = [(where, s) for where, text in texts.items() for s in secrets if s in text]
    assert leaks == []
