"""The fault matrix: every way a build meets bad sources or bad options, for each merged benchmark.

Each case breaks one thing and builds over a loopback HTTP mirror of the DEMO samples (so downloads go
through the ``datasets`` download cache, as for real users): HELMET's ``data.tar.gz``, LV-Eval's zips,
Ada-LEval's plain JSON over ``http://``. Every case asserts

1. a :class:`SuiteError` whose one-line message names what is at fault (file, member, line, field,
   config, URL with its HTTP status);
2. no cache entry a later build would trust — no finished Arrow build, no download or archive-member
   copy whose bytes differ from a good source (``tests/support/cache_audit.py``);
3. once the fault is removed, a rebuild *into the same cache* succeeds and gives exactly the rows of a
   clean build.

A build killed while it writes (Arrow files, archive members, a download) is the last test here.
Related cases live next to the code they test and are not repeated: local-mirror corrupt archives
(``test_sources.py::test_corrupt_and_truncated_archives``), a missing member in ``data_dir``
(``test_api_cli.py::test_failed_build_leaves_no_cache_and_rerun_succeeds``), malformed records of each
benchmark's own layout (``test_lveval.py``, ``test_adaleval.py``, ``test_records.py``).
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass

import datasets
import pytest

from longbench_suite import load_dataset
from longbench_suite.benchmarks.helmet.common import ARCHIVE as HELMET_ARCHIVE
from longbench_suite.benchmarks.helmet.icl import TREC_TEST
from longbench_suite.benchmarks.lveval import common as lveval_common
from longbench_suite.errors import (
    DataFormatError,
    InvalidTextError,
    MissingDependencyError,
    OptionError,
    ShortSourceError,
    SourceError,
    SplitUnavailableError,
    StorageError,
    SuiteError,
    TokenizerLoadError,
    UnknownNameError,
)
from longbench_suite.fit.tokenizers import loading as tokenizer_loading
from longbench_suite.samplefiles import tar_gz_bytes, zip_bytes
from longbench_suite.source import archives, download, mirrored
from longbench_suite.source.samples import RECORDS_NAME
from tests.support.archive_edits import flip_bytes, flip_member_bytes, read_members, replace_line
from tests.support.cache_audit import good_digests, trusted_leftovers
from tests.support.fake_openai import FakeOpenAI
from tests.support.http_mirror import Fault, MirrorServer

HELMET = "helmet/hotpotqa_8k"
LVEVAL = "lveval/factrecall_en_16k"
LVEVAL_SHA = "lveval/hotpotwikiqa_mixup_16k"  # its zip has a published sha256
ADA = "adaleval/bestanswer_1k"

TAR = HELMET_ARCHIVE.url
TAR_MEMBER = "data/kilt/hotpotqa-dev-multikilt_1000_k50_dep3.jsonl"
ZIP = lveval_common.archive("factrecall_en").url
ZIP_MEMBER = "factrecall_en/factrecall_en_16k.jsonl"
SHA_ZIP = lveval_common.archive("hotpotwikiqa_mixup").url
JSON = "http://opencompass.openxlab.space/utils/AdaLEval/stackselect_1k.json"

# How the failing URL shows in messages: the loopback mirror's address, then the upstream host and path.
SERVED = r"http://127\.0\.0\.1:\d+/"
TAR_AT = SERVED + r"huggingface\.co/datasets/princeton-nlp/HELMET/resolve/main/data\.tar\.gz"
ZIP_AT = SERVED + r"huggingface\.co/datasets/Infinigence/LVEval/resolve/[0-9a-f]{40}/factrecall_en\.zip"
JSON_AT = SERVED + r"opencompass\.openxlab\.space/utils/AdaLEval/stackselect_1k\.json"
TAR_NAME = re.escape(TAR)
ZIP_NAME = re.escape(ZIP)
JSON_NAME = re.escape(JSON)


class Broken:
    """A served copy of the sample mirror plus the request; faults change either, ``repair`` undoes them."""

    def __init__(
        self, pristine: str, root: str, config: str, tokenizer: str | None, lasting: pytest.MonkeyPatch
    ) -> None:
        self.pristine, self.mirror = pristine, os.path.join(root, "mirror")
        self.lasting = lasting  # patches that outlive the repair (until the test ends)
        self.repairs: list[Callable[[], None]] = []
        shutil.copytree(pristine, self.mirror)
        self.server = MirrorServer(self.mirror).__enter__()
        self.patch = pytest.MonkeyPatch()
        self.default = {"path": config.split("/")[0], "name": config.split("/")[1], "tokenizer": tokenizer}
        self.request = dict(self.default)
        self.base_url: str | None = None  # None: the running server's

    # -- faults -----------------------------------------------------------------------------------

    def rewrite(self, url: str, change: Callable[[bytes], bytes]) -> None:
        path = mirrored(url, self.mirror)
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(change(data))

    def edit_member(self, url: str, member: str, change: Callable[[bytes], bytes | None]) -> None:
        """Rewrite an archive with one member changed (``None`` drops it)."""

        def rebuild(data: bytes) -> bytes:
            members = read_members(data)
            new = change(members.pop(member))
            if new is not None:
                members[member] = new
            return zip_bytes(members) if url.endswith(".zip") else tar_gz_bytes(members)

        self.rewrite(url, rebuild)

    def serve(self, url: str, **fault) -> None:
        self.server.faults[mirrored(url, "").lstrip("/")] = Fault(**fault)

    def refuse_connections(self) -> None:
        port = self.server.port
        self.server.__exit__(None, None, None)
        self.base_url = f"http://127.0.0.1:{port}"

    # -- builds -----------------------------------------------------------------------------------

    def build(self, cache: str, streaming: bool = False):
        options = dict(self.request)
        path, name, split = options.pop("path"), options.pop("name"), options.pop("split", None)
        if options.pop("cache_dir_is_a_file", False):
            cache = os.path.join(os.path.dirname(self.mirror), "a-file")
            open(cache, "w").close()
        mirror = self.base_url or self.server.url
        if streaming:
            rows = load_dataset(
                path, name, split="eval", streaming=True, mirror=mirror, cache_dir=cache, **options
            )
            return {"eval": list(rows)}
        built = load_dataset(path, name, split=split, mirror=mirror, cache_dir=cache, **options)
        return {s: d.to_list() for s, d in built.items()}

    def repair(self) -> None:
        self.patch.undo()
        self.server.faults.clear()
        shutil.rmtree(self.mirror)
        shutil.copytree(self.pristine, self.mirror)
        self.request = dict(self.default)
        for repair in self.repairs:
            repair()
        if self.base_url:  # back on the same port, so the rebuild asks for the same URLs
            self.server = MirrorServer(self.mirror, port=int(self.base_url.rsplit(":", 1)[1])).__enter__()
            self.base_url = None

    def close(self) -> None:
        self.patch.undo()
        if not self.base_url:
            self.server.__exit__(None, None, None)


@dataclass(frozen=True)
class Case:
    config: str
    fault: Callable[[Broken], None]
    error: type[SuiteError]
    names: str  # what the one-line message must say (a regex)
    streaming: bool = False  # break a streamed read instead of a prepared build
    keeps_download: bool = False  # a local cause: the (good) download must still be in the cache


def _unparseable_tokenizer(b: Broken) -> None:
    path = os.path.join(os.path.dirname(b.mirror), "tok", "tokenizer.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write('{"version": "1.0", "model": ')
    b.request["tokenizer"] = path


def _published_digest_mismatch(b: Broken) -> None:
    # The fixture zip cannot match the published digest. Repaired as a good zip would be: the expected
    # digest becomes the served file's own.
    b.default["name"] = b.request["name"] = LVEVAL_SHA.split("/")[1]
    with open(mirrored(SHA_ZIP, b.pristine), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    b.repairs.append(lambda: b.lasting.setitem(lveval_common.ARCHIVE_SHA256, "hotpotwikiqa_mixup", digest))


def _without_tiktoken(b: Broken) -> None:
    b.patch.setitem(sys.modules, "tiktoken", None)
    tokenizer_loading._load_named.cache_clear()


def _without_aiohttp(b: Broken) -> None:
    registry = sys.modules["fsspec.registry"]._registry  # fsspec's loaded implementations
    for protocol in ("http", "https"):
        if protocol in registry:
            b.patch.delitem(registry, protocol)
    b.patch.setitem(sys.modules, "fsspec.implementations.http", None)
    b.patch.setitem(sys.modules, "aiohttp", None)


def _question_not_a_string(data: bytes) -> bytes:
    record = json.loads(data.split(b"\n")[0])
    record["question"] = ["not", "a", "string"]
    return replace_line(data, 1, json.dumps(record).encode())


def _disk_full(stream, info, target) -> None:
    raise OSError(errno.ENOSPC, "No space left on device", target)


class _ReadOnlyLock:
    """``datasets``' file lock on a read-only file system."""

    def __init__(self, path, *args, **kwargs) -> None:
        self.path = str(path)

    def __enter__(self):
        raise OSError(errno.EROFS, "Read-only file system", self.path)

    def __exit__(self, *exc) -> None:
        pass


def _lone_surrogate_line(data: bytes) -> bytes:
    record = json.loads(data.split(b"\n")[0])
    record["context"] = "before \\ud800 after"  # written below as the JSON escape \ud800
    line = json.dumps(record).replace("\\\\ud800", "\\ud800").encode()
    return replace_line(data, 1, line)


def _generate(b: Broken, config: str, **options) -> None:
    """Ask for a generated config instead (not screened: the pristine archive holds no recall files)."""
    b.request.update(name=config, split="dev", generate={"rows": 1, "screen": False, **options})


def _essay(b: Broken, data: bytes) -> None:
    path = os.path.join(os.path.dirname(b.mirror), "essay.txt")
    with open(path, "wb") as f:
        f.write(data)
    _generate(b, "gen_niah_single_2_8k", essay=path)


def _essay_over_the_limit(b: Broken) -> None:
    from longbench_suite.generate import limits

    b.patch.setattr(limits, "MAX_ESSAY_BYTES", 100)
    _essay(b, b"A sentence of an essay. " * 10)


def _http_faults(prefix: str, config: str, url: str, served_at: str) -> dict[str, Case]:
    """What a mirror's transport can do to one source: an HTTP error, no server, a body cut short."""
    return {
        f"{prefix}-404": Case(
            config, lambda b: b.serve(url, status=404), SourceError, rf"{served_at}: .*HTTP 404"
        ),
        f"{prefix}-500": Case(
            config, lambda b: b.serve(url, status=500), SourceError, rf"{served_at}: .*HTTP 500"
        ),
        f"{prefix}-connection-refused": Case(
            config, Broken.refuse_connections, SourceError, rf"cannot download {served_at}: .*Connect"
        ),
        # Every response ends before its first byte: no progress, so the retries run out. (A body
        # cut after some bytes resumes: tests/test_downloads.py.)
        f"{prefix}-cut-off": Case(
            config,
            lambda b: b.serve(url, cut_after=0),
            SourceError,
            rf"cannot download {served_at}: .*(not completed|ended after 0 of its \d+ bytes)",
        ),
    }


CASES = {
    **_http_faults("tar", HELMET, TAR, TAR_AT),
    **_http_faults("zip", LVEVAL, ZIP, ZIP_AT),
    **_http_faults("json", ADA, JSON, JSON_AT),
    # -- HELMET: data.tar.gz over http ------------------------------------------------------------
    "tar-truncated": Case(
        HELMET,
        lambda b: b.rewrite(TAR, lambda d: d[: len(d) // 2]),
        SourceError,
        rf"archive {TAR_NAME} is corrupt or truncated",
    ),
    "tar-corrupt": Case(
        HELMET,
        lambda b: b.rewrite(TAR, lambda d: flip_bytes(d, 0.3)),
        SourceError,
        rf"archive {TAR_NAME} is corrupt or truncated",
    ),
    "tar-malformed-json-line": Case(
        HELMET,
        lambda b: b.edit_member(TAR, TAR_MEMBER, lambda d: replace_line(d, 7, b'{"question": "who')),
        DataFormatError,
        rf"{re.escape(TAR_MEMBER)} in {TAR_NAME}, line 7: malformed JSON",
    ),
    "tar-member-missing": Case(
        HELMET,
        lambda b: b.edit_member(TAR, TAR_MEMBER, lambda d: None),
        SourceError,
        rf"archive {TAR_NAME} has no member {re.escape(TAR_MEMBER)}",
    ),
    "tar-cut-off-without-length": Case(
        HELMET,
        lambda b: b.serve(TAR, cut_after=100_000, no_length=True),
        SourceError,
        rf"archive {TAR_NAME} is corrupt or truncated",
    ),
    "tar-404-streamed": Case(
        HELMET,
        lambda b: b.serve(TAR, status=404),
        SourceError,
        rf"cannot read data/kilt/\S+ in {TAR_NAME}: .*HTTP 404",
        streaming=True,
    ),
    "tar-cut-off-streamed": Case(
        HELMET,
        lambda b: b.serve(TAR, cut_after=100_000),
        SourceError,
        rf"cannot read data/kilt/\S+ in {TAR_NAME}: ConnectionError",
        streaming=True,
    ),
    "tar-question-not-a-string": Case(
        HELMET,
        lambda b: b.edit_member(TAR, TAR_MEMBER, _question_not_a_string),
        DataFormatError,
        rf"{re.escape(TAR_MEMBER)} in {TAR_NAME}, line 1: field 'question' must be",
    ),
    "tar-disk-full-copying-members": Case(
        HELMET,
        lambda b: b.patch.setattr("longbench_suite.source.archives._copy_member", _disk_full),
        StorageError,
        rf"cannot copy members of {TAR_NAME} into \S+: .*No space left on device.*; the download is kept",
        keeps_download=True,
    ),
    "trec-empty-body": Case(
        "helmet/trec_coarse_8k",
        lambda b: b.rewrite(TREC_TEST.url, lambda d: b""),
        ShortSourceError,
        r"TREC_10\.label: holds 0 records, fewer than the 40",
    ),
    # A short copy the first time it is ever seen, still well-formed: held to the sample mirror's
    # declared record count (upstream's 500 for the real file), never fewer rows.
    "trec-cut-at-a-line-end": Case(
        "helmet/trec_coarse_8k",
        lambda b: b.rewrite(TREC_TEST.url, lambda d: b"".join(d.splitlines(keepends=True)[:21])),
        ShortSourceError,
        r"TREC_10\.label: holds 21 records, fewer than the 40 it is declared to hold",
    ),
    "trec-cut-inside-a-line": Case(
        "helmet/trec_coarse_8k",
        lambda b: b.rewrite(TREC_TEST.url, lambda d: d[: d.index(b"\n", len(d) // 2) - 3]),
        ShortSourceError,  # a counted text file is judged by its count: the cut leaves fewer lines
        r"TREC_10\.label: holds \d+ records, fewer than the 40 it is declared to hold",
    ),
    "tokenizer-unparseable": Case(
        HELMET,
        _unparseable_tokenizer,
        TokenizerLoadError,
        r"cannot load tokenizer '\S+/tok/tokenizer\.json' from \S+/tok/tokenizer\.json",
    ),
    # -- LV-Eval: per-dataset zips over http ------------------------------------------------------
    "zip-member-cut-at-a-line-end": Case(
        LVEVAL,
        lambda b: b.edit_member(ZIP, ZIP_MEMBER, lambda d: b"".join(d.splitlines(keepends=True)[:3])),
        ShortSourceError,
        rf"{re.escape(ZIP_MEMBER)} in {ZIP_NAME}: holds 3 records, fewer than the \d+ it is declared",
    ),
    "zip-truncated": Case(
        LVEVAL,
        lambda b: b.rewrite(ZIP, lambda d: d[: len(d) // 2]),
        SourceError,
        rf"archive {ZIP_NAME} is corrupt or truncated",
    ),
    "zip-corrupt": Case(
        LVEVAL,
        lambda b: b.rewrite(ZIP, lambda d: flip_bytes(d, 0.1, 16)),
        SourceError,
        rf"archive {ZIP_NAME} is corrupt",
    ),
    "zip-corrupt-found-while-reading": Case(
        # Zips above a size are not CRC-checked up front; the member's CRC fails as it is read.
        LVEVAL,
        lambda b: (
            b.patch.setattr("longbench_suite.source.archives.CRC_PRECHECK_MAX_BYTES", 0),
            b.rewrite(ZIP, lambda d: flip_member_bytes(d, ZIP_MEMBER)),
        ),
        SourceError,
        rf"archive {re.escape(ZIP_MEMBER)} in {ZIP_NAME} is corrupt or truncated",
    ),
    "zip-malformed-json-line": Case(
        LVEVAL,
        lambda b: b.edit_member(ZIP, ZIP_MEMBER, lambda d: replace_line(d, 2, b'{"input": ')),
        DataFormatError,
        rf"{re.escape(ZIP_MEMBER)} in {ZIP_NAME}, line 2: malformed JSON",
    ),
    "zip-lone-surrogate": Case(
        LVEVAL,
        lambda b: b.edit_member(ZIP, ZIP_MEMBER, _lone_surrogate_line),
        InvalidTextError,
        rf"{re.escape(ZIP_MEMBER)} in {ZIP_NAME}, line 1: field 'context' holds a lone surrogate '\\ud800'",
    ),
    "zip-member-missing": Case(
        LVEVAL,
        lambda b: b.edit_member(ZIP, ZIP_MEMBER, lambda d: None),
        SourceError,
        rf"archive {ZIP_NAME} has no member {re.escape(ZIP_MEMBER)} or factrecall_en_16k\.jsonl",
    ),
    "zip-sha256-mismatch": Case(
        LVEVAL_SHA,
        _published_digest_mismatch,
        SourceError,
        r"sha256 mismatch for " + SERVED + r"\S+/hotpotwikiqa_mixup\.zip: expected e274aac2\w+, got \w+ "
        r"\(the download was removed from the cache\)",
    ),
    "zip-404-streamed": Case(
        LVEVAL,
        lambda b: b.serve(ZIP, status=404),
        SourceError,
        rf"cannot read {re.escape(ZIP_MEMBER)} in {ZIP_NAME}: .*HTTP 404",
        streaming=True,
    ),
    "default-tokenizer-gated-offline": Case(
        LVEVAL,
        lambda b: b.request.update(max_input_tokens=500, tokenizer=None),
        TokenizerLoadError,
        r"cannot load tokenizer 'meta-llama/Llama-2-7b-hf' .*gated repo.*HF_TOKEN",
    ),
    "no-aiohttp": Case(
        LVEVAL, _without_aiohttp, MissingDependencyError, r"cannot download \S+factrecall_en\.zip: .*aiohttp"
    ),
    # -- Ada-LEval: one JSON array over plain http ------------------------------------------------
    "json-malformed": Case(
        ADA,
        lambda b: b.rewrite(JSON, lambda d: d.replace(b'"answer": "A', b'"answer": A', 1)),
        DataFormatError,
        rf"{JSON_NAME}, line \d+: malformed JSON",
    ),
    "json-truncated": Case(
        ADA,
        lambda b: b.rewrite(JSON, lambda d: d[: len(d) // 2].rsplit(b"},", 1)[0] + b"}"),
        DataFormatError,
        rf"{JSON_NAME}, line \d+: the file ends inside the JSON array \(truncated\?\)",
    ),
    "json-field-missing": Case(
        ADA,
        lambda b: b.rewrite(JSON, lambda d: d.replace(b'"answer"', b'"answr"', 4)),
        DataFormatError,
        rf"{JSON_NAME}, row 0: the record has no field 'answer'",
    ),
    "json-lone-surrogate": Case(
        ADA,
        lambda b: b.rewrite(JSON, lambda d: d.replace(b'"question": "\\n', b'"question": "\\udc00\\n', 1)),
        InvalidTextError,
        rf"{JSON_NAME}, line 2, element 0: field 'question' holds a lone surrogate '\\udc00' at character 0",
    ),
    "json-cut-off-without-length": Case(
        ADA,
        lambda b: b.serve(JSON, cut_after=2000, no_length=True),
        DataFormatError,
        rf"{JSON_NAME}, line \d+: malformed JSON .*; the file ends inside the JSON array \(truncated\?\)",
    ),
    "json-empty-array": Case(  # a sample mirror declares its file's 20 records
        ADA,
        lambda b: b.rewrite(JSON, lambda d: b"[]"),
        ShortSourceError,
        rf"{JSON_NAME}: holds 0 records, fewer than the 20 it is declared to hold",
    ),
    "json-empty-array-no-count": Case(  # as a real mirror: Ada-LEval's files have no known count
        ADA,
        lambda b: (os.remove(os.path.join(b.mirror, RECORDS_NAME)), b.rewrite(JSON, lambda d: b"[]")),
        DataFormatError,
        r"adaleval/bestanswer_1k: the 'eval' split came out empty; the sources \(" + JSON_NAME,
    ),
    "json-empty-body": Case(
        ADA,
        lambda b: b.rewrite(JSON, lambda d: b""),
        DataFormatError,
        JSON_NAME,
    ),
    "json-cut-off-streamed": Case(
        ADA,
        lambda b: b.serve(JSON, cut_after=2000),
        SourceError,
        rf"cannot read {JSON_NAME}: ConnectionError",
        streaming=True,
    ),
    "arrow-disk-full": Case(
        ADA,
        lambda b: b.patch.setattr(
            "datasets.arrow_writer.ArrowWriter.write_examples_on_file",
            lambda self: _disk_full(None, None, "x"),
        ),
        StorageError,
        r"cannot write in the cache \S+ \(x\): No space left on device; free some space .*; "
        r"no download was deleted",
        keeps_download=True,
    ),
    "cache-read-only": Case(
        ADA,
        lambda b: b.patch.setattr("datasets.builder.FileLock", _ReadOnlyLock),
        StorageError,
        r"cannot write in the cache \S+ \(\S+\.lock\): Read-only file system; a cache without write "
        r"permission serves only builds it already holds; pass a writable cache_dir",
    ),
    "cache-read-only-streamed": Case(
        ADA,
        lambda b: b.patch.setattr("datasets.builder.FileLock", _ReadOnlyLock),
        StorageError,
        r"cannot write in the cache \S+ \(\S+\.lock\): Read-only file system",
        streaming=True,
    ),
    "cache-dir-is-a-file": Case(
        ADA,
        lambda b: b.patch.setitem(b.request, "cache_dir_is_a_file", True),
        OptionError,
        r"cache_dir \(--cache-dir\) \S+ is a file, not a directory",
    ),
    "max-input-tokens-negative": Case(
        LVEVAL,
        lambda b: b.request.update(max_input_tokens=-5),
        OptionError,
        r"max_input_tokens must be an integer of at least 2 .*got -5",
    ),
    "no-tiktoken": Case(
        ADA,
        _without_tiktoken,
        MissingDependencyError,
        r"cannot load tokenizer 'cl100k_base': .*need the tiktoken package, which is not installed: "
        r"pip install tiktoken",
    ),
    # -- generators' limits, checked before any work ---------------------------------------------
    "generate-length-over-the-limit": Case(
        HELMET,
        lambda b: _generate(b, "gen_json_kv_1000000000000"),
        OptionError,
        r"gen_json_kv_1000000000000: a generated config is at most 16,777,216 tokens \(16m\), got "
        r"1,000,000,000,000",
    ),
    "generate-rows-over-the-limit": Case(
        HELMET,
        lambda b: _generate(b, "gen_json_kv_8k", rows=10**8),
        OptionError,
        r"gen_json_kv: generate rows is at most 10,000,000 .* got 100,000,000",
    ),
    "essay-over-the-limit": Case(
        HELMET,
        _essay_over_the_limit,
        OptionError,
        r"generate essay: \S+essay\.txt is 240 bytes; an essay is at most 100 bytes",
    ),
    "essay-empty": Case(
        HELMET,
        lambda b: _essay(b, b" \n\t\n"),
        DataFormatError,
        r"essay haystack \S+essay\.txt: holds no text",
    ),
    "essay-binary": Case(
        HELMET,
        lambda b: _essay(b, bytes(range(128, 256)) * 8),
        DataFormatError,
        r"essay haystack \S+essay\.txt: not UTF-8 text \(byte 0 is 0x80\)",
    ),
    # -- names --------------------------------------------------------------------------------
    "unknown-config": Case(
        HELMET,
        lambda b: b.request.update(name="hotpotqa_9k"),
        UnknownNameError,
        r"unknown config of helmet 'hotpotqa_9k'; did you mean hotpotqa_8k",
    ),
    "unknown-split": Case(
        LVEVAL,
        lambda b: b.request.update(split="test"),
        UnknownNameError,
        r"unknown split 'test' for lveval/factrecall_en_16k; the splits are dev, eval",
    ),
    "unavailable-split": Case(
        LVEVAL,
        lambda b: b.request.update(split="dev"),
        SplitUnavailableError,
        r"LV-Eval publishes evaluation data only .* factrecall_en_16k has no 'dev' split",
    ),
    "unknown-benchmark": Case(
        ADA,
        lambda b: b.request.update(path="adaleva"),
        UnknownNameError,
        r"unknown benchmark 'adaleva'; did you mean adaleval\b",
    ),
    "unknown-qualified-benchmark": Case(
        ADA,
        lambda b: b.request.update(path="longbench_suite", name="adaleva/bestanswer_1k"),
        UnknownNameError,
        r"unknown benchmark 'adaleva'; did you mean adaleval\b",
    ),
}


#: Every fault class the README's Reliability section lists, with the cases (ids of ``CASES``, or
#: ``module::test`` elsewhere) that hold it; each case belongs to exactly one class.
FAULT_CLASSES = {
    "unreachable": [
        *(f"{p}-{f}" for p in ("tar", "zip", "json") for f in ("404", "connection-refused")),
        "tar-404-streamed",
        "zip-404-streamed",
        "test_downloads.py::test_a_permanent_error_is_not_retried",
        "test_hub_push.py::test_a_hub_that_cannot_be_reached_is_one_line_naming_it",
        "test_distributed.py::test_a_remote_target_that_cannot_be_reached_is_one_line",
    ],
    "transient": [
        *(f"{p}-{f}" for p in ("tar", "zip", "json") for f in ("500", "cut-off")),
        "tar-cut-off-streamed",
        "json-cut-off-streamed",
        "test_downloads.py::test_transient_statuses_are_retried_waiting_what_retry_after_asks",
        "test_downloads.py::test_without_retry_after_the_waits_back_off_exponentially",
        "test_downloads.py::test_retries_give_up_after_the_attempts_without_progress",
        "test_downloads.py::test_a_dropped_connection_resumes_where_the_bytes_stopped",
        "test_downloads.py::test_a_server_that_ignores_ranges_is_read_whole_again",
        "test_downloads.py::test_a_slow_transfer_is_not_cancelled_while_bytes_keep_arriving",
        "test_downloads.py::test_a_stalled_transfer_times_out_and_is_retried",
    ],
    "corrupt": [
        "tar-truncated",
        "tar-corrupt",
        "tar-member-missing",
        "tar-cut-off-without-length",
        "zip-truncated",
        "zip-corrupt",
        "zip-corrupt-found-while-reading",
        "zip-member-missing",
        "zip-sha256-mismatch",
    ],
    "content": [
        "test_faults.py::test_only_a_content_error_removes_the_downloads",
        "tar-malformed-json-line",
        "tar-question-not-a-string",
        "zip-malformed-json-line",
        "zip-lone-surrogate",
        "json-malformed",
        "json-truncated",
        "json-field-missing",
        "json-lone-surrogate",
        "json-cut-off-without-length",
        "json-empty-array",
        "json-empty-array-no-count",
        "json-empty-body",
        "trec-empty-body",
        "essay-empty",
        "essay-binary",
        "test_faults.py::test_a_member_stored_twice_is_read_as_tar_extracts_it_prepared_and_streamed",
    ],
    "short": [
        "trec-cut-at-a-line-end",
        "trec-cut-inside-a-line",
        "zip-member-cut-at-a-line-end",
        "test_faults.py::test_a_short_copy_of_a_source_that_built_before_is_refused",
        "test_faults.py::test_a_whole_copy_after_a_short_one_that_built_is_refused_with_what_to_delete",
        "test_faults.py::test_a_longer_copy_is_taken_only_when_it_begins_with_the_copy_that_built",
    ],
    "local": [
        "tar-disk-full-copying-members",
        "arrow-disk-full",
        "cache-read-only",
        "cache-read-only-streamed",
        "test_faults.py::test_a_read_only_cache_serves_the_builds_it_holds",
        "test_outputs.py::test_a_failed_output_write_leaves_the_previous_file",
        "test_publish_export.py::test_an_export_target_that_cannot_be_made_is_one_line_before_anything_is_built",
    ],
    "option": [
        "cache-dir-is-a-file",
        "max-input-tokens-negative",
        "unknown-config",
        "unknown-split",
        "unavailable-split",
        "unknown-benchmark",
        "unknown-qualified-benchmark",
        "generate-length-over-the-limit",
        "generate-rows-over-the-limit",
        "essay-over-the-limit",
        "test_outputs.py::test_output_may_not_be_a_folder_nor_a_source",
        "test_outputs.py::test_export_output_that_is_a_file_is_one_line",
        "test_outputs.py::test_a_re_export_never_drops_a_file_it_did_not_write",
        "test_faults.py::test_a_chat_template_that_reads_files_or_is_not_text_is_refused_before_building",
        "test_training_layer.py::test_holdout_streams_like_it_is_prepared_and_refuses_other_splits",
        "test_training_layer.py::test_sft_lengths_refuses_a_length_it_cannot_check_on_formatted_rows",
    ],
    "unbounded": ["test_faults.py::test_a_chat_template_past_its_bounds_is_one_line"],
    "dependency": ["no-aiohttp", "no-tiktoken", "tokenizer-unparseable", "default-tokenizer-gated-offline"],
    "killed": [
        "test_faults.py::test_a_build_killed_midway_leaves_nothing_a_rebuild_trusts",
        "test_downloads.py::test_a_killed_download_resumes_from_its_partial_file",
        "test_downloads.py::test_a_partial_file_of_another_version_is_not_resumed",
        "test_distributed.py::test_an_export_killed_mid_upload_to_s3_leaves_what_the_docs_say",
    ],
    "predict": [
        "test_faults.py::test_predict_a_200_reply_that_is_not_json",
        "test_faults.py::test_predict_a_200_reply_without_choices",
        "test_faults.py::test_predict_a_lone_surrogate_in_an_answer",
        "test_faults.py::test_predict_disk_full_mid_run",
        "test_faults.py::test_predict_read_only_output_mid_run",
        "test_faults.py::test_predict_on_a_real_full_disk_then_read_only_then_writable",
        "test_faults.py::test_reports_and_score_output_on_a_real_full_then_read_only_disk",
        "test_faults.py::test_score_a_judge_endpoint_that_refuses_connections",
        "test_faults.py::test_score_a_predictions_file_with_a_byte_that_is_not_utf8",
        "test_predict.py::test_resuming_with_other_options_is_refused_naming_both",
        "test_predict.py::test_a_predictions_file_no_record_covers_is_not_resumed",
    ],
}


def test_every_fault_has_one_class_and_the_readme_lists_every_class():
    import importlib

    members = [m for cases in FAULT_CLASSES.values() for m in cases]
    assert len(members) == len(set(members))
    assert sorted(m for m in members if "::" not in m) == sorted(CASES)
    for reference in (m for m in members if "::" in m):
        module, test = reference.split("::")
        assert hasattr(importlib.import_module(f"tests.{module[:-3]}"), test), reference
    with open(os.path.join(os.path.dirname(__file__), "..", "README.md"), encoding="utf-8") as f:
        section = f.read().split("**Fault classes.**")[1].split("\n\n")[1]  # the table
    listed = re.findall(r"^\| `([a-z]+)` \|", section, re.M)
    assert listed == list(FAULT_CLASSES)
    assert all(FAULT_CLASSES.values())


@pytest.fixture(scope="module")
def pristine(demo_mirror, tmp_path_factory) -> tuple[str, set[str]]:
    """The DEMO samples, with HELMET's archive cut down to the HotpotQA files (rewritten quickly)."""
    root = str(tmp_path_factory.mktemp("pristine"))
    shutil.copytree(demo_mirror, root, dirs_exist_ok=True)
    with open(mirrored(TAR, root), "rb") as f:
        members = read_members(f.read())
    kept = {name: data for name, data in members.items() if "/hotpotqa-" in name}
    with open(mirrored(TAR, root), "wb") as f:
        f.write(tar_gz_bytes(kept))
    return root, good_digests(root)


@pytest.fixture(scope="module")
def clean_rows(pristine, tiny_tokenizer, tmp_path_factory):
    """Rows of a clean build of a config from the local sample mirror (computed once per config)."""
    built: dict[str, dict] = {}

    def rows(config: str) -> dict:
        if config not in built:
            bench, name = config.split("/")
            cache = str(tmp_path_factory.mktemp("clean"))
            tokenizer = tiny_tokenizer if bench == "helmet" else None
            result = load_dataset(bench, name, mirror=pristine[0], tokenizer=tokenizer, cache_dir=cache)
            built[config] = {s: d.to_list() for s, d in result.items()}
        return built[config]

    return rows


@pytest.fixture
def quick_retries(monkeypatch):
    # datasets retries a dropped streaming read 20 times, 5 s apart: once, at once, here.
    for name, value in (
        ("STREAMING_READ_MAX_RETRIES", 1),
        ("STREAMING_READ_RETRY_INTERVAL", 0),
        ("STREAMING_OPEN_MAX_RETRIES", 1),
        ("STREAMING_OPEN_RETRY_INTERVAL", 0),
    ):
        monkeypatch.setattr(datasets.config, name, value)
    monkeypatch.setattr(download, "BACKOFF", (0.0, 0.0))


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_fault(case, pristine, clean_rows, tiny_tokenizer, cl100k, quick_retries, tmp_path, monkeypatch):
    mirror, good = pristine
    tokenizer = tiny_tokenizer if case.config.startswith("helmet/") else None
    broken = Broken(mirror, str(tmp_path), case.config, tokenizer, monkeypatch)
    cache = str(tmp_path / "cache")
    try:
        case.fault(broken)
        with pytest.raises(case.error) as raised:
            broken.build(cache, streaming=case.streaming)
        message = str(raised.value)
        assert "\n" not in message and re.search(case.names, message), message
        assert trusted_leftovers(cache, good) == []
        if case.keeps_download:
            downloads = os.path.join(cache, "downloads")
            kept = [
                n
                for n in os.listdir(downloads)
                if "." not in n and os.path.isfile(os.path.join(downloads, n))
            ]
            assert kept, "a download was deleted for a local cause"
        if case.streaming:
            assert not os.path.exists(os.path.join(cache, "downloads")), "streaming downloaded something"

        broken.repair()
        rebuilt = broken.build(cache)
        config = f"{broken.request['path']}/{broken.request['name']}"
        assert rebuilt == clean_rows(config)
    finally:
        broken.close()


# -- a build killed midway ----------------------------------------------------------------------------

# The child builds one config and, at the chosen moment, writes a marker file and sleeps until killed.
CHILD = textwrap.dedent(
    """
    import os, sys, time
    import datasets.arrow_writer, shutil
    from longbench_suite import load_dataset

    bench, name, mirror, tokenizer, cache, phase, marker = sys.argv[1:]

    def stall():
        open(marker, "w").close()
        time.sleep(600)

    if phase == "arrow":  # after the first batch of rows reached the Arrow file
        write = datasets.arrow_writer.ArrowWriter.write_examples_on_file
        def write_then_stall(self):
            write(self)
            stall()
        datasets.arrow_writer.ArrowWriter.write_examples_on_file = write_then_stall
    elif phase == "members":  # halfway through copying a tar member into the member cache
        copy = shutil.copyfileobj
        def copy_half(source, out, length=0):
            if ".part-" not in getattr(out, "name", ""):
                return copy(source, out, length)
            out.write(source.read(1000))
            out.flush()
            stall()
        shutil.copyfileobj = copy_half
    elif phase == "download":  # partway through a download
        import longbench_suite.source.download as download
        def fetch_part(fs, url, partial, size, attempts):
            with open(partial, "wb") as f:
                f.write(fs.cat_file(url, start=0, end=min(size, 1000)))
            stall()
        download._fetch = fetch_part
    load_dataset(bench, name, mirror=mirror, tokenizer=tokenizer or None, cache_dir=cache)
    """
)

KILLS = {
    "helmet-arrow": (HELMET, "arrow"),
    "helmet-members": (HELMET, "members"),
    "lveval-arrow": (LVEVAL, "arrow"),
    "adaleval-arrow": (ADA, "arrow"),
    "adaleval-download": (ADA, "download"),
}


@pytest.mark.slow
def test_a_build_killed_midway_leaves_nothing_a_rebuild_trusts(
    pristine, clean_rows, tiny_tokenizer, cl100k, tmp_path
):
    mirror, good = pristine
    with MirrorServer(mirror) as server:
        children = {}
        for label, (config, phase) in KILLS.items():
            bench, name = config.split("/")
            tokenizer = tiny_tokenizer if bench == "helmet" else ""
            cache, marker = str(tmp_path / label), str(tmp_path / f"{label}.marker")
            argv = [sys.executable, "-c", CHILD, bench, name, server.url, tokenizer, cache, phase, marker]
            children[label] = (subprocess.Popen(argv, stderr=subprocess.PIPE), cache, marker, config)
        deadline = time.monotonic() + 120
        for label, (child, _cache, marker, _config) in children.items():
            while not os.path.exists(marker):
                assert child.poll() is None, (
                    f"{label}: the build ended before the kill: {child.stderr.read()}"
                )
                assert time.monotonic() < deadline, f"{label}: never reached the point to kill it at"
                time.sleep(0.05)
            child.send_signal(signal.SIGKILL)
            child.wait()
            child.stderr.close()
        for label, (_child, cache, _marker, config) in children.items():
            assert trusted_leftovers(cache, good) == [], label
            bench, name = config.split("/")
            tokenizer = tiny_tokenizer if bench == "helmet" else None
            rebuilt = load_dataset(bench, name, mirror=server.url, tokenizer=tokenizer, cache_dir=cache)
            assert {s: d.to_list() for s, d in rebuilt.items()} == clean_rows(config), label


# -- archive rules ------------------------------------------------------------------------------------


def _with_a_stale_first_copy(data: bytes) -> bytes:
    """The archive with the member stored twice: a stale copy (its first line dropped) first, the
    archive's own copy last, as ``tar -r`` appends a newer version."""
    members = read_members(data)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        stale = members[TAR_MEMBER].split(b"\n", 1)[1]
        for name, body in [(TAR_MEMBER, stale), *members.items()]:
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return gzip.compress(raw.getvalue(), mtime=0)


def test_a_member_stored_twice_is_read_as_tar_extracts_it_prepared_and_streamed(
    pristine, clean_rows, tiny_tokenizer, tmp_path, monkeypatch
):
    """One rule, documented in the README: the last copy wins (what ``tar -x`` leaves on disk), in a
    prepared build, in its later passes, and streamed from a remote archive; and a streamed config
    reads the remote archive once per process, however many of its members it reads."""
    monkeypatch.setattr(archives, "_STREAMED", {})
    broken = Broken(pristine[0], str(tmp_path), HELMET, tiny_tokenizer, monkeypatch)
    try:
        broken.rewrite(TAR, _with_a_stale_first_copy)
        good = clean_rows(HELMET)
        assert broken.build(str(tmp_path / "prepared")) == good
        # A second config of the same archive makes a later (verified) pass for other members.
        broken.request["name"] = "hotpotqa_16k"
        broken.build(str(tmp_path / "prepared"))
        broken.request["name"] = HELMET.split("/")[1]
        size = os.path.getsize(mirrored(TAR, broken.mirror))
        before = broken.server.total_bytes("data.tar.gz")
        streamed = broken.build(str(tmp_path / "streamed"), streaming=True)["eval"]
        assert streamed == good["eval"]
        assert broken.server.total_bytes("data.tar.gz") - before <= size
    finally:
        broken.close()


def test_a_short_copy_of_a_source_that_built_before_is_refused(
    pristine, clean_rows, cl100k, tmp_path, monkeypatch
):
    """The ledger: an unpinned download must match the copy a build last succeeded with, so a source
    served short later (here a JSON array cut to fewer, well-formed records) is an error, not fewer
    rows; the short copy is removed, and once the mirror is whole the rebuild succeeds."""
    broken = Broken(pristine[0], str(tmp_path), ADA, None, monkeypatch)
    cache = tmp_path / "cache"
    try:
        assert broken.build(str(cache)) == clean_rows(ADA)
        for entry in os.listdir(cache):  # downloads and builds cleared; the source ledger stays
            if entry != "longbench_suite":
                path = cache / entry
                shutil.rmtree(path) if path.is_dir() else path.unlink()
        broken.rewrite(JSON, lambda d: d[: len(d) // 2].rsplit(b"},", 1)[0] + b"}]")
        with pytest.raises(SourceError) as raised:
            broken.build(str(cache))
        message = str(raised.value)
        assert re.search(
            rf"the download of {JSON_AT} is not the file that built before: it is \d+ bytes, shorter than "
            r"the \d+ bytes a build succeeded with \(recorded in \S+ledger\.json\); it was removed",
            message,
        ), message
        assert trusted_leftovers(str(cache), pristine[1]) == []
        broken.repair()
        assert broken.build(str(cache)) == clean_rows(ADA)
    finally:
        broken.close()


def test_a_whole_copy_after_a_short_one_that_built_is_refused_with_what_to_delete(
    pristine, clean_rows, cl100k, tmp_path, monkeypatch
):
    """A source with no known record count, served short the first time it is seen, builds (nothing
    can tell), and the ledger records that copy. The whole file is longer but does not begin with it (a
    JSON array closed early is no prefix), so it may as well be another file: it is refused, the message
    names the ledger entry to delete, and once it is deleted the rebuild takes the whole file."""
    broken = Broken(pristine[0], str(tmp_path), ADA, None, monkeypatch)
    cache = tmp_path / "cache"

    def clear_builds() -> None:
        for entry in os.listdir(cache):  # downloads and builds cleared; the source ledger stays
            if entry != "longbench_suite":
                path = cache / entry
                shutil.rmtree(path) if path.is_dir() else path.unlink()

    try:
        os.remove(os.path.join(broken.mirror, RECORDS_NAME))  # served as a real mirror: no count known
        broken.rewrite(JSON, lambda d: d[: len(d) // 2].rsplit(b"},", 1)[0] + b"}]")
        short = broken.build(str(cache))
        assert 0 < len(short["eval"]) < len(clean_rows(ADA)["eval"])
        broken.repair()
        clear_builds()
        with pytest.raises(SourceError, match=r"longer than the \d+ bytes .* does not begin with that copy"):
            broken.build(str(cache))
        ledger = cache / "longbench_suite" / "sources" / "ledger.json"
        entries = json.loads(ledger.read_text())
        (url,) = [u for u in entries if u.endswith(os.path.basename(JSON))]
        del entries[url]
        ledger.write_text(json.dumps(entries))
        clear_builds()
        assert broken.build(str(cache)) == clean_rows(ADA)
    finally:
        broken.close()


def test_a_longer_copy_is_taken_only_when_it_begins_with_the_copy_that_built(tmp_path):
    from longbench_suite.source.ledger import Ledger

    whole = b"".join(b'{"id": %d}\n' % i for i in range(100))
    cut = whole[: whole.index(b'{"id": 40}')]  # cut at a line end: a prefix of the whole file
    ledger = Ledger(str(tmp_path))
    ledger.record({"u": {"num_bytes": len(cut), "checksum": hashlib.sha256(cut).hexdigest()}})
    copy = tmp_path / "copy"
    copy.write_bytes(whole)
    assert ledger.mismatch("u", len(whole), None, str(copy)) is None
    copy.write_bytes(b"X" + whole[1:])
    assert "does not begin with that copy" in ledger.mismatch("u", len(whole), None, str(copy))
    ledger.record({"v": {"num_bytes": len(cut)}})  # no sha256 recorded: nothing to compare the start with
    assert "no recorded sha256" in ledger.mismatch("v", len(whole), None, str(copy))
    assert "shorter than" in ledger.mismatch("u", len(cut) - 1, None, str(copy))


def _downloads(cache: str) -> list[str]:
    folder = os.path.join(cache, "downloads")
    return sorted(n for n in os.listdir(folder) if "." not in n and os.path.isfile(os.path.join(folder, n)))


@pytest.mark.parametrize(
    "raised, forgotten",
    [
        (RuntimeError("planted bug"), False),
        (TypeError("planted bug"), False),
        (KeyError("planted bug"), False),
        (DataFormatError("planted bad record"), True),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "planted bad byte"), True),
        (json.JSONDecodeError("planted bad JSON", "{", 1), True),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else str(v),
)
def test_only_a_content_error_removes_the_downloads(
    raised, forgotten, pristine, clean_rows, cl100k, tmp_path, monkeypatch
):
    """A build that fails on the bytes it read deletes the downloads (a fixed mirror is fetched again);
    one that fails on a bug in the code (here raised where a row is made) keeps them: they were fine."""
    from longbench_suite import builder

    broken = Broken(pristine[0], str(tmp_path), ADA, None, monkeypatch)
    cache = str(tmp_path / "cache")
    try:

        def make_row(*args, **kwargs):
            raise raised

        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(builder, "make_row", make_row)
            with pytest.raises(Exception) as failure:
                broken.build(cache)
        causes, error = [], failure.value
        while error is not None and error not in causes:  # datasets wraps what is not a SuiteError
            causes.append(error)
            error = error.__cause__ or error.__context__
        assert raised in causes
        if forgotten:
            assert _downloads(cache) == []
        else:
            assert len(_downloads(cache)) == 1  # the one JSON file, kept
        assert trusted_leftovers(cache, pristine[1]) == []
        assert broken.build(cache) == clean_rows(ADA)
    finally:
        broken.close()


@pytest.mark.parametrize("config", [HELMET, LVEVAL, ADA])
def test_a_read_only_cache_serves_the_builds_it_holds(
    config, pristine, clean_rows, tiny_tokenizer, cl100k, tmp_path, monkeypatch
):
    """Prepared and streamed, without the lock files ``datasets`` creates even to load a build (checked
    by hand on a read-only bind mount too); a build it does not hold fails in one line."""
    tokenizer = tiny_tokenizer if config.startswith("helmet/") else None
    broken = Broken(pristine[0], str(tmp_path), config, tokenizer, monkeypatch)
    cache = str(tmp_path / "cache")
    try:
        assert broken.build(cache) == clean_rows(config)
        monkeypatch.setattr("longbench_suite.api._writable", lambda directory: False)
        monkeypatch.setattr("datasets.builder.FileLock", _ReadOnlyLock)
        monkeypatch.setattr(archives, "_atomic_write_text", _read_only_write)
        assert broken.build(cache) == clean_rows(config)
        assert broken.build(cache, streaming=True)["eval"] == clean_rows(config)["eval"]
    finally:
        broken.close()


def _read_only_write(path: str, text: str) -> None:
    raise OSError(errno.EROFS, "Read-only file system", path)


# -- predict and score ----------------------------------------------------------------------------------
#
# A model server, the output folder or a predictions file at fault. Each case: one line naming the
# server, file or row; the rows finished before it stay in the predictions file; once the fault is gone,
# the same call again asks only the missing rows and ends with the bytes of an uninterrupted run.

PREDICT_ROWS = 24


def _uninterrupted(tmp_path) -> bytes:
    from longbench_suite.predict import predict_split
    from tests.test_predict import QASPER, backend, gold, raw, rows_of

    rows = rows_of(PREDICT_ROWS, chat=True)
    path = str(tmp_path / "uninterrupted.jsonl")
    with FakeOpenAI(gold(rows)) as server:
        predict_split(QASPER, rows, backend(server), path, progress=False)
    return raw(path)


def _fault_then_resume(tmp_path, break_run, names: str, error=None, answer=None) -> None:
    """``break_run(server)`` breaks the run (and returns what undoes it, or ``None``); the run fails
    with ``error`` whose one line matches ``names``; the finished rows are kept; a rerun completes."""
    from longbench_suite.errors import GenerationError
    from longbench_suite.predict import predict_split
    from tests.test_predict import QASPER, backend, gold, lines, raw, rows_of

    rows = rows_of(PREDICT_ROWS, chat=True)
    path = str(tmp_path / "p.jsonl")
    with FakeOpenAI(answer or gold(rows)) as server:
        undo = break_run(server, path) or (lambda: None)
        try:
            with pytest.raises(error or GenerationError) as raised:
                predict_split(QASPER, rows, backend(server, max_retries=0), path, progress=False)
        finally:
            undo()
        message = str(raised.value)
        assert "\n" not in message and re.search(names, message), message
        kept = raw(path).split(b"\n")[:-1]  # whole lines (a write cut short leaves a partial last one)
        assert 1 <= len(kept) < PREDICT_ROWS
        server.prompt_faults = {}
        asked = len(server.requests)
        predict_split(QASPER, rows, backend(server), path, progress=False)
        assert len(server.requests) - asked == PREDICT_ROWS - len(kept)  # the finished rows are not asked
    assert [r["index"] for r in lines(path)] == list(range(PREDICT_ROWS))
    assert raw(path) == _uninterrupted(tmp_path)


def _server_fault(kind: str):
    def break_run(server, path):
        server.prompt_faults = {"Question 9:": (kind, 1)}

    return break_run


def test_predict_a_200_reply_that_is_not_json(tmp_path):
    names = rf"{SERVED}v1: row 9 \(query_id q009\): the server's reply is not JSON \(JSONDecodeError"
    _fault_then_resume(tmp_path, _server_fault("malformed"), names)


def test_predict_a_200_reply_without_choices(tmp_path):
    names = rf"{SERVED}v1: row 9 \(query_id q009\): the server's reply has no 'choices'"
    _fault_then_resume(tmp_path, _server_fault("no-choices"), names)


def test_predict_a_lone_surrogate_in_an_answer(tmp_path):
    from tests.test_predict import gold, rows_of

    right, broken = gold(rows_of(PREDICT_ROWS, chat=True)), {"on": True}

    def answer(prompt: str) -> str:  # sent as the JSON escape \ud800, which a client decodes as is
        return "bad \ud800 text" if broken["on"] and prompt.startswith("Question 9:") else right(prompt)

    def break_run(server, path):
        return lambda: broken.update(on=False)

    names = rf"fake-model at {SERVED}v1: row 9 \(query_id q009\): the reply holds a lone surrogate"
    _fault_then_resume(tmp_path, break_run, names, answer=answer)


def _failing_writes(errno_value: int, after_lines: int):
    """``os.write`` (the journal's one write per line) failing on the predictions file once it holds
    ``after_lines`` lines: the line after them gets 10 bytes in, as a disk that fills up mid-write."""

    def break_run(server, path):
        real = os.write
        written = {"lines": 0}

        def write(fd, data):
            if os.path.realpath(f"/proc/self/fd/{fd}") != os.path.realpath(path):
                return real(fd, data)
            if written["lines"] >= after_lines:
                if errno_value == errno.ENOSPC and written["lines"] == after_lines:
                    written["lines"] += 0.5
                    return real(fd, bytes(data[:10]))
                raise OSError(errno_value, os.strerror(errno_value))
            written["lines"] += 1
            return real(fd, data)

        patch = pytest.MonkeyPatch()
        patch.setattr(os, "write", write)
        return patch.undo

    return break_run


def test_predict_disk_full_mid_run(tmp_path):
    """ENOSPC from the write of a line (simulated at ``os.write``; see also the tmpfs case below)."""
    names = r"cannot write predictions \S+p\.jsonl: OSError: \[Errno 28\] No space left on device; the 5 rows"
    _fault_then_resume(tmp_path, _failing_writes(errno.ENOSPC, 5), names, error=StorageError)


def test_predict_read_only_output_mid_run(tmp_path):
    names = r"cannot write predictions \S+p\.jsonl: OSError: \[Errno 30\] Read-only file system; the 5 rows"
    _fault_then_resume(tmp_path, _failing_writes(errno.EROFS, 5), names, error=StorageError)


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 12 KiB tmpfs (root only, where mounting works): a real full disk and a real read-only folder."""
    where = tmp_path / "tmpfs"
    where.mkdir()
    if os.geteuid() != 0 or subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=12k", "tmpfs", str(where)], capture_output=True
    ).returncode:
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_predict_on_a_real_full_disk_then_read_only_then_writable(small_tmpfs, tmp_path):
    from longbench_suite.predict import predict_split
    from tests.test_predict import QASPER, backend, gold, lines, raw, rows_of

    rows = rows_of(200, chat=True)
    path = str(small_tmpfs / "p.jsonl")
    straight = str(tmp_path / "straight.jsonl")
    with FakeOpenAI(gold(rows)) as server:
        predict_split(QASPER, rows, backend(server), straight, progress=False)
        with pytest.raises(StorageError, match=r"^cannot write predictions \S+p\.jsonl: .*Errno 28.*kept"):
            predict_split(QASPER, rows, backend(server), path, progress=False)
        kept = raw(path).split(b"\n")[:-1]  # whole lines; the disk may have cut the last one short
        assert 0 < len(kept) < len(rows)
        remount = ["mount", "-o", "remount,ro", str(small_tmpfs)]
        subprocess.run(remount, check=True)
        with pytest.raises(StorageError, match=r"^cannot write predictions \S+p\.jsonl: .*Errno 30"):
            predict_split(QASPER, rows, backend(server), path, progress=False)
        subprocess.run(["mount", "-o", "remount,rw,size=1m", str(small_tmpfs)], check=True)
        predict_split(QASPER, rows, backend(server), path, progress=False)
    assert [r["index"] for r in lines(path)] == list(range(len(rows)))
    assert raw(path) == raw(straight)


def test_reports_and_score_output_on_a_real_full_then_read_only_disk(small_tmpfs, predict_demo, capsys):
    """--score's reports on a full disk: one line naming them, none written (they are moved in place
    together), every prediction kept; the same command with space again asks the model nothing. Then
    ``score --output`` into the folder mounted read-only: one line naming the file."""
    from longbench_suite import cli

    options, flags = predict_demo
    config, out = "helmet/json_kv_8k", small_tmpfs / "out"
    with FakeOpenAI(_gold_answers(config, options).__getitem__) as model:
        argv = ["predict", config, "--endpoint", model.url, "--model", "m", "--output", str(out), *flags]
        argv += ["--limit", "4", "--score", "--allow-partial"]
        assert cli.main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]
        reports = ", ".join(str(out / name) for name in ("results.md", "results.json", "scores.png"))
        assert err.startswith(f"longbench-suite: error: cannot write {reports}: OSError: [Errno 28]"), err
        assert sorted(os.listdir(out)) == ["helmet", "run.json"]  # no report, no partial file
        assert len((out / "helmet" / "json_kv_8k.eval.jsonl").read_bytes().splitlines()) == 4
        subprocess.run(["mount", "-o", "remount,rw,size=1m", str(small_tmpfs)], check=True)
        asked = len(model.requests)
        assert cli.main(argv) == 0
        assert len(model.requests) == asked
    assert sorted(os.listdir(out)) == ["helmet", "results.json", "results.md", "run.json", "scores.png"]
    assert json.loads((out / "results.json").read_text())["results"][0]["rows"] == 4
    subprocess.run(["mount", "-o", "remount,ro", str(small_tmpfs)], check=True)
    capsys.readouterr()
    again = out / "again.json"
    argv = ["score", "--predictions", str(out), "--allow-partial", "--output", str(again)]
    assert cli.main([*argv, "--cache-dir", options["cache_dir"]]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"longbench-suite: error: cannot write {again}: OSError: [Errno 30]"), err
    assert not again.exists()


@pytest.fixture(scope="module")
def predict_demo(tmp_path_factory):
    from longbench_suite.demo import offline_options

    options = offline_options(str(tmp_path_factory.mktemp("predict-faults")))
    flags = ["--mirror", options["mirror"], "--tokenizer", options["tokenizer"]]
    flags += ["--pretruncation-tokenizer", options["pretruncation_tokenizer"]]
    return options, [*flags, "--cache-dir", options["cache_dir"], "--no-progress"]


def _gold_answers(config: str, options: dict) -> dict[str, str]:
    from longbench_suite.training.formats import user_turn

    rows = load_dataset("longbench_suite", config, split="eval", **options)
    return {user_turn(r) if r["use_chat_template"] else r["input"]: r["output"] for r in rows}


def test_score_a_judge_endpoint_that_refuses_connections(predict_demo, tmp_path, capsys):
    """HELMET NarrativeQA's headline is the LLM judge's: its server down is one line, after every
    prediction is written; the same command again asks the model nothing and scores."""
    import socket

    from longbench_suite import cli

    options, flags = predict_demo
    config, out = "helmet/narrativeqa_8k", tmp_path / "out"
    answers = _gold_answers(config, options)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    with FakeOpenAI(answers.__getitem__) as model:
        argv = ["predict", config, "--endpoint", model.url, "--model", "m", "--output", str(out), *flags]
        argv += ["--limit", "4", "--score", "--allow-partial", "--no-plot", "--judge-model", "j"]
        assert cli.main([*argv, "--judge-endpoint", closed]) == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]  # after the datasets progress bars
        judge_down = rf"^longbench-suite: error: the LLM judge 'j' at {re.escape(closed)} failed: .*Connect"
        assert re.search(judge_down, err), err
        predictions = out / "helmet" / "narrativeqa_8k.eval.jsonl"
        assert len(predictions.read_bytes().splitlines()) == 4  # every prediction written, and kept
        asked = len(model.requests)
        with FakeOpenAI(lambda prompt: "Score: 3") as judge:
            assert cli.main([*argv, "--judge-endpoint", judge.url]) == 0
        assert len(model.requests) == asked and judge.requests
    (result,) = json.loads((out / "results.json").read_text())["results"]
    assert result["partial"] and result["rows"] == 4 and result["not_computed"] == {}


def test_score_a_predictions_file_with_a_byte_that_is_not_utf8(predict_demo, tmp_path, capsys):
    from longbench_suite import cli

    options, flags = predict_demo
    config = "helmet/json_kv_8k"
    rows = load_dataset("longbench_suite", config, split="eval", **options)
    good = b"".join(
        json.dumps({"index": i, "prediction": r["output"]}).encode() + b"\n" for i, r in enumerate(rows)
    )
    path = tmp_path / "p.jsonl"
    broken = good.replace(b'"prediction": "', b'"prediction": "\xff', 1)
    path.write_bytes(broken)
    capsys.readouterr()
    argv = ["score", config, "--predictions", str(path), "--output", str(tmp_path / "s.json"), *flags[:-1]]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()  # the file is read before anything is built
    assert "\n" not in err and re.search(rf"{re.escape(str(path))}, line 1: not UTF-8 text \(byte 0xff", err)
    assert path.read_bytes() == broken  # the user's file is left as it is
    path.write_bytes(good)
    assert cli.main(argv) == 0
    (result,) = json.loads((tmp_path / "s.json").read_text())["results"]
    assert all(v == pytest.approx(100.0) for v in result["headline"].values())


# -- chat templates: code from the user's side -------------------------------------------------------

CHAT_CONFIG = ("helmet", "alce_asqa_8k")  # a chat-mode task: its user turns are fitted under the template
GOOD_TEMPLATE = "{% for m in messages %}[USER] {{ m.content }}{% endfor %}[ASSISTANT]"

RUNAWAY_TEMPLATES = {
    "repeat": (
        "{{ 'x' * 10**8 }}" + GOOD_TEMPLATE,
        r"'\*' would make 100000000 items, more than the \d+ allowed \(the bound is the user turn plus "
        r"32 characters per budget token, \d+ here\)",
    ),
    "range": (
        "{% for i in range(10**9) %}{% endfor %}" + GOOD_TEMPLATE,
        r"its range\(\) calls make more than 100000 steps in one rendering",
    ),
    "nested-ranges": (
        "{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}" + GOOD_TEMPLATE,
        r"its range\(\) calls make more than 100000 steps in one rendering",
    ),
    "growing-output": (
        "{% for i in range(5000) %}" + GOOD_TEMPLATE + "{% endfor %}",
        r"it rendered more than \d+ characters for a user turn of \d+",
    ),
    "power": ("{{ 2 ** (2 ** 40) }}" + GOOD_TEMPLATE, r"'\*\*' would make \d+ items"),
    "string-method": ("{{ 'x'.ljust(10**10) }}" + GOOD_TEMPLATE, r"a width of 10000000000 is more than"),
    "filter": ("{{ 'x' | center(10**10) }}" + GOOD_TEMPLATE, r"a width of 10000000000 is more than"),
    "recursion": (
        "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}" + GOOD_TEMPLATE,
        r"refused a user turn: maximum recursion depth exceeded",
    ),
    # a value doubled in a loop: each step is small, the last would not fit in memory
    "concat-doubling": (
        "{% set s = namespace(v='x') %}{% for i in range(40) %}{% set s.v = s.v ~ s.v %}{% endfor %}"
        + GOOD_TEMPLATE,
        r"'~' made \d+ items, more than the \d+ allowed",
    ),
    "plus-doubling": (
        "{% set s = namespace(v=[0]) %}{% for i in range(40) %}{% set s.v = s.v + s.v %}{% endfor %}"
        + GOOD_TEMPLATE,
        r"'\+' made \d+ items",
    ),
    "replace-doubling": (
        "{% set s = namespace(v='ab') %}{% for i in range(40) %}{% set s.v = s.v | replace('a', 'aa') %}"
        "{% endfor %}" + GOOD_TEMPLATE,
        r"replace would make \d+ characters",
    ),
    "int-squaring": (
        "{% set n = namespace(v=3) %}{% for i in range(40) %}{% set n.v = n.v * n.v %}{% endfor %}"
        + GOOD_TEMPLATE,
        r"'\*' would make \d+ items",
    ),
    "join": ("{% set s = 'x' * 200000 %}{{ [s, s, s] | join }}" + GOOD_TEMPLATE, r"join would make 600000"),
    "repeated-messages": ("{{ (messages * 200000) | tojson }}" + GOOD_TEMPLATE, r"'\*' would make \d+ items"),
    # widths written in a format string, or given to a filter as a keyword
    "percent-width": ("{{ '%3000000000s' % 'x' }}" + GOOD_TEMPLATE, r"a width of 3000000000 is more than"),
    "format-filter-width": ("{{ '%3000000000s' | format('x') }}" + GOOD_TEMPLATE, r"a width of 3000000000"),
    "format-width": ("{{ '{:>3000000000}'.format('x') }}" + GOOD_TEMPLATE, r"a width of 3000000000"),
    "tojson-indent": ("{{ messages | tojson(indent=3000000000) }}" + GOOD_TEMPLATE, r"a width of 3000000000"),
    "type-error": ("{{ 'a' + 1 }}" + GOOD_TEMPLATE, r"failed on a user turn: TypeError: can only concat"),
}


@pytest.fixture(scope="module")
def chat_rows(demo_mirror, tiny_tokenizer, tmp_path_factory):
    """The chat config's rows under the good template, from a clean cache."""
    return _build_under(GOOD_TEMPLATE, demo_mirror, tiny_tokenizer, str(tmp_path_factory.mktemp("chat")))


def _build_under(template: str, demo_mirror: str, tiny_tokenizer: str, cache: str) -> dict:
    built = load_dataset(
        *CHAT_CONFIG, mirror=demo_mirror, tokenizer=tiny_tokenizer, cache_dir=cache, chat_template=template
    )
    return {s: d.to_list() for s, d in built.items()}


@pytest.mark.parametrize("template, names", RUNAWAY_TEMPLATES.values(), ids=RUNAWAY_TEMPLATES.keys())
def test_a_chat_template_past_its_bounds_is_one_line(
    template, names, chat_rows, demo_mirror, tiny_tokenizer, tmp_path
):
    """A template's work is bounded before its text reaches the token counter (``fit/chat.py``): the
    build fails in one line naming the template and the bound, leaves nothing a later build trusts, and
    the same cache then builds the good template's rows."""
    from longbench_suite.fit.chat import ChatTemplateError

    cache = str(tmp_path / "cache")
    with pytest.raises(ChatTemplateError) as raised:
        _build_under(template, demo_mirror, tiny_tokenizer, cache)
    message = str(raised.value)
    assert "\n" not in message and message.startswith("chat template 'jinja' "), message
    assert re.search(names, message), message
    assert trusted_leftovers(cache, good_digests(demo_mirror)) == []
    assert _build_under(GOOD_TEMPLATE, demo_mirror, tiny_tokenizer, cache) == chat_rows


def test_a_chat_template_that_reads_files_or_is_not_text_is_refused_before_building(
    demo_mirror, tiny_tokenizer, tmp_path, monkeypatch
):
    """``{% include %}`` (and import, extends) is refused when the template is read: nothing is read from
    disk; a template file that is not UTF-8 text is one line naming the file."""
    from longbench_suite import builder
    from longbench_suite.fit.chat import ChatTemplateError

    def no_build(*args, **kwargs):
        raise AssertionError("a row was made under a template that should have been refused")

    monkeypatch.setattr(builder, "make_row", no_build)
    cache = str(tmp_path / "cache")
    for statement in ("{% include '/etc/passwd' %}", "{% import '/etc/passwd' as p %}", "{% extends 'x' %}"):
        with pytest.raises(ChatTemplateError) as refused:
            _build_under(statement + GOOD_TEMPLATE, demo_mirror, tiny_tokenizer, cache)
        message = str(refused.value)
        assert "\n" not in message and "includes, imports or extends another template ('" in message
    binary = tmp_path / "binary.jinja"
    binary.write_bytes(bytes(range(128, 256)))
    with pytest.raises(ChatTemplateError, match=rf"^cannot read chat template file {re.escape(str(binary))}"):
        _build_under(str(binary), demo_mirror, tiny_tokenizer, cache)
