"""Running one split through a backend: N requests in flight, each finished row journaled at once,
a progress bar with rows, tokens per second and the time left."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from ..errors import GenerationError, first_lone_surrogate
from ..task import Task
from .backends import Backend, Reply
from .journal import Journal, record
from .requests import Request, requests_for


def _progress(total: int, initial: int, desc: str, enabled: bool | None):
    from tqdm.auto import tqdm

    # enabled=None: a bar only on a terminal (tqdm's own rule), so logs stay clean.
    return tqdm(
        total=total, initial=initial, desc=desc, unit="row", disable=None if enabled is None else not enabled
    )


def _checked(reply: Reply, request: Request, backend: Backend) -> Reply:
    """The reply, if its text is text a predictions file can hold."""
    at = first_lone_surrogate(reply.text)
    if at is not None:
        raise GenerationError(
            f"{backend.name}: row {request.index} (query_id {request.query_id}): the reply holds a lone "
            f"surrogate {reply.text[at]!r} at character {at}, which is not text (UTF-8 cannot encode it); "
            "nothing was written for the row"
        )
    return reply


def predict_split(
    task: Task,
    rows: Sequence[Mapping[str, Any]],
    backend: Backend,
    path: str,
    *,
    desc: str = "",
    progress: bool | None = None,
) -> Journal:
    """Predict every row of ``rows`` not yet in the predictions file ``path``; returns the complete
    journal. A failure (after the backend's own retries) stops the run with a
    :class:`~longbench_suite.errors.GenerationError`, keeping every row finished before it."""
    requests = requests_for(task, rows)
    journal = Journal(path, [r.query_id for r in requests])
    done = journal.load()
    todo = [r for r in requests if r.index not in done]
    tokens = 0
    started = time.monotonic()
    with (
        _progress(len(requests), len(done), desc, progress) as bar,
        journal.appender() as out,
        ThreadPoolExecutor(max_workers=max(1, backend.concurrency)) as pool,
    ):
        pending: dict[Future, Request] = {}
        queue = iter(todo)
        failure: BaseException | None = None

        def submit() -> None:
            request = next(queue, None)
            if request is not None:
                pending[pool.submit(backend.generate, request)] = request

        # Only N requests are queued at a time, so a failure or Ctrl-C leaves little to cancel.
        for _ in range(max(1, backend.concurrency)):
            submit()
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    request = pending.pop(future)
                    try:
                        reply = _checked(future.result(), request, backend)
                    except Exception as exc:
                        failure = failure or exc
                        continue
                    out.append(record(request.index, request.query_id, reply.text, reply.tokens))
                    tokens += reply.tokens or 0
                    bar.set_postfix_str(
                        f"{tokens / max(time.monotonic() - started, 1e-9):.1f} tok/s", refresh=False
                    )
                    bar.update()
                    if failure is None:
                        submit()
                out.sync()
        except BaseException:
            for future in pending:
                future.cancel()
            raise
    if failure is not None:
        raise failure
    journal.finish()
    return journal
