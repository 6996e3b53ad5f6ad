"""Hand-made source files in a test's ``data_dir`` declare the records they hold.

A build holds every file to upstream's record count (``RemoteFile(..., records=N)``) unless the folder
declares its own (``longbench-suite-records.json``, :mod:`longbench_suite.source.samples`), as sample
mirrors do. A test that writes three InfiniteBench rows or one LV-Eval record by hand calls
:func:`declare_as_written` once its files are in place, so that the build reads what it wrote.
"""

from __future__ import annotations

from pathlib import Path

from longbench_suite import registry
from longbench_suite.records import count_records
from longbench_suite.samplefiles import record_counts
from longbench_suite.source import Member, RemoteFile, SourceResolver
from longbench_suite.source.samples import declare_sample_records, key


def declare_as_written(data_dir: str | Path, config: str) -> None:
    """Declare, in ``data_dir``, the records each source of ``config`` (``bench/name`` or a bare
    name) holds there, found where a build from ``data_dir`` would find it."""
    data_dir = str(data_dir)
    benchmark, name = registry.resolve(config)
    task, length = registry.benchmark(benchmark).lookup(name)
    sources = [*task.sources(length).values(), *task.dev_sources(length).values()]
    sources += [s for own in task.split_sources(length).values() for s in own.values()]
    finder = SourceResolver(None, cache_root=data_dir, data_dir=data_dir)
    counts: dict[str, int | None] = {}
    for source in sources:
        remote: RemoteFile = source.archive if isinstance(source, Member) else source
        if isinstance(source, Member):
            path = finder._find_in_data_dir(source.paths)
            if path:
                found = count_records(path, Path(path).read_bytes())
                counts.update({key(remote.url, member): found for member in source.paths})
                continue
        path = finder._remote_in_data_dir(remote, archive=isinstance(source, Member))
        if path:
            counts.update(record_counts(remote.url, Path(path).read_bytes()))
    declare_sample_records(data_dir, counts)
