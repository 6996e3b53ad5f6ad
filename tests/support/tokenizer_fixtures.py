"""Tokenizer files the tests need, built at test-setup time from package registries.

* ``llama2_tokenizer_json()``: the exact Llama-1/2 ``tokenizer.json``, rebuilt from the vocab and merges
  embedded in the npm package ``llama-tokenizer-js`` (``docs/ecosystem.md`` §4a). The Llama tokenizer data is
  licensed under the Llama 2 Community License, so it is never committed: it is rebuilt here, into the
  git-ignored ``tests/.fixture_cache``.
* ``cl100k_cache_dir()``: a ``TIKTOKEN_CACHE_DIR`` holding ``cl100k_base``, taken from the PyPI wheel of
  ``llama-index-core`` (which ships tiktoken's cache file; its sha256 is checked by tiktoken itself).
* ``o200k_cache_dir()``: the same directory, also holding ``o200k_base`` (GPT-4o's encoding), which no PyPI
  wheel ships: rebuilt from the ranks the npm package ``js-tiktoken`` embeds, checked against the sha256
  tiktoken expects of the file.

Each builder raises if its registry is unreachable: a parity test must fail, not skip, when its
tokenizer cannot be made.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

CACHE = Path(__file__).resolve().parent.parent / ".fixture_cache"
LLAMA_JS_PACKAGE = "llama-tokenizer-js@1.2.2"
CL100K_WHEEL = "llama-index-core==0.14.25"
CL100K_FILE = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"  # sha1 of tiktoken's cl100k_base URL


def _rebuild_llama(js_source: str, dest: Path) -> None:
    from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, processors

    vocab_b64 = re.search(r'const llama_vocab_base64 = "([^"]+)"', js_source).group(1)
    merges_b64 = re.search(r'const llama_merges_binary = "([^"]+)"', js_source).group(1)
    vocab = base64.b64decode(vocab_b64).decode("utf-8").split("\n")
    raw = base64.b64decode(merges_b64)
    pairs = struct.unpack(f"<{len(raw) // 2}H", raw)
    merges = [(vocab[pairs[i]], vocab[pairs[i + 1]]) for i in range(0, len(pairs), 2)]
    assert len(vocab) == 32000 and len(merges) == 61249, (len(vocab), len(merges))
    tok = Tokenizer(
        models.BPE(
            vocab={t: i for i, t in enumerate(vocab)},
            merges=merges,
            unk_token="<unk>",
            fuse_unk=True,
            byte_fallback=True,
        )
    )
    # The pipeline of Meta's 2023 Llama-2 tokenizer.json.
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    tok.add_special_tokens([AddedToken(t, normalized=False, special=True) for t in ("<unk>", "<s>", "</s>")])
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", 1)]
    )
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".tmp")
    tok.save(str(tmp))
    os.replace(tmp, dest)


#: the npm registry's tarball of LLAMA_JS_PACKAGE and its published sha1 (``dist.shasum``), for machines
#: without the npm client
LLAMA_JS_TARBALL = "https://registry.npmjs.org/llama-tokenizer-js/-/llama-tokenizer-js-1.2.2.tgz"
LLAMA_JS_SHA1 = "4db5d5f0120e772fb46162ddc7b119f8d2044f4e"
TIKTOKEN_JS_PACKAGE = "js-tiktoken@1.0.21"
TIKTOKEN_JS_TARBALL = "https://registry.npmjs.org/js-tiktoken/-/js-tiktoken-1.0.21.tgz"
TIKTOKEN_JS_SHA1 = "368a9957591a30a62997dd0c4cf30866f00f8221"
O200K_FILE = "fb374d419588a4632f3f557e76b4b70aebbca790"  # sha1 of tiktoken's o200k_base URL
#: the sha256 tiktoken's ``o200k_base`` requires of that file (``tiktoken_ext/openai_public.py``)
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def _npm_tarball(package: str, tarball_url: str, sha1: str, work: str) -> Path:
    """A package's tarball: ``npm pack`` when npm is installed, else a download from the npm registry."""
    if shutil.which("npm"):
        subprocess.run(
            ["npm", "pack", package, "--silent", "--pack-destination", work],
            check=True,
            capture_output=True,
            timeout=300,
        )
        (tgz,) = Path(work).glob("*.tgz")
        return tgz
    with urllib.request.urlopen(tarball_url, timeout=120) as response:
        data = response.read()
    if hashlib.sha1(data).hexdigest() != sha1:
        raise RuntimeError(f"{tarball_url}: sha1 differs from the registry's published {sha1}")
    tgz = Path(work) / "package.tgz"
    tgz.write_bytes(data)
    return tgz


#: Meta's Llama-2 ``tokenizer_config.json`` sets this, so transformers decodes without clean-up.
LLAMA2_TOKENIZER_CONFIG = {"clean_up_tokenization_spaces": False}


def llama2_tokenizer_json() -> Path:
    dest = CACHE / "llama2" / "tokenizer.json"
    if not dest.exists():
        with tempfile.TemporaryDirectory() as work, tarfile.open(
            _npm_tarball(LLAMA_JS_PACKAGE, LLAMA_JS_TARBALL, LLAMA_JS_SHA1, work)
        ) as archive:
            js_source = archive.extractfile("package/llama-tokenizer.js").read().decode("utf-8")
        _rebuild_llama(js_source, dest)
    config = dest.with_name("tokenizer_config.json")
    if not config.exists():
        tmp = config.with_suffix(".tmp")
        tmp.write_text(json.dumps(LLAMA2_TOKENIZER_CONFIG), encoding="utf-8")
        os.replace(tmp, config)
    return dest


def cl100k_cache_dir() -> Path:
    dest_dir = CACHE / "tiktoken"
    if (dest_dir / CL100K_FILE).exists():
        return dest_dir
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", CL100K_WHEEL, "-d", work],
            check=True,
            capture_output=True,
            timeout=600,
        )
        (wheel,) = Path(work).glob("*.whl")
        with zipfile.ZipFile(wheel) as zf:
            (name,) = [n for n in zf.namelist() if n.endswith("/" + CL100K_FILE)]
            dest_dir.mkdir(parents=True, exist_ok=True)
            with zf.open(name) as src, open(dest_dir / (CL100K_FILE + ".tmp"), "wb") as dst:
                shutil.copyfileobj(src, dst)
    os.replace(dest_dir / (CL100K_FILE + ".tmp"), dest_dir / CL100K_FILE)
    return dest_dir


def _tiktoken_file_from_js_ranks(js_module: str) -> bytes:
    """tiktoken's ``<base64 token> <rank>`` lines from js-tiktoken's ranks module, whose ``bpe_ranks`` holds
    runs ``<ignored> <first rank> <token> <token> ...`` of consecutive ranks."""
    ranks = json.loads(js_module.removeprefix("export default ").rstrip().rstrip(";"))["bpe_ranks"]
    by_rank: dict[int, str] = {}
    for run in filter(None, ranks.split("\n")):
        _, first, *tokens = run.split(" ")
        by_rank.update((int(first) + i, token) for i, token in enumerate(tokens))
    assert sorted(by_rank) == list(range(len(by_rank))), "ranks are not 0..n-1"
    return "".join(f"{by_rank[rank]} {rank}\n" for rank in range(len(by_rank))).encode("ascii")


def o200k_cache_dir() -> Path:
    dest_dir = CACHE / "tiktoken"
    if (dest_dir / O200K_FILE).exists():
        return dest_dir
    with tempfile.TemporaryDirectory() as work, tarfile.open(
        _npm_tarball(TIKTOKEN_JS_PACKAGE, TIKTOKEN_JS_TARBALL, TIKTOKEN_JS_SHA1, work)
    ) as archive:
        js_module = archive.extractfile("package/dist/ranks/o200k_base.js").read().decode("utf-8")
    data = _tiktoken_file_from_js_ranks(js_module)
    if hashlib.sha256(data).hexdigest() != O200K_SHA256:
        raise RuntimeError(f"o200k_base from {TIKTOKEN_JS_PACKAGE}: sha256 is not tiktoken's {O200K_SHA256}")
    dest_dir.mkdir(parents=True, exist_ok=True)
    tmp = dest_dir / (O200K_FILE + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, dest_dir / O200K_FILE)
    return dest_dir


if __name__ == "__main__":
    print(llama2_tokenizer_json())
    print(cl100k_cache_dir())
    print(o200k_cache_dir())
