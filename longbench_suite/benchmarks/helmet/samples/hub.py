"""Synthetic sources, in their upstream layouts, of the HELMET tasks that read Hugging Face Hub datasets.

Written into a mirror (``MIRROR/HOST/PATH``) beside HELMET's archive: TREC's CogComp label files, the
NLU CSV, BANKING77 / CLINC150 / NarrativeQA as the repos' Parquet files (``datasets`` features, so
``ClassLabel`` and struct columns are typed as upstream), InfiniteBench's JSON Lines, and Multi-LexSum's
JSON-Lines cases with its ``sources.json`` object. Row counts are upstream's where split sizes depend
on them (:data:`FULL`). Long documents are lines of a three-word sentence and eight 8-digit numbers,
about 78 Llama-2 tokens a line (0.8 a byte), so 880 lines pass HELMET's 65536-token filters and 1760
lines its 131072 one while staying under 170 kB; books are shared between rows, as InfiniteBench's are.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass

from longbench_suite.samplefiles import TextMaker, json_bytes, jsonl_bytes, write_to_mirror

from .. import icl, infbench, multi_lexsum, narrativeqa


@dataclass(frozen=True)
class HubScale:
    trec_train: int = 5452
    trec_test: int = 500
    nlu_rows: int = 25716
    banking_train: int = 10003
    banking_per_label_test: int = 40  # 77 x 40 = 3080
    clinc_per_intent_train: int = 100  # 151 x 100 + 150 = 15250 with extra out-of-scope rows
    clinc_per_intent_validation: int = 20  # 151 x 20 + 80 = 3100
    narrativeqa_long_questions: tuple[int, ...] = (48, 44, 43)  # questions on each long document
    narrativeqa_short_documents: int = 40
    narrativeqa_train: int = 240
    infbench_rows: tuple[int, int, int] = (351, 229, 103)  # qa, choice, sum
    infbench_book_lines: tuple[int, ...] = (880, 920, 1760)
    lexsum_train: int = 2210
    lexsum_validation_long: int = 150
    lexsum_validation_short: int = 162
    lexsum_test_long: int = 355
    lexsum_test_short: int = 261
    lexsum_big_documents: int = 8
    long_document_lines: int = 1760  # NarrativeQA: > 131072 Llama-2 tokens
    half_document_lines: int = 450  # Multi-LexSum: two of these pass 65536 tokens


FULL = HubScale()
#: Small, but every split of every task is non-empty: each test pool holds a few rows more than the
#: eval size (500 for ICL, 100 for NarrativeQA and InfiniteBench, 50 for En.Sum), the rest going to dev.
DEMO = HubScale(
    trec_train=300,
    trec_test=40,
    nlu_rows=5200,  # a 10% test split of 520
    banking_train=700,
    banking_per_label_test=7,  # 539
    clinc_per_intent_train=3,
    clinc_per_intent_validation=3,  # 151 x 3 + 80 = 533
    narrativeqa_long_questions=(104,),
    narrativeqa_short_documents=2,
    narrativeqa_train=24,
    infbench_rows=(104, 104, 54),
    # a few lines more than FULL's, so the books also pass the filters under the demo tokenizer
    infbench_book_lines=(900,),
    lexsum_train=40,
    lexsum_validation_long=104,
    lexsum_validation_short=6,
    lexsum_test_long=3,
    lexsum_test_short=3,
    lexsum_big_documents=3,
    long_document_lines=1780,
)


def book(seed: str, lines: int) -> str:
    """About ``78 * lines`` Llama-2 tokens of text with a line break every line."""
    text = TextMaker(f"book:{seed}")
    return "\n".join(
        text.sentence(3) + " " + " ".join(str(text.randint(10_000_000, 99_999_999)) for _ in range(8))
        for _ in range(lines)
    )


def _question(text: TextMaker, i: int) -> str:
    return f"{text.choice(['What', 'Who', 'Where', 'When', 'Why'])} {text.words(5)} number {i} ?"


# -- ICL ----------------------------------------------------------------------------------------------


def trec_files(scale: HubScale) -> dict[str, bytes]:
    """CogComp's ``train_5500.label`` / ``TREC_10.label``: ``FINE:label question`` lines, bytes."""
    text = TextMaker("trec")
    fine = icl.TREC_FINE

    def lines(n: int, offset: int) -> list[bytes]:
        return [
            f"{fine[(i * 7 + offset) % len(fine)]} {_question(text, offset + i)}".encode() for i in range(n)
        ]

    train, test = lines(scale.trec_train, 0), lines(scale.trec_test, 100_000)
    train[5] = (
        train[5].split(b" ", 1)[0] + b" What is the sister\xf0city of Kyoto ?"
    )  # the one non-UTF-8 byte
    train[7] = train[3]  # a question asked twice in train
    train[11] = test[2]  # and one of the test questions
    return {
        icl.TREC_TRAIN.url: b"\n".join(train) + b"\n",
        icl.TREC_TEST.url: b"\n".join(test) + b"\n",
    }


NLU_HEADER = (
    "userid",
    "answerid",
    "scenario",
    "intent",
    "status",
    "answer_annotation",
    "notes",
    "suggested_entities",
    "answer_normalised",
    "answer",
    "question",
)


def nlu_csv(scale: HubScale) -> dict[str, bytes]:
    """``NLU-Data-Home-Domain-Annotated-All.csv``: ``;``-separated, annotations ``[type : words]``."""
    text = TextMaker("nlu")
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\n")
    writer.writerow(NLU_HEADER)
    for i in range(scale.nlu_rows):
        scenario, _, intent = icl.NLU_LABELS[(i * 11) % len(icl.NLU_LABELS)].partition("_")
        words = text.words(4)
        annotation = f"{words} [time : {text.words(2)}] number {i}"
        if i == 3:
            annotation = "null"  # the script drops this row
        elif i % 97 == 5:
            annotation = "wake me up at [time : five am]"  # the same utterance many times
        notes = "ok; checked" if i % 50 == 0 else ""
        writer.writerow(
            [i, i, scenario, intent, "", annotation, notes, "", words, words, "what would you say? (#1)"]
        )
    return {icl.NLU_CSV.url: out.getvalue().encode("utf-8")}


def _icl_task(name: str) -> icl.IclTask:
    return next(task for task in icl.TASKS if task.name == name)


def _parquet(rows: dict, features) -> bytes:
    """A Parquet file of ``rows`` typed by ``features`` (their metadata kept), written by pyarrow: no
    unlabelled "Creating parquet" bar per sample file."""
    import datasets
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(datasets.Dataset.from_dict(rows, features=features).data.table, buffer)
    return buffer.getvalue()


def _labeled_parquet(label_column: str, names: list[str], labels: list[int], seed: str) -> bytes:
    import datasets

    text = TextMaker(seed)
    features = datasets.Features(
        {"text": datasets.Value("string"), label_column: datasets.ClassLabel(names=names)}
    )
    texts = [f"{text.words(6)} request {seed} {i}" for i in range(len(labels))]
    return _parquet({"text": texts, label_column: labels}, features)


def banking_files(scale: HubScale) -> dict[str, bytes]:
    names = [f"banking_intent_{i:02d}" for i in range(77)]
    test_labels = [i % 77 for i in range(77 * scale.banking_per_label_test)]
    files = _icl_task("banking77").files
    return {
        files["train"].url: _labeled_parquet(
            "label", names, [i * 13 % 77 for i in range(scale.banking_train)], "b-train"
        ),
        files["test"].url: _labeled_parquet("label", names, test_labels, "b-test"),
    }


def clinc_files(scale: HubScale) -> dict[str, bytes]:
    names = [f"clinc_intent_{i:03d}" for i in range(151)]
    names[42] = "oos"
    files = _icl_task("clinc150").files

    def labels(per_intent: int, extra_oos: int) -> list[int]:
        return [i % 151 for i in range(151 * per_intent)] + [42] * extra_oos

    return {
        files["train"].url: _labeled_parquet(
            "intent", names, labels(scale.clinc_per_intent_train, 150), "c-train"
        ),
        files["validation"].url: _labeled_parquet(
            "intent", names, labels(scale.clinc_per_intent_validation, 80), "c-validation"
        ),
    }


# -- NarrativeQA ----------------------------------------------------------------------------------------


def _narrativeqa_features():
    import datasets

    string, tokens = datasets.Value("string"), datasets.List(datasets.Value("string"))
    return datasets.Features(
        {
            "document": {
                "id": string,
                "kind": string,
                "url": string,
                "file_size": datasets.Value("int32"),
                "word_count": datasets.Value("int32"),
                "start": string,
                "end": string,
                "summary": {"text": string, "tokens": tokens, "url": string, "title": string},
                "text": string,
            },
            "question": {"text": string, "tokens": tokens},
            "answers": datasets.List({"text": string, "tokens": tokens}),
        }
    )


def narrativeqa_row(doc_id: str, doc_text: str, question: str, answers: list[str]) -> dict:
    return {
        "document": {
            "id": doc_id,
            "kind": "gutenberg",
            "url": f"http://www.gutenberg.org/ebooks/{doc_id}.txt.utf-8",
            "file_size": len(doc_text),
            "word_count": len(doc_text.split()),
            "start": "CHAPTER I",
            "end": "THE END",
            "summary": {"text": "A summary.", "tokens": ["A", "summary", "."], "url": "w", "title": doc_id},
            "text": doc_text,
        },
        "question": {"text": question, "tokens": question.split()},
        "answers": [{"text": a, "tokens": a.split()} for a in answers],
    }


def _shards(rows: list[dict], n: int) -> list[list[dict]]:
    size = -(-len(rows) // n)
    return [rows[i * size : (i + 1) * size] for i in range(n)]


def narrativeqa_files(scale: HubScale) -> dict[str, bytes]:
    text = TextMaker("narrativeqa")
    rows = []
    for d, questions in enumerate(scale.narrativeqa_long_questions):
        doc_id, doc_text = f"long{d:02d}", book(f"narrativeqa-{d}", scale.long_document_lines)
        for q in range(questions):
            question = _question(text, d * 1000 + q)
            rows.append(narrativeqa_row(doc_id, doc_text, question, [f"answer {d}.{q}", f"alt {d}.{q}"]))
    rows.append(dict(rows[1]))  # one question asked twice about one document
    for d in range(scale.narrativeqa_short_documents):
        doc_text = book(f"short-{d}", 20)
        for q in range(4):
            rows.append(
                narrativeqa_row(f"short{d:03d}", doc_text, _question(text, 50_000 + d * 10 + q), ["x"])
            )
    train = [
        narrativeqa_row(f"train{i // 10:03d}", "A short story.", _question(text, 90_000 + i), [f"train {i}"])
        for i in range(scale.narrativeqa_train)
    ]
    return narrativeqa_shards(rows, train)


def narrativeqa_shards(test: list[dict], train: list[dict]) -> dict[str, bytes]:
    """``deepmind/narrativeqa`` Parquet shards (url -> bytes) of rows made by :func:`narrativeqa_row`."""
    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq

    features = _narrativeqa_features()
    files = {}
    for split, split_rows in (("test", test), ("train", train)):
        for i, shard in enumerate(_shards(split_rows, narrativeqa.SHARDS[split])):
            if shard:
                table = pa.table(datasets.Dataset.from_list(shard, features=features).data.table)
            else:
                table = features.arrow_schema.empty_table()
            buffer = io.BytesIO()
            # zstd finds a document repeated on consecutive rows, keeping the shard small.
            pq.write_table(table, buffer, compression="zstd")
            files[narrativeqa.shard_files(split)[f"{split}-{i:05d}"].url] = buffer.getvalue()
    return files


# -- InfiniteBench ---------------------------------------------------------------------------------------


def infbench_files(scale: HubScale) -> dict[str, bytes]:
    books = [book(f"infbench-{i}", lines) for i, lines in enumerate(scale.infbench_book_lines)]
    text = TextMaker("infbench")
    files = {}
    for task, rows in zip(infbench.TASKS, scale.infbench_rows, strict=True):
        records = []
        for i in range(rows):
            # most rows share the shorter books; every tenth reads the longest one
            record = {
                "id": i,
                "context": books[-1] if i % 10 == 0 else books[i % max(1, len(books) - 1)],
                "input": _question(text, i),
                "answer": [f"gold {i}"],
            }
            if task.kind == "mc":
                options = [f"option {i}.{k}" for k in range(4)]
                record["options"], record["answer"] = options, [options[(i * 3) % 4]]
            elif task.kind == "sum":
                record["input"] = "Summarize the book."
                record["answer"] = [f"  The story of book {i % len(books)}, told for row {i}.  "]
                record["options"] = []
            else:
                record["answer"] = [f"gold {i}", f"also {i}"] if i % 5 == 0 else [f"gold {i}"]
                record["options"] = []
            records.append(record)
        files[task.sources("8k")["data"].url] = jsonl_bytes(records)
    return files


def infbench_keypoints(scale: HubScale) -> dict[str, bytes]:
    # Key points for every summarization row but the last (a row without key points gets []).
    rows = [
        {"id": i, "keypoints": [f"point {i}.{k}" for k in range(3)]}
        for i in range(scale.infbench_rows[2] - 1)
    ]
    return {"data/infbench/longbook_sum_eng_keypoints.jsonl": jsonl_bytes(rows)}


# -- Multi-LexSum -------------------------------------------------------------------------------------


def _lexsum_cases(prefix: str, long: int, short: int, big: int, text: TextMaker) -> list[dict]:
    cases = []
    for i in range(long + short):
        if i < long:  # two or three of the big documents (a few combinations): more than 65536 tokens
            documents = [f"big{(i + k) % big}" for k in range(2 + (i % 3 == 0))]
        else:
            documents = [f"small-{prefix}-{i}"]
        cases.append(
            {
                "case_id": f"{prefix.upper()}-{i:04d}",
                "case_documents": documents,
                "summary/long": f"The long summary of case {prefix} {i}. {text.sentence(20)}",
                "summary/short": f"The short summary of case {prefix} {i}.",
                "summary/tiny": f"Case {i}.",
                "case_metadata": {"case_name": f"{prefix} v. {i}", "filing_year": 2000 + i % 20},
            }
        )
    longs, shorts = cases[:long], cases[long:]
    return [c for i in range(max(long, short)) for c in (longs[i : i + 1] + shorts[i : i + 1])]


def multi_lexsum_files(scale: HubScale) -> dict[str, bytes]:
    text = TextMaker("multi_lexsum")
    big = scale.lexsum_big_documents
    splits = {
        "train": _lexsum_cases("tr", 0, scale.lexsum_train, big, text),
        "validation": _lexsum_cases(
            "va", scale.lexsum_validation_long, scale.lexsum_validation_short, big, text
        ),
        "test": _lexsum_cases("te", scale.lexsum_test_long, scale.lexsum_test_short, big, text),
    }
    for cases in splits.values():
        cases.insert(1, {**cases[0], "case_id": cases[0]["case_id"] + "-NOSHORT", "summary/short": None})
    sources = {
        f"big{i}": {"doc_text": book(f"lexsum-{i}", scale.half_document_lines), "doc_type": "Complaint"}
        for i in range(big)
    }
    for cases in splits.values():
        for case in cases:
            for doc in case["case_documents"]:
                if doc not in sources:
                    sources[doc] = {
                        "doc_text": f"A short filing {doc}.\n{text.sentence(30)}",
                        "doc_type": "Order",
                    }
    task = multi_lexsum.TASKS[0]
    urls = task.sources("8k")
    return {
        **{urls[split].url: jsonl_bytes(cases) for split, cases in splits.items()},
        urls["sources"].url: json_bytes(sources),
    }


def multi_lexsum_keypoints(scale: HubScale) -> dict[str, bytes]:
    rows = [
        {"id": f"VA-{i:04d}", "summary/short_keypoints": [f"key point {i}.{k}" for k in range(2)]}
        for i in range(scale.lexsum_validation_long)
    ]
    return {"data/multi_lexsum/multi_lexsum_val.jsonl": jsonl_bytes(rows)}


#: Files outside HELMET's archive (url -> bytes) and members inside it (path -> bytes).
HUB_FILES: list[Callable[[HubScale], dict[str, bytes]]] = [
    trec_files,
    nlu_csv,
    banking_files,
    clinc_files,
    narrativeqa_files,
    infbench_files,
    multi_lexsum_files,
]
ARCHIVE_MEMBERS: list[Callable[[HubScale], dict[str, bytes]]] = [infbench_keypoints, multi_lexsum_keypoints]


def archive_members(scale: HubScale) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    for generate in ARCHIVE_MEMBERS:
        members.update(generate(scale))
    return members


def write_hub_files(mirror_dir: str, scale: HubScale) -> list[str]:
    return [
        write_to_mirror(mirror_dir, url, data)
        for generate in HUB_FILES
        for url, data in generate(scale).items()
    ]
