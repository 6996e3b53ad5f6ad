"""Tools for writing synthetic source files in the exact upstream layouts.

``longbench-suite demo`` and the tests build every benchmark from such files, served from a mirror
directory (or over loopback HTTP), through the same download and parsing code as real data. Each
benchmark's ``samples`` module says *what* to write; this module says *how*: deterministic text,
JSON/JSON-Lines serialisation and reproducible archives (fixed member order and timestamps).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
import zipfile
from collections.abc import Iterable, Mapping, Sequence

from .partition import sampling
from .records.count import count_records
from .source import mirrored
from .source.samples import declare_sample_records
from .source.samples import key as sample_key

WORDS = """
river mountain city library engine garden harbor signal market winter forest castle bridge
letter window island museum theory planet station orchard valley canyon meadow desert lantern
painter sailor farmer doctor teacher captain singer author builder pilot merchant scholar
ancient quiet golden hidden northern eastern silver crimson narrow distant gentle bright early
carried built opened studied painted wrote measured crossed founded discovered followed during
before after within across beyond under through around between along
""".split()  # noqa: SIM905


class TextMaker:
    """Deterministic pseudo-English from a seed (all randomness goes through :mod:`sampling`)."""

    def __init__(self, seed: int | str) -> None:
        self._rng = sampling.python_rng(seed)

    def words(self, n: int) -> str:
        return " ".join(self._rng.choice(WORDS) for _ in range(n))

    def sentence(self, n: int = 12) -> str:
        text = self.words(n)
        return text[0].upper() + text[1:] + "."

    def paragraph(self, sentences: int = 4, words: int = 12) -> str:
        return " ".join(self.sentence(words) for _ in range(sentences))

    def choice(self, options):
        return self._rng.choice(options)

    def randint(self, a: int, b: int) -> int:
        return self._rng.randint(a, b)

    def shuffle(self, items: list) -> None:
        self._rng.shuffle(items)

    def chinese(self, n: int, vocabulary: Sequence[str]) -> str:
        """``n`` pseudo-Chinese words from ``vocabulary``, written without spaces."""
        return "".join(self._rng.choice(vocabulary) for _ in range(n))


class ChineseText:
    """:class:`TextMaker`'s ``words``/``paragraph`` interface in pseudo-Chinese (``。`` ends a sentence)."""

    def __init__(self, seed: int | str, vocabulary: Sequence[str]) -> None:
        self._text = TextMaker(seed)
        self.vocabulary = vocabulary

    def words(self, n: int) -> str:
        return self._text.chinese(n, self.vocabulary)

    def paragraph(self, sentences: int = 4, words: int = 12) -> str:
        return "".join(self.words(words) + "。" for _ in range(sentences))


def jsonl_bytes(records: Iterable[Mapping], ensure_ascii: bool = False) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=ensure_ascii) + "\n" for r in records).encode("utf-8")


def json_bytes(document: object, indent: int | None = None) -> bytes:
    return json.dumps(document, ensure_ascii=False, indent=indent).encode("utf-8")


def _atomic_write(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def tar_gz_bytes(members: Mapping[str, bytes]) -> bytes:
    """A gzip-compressed tar of ``members`` (path -> bytes), reproducible byte for byte."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        directories = sorted({"/".join(p.split("/")[: i + 1]) for p in members for i in range(p.count("/"))})
        for directory in directories:
            info = tarfile.TarInfo(directory)
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 0
            tar.addfile(info)
        for path in sorted(members):
            info = tarfile.TarInfo(path)
            info.size, info.mode, info.mtime = len(members[path]), 0o644, 0
            tar.addfile(info, io.BytesIO(members[path]))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, compresslevel=6) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def zip_bytes(members: Mapping[str, bytes]) -> bytes:
    """A deflated zip of ``members``, reproducible byte for byte."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(members):
            info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, members[path])
    return out.getvalue()


def write_to_mirror(mirror_dir: str, url: str, data: bytes) -> str:
    """Write ``data`` where a mirror keeps ``url`` (``MIRROR/HOST/PATH``); returns the path.

    The records the file (or each member of an archive) holds are declared beside it, so that the
    mirror is held to its own counts, not upstream's (:mod:`longbench_suite.source.samples`).
    """
    path = mirrored(url, mirror_dir)
    _atomic_write(path, data)
    declare_sample_records(mirror_dir, record_counts(url, data))
    return path


def record_counts(url: str, data: bytes) -> dict[str, int | None]:
    """The declaration of the file ``data`` kept for ``url``: its records, or each archive member's."""
    try:
        return _counts(url, data)
    except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError):  # a broken archive, on purpose
        return {}


def _counts(url: str, data: bytes) -> dict[str, int | None]:
    if url.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            members = {info.filename: zf.read(info) for info in zf.infolist() if not info.is_dir()}
    elif url.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            members = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    else:
        return {sample_key(url): count_records(url, data)}
    return {sample_key(url, name): count_records(name, body) for name, body in members.items()}


def train_demo_tokenizer(dest_dir: str, vocab_size: int = 2000) -> str:
    """A byte-level BPE that adds a BOS token like Llama's, trained on :class:`TextMaker` text.

    The demo and the unit tests count tokens with it where the real default (the gated Llama-2
    tokenizer) cannot be fetched. Returns the path of its ``tokenizer.json``.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    text = TextMaker("demo-tokenizer")
    corpus = [text.paragraph(4) for _ in range(400)]
    corpus += ["Question: Answer: Document (Title: ) [ID: ] label: Summary: Key: value 0123456789"] * 20
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<unk>", "<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus, trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", tok.token_to_id("<s>"))]
    )
    os.makedirs(dest_dir, exist_ok=True)
    path = os.path.join(dest_dir, "tokenizer.json")
    tmp = f"{path}.tmp-{os.getpid()}"
    tok.save(tmp)
    os.replace(tmp, path)
    # decode as the tokenizers pipeline does, with no transformers-style clean-up of spaces
    config = os.path.join(dest_dir, "tokenizer_config.json")
    with open(f"{config}.tmp-{os.getpid()}", "w", encoding="utf-8") as handle:
        json.dump({"clean_up_tokenization_spaces": False}, handle)
    os.replace(f"{config}.tmp-{os.getpid()}", config)
    return path
