"""A loopback (127.0.0.1) HTTP server over a mirror directory, for tests and benchmarks.

It supports ``HEAD`` and ``GET`` with ``Range`` (fsspec reads zip members by range), counts the bytes
it sends per path, and can inject faults per path: an HTTP status (with a ``Retry-After``), a response
cut off midway (with its full ``Content-Length``, or without one, so the client cannot tell), a slow
or stalled body, each for every request or only the first ``times``. ``port=`` binds a given port, so
a stopped server (connection refused) can come back at the same URL.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit


@dataclass
class Fault:
    status: int | None = None  # reply with this status instead of the file
    cut_after: int | None = None  # send only this many bytes (with the full Content-Length unless no_length)
    no_length: bool = False  # send no Content-Length: the body ends when the connection closes
    times: int | None = None  # apply to this many requests of the path, then serve it normally
    retry_after: str | None = None  # a Retry-After header with the status
    piece: int = 1 << 16  # bytes written at a time
    delay: float = 0.0  # seconds of silence before each piece (a slow or stalled network)
    ignore_range: bool = False  # answer a Range request with the whole file (200), as some servers do


class MirrorServer:
    def __init__(self, root: str, port: int = 0) -> None:
        self.root = root
        self.bytes_sent: Counter[str] = Counter()
        self.requests: list[tuple[str, str]] = []
        self.authorizations: list[str | None] = []  # the Authorization header of each request
        self.faults: dict[str, Fault] = {}
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:
                self._serve(head=True)

            def do_GET(self) -> None:
                self._serve(head=False)

            def _serve(self, head: bool) -> None:
                path = unquote(urlsplit(self.path).path).lstrip("/")
                with server._lock:
                    server.requests.append((self.command, path))
                    server.authorizations.append(self.headers.get("Authorization"))
                with server._lock:
                    fault = server.faults.get(path)
                    if fault and fault.times is not None:
                        if fault.times <= 0:
                            fault = None
                        elif fault.status or not head:
                            fault.times -= 1
                if fault and fault.status:
                    self.send_response(fault.status)
                    if fault.retry_after is not None:
                        self.send_header("Retry-After", fault.retry_after)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                local = os.path.join(server.root, *path.split("/"))
                if not os.path.isfile(local):
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                size = os.path.getsize(local)
                start, end = 0, size - 1
                asked = "" if server.faults.get(path, Fault()).ignore_range else self.headers.get("Range", "")
                match = re.match(r"bytes=(\d*)-(\d*)", asked)
                if match and (match.group(1) or match.group(2)):
                    if match.group(1):
                        start = int(match.group(1))
                        end = int(match.group(2)) if match.group(2) else size - 1
                    else:
                        start = max(0, size - int(match.group(2)))
                    end = min(end, size - 1)
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
                else:
                    self.send_response(200)
                if fault and fault.no_length:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                else:
                    self.send_header("Content-Length", str(end - start + 1))
                self.send_header("Accept-Ranges", "bytes")
                self.send_header("Content-Type", "application/octet-stream")
                self.end_headers()
                if head:
                    return
                limit = end - start + 1
                if fault and fault.cut_after is not None:
                    limit = min(limit, fault.cut_after)
                with open(local, "rb") as f:
                    f.seek(start)
                    remaining = limit
                    piece = fault.piece if fault else 1 << 16
                    while remaining > 0:
                        if fault and fault.delay:
                            time.sleep(fault.delay)
                        chunk = f.read(min(piece, remaining))
                        if not chunk:
                            break
                        try:
                            self.wfile.write(chunk)
                        except (BrokenPipeError, ConnectionResetError):
                            break
                        with server._lock:
                            server.bytes_sent[path] += len(chunk)
                        remaining -= len(chunk)
                if fault and fault.cut_after is not None:
                    self.close_connection = True

        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> MirrorServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def total_bytes(self, suffix: str = "") -> int:
        return sum(n for path, n in self.bytes_sent.items() if path.endswith(suffix))
