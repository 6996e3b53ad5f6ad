"""A Hub tokenizer's files (``tokenizer.json`` and its ``tokenizer_config.json``), fetched or failing fast.

``huggingface_hub`` retries a download whose host does not answer (about 25 s in all, with 2.x) before
it gives up, and then says nothing of what to do instead. Here one metadata request, with no retry,
decides first: the Hub answers (the files are downloaded as usual), it is unreachable or offline (the
files come from the Hugging Face cache, or the error comes at once), or it refuses (a gated, private or
missing repo: the error comes at once). Every error is one line naming the ways out.
"""

from __future__ import annotations

from urllib.parse import urlparse

from ..errors import TokenizerLoadError

#: the file beside ``tokenizer.json`` that holds transformers' settings, among them the decode clean-up
TOKENIZER_CONFIG = "tokenizer_config.json"

#: what to do instead, in every error about an unavailable Hub tokenizer
WAYS_OUT = (
    "pass a local tokenizer.json (or a folder holding it) with --tokenizer PATH (tokenizer=PATH), "
    "for a gated repo accept its licence on the Hub and set HF_TOKEN to a token with access to it, "
    "or build from the offline sample data with --demo (demo=True)"
)


def fetch_tokenizer_files(repo: str) -> tuple[str, str | None]:
    """The local paths of ``repo``'s ``tokenizer.json`` and ``tokenizer_config.json`` (None when the repo
    has none); ``repo`` is ``"org/name"`` or ``"org/name@revision"``."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.utils import EntryNotFoundError, LocalEntryNotFoundError

    repo_id, _, revision = repo.partition("@")
    revision = revision or None
    unreachable = _unreachable(repo, repo_id, revision)  # raises when the Hub refuses
    cached_only = unreachable is not None
    try:
        path = hf_hub_download(repo_id, "tokenizer.json", revision=revision, local_files_only=cached_only)
    except Exception:
        why = unreachable or "it did not serve it"
        raise TokenizerLoadError(
            f"cannot load tokenizer {repo!r} from the Hugging Face Hub: {why} and it is not in the "
            f"Hugging Face cache; {WAYS_OUT}"
        ) from None
    try:
        config_path = hf_hub_download(
            repo_id, TOKENIZER_CONFIG, revision=revision, local_files_only=cached_only
        )
    except LocalEntryNotFoundError:  # (a kind of EntryNotFoundError, so caught first)
        raise TokenizerLoadError(
            f"tokenizer {repo!r}: its {TOKENIZER_CONFIG} is not in the Hugging Face cache and "
            f"{unreachable or 'the Hub is offline'}; it decides how the middle cut decodes "
            "(clean_up_tokenization_spaces). Fetch it once online, or give a local folder holding both "
            "files: --tokenizer PATH, tokenizer=PATH"
        ) from None
    except EntryNotFoundError:  # the repo has none: transformers' defaults apply
        config_path = None
    except Exception as exc:
        raise TokenizerLoadError(
            f"cannot load {TOKENIZER_CONFIG} of tokenizer {repo!r} from the Hugging Face Hub: "
            f"{_first_line(exc)}"
        ) from None
    return path, config_path


def _unreachable(repo: str, repo_id: str, revision: str | None) -> str | None:
    """Why the Hub cannot serve ``repo`` now, when it is offline or does not answer (then the cache may
    still); None when it answers. Raises at once when it answers with a refusal."""
    from huggingface_hub import constants, get_hf_file_metadata, hf_hub_url
    from huggingface_hub.utils import HfHubHTTPError

    if constants.HF_HUB_OFFLINE:
        return "the Hub is offline (HF_HUB_OFFLINE=1)"
    url = hf_hub_url(repo_id, "tokenizer.json", revision=revision)
    try:
        get_hf_file_metadata(url, timeout=constants.HF_HUB_ETAG_TIMEOUT)
    except HfHubHTTPError as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        if status is None or status >= 500 or status in (408, 429):
            return f"{urlparse(url).netloc} answered HTTP {status}"
        refusal = _refusal(status, url)
        raise TokenizerLoadError(
            f"cannot load tokenizer {repo!r} from the Hugging Face Hub: {refusal}; {WAYS_OUT}"
        ) from None
    except Exception as exc:  # no answer: DNS, refused connection, timeout, proxy
        return f"{urlparse(url).netloc} is unreachable ({_first_line(exc)})"
    return None


def _refusal(status: int, url: str) -> str:
    host = urlparse(url).netloc
    if status in (401, 403):
        return f"{host} refused it (HTTP {status}: a gated or private repo, and no token with access to it)"
    if status == 404:
        return f"{host} has no such file (HTTP 404: a wrong repo id or revision, or a private repo)"
    return f"{host} answered HTTP {status}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else ""
    return f"{exc.__class__.__name__}: {line[:160]}" if line else exc.__class__.__name__
