"""Running one split through a backend: N rows in flight, each finished row journaled at once,
a progress bar with rows, tokens per second and the time left.

A row whose task declares a follow-up call (:class:`~longbench_suite.decoding.FollowUp`) is asked twice
in one job, the second call once the first reply is in; the row is journaled only when both are, with
both replies. A resumed run therefore asks both calls again for a row that was in flight (at most
``concurrency`` rows): the journal holds whole rows only, as upstream's file does.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from ..errors import GenerationError, first_lone_surrogate
from ..task import Task
from .backends import Backend, Reply
from .journal import Journal, record
from .requests import PromptCut, Request, follow_up_request, requests_for


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
            f"{backend.name}: {request.where}: the reply holds a lone "
            f"surrogate {reply.text[at]!r} at character {at}, which is not text (UTF-8 cannot encode it); "
            "nothing was written for the row"
        )
    return reply


def _answer(
    backend: Backend, request: Request, row: Mapping[str, Any], cut: PromptCut
) -> tuple[Reply, Reply | None]:
    """The row's prediction and, where its task declares a follow-up call, the first call's reply."""
    reply = _checked(backend.generate(request), request, backend)
    if request.generation.follow_up is None:
        return reply, None
    if reply.text == "":  # nothing to follow up on: no second call, no prediction (upstream skips the row)
        return Reply(text=""), reply
    second = follow_up_request(request, row, reply.text, cut)
    return _checked(backend.generate(second), second, backend), reply


def _record(request: Request, reply: Reply, first: Reply | None) -> dict[str, Any]:
    entry = record(request.index, request.query_id, reply.text, reply.tokens)
    if first is not None:
        entry["first_prediction"] = first.text
        entry["first_output_tokens"] = first.tokens
    return entry


def predict_split(
    task: Task,
    rows: Sequence[Mapping[str, Any]],
    backend: Backend,
    path: str,
    *,
    desc: str = "",
    progress: bool | None = None,
    follow_up_cut: PromptCut = None,
) -> Journal:
    """Predict every row of ``rows`` not yet in the predictions file ``path``; returns the complete
    journal. A failure (after the backend's own retries) stops the run with a
    :class:`~longbench_suite.errors.GenerationError`, keeping every row finished before it.
    ``follow_up_cut`` cuts the prompts of the task's follow-up call (:func:`.requests.follow_up_cut`);
    ``None``: they are sent whole."""
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
                pending[pool.submit(_answer, backend, request, rows[request.index], follow_up_cut)] = request

        # Only N requests are queued at a time, so a failure or Ctrl-C leaves little to cancel.
        for _ in range(max(1, backend.concurrency)):
            submit()
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    request = pending.pop(future)
                    try:
                        reply, first = future.result()
                    except Exception as exc:
                        failure = failure or exc
                        continue
                    out.append(_record(request, reply, first))
                    tokens += (reply.tokens or 0) + (first.tokens or 0 if first is not None else 0)
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
