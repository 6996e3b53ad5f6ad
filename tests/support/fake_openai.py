"""A loopback (127.0.0.1) fake of an OpenAI-compatible server, for tests of ``predict``.

It serves ``POST /v1/chat/completions`` and ``POST /v1/completions``, records every request body,
answers with ``answer(prompt)`` (the user turn in chat, the prompt in completion), cut at the first
of the request's ``stop`` strings as real servers do, and injects faults by request number:
``"429"`` (with ``Retry-After``), ``"500"``, ``"reset"`` (connection closed, no reply) and ``"slow"``
(the reply is delayed by ``slow_seconds``), and two 200 replies a client cannot use: ``"malformed"``
(a body that is not JSON) and ``"no-choices"`` (JSON without ``choices``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    def __init__(self, answer: Callable[[str], str], *, slow_seconds: float = 1.0) -> None:
        self.answer = answer
        self.slow_seconds = slow_seconds
        #: request number (0-based, in arrival order) -> fault kind
        self.faults: dict[int, str] = {}
        #: a fault for every request whose prompt contains the key, the first N times it is asked
        self.prompt_faults: dict[str, tuple[str, int]] = {}
        self.retry_after = "0.05"
        self.requests: list[dict] = []  # {"path", "body", "time", "fault"}
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes; without this, Nagle's algorithm and the client's
            # delayed ACK add ~40 ms to every reply.
            disable_nagle_algorithm = True

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["messages"][-1]["content"] if "messages" in body else body["prompt"]
                with server._lock:
                    number = len(server.requests)
                    fault = server.faults.get(number)
                    for key, (kind, times) in server.prompt_faults.items():
                        if fault is None and key in prompt and times > 0:
                            fault = kind
                            server.prompt_faults[key] = (kind, times - 1)
                    server.requests.append(
                        {"path": self.path, "body": body, "time": time.monotonic(), "fault": fault}
                    )
                if fault == "reset":
                    self.close_connection = True
                    self.connection.close()
                    return
                if fault in ("429", "500"):
                    payload = json.dumps(
                        {"error": {"message": f"injected {fault}", "type": "fault"}}
                    ).encode()
                    self.send_response(int(fault))
                    if fault == "429":
                        self.send_header("Retry-After", server.retry_after)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if fault in ("malformed", "no-choices"):
                    payload = b'{"id": "cut' if fault == "malformed" else json.dumps({"id": "x"}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if fault == "slow":
                    time.sleep(server.slow_seconds)
                text = server.answer(prompt)
                for stop in body.get("stop") or ():
                    text = text.split(stop, 1)[0]
                tokens = len(text.split())
                choice = {"index": 0, "finish_reason": "stop", "logprobs": None}
                if "messages" in body:
                    choice["message"] = {"role": "assistant", "content": text}
                    kind = "chat.completion"
                else:
                    choice["text"] = text
                    kind = "text_completion"
                payload = json.dumps(
                    {
                        "id": f"fake-{number}",
                        "object": kind,
                        "created": 0,
                        "model": body["model"],
                        "choices": [choice],
                        "usage": {
                            "prompt_tokens": 1,
                            "completion_tokens": tokens,
                            "total_tokens": tokens + 1,
                        },
                    }
                ).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
