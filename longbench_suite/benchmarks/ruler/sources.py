"""RULER's four real source files, declared with pinned copies and checksums, and how each is read.

RULER (``scripts/data/synthetic/json/`` at commit :data:`RULER_COMMIT`) downloads or ships:

- ``squad.json``: SQuAD 2.0 dev (``download_qa_dataset.sh``), for ``qa_1``;
- ``hotpotqa.json``: HotpotQA dev, distractor setting, for ``qa_2``. The authors' host
  (``curtis.ml.cmu.edu``) is down; since RULER's PR #106 the script falls back to a copy on the Hub at
  a pinned revision. That copy holds the same 7,405 questions but is not byte-identical to the
  authors' file (another sha256 and size), so each is declared with its own checksum;
- ``PaulGrahamEssays.json``: the essay haystack, which ``download_paulgraham_essay.py`` scrapes live
  from paulgraham.com (through ``html2text``) — its bytes depend on the day and the html2text version,
  and no copy of RULER's own is published. The declared source is the Hub copy lm-evaluation-harness
  reads (``baber/paul_graham_essays``, one Parquet file, one essay a row), pinned to a revision; its
  essays joined with a space (as lm-evaluation-harness joins them) are the essay text. A build that
  must use RULER's own scrape passes that file (``essay=``, read by :func:`read_ruler_essay`);
- ``english_words.json``: CWE's fallback word list, a git-LFS file in RULER's repository (a
  checkout without LFS holds only the pointer); declared at RULER's commit on GitHub's LFS media host.

Licences (for the card): SQuAD 2.0 and HotpotQA are CC BY-SA 4.0; the essays carry no licence
(copyright Paul Graham); ``english_words.json`` is part of RULER's repository, Apache-2.0.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

from longbench_suite.errors import DataFormatError, SourceError, describe, first_lone_surrogate
from longbench_suite.generate.limits import read_essay
from longbench_suite.generate.niah import essay_digest
from longbench_suite.generate.qa import QaQuestion, QaSource
from longbench_suite.records.count import check_count
from longbench_suite.source import FileRef, RemoteFile, hub_url

#: the RULER commit whose scripts and files these are (the parity fixtures' commit)
RULER_COMMIT = "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a"

SQUAD_URL = "https://rajpurkar.github.io/SQuAD-explorer/dataset/dev-v2.0.json"
HOTPOTQA_URL = "http://curtis.ml.cmu.edu/datasets/hotpot/hotpot_dev_distractor_v1.json"
#: the Hub copy RULER's ``download_qa_dataset.sh`` falls back to (PR #106)
HOTPOTQA_HUB_REPO = "namlh2004/hotpotqa"
HOTPOTQA_HUB_REVISION = "7e54db4656209750ff487f6fdf8e39a66dba136b"
#: the essays lm-evaluation-harness's RULER tasks read
ESSAYS_HUB_REPO = "baber/paul_graham_essays"
ESSAYS_HUB_REVISION = "792d672b77d1a67720f7e9820d646358fc18792e"
ENGLISH_WORDS_URL = (
    f"https://media.githubusercontent.com/media/NVIDIA/RULER/{RULER_COMMIT}"
    "/scripts/data/synthetic/json/english_words.json"
)

#: SQuAD 2.0 dev; sha256 and size as Hugging Face ``datasets``' ``squad_v2`` records them. A JSON
#: object (35 articles, 11,873 questions), so no record count is declared.
SQUAD = RemoteFile(
    SQUAD_URL,
    sha256="80a5225e94905956a6446d296ca1093975c4d3b3260f1d6c8f68bc2ab77182d8",
    size="about 4.4 MB (4,370,528 bytes)",
)

#: HotpotQA dev (distractor) at the Hub copy; sha256 and size as independent pins of that revision give
#: them (RULER pins the revision but no checksum)
HOTPOTQA_HUB = RemoteFile(
    hub_url(HOTPOTQA_HUB_REPO, "hotpot_dev_distractor_v1.json", revision=HOTPOTQA_HUB_REVISION),
    sha256="e3da074df24e8369009918aa5cdbdd254dadcde4c63f7569d36afd6f2268caa8",
    size="about 61 MB (61,065,698 bytes)",
    records=7405,
)

#: HotpotQA dev (distractor) at the authors' host; sha256 and size as ``datasets``' ``hotpot_qa``
#: records them; when the host cannot be had, the Hub copy
HOTPOTQA = RemoteFile(
    HOTPOTQA_URL,
    sha256="4e9ecb5c8d3b719f624d66b60f8d56bf227f03914f5f0753d6fa1b359d7104ea",
    size="about 46 MB (46,320,117 bytes)",
    records=7405,
    fallback=HOTPOTQA_HUB,
)

#: the essay haystack (see the module's docstring); its sha256 as a third-party pin of this revision
#: gives it, and the download's own digest is recorded in the dataset info as well
ESSAYS = RemoteFile(
    hub_url(ESSAYS_HUB_REPO, "essays.parquet", revision=ESSAYS_HUB_REVISION),
    sha256="825448033be010042ffd6fc77c32bbcab61f2ef63196f0fc4bfbf5b388a1660e",
    record_sha256=True,
    instead=(
        "or build on RULER's own PaulGrahamEssays.json (or any plain-text essay file) instead: "
        "generate={'essay': PATH} (--generate essay=PATH)"
    ),
)

#: CWE's word list: the LFS object of RULER's ``json/english_words.json`` (its pointer names the sha256
#: and size); a JSON object whose values are the words
ENGLISH_WORDS = RemoteFile(
    ENGLISH_WORDS_URL,
    sha256="affcd6d45fdf3cc843d585c99c97ad615094e760e6c4756b654bab6c73bc2eca",
    size="about 8.6 MB (8,564,991 bytes)",
)


@dataclass(frozen=True)
class Licence:
    name: str
    source: str  # where the licence is stated


#: the licence of each source, and where it is stated
LICENCES = {
    "squad": Licence(
        "CC BY-SA 4.0",
        "the dataset card of rajpurkar/squad_v2 on the Hub (license: cc-by-sa-4.0), whose homepage is "
        "https://rajpurkar.github.io/SQuAD-explorer/",
    ),
    "hotpotqa": Licence(
        "CC BY-SA 4.0", "https://hotpotqa.github.io/: 'HotpotQA is distributed under a CC BY-SA 4.0 License'"
    ),
    "essays": Licence(
        "none stated (the essays are Paul Graham's; redistribution is not licensed)",
        "https://paulgraham.com/articles.html; the Hub copy's repository has no licence or card",
    ),
    "english_words": Licence("Apache-2.0", f"RULER's LICENSE at {RULER_COMMIT}"),
}

#: every source by name, as the ``ruler`` benchmark's configs name them
SOURCES = {"squad": SQUAD, "hotpotqa": HOTPOTQA, "essays": ESSAYS, "english_words": ENGLISH_WORDS}

Readable = FileRef | str


# -- reading ---------------------------------------------------------------------------------------


def _open(file: Readable) -> tuple[BinaryIO, str]:
    if isinstance(file, FileRef):
        return file.open(), file.label
    try:
        return open(file, "rb"), file
    except OSError as exc:
        raise SourceError(f"{file}: {exc.strerror}") from None


def _read_json(file: Readable) -> tuple[Any, str]:
    handle, label = _open(file)
    try:
        with handle:
            data = handle.read()
    except OSError as exc:
        raise SourceError(f"{label}: cannot read: {describe(exc)}") from None
    try:
        return json.loads(data), label
    except UnicodeDecodeError as exc:
        raise DataFormatError(f"{label}: not UTF-8 JSON (byte {exc.start})") from None
    except ValueError as exc:
        raise DataFormatError(f"{label}: not JSON: {exc}") from None


def _field(record: Any, name: str, kind: type, where: str) -> Any:
    """``record[name]``, of type ``kind`` (a string is checked as text), or one line naming both."""
    if not isinstance(record, dict) or name not in record:
        raise DataFormatError(f"{where}: has no field {name!r}")
    value = record[name]
    if kind is str:
        return _text(value, f"field {name!r}", where)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        found = type(value).__name__
        raise DataFormatError(f"{where}: field {name!r} must be a {kind.__name__}, not {found}")
    return value


def _text(value: Any, name: str, where: str) -> str:
    if not isinstance(value, str):
        raise DataFormatError(f"{where}: {name} must be a string, not {type(value).__name__}")
    if (at := first_lone_surrogate(value)) is not None:
        raise DataFormatError(f"{where}: {name} holds a lone surrogate at character {at}")
    return value


def _index(texts: Sequence[str]) -> tuple[tuple[str, ...], dict[str, int]]:
    """RULER's documents: the distinct texts, sorted, and each one's position."""
    documents = tuple(sorted(set(texts)))
    return documents, {text: i for i, text in enumerate(documents)}


def read_squad(file: Readable) -> QaSource:
    """SQuAD 2.0 (``dev-v2.0.json`` layout) as RULER reads it: every paragraph is a document; each
    answerable question (``is_impossible`` false) asks about its paragraph, and the other paragraphs of
    its article are its first distractors."""
    document, label = _read_json(file)
    articles = _field(document, "data", list, label)
    paragraphs = []  # (article, paragraph) in file order
    for a, article in enumerate(articles):
        for p, paragraph in enumerate(_field(article, "paragraphs", list, f"{label}: data[{a}]")):
            where = f"{label}: data[{a}].paragraphs[{p}]"
            paragraphs.append((a, p, paragraph, _field(paragraph, "context", str, where), where))
    documents, position = _index([context for *_, context, _ in paragraphs])
    by_article: dict[int, list[int]] = {}
    for a, _p, _paragraph, context, _where in paragraphs:
        by_article.setdefault(a, []).append(position[context])
    questions = []
    for a, _p, paragraph, context, where in paragraphs:
        own = position[context]
        others = tuple(i for i in by_article[a] if i != own)
        for q, qa in enumerate(_field(paragraph, "qas", list, where)):
            at = f"{where}.qas[{q}]"
            if _field(qa, "is_impossible", bool, at):
                continue
            answers = _field(qa, "answers", list, at)
            outputs = tuple(_field(a, "text", str, f"{at}.answers[{i}]") for i, a in enumerate(answers))
            questions.append(QaQuestion(_field(qa, "question", str, at), outputs, (own,), others))
    if not questions:
        raise DataFormatError(f"{label}: holds no answerable question (is_impossible false)")
    return QaSource(documents, tuple(questions), label)


def hotpotqa_document(title: str, sentences: Sequence[str]) -> str:
    """A HotpotQA paragraph as RULER writes it: the title, a line break, the sentences run together."""
    return f"{title}\n{''.join(sentences)}"


def read_hotpotqa(file: Readable) -> QaSource:
    """HotpotQA (``hotpot_dev_distractor_v1.json`` layout) as RULER reads it: every ``context``
    paragraph is a document; a question's distractor-setting paragraphs are its documents."""
    records, label = _read_json(file)
    if not isinstance(records, list):
        raise DataFormatError(f"{label}: expected a JSON array of questions, not {type(records).__name__}")
    if isinstance(file, FileRef):
        check_count(file, len(records))
    paragraphs = []  # per record, its documents' texts
    for r, record in enumerate(records):
        where = f"{label}: [{r}]"
        texts = []
        for c, pair in enumerate(_field(record, "context", list, where)):
            at = f"{where}.context[{c}]"
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[1], list):
                raise DataFormatError(f"{at}: must be a [title, [sentence, ...]] pair")
            title = _text(pair[0], "the title", at)
            sentences = [_text(s, f"sentence {i}", at) for i, s in enumerate(pair[1])]
            texts.append(hotpotqa_document(title, sentences))
        paragraphs.append(texts)
    documents, position = _index([text for texts in paragraphs for text in texts])
    questions = []
    for r, (record, texts) in enumerate(zip(records, paragraphs, strict=True)):
        where = f"{label}: [{r}]"
        query, answer = _field(record, "question", str, where), _field(record, "answer", str, where)
        questions.append(QaQuestion(query, (answer,), tuple(position[t] for t in texts), ()))
    if not questions:
        raise DataFormatError(f"{label}: holds no question")
    return QaSource(documents, tuple(questions), label)


def read_essays(file: Readable) -> str:
    """The essay text of the Hub copy (``essays.parquet``): its ``text`` column, in row order, joined
    with a space (as lm-evaluation-harness joins it; RULER's sizing splits the text at whitespace runs)."""
    import pyarrow.parquet as pq

    handle, label = _open(file)
    try:
        with handle:
            table = pq.read_table(io.BytesIO(handle.read()))
    except OSError as exc:  # pyarrow's ArrowInvalid is an OSError... and a ValueError
        raise DataFormatError(f"{label}: not a readable Parquet file: {describe(exc)}") from None
    except ValueError as exc:
        raise DataFormatError(f"{label}: not a readable Parquet file: {describe(exc)}") from None
    if isinstance(file, FileRef):
        check_count(file, table.num_rows)
    if "text" not in table.column_names:
        raise DataFormatError(f"{label}: has no column 'text' (columns: {', '.join(table.column_names)})")
    texts = table.column("text").to_pylist()
    for i, text in enumerate(texts):
        _text(text, "text", f"{label}: row {i}")
    essay = " ".join(texts)
    if not essay.strip():
        raise DataFormatError(f"{label}: holds no text (an essay haystack is made of its words)")
    return essay


def read_ruler_essay(path: str) -> str:
    """RULER's own ``PaulGrahamEssays.json`` (``{"text": ...}``) or a plain-text essay file."""
    return read_essay(path)


def read_english_words(file: Readable) -> list[str]:
    """CWE's word list: the values of RULER's ``english_words.json`` object, in file order."""
    document, label = _read_json(file)
    if not isinstance(document, dict):
        raise DataFormatError(f"{label}: expected a JSON object of words, not {type(document).__name__}")
    words = []
    for key, word in document.items():
        words.append(_text(word, f"the value of {key!r}", label))
    if not words:
        raise DataFormatError(f"{label}: holds no word")
    return words


# -- what a build read, for an export's card ---------------------------------------------------------


def served(remote: RemoteFile, sources_read: Mapping[str, Mapping[str, Any]]) -> str:
    """Which copy of ``remote`` a build read: the first of it and its fallbacks whose download the build
    recorded (``sources_read``: its ``download_checksums``), with the sha256 it recorded."""
    fallback = False
    while remote is not None:
        if remote.url in sources_read:
            digest = sources_read[remote.url].get("checksum") or remote.sha256
            where = f"{remote.url} (sha256 `{digest[:8]}…`)"
            return f"the fallback, {where}: the canonical host could not be had" if fallback else where
        remote, fallback = remote.fallback, True
    return "a local file (data_dir): no download recorded"


def essay_account(path: str | None, sources_read: Mapping[str, Mapping[str, Any]]) -> str:
    """The essay text a build used: the declared Hub copy (with the sha256 the build recorded of it), or
    the user's file and its text's digest (the one :class:`~longbench_suite.generate.niah.Essay` keeps)."""
    if path is None:
        digest = (sources_read.get(ESSAYS.url) or {}).get("checksum") or ESSAYS.sha256
        copy = f"`{ESSAYS_HUB_REPO}` at `{ESSAYS_HUB_REVISION[:7]}`"
        return f"{copy} (`essays.parquet`, sha256 `{digest[:8]}…`)"
    digest = essay_digest(read_ruler_essay(path))
    name = os.path.basename(path)
    return f"the user's file `{name}` (`generate={{'essay': PATH}}`, text sha256 `{digest}…`)"


#: each source's reader, by its name in :data:`SOURCES`
READERS = {
    "squad": read_squad,
    "hotpotqa": read_hotpotqa,
    "essays": read_essays,
    "english_words": read_english_words,
}
