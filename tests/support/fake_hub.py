"""A stand-in for ``huggingface_hub.HfApi`` that keeps dataset repos in a local directory.

No local Hub server exists for either library (``docs/ecosystem.md`` §3.3), so push tests patch the client:
``ROOT/<revision>/datasets/<org>/<name>/`` holds each branch's files, which ``datasets.load_dataset``
then reads back as a plain folder. Only the calls :func:`longbench_suite.publish.hub.push` makes are
implemented, with the semantics the ``huggingface_hub`` documentation gives them (``upload_folder``'s
``delete_patterns`` delete matching repo files that the same commit does not upload). Each call is
first bound to the real ``HfApi`` method's signature, so a wrong argument fails as it would for real,
and recorded (token included), so tests can check what reached the client and what did not leak.
"""

from __future__ import annotations

import fnmatch
import inspect
import os
import shutil

from huggingface_hub import HfApi

DEFAULT_IGNORE = (".git", ".cache/huggingface")


class FakeHub:
    def __init__(self, root: str) -> None:
        self.root = root
        self.calls: list[tuple[str, dict]] = []
        self.private: dict[str, bool | None] = {}

    def repo_dir(self, repo_id: str, revision: str | None = None) -> str:
        return os.path.join(self.root, revision or "main", "datasets", *repo_id.split("/"))

    def files(self, repo_id: str, revision: str | None = None) -> list[str]:
        base = self.repo_dir(repo_id, revision)
        found = []
        for folder, _, names in os.walk(base):
            for name in names:
                found.append(os.path.relpath(os.path.join(folder, name), base).replace(os.sep, "/"))
        return sorted(found)

    def api_class(self):
        """A ``HfApi`` replacement class bound to this hub."""
        hub = self

        class FakeHfApi:
            def __init__(self, *args, **kwargs) -> None:
                self.token = self._bind("__init__", args, kwargs)["token"]

            def _bind(self, name: str, args, kwargs) -> dict:
                bound = inspect.signature(getattr(HfApi, name)).bind(self, *args, **kwargs)
                bound.apply_defaults()
                arguments = {k: v for k, v in bound.arguments.items() if k != "self"}
                hub.calls.append((name, arguments))
                return arguments

            def create_repo(self, *args, **kwargs):
                a = self._bind("create_repo", args, kwargs)
                assert a["repo_type"] == "dataset"
                path = hub.repo_dir(a["repo_id"])
                if os.path.isdir(path) and not a["exist_ok"]:
                    raise FileExistsError(a["repo_id"])
                os.makedirs(path, exist_ok=True)
                hub.private.setdefault(a["repo_id"], a["private"])
                return f"https://huggingface.co/datasets/{a['repo_id']}"

            def create_branch(self, *args, **kwargs):
                a = self._bind("create_branch", args, kwargs)
                target = hub.repo_dir(a["repo_id"], a["branch"])
                if os.path.isdir(target) and not a["exist_ok"]:
                    raise FileExistsError(a["branch"])
                if not os.path.isdir(target):
                    shutil.copytree(hub.repo_dir(a["repo_id"], a["revision"]), target)

            def list_repo_files(self, *args, **kwargs):
                a = self._bind("list_repo_files", args, kwargs)
                return hub.files(a["repo_id"], a["revision"])

            def hf_hub_download(self, *args, **kwargs):
                a = self._bind("hf_hub_download", args, kwargs)
                source = os.path.join(hub.repo_dir(a["repo_id"], a["revision"]), *a["filename"].split("/"))
                target = os.path.join(a["cache_dir"], "fake-hub", a["repo_id"], a["filename"])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(source, target)
                return target

            def upload_folder(self, *args, **kwargs):
                a = self._bind("upload_folder", args, kwargs)
                repo_id, folder, revision = a["repo_id"], str(a["folder_path"]), a["revision"]
                base = hub.repo_dir(repo_id, revision)
                uploads = []
                ignored = a["ignore_patterns"] or []
                ignored = [ignored] if isinstance(ignored, str) else ignored
                allowed = a["allow_patterns"]
                allowed = [allowed] if isinstance(allowed, str) else allowed
                for current, _, names in os.walk(folder):
                    for name in names:
                        rel = os.path.relpath(os.path.join(current, name), folder).replace(os.sep, "/")
                        if any(fnmatch.fnmatch(rel, p) for p in ignored):  # as HfApi filters them
                            continue
                        if allowed is not None and not any(fnmatch.fnmatch(rel, p) for p in allowed):
                            continue
                        if not any(rel == p or rel.startswith(p + "/") for p in DEFAULT_IGNORE):
                            uploads.append(rel)
                patterns = a["delete_patterns"] or []
                patterns = [patterns] if isinstance(patterns, str) else patterns
                for rel in hub.files(repo_id, revision):
                    if rel not in uploads and any(fnmatch.fnmatch(rel, p) for p in patterns):
                        os.remove(os.path.join(base, *rel.split("/")))
                for rel in uploads:
                    target = os.path.join(base, *rel.split("/"))
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    shutil.copyfile(os.path.join(folder, *rel.split("/")), target)
                return f"https://huggingface.co/datasets/{repo_id}/commit/fake"

        return FakeHfApi
