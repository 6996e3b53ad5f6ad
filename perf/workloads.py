"""Realistically sized synthetic sources for the speed measurements, in the exact upstream layouts.

The ``samples`` modules of the builders write small files (a few passages per KILT row, short
LongBench contexts) so the tests stay fast. The benchmarks need upstream's sizes: KILT rows with K
passages of ~100 words (HELMET's 128k files hold 1000 per row), 200k-token NarrativeQA books,
LongBench contexts of 10k+ words, a HELMET ``data.tar.gz`` of several GB. Everything here is
deterministic and written once into the benchmark work directory (reused while its parameters match).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import struct
import tarfile
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from longbench_suite.samplefiles import TextMaker, write_to_mirror

# -- writing ------------------------------------------------------------------------------------------


class GzipWriter(io.RawIOBase):
    """One gzip member written as a stream; :meth:`level` switches the deflate level between blocks.

    Each switch ends the current deflate block sequence with a full flush, so the file stays a
    single gzip member (what ``tar czf`` writes and what ``tarfile``'s ``r|gz`` stream mode reads)
    while incompressible padding costs no compression time.
    """

    def __init__(self, path: str, level: int = 1) -> None:
        self._out = open(path, "wb")  # noqa: SIM115 (closed in close())
        self._out.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff")  # gzip header, mtime 0
        self._level = level
        self._deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
        self._crc, self._size = 0, 0

    def writable(self) -> bool:
        return True

    def level(self, level: int) -> None:
        if level != self._level:
            self._out.write(self._deflate.flush(zlib.Z_FULL_FLUSH))
            self._deflate = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
            self._level = level

    def write(self, data) -> int:
        data = bytes(data)
        self._crc = zlib.crc32(data, self._crc)
        self._size += len(data)
        self._out.write(self._deflate.compress(data))
        return len(data)

    def close(self) -> None:
        if not self.closed:
            self._out.write(self._deflate.flush(zlib.Z_FINISH))
            self._out.write(struct.pack("<II", self._crc, self._size & 0xFFFFFFFF))
            self._out.close()
        super().close()


class _Chunks(io.RawIOBase):
    """A readable stream over an iterator of byte chunks (a tar member written without holding it)."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks, self._buffer = iter(chunks), b""

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while not self._buffer:
            try:
                self._buffer = next(self._chunks)
            except StopIteration:
                return 0
        n = min(len(b), len(self._buffer))
        b[:n], self._buffer = self._buffer[:n], self._buffer[n:]
        return n


#: a member of a big archive: (path, size, chunks, deflate level); level 0 stores it (padding)
BigMember = tuple[str, int, Callable[[], Iterable[bytes]], int]


def write_tar_gz(path: str, members: Iterable[BigMember]) -> None:
    """A reproducible ``.tar.gz`` streamed to disk (members are never held whole), atomically."""
    tmp = f"{path}.tmp-{os.getpid()}"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    gz = GzipWriter(tmp)
    with tarfile.open(fileobj=gz, mode="w|", format=tarfile.GNU_FORMAT) as tar:
        directories: set[str] = set()
        for name, size, chunks, level in members:
            parts = name.split("/")
            for i in range(1, len(parts)):
                directory = "/".join(parts[:i])
                if directory not in directories:
                    directories.add(directory)
                    info = tarfile.TarInfo(directory)
                    info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 0
                    tar.addfile(info)
            gz.level(level)
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = size, 0o644, 0
            tar.addfile(info, io.BufferedReader(_Chunks(chunks()), 1 << 20))
    gz.close()
    os.replace(tmp, path)


def in_memory(name: str, data: bytes, level: int = 6) -> BigMember:
    return (name, len(data), lambda: [data], level)


def padding(name: str, size: int, seed: str) -> BigMember:
    """Incompressible bytes no config reads (stored, so writing 2 GB takes seconds, not minutes)."""

    def chunks() -> Iterator[bytes]:
        block = hashlib.shake_256(seed.encode()).digest(1 << 20)
        for offset in range(0, size, len(block)):
            yield block[: min(len(block), size - offset)]

    return (name, size, chunks, 0)


# -- cached generation ----------------------------------------------------------------------------


def cached(directory: Path, params: dict, make: Callable[[Path], object]) -> Path:
    """``make(directory)`` once per ``params``: a ``PARAMS.json`` marks a finished directory."""
    marker = directory / "PARAMS.json"
    wanted = json.dumps(params, sort_keys=True)
    if marker.exists() and marker.read_text() == wanted:
        return directory
    if directory.exists():
        import shutil

        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    start = time.perf_counter()
    print(f"  generating {directory} ...", flush=True)
    make(directory)
    marker.write_text(wanted)
    print(f"  ... done in {time.perf_counter() - start:.0f} s", flush=True)
    return directory


# -- HELMET RAG: KILT files with K passages per row --------------------------------------------------


def _passage_pool(seed: str, n: int, words: int) -> list[str]:
    """JSON fragments of retrieved KILT passages (``id``, ``title``, ``text``, ``score``, ``has_answer``)."""
    text = TextMaker(seed)
    return [
        json.dumps(
            {
                "id": str(1_000_000 + i),
                "title": text.words(2).title(),
                "text": text.sentence(words),
                "score": f"{80 - i * 0.001:.3f}",
                "has_answer": False,
            }
        )
        for i in range(n)
    ]


def kilt_lines(task: str, questions: int, k: int, words: int = 100, pool: int = 4000) -> Iterator[bytes]:
    """The lines of ``{task}-dev-multikilt_1000_k{k}_dep6.jsonl``: each question at 6 depths, ``k``
    passages per row (retrieved ones from a pool, the gold one inserted at the depth), HELMET's fields.

    Questions do not depend on ``k``, so the files of one task at every K hold the same questions."""
    passages = _passage_pool(f"{task}-passages", pool, words)
    text = TextMaker(f"{task}-questions")
    for i in range(questions):
        question = f"who {text.choice(['built', 'painted', 'founded'])} the {text.words(3)} {task} {i}"
        answer = f"{text.words(2).title()} {i}"
        gold = json.dumps({"title": answer, "text": f"{text.sentence(words // 2)} {answer} did it."})
        picks = [(i * 7919 + j * 104729) % pool for j in range(k)]
        for depth in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
            ctxs = [passages[p] for p in picks]
            ctxs.insert(round(depth * k), gold)
            yield (
                f'{{"question": {json.dumps(question)}, "answers": {json.dumps([answer])}, '
                f'"ctxs": [{", ".join(ctxs)}], "positive_ctxs": [{gold}], "depth": {depth}}}\n'
            ).encode()


def lines_member(name: str, lines: Callable[[], Iterable[bytes]], level: int = 1) -> BigMember:
    """A member made of lines, sized by a first pass (members must declare their size up front)."""
    size = sum(len(line) for line in lines())
    return (name, size, lambda: _batched(lines()), level)


def _batched(lines: Iterable[bytes], size: int = 1 << 20) -> Iterator[bytes]:
    buffer: list[bytes] = []
    held = 0
    for line in lines:
        buffer.append(line)
        held += len(line)
        if held >= size:
            yield b"".join(buffer)
            buffer, held = [], 0
    if buffer:
        yield b"".join(buffer)


def nq_members(questions: int, lengths: dict[str, int], words: int = 100) -> list[BigMember]:
    """NQ's test files at the given K (``{"32k": 220}``) and its ``k3`` demonstration file."""
    members = [
        lines_member(
            f"data/kilt/nq-dev-multikilt_1000_k{k}_dep6.jsonl",
            lambda k=k: kilt_lines("nq", questions, k, words),
        )
        for k in sorted(set(lengths.values()))
    ]
    members.append(
        lines_member(
            "data/kilt/nq-train-multikilt_1000_k3_dep6.jsonl", lambda: kilt_lines("nq-train", 200, 3, words)
        )
    )
    return members


# -- NarrativeQA: long books, several questions each ---------------------------------------------------


def narrativeqa_mirror(
    root: Path, documents: int, questions: int, min_tokens: int, count: Callable[[str], int]
) -> tuple[list[dict], list[dict]]:
    """NarrativeQA's Parquet shards with ``documents`` books of ≥ ``min_tokens`` tokens, ``questions``
    questions on each (the rows repeat the book's text, as upstream's do); returns (test, train)."""
    from longbench_suite.benchmarks.helmet.samples import hub as samples_hub

    from .common import document

    test = []
    for d in range(documents):
        book = document(min_tokens, count, seed=f"narrativeqa-book-{d}")
        for q in range(questions):
            test.append(
                samples_hub.narrativeqa_row(f"book{d}", book, f"Who is {q} in book {d}?", [f"A{d}.{q}"])
            )
    train = [samples_hub.narrativeqa_row("t", "Short.", f"Train question {i}?", [f"T{i}"]) for i in range(48)]
    for url, data in samples_hub.narrativeqa_shards(test, train).items():
        write_to_mirror(str(root), url, data)
    return test, train


def narrativeqa_sources(documents: int, questions: int, min_tokens: int, count: Callable[[str], int]) -> Path:
    """The cached NarrativeQA mirror of :func:`narrativeqa_mirror` in the work directory. HELMET's
    ``eval`` takes the first kept rows and ``dev`` the rest, so there must be more rows than ``eval``
    holds (an empty split is an error of the build, rightly)."""
    from longbench_suite import registry

    from .common import workdir

    evaluated = registry.benchmark("helmet").task("narrativeqa").eval_size
    if documents * questions <= evaluated:
        raise SystemExit(
            f"narrativeqa: {documents} books x {questions} questions = {documents * questions} rows, all in "
            f"HELMET's {evaluated}-row eval; give more, so dev has rows"
        )
    params = {"documents": documents, "questions": questions, "min_tokens": min_tokens, "v": 1}
    return cached(
        workdir() / "narrativeqa-mirror",
        params,
        lambda root: narrativeqa_mirror(root, documents, questions, min_tokens, count),
    )


# -- HELMET's data.tar.gz, GBs -------------------------------------------------------------------------


def helmet_mirror(root: Path, padding_bytes: int = 0, realistic_nq: int = 0) -> Path:
    """A mirror of every HELMET source (the demo-scale samples; the Hub-hosted ones at full sample
    scale, so every config has both splits), whose ``data.tar.gz`` also holds
    ``padding_bytes`` of members no config reads, spread between the ones they read (as upstream's
    archive holds files no task uses), and, with ``realistic_nq`` questions, NQ's 128k KILT file at
    upstream's size (1000 passages of ~100 words per row; ~4 GB uncompressed for 993 questions).
    Returns the archive's path."""
    import dataclasses

    from longbench_suite.benchmarks.helmet import samples
    from longbench_suite.benchmarks.helmet.common import ARCHIVE
    from longbench_suite.benchmarks.helmet.samples import hub as samples_hub
    from longbench_suite.source import mirrored

    # the Hub-hosted sources at full sample scale, so that every config has both splits
    scale = dataclasses.replace(samples.DEMO, hub=samples_hub.FULL)
    samples.write_samples(str(root), scale)
    functional = samples.archive_members(scale)
    big_nq = "data/kilt/nq-dev-multikilt_1000_k1000_dep6.jsonl"
    members: list[BigMember] = []
    names = sorted(functional)
    for i, name in enumerate(names):
        if realistic_nq and name == big_nq:
            members.append(lines_member(name, lambda: kilt_lines("nq", realistic_nq, 1000)))
        else:
            members.append(in_memory(name, functional[name]))
        if padding_bytes:
            share = padding_bytes // len(names) + (i < padding_bytes % len(names))
            members.append(padding(f"{name.rsplit('/', 1)[0]}/unused/part-{i:03d}.bin", share, f"pad-{i}"))
    path = mirrored(ARCHIVE.url, str(root))
    write_tar_gz(path, members)
    return Path(path)


# -- LV-Eval: realistic 256k lines ----------------------------------------------------------------


def lveval_mirror(
    root: Path, rows: int, words: int = 256_000, dataset: str = "multifieldqa_en_mixup"
) -> Path:
    """``<dataset>.zip`` with its 256k level at upstream's line size (``words`` words of mixed-up
    passages per row) and small other levels; returns the zip's path."""
    import zipfile

    from longbench_suite.benchmarks.lveval import samples as lveval_samples
    from longbench_suite.benchmarks.lveval.common import LEVELS, archive
    from longbench_suite.benchmarks.lveval.tasks import TASKS
    from longbench_suite.source import mirrored

    task = next(t for t in TASKS if t.name == dataset)
    path = Path(mirrored(archive(dataset).url, str(root)))
    path.parent.mkdir(parents=True, exist_ok=True)
    pool = [TextMaker(f"lveval-pool-{i}").paragraph(10, 12) for i in range(500)]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for level in LEVELS:
            name = f"{dataset}/{task.config_name(level)}.jsonl"
            if level != "256k":
                zf.writestr(
                    name,
                    b"".join(
                        json.dumps(r).encode() + b"\n" for r in lveval_samples.level_records(task, level)
                    ),
                )
                continue
            with zf.open(name, "w", force_zip64=True) as member:
                for i in range(rows):
                    passages, n = [], 0
                    while n < words:
                        body = pool[(i * 7919 + len(passages) * 104729) % len(pool)]
                        passages.append(f"### Passage {len(passages) + 1}\n{body}")
                        n += len(body.split()) + 3
                    record = {
                        "input": f"Who founded the place {i}?",
                        "context": "\n\n".join(passages),
                        "answers": [f"The place was founded by Someone {i}."],
                        "length": n,
                        "dataset": dataset,
                        "language": "en",
                        "answer_keywords": f"Someone {i}",
                        "confusing_facts": [f"Some say the place was founded by Someone Else {i}."],
                    }
                    member.write(json.dumps(record).encode() + b"\n")
    return path


# -- HELMET RAG at upstream size ----------------------------------------------------------------------


def rag_mirror(root: Path, questions: int, lengths: dict[str, int]) -> Path:
    """A mirror whose ``data.tar.gz`` holds NQ's KILT files at ``lengths`` (``{"32k": 220}``) with
    upstream's row size, and its demonstration file; returns the archive's path."""
    from longbench_suite.benchmarks.helmet.common import ARCHIVE
    from longbench_suite.source import mirrored

    path = mirrored(ARCHIVE.url, str(root))
    write_tar_gz(path, nq_members(questions, lengths))
    return Path(path)


# -- LongBench: contexts of upstream length -------------------------------------------------------------


def longbench_mirror(root: Path, task: str, rows: int, words: int) -> Path:
    """LongBench's ``data.zip`` holding ``data/<task>.jsonl`` with ``rows`` records of about ``words``
    words each (LongBench's narrativeqa averages 18k), in the sample module's record layout."""
    from longbench_suite.benchmarks.longbench import samples as longbench_samples
    from longbench_suite.benchmarks.longbench.tasks import ARCHIVE, TASKS
    from longbench_suite.samplefiles import jsonl_bytes, zip_bytes

    language = next(t.language for t in TASKS if t.name == task)
    records = [longbench_samples.record(task, language, i, words) for i in range(rows)]
    return Path(
        write_to_mirror(str(root), ARCHIVE.url, zip_bytes({f"data/{task}.jsonl": jsonl_bytes(records)}))
    )


# -- Ada-LEval: TSort prompts of upstream length ---------------------------------------------------------


def adaleval_mirror(root: Path, length: str, rows: int, chars: int) -> Path:
    """Ada-LEval's ``textsort_<length>.json`` (one JSON array, indented as hosted) with ``rows``
    records whose prompts hold about ``chars`` characters (TSort 128k: ~120k cl100k tokens)."""
    from longbench_suite.benchmarks.adaleval import samples as ada_samples
    from longbench_suite.benchmarks.adaleval.tsort import TASK

    pool = [TextMaker(f"tsort-pool-{i}").paragraph(8, 14) for i in range(400)]

    def segment(i: int, k: int) -> str:
        parts, n = [], 0
        while n < chars // 6:
            parts.append(pool[(i * 7919 + k * 104729 + len(parts) * 31) % len(pool)])
            n += len(parts[-1])
        return "\n".join(parts)

    records = []
    for i in range(rows):
        prompt = ada_samples.TSORT_HEADER + ada_samples.TSORT_PROBLEM.format(
            before=segment(i, 0), after=segment(i, 5), **{f"part{d + 1}": segment(i, d + 1) for d in range(4)}
        )
        records.append(
            {
                "prompt": prompt,
                "answer": [4, 1, 3, 2],
                "book_id": 40_000 + i // 7,
                "para_offset": [i, i + 3, i + 6, i + 9],
            }
        )
    data = json.dumps(records, ensure_ascii=False, indent=4).encode()
    return Path(write_to_mirror(str(root), TASK.sources(length)["data"].url, data))
