"""``longbench-suite demo``: every benchmark, end to end, offline, on built-in sample data.

Besides each benchmark's ``DEMO_CONFIGS``, a samples module may name generated configs to show with
their ``generate`` options (``DEMO_GENERATED``).

It writes a small mirror of synthetic sources in the exact upstream layouts into the cache directory,
trains a small BPE tokenizer (the real default, Llama-2, is gated and needs the Hub), and builds a few
configs of every benchmark through the same download, parsing, partition and truncation code that
real data goes through. Any build can use that sandbox: ``demo=True`` / ``--demo`` (:func:`sandbox_options`).
This module writes the sandbox; the command builds the configs (``cli``), through ``load_dataset``,
which uses this module, so it cannot import the API back.
"""

from __future__ import annotations

import hashlib
import logging
import os

from . import registry
from ._version import __version__
from .errors import OptionError
from .source.manifest import MANIFEST_NAME, SampleManifest, read_manifest, write_manifest

logger = logging.getLogger("longbench_suite")


def demo_root(cache_dir: str | None) -> str:
    import datasets

    return os.path.join(cache_dir or datasets.config.HF_DATASETS_CACHE, "longbench_suite", "demo")


def _samples(bench: str):
    return registry.samples(bench)


def _writer_digest(scale: str) -> str:
    """Identity of the code that writes the samples: a sandbox written by other code is written again."""
    from . import samplefiles

    h = hashlib.sha256(f"{__version__}\0{scale}".encode())
    paths = [samplefiles.__file__]
    for bench in registry.benchmark_names():
        module = _samples(bench)
        if os.path.basename(module.__file__) == "__init__.py":  # a samples/ package
            folder = os.path.dirname(module.__file__)
            paths += [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".py")]
        else:
            paths.append(module.__file__)
    for path in paths:
        with open(path, "rb") as handle:
            h.update(handle.read())
    return h.hexdigest()[:16]


def _intact(manifest: SampleManifest) -> bool:
    """Every file the manifest declares is there with its declared size (digests are checked by builds)."""
    for relative, declared in manifest.files.items():
        path = os.path.join(manifest.mirror, *relative.split("/"))
        if not os.path.isfile(path) or os.path.getsize(path) != declared["size"]:
            return False
    return True


def write_sandbox(mirror: str, scale: str = "DEMO") -> SampleManifest:
    """Every benchmark's samples at ``scale`` in ``mirror``, with the manifest that declares them (its
    files' digests and sizes, the configs' split sizes); kept as it is when the same code wrote it."""
    writer = _writer_digest(scale)
    existing = read_manifest(mirror)
    if existing and existing.writer == writer and existing.scale == scale and _intact(existing):
        return existing
    if existing:  # no manifest while the files change: an interrupted write declares nothing
        os.remove(existing.path)
    written: list[str] = []
    sizes: dict[str, dict[str, int]] = {}
    from datasets.utils.tqdm import tqdm

    logger.info("writing the sample sources (%s scale) into %s", scale, mirror)
    for bench in tqdm(registry.benchmark_names(), desc="Writing sample sources", unit="benchmark"):
        samples = _samples(bench)
        chosen = getattr(samples, scale)
        written += samples.write_samples(mirror, chosen)
        declared = getattr(samples, "declared_sizes", None)
        for config, split_sizes in (declared(chosen) if declared else {}).items():
            sizes[f"{bench}/{config}"] = dict(split_sizes)
    return write_manifest(mirror, written, scale=scale, writer=writer, sizes=sizes)


def offline_options(cache_dir: str | None = None) -> dict:
    """``mirror``/``tokenizer``/``pretruncation_tokenizer``/``cache_dir`` options that build every config
    offline from sample data (written, with the demo tokenizer, into the cache directory on first use):
    what ``demo=True`` (``--demo``) stands for."""
    from .samplefiles import train_demo_tokenizer

    root = demo_root(cache_dir)
    mirror = os.path.join(root, "mirror")
    ready = _READY.get(root)
    if ready is None or not os.path.isfile(os.path.join(mirror, MANIFEST_NAME)) or not os.path.isfile(ready):
        write_sandbox(mirror)
        ready = _READY[root] = train_demo_tokenizer(os.path.join(root, "tokenizer"))
    return {"mirror": mirror, "tokenizer": ready, "pretruncation_tokenizer": ready, "cache_dir": cache_dir}


#: the sandboxes this process has written or checked (their root: the tokenizer's path); checked once
#: per process, since a command may build dozens of configs from one sandbox
_READY: dict[str, str] = {}


def sandbox_options(
    cache_dir: str | None = None,
    *,
    mirror: str | None = None,
    data_dir: str | None = None,
    tokenizer=None,
    pretruncation_tokenizer=None,
) -> dict:
    """The build options of ``demo=True``: the sandbox's mirror, and its tokenizer wherever no
    ``tokenizer`` / ``pretruncation_tokenizer`` is given (those given win: sample rows can be counted in
    any tokenizer). Sources other than the sandbox's (``mirror``, ``data_dir``) contradict it."""
    given = [name for name, value in (("mirror", mirror), ("data_dir", data_dir)) if value is not None]
    if given:
        flags = " / ".join(f"{name}= (--{name.replace('_', '-')})" for name in given)
        raise OptionError(f"demo=True (--demo) reads the sandbox's sample sources; leave out {flags}")
    sandbox = offline_options(cache_dir)
    return {
        "mirror": sandbox["mirror"],
        "tokenizer": tokenizer if tokenizer is not None else sandbox["tokenizer"],
        "pretruncation_tokenizer": (
            pretruncation_tokenizer if pretruncation_tokenizer is not None else sandbox["tokenizer"]
        ),
    }
