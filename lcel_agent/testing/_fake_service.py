"""The machinery every loopback fake service shares: a real HTTP server on 127.0.0.1,
a request log, modes, scheduled failures and seeded random faults.

:class:`FakeService` subclasses answer one request in :meth:`FakeService._answer`; see
:class:`~lcel_agent.testing.services.FakeAmapServer` and
:class:`~lcel_agent.testing.services.FakeBaiduServer`.
"""

from __future__ import annotations

import random
import socket
import threading
from collections import deque
from contextlib import suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, NamedTuple
from urllib.parse import parse_qsl, urlsplit

from lcel_agent.testing._served import ClosedOnExit

__all__ = ["COMMON_MODES", "Answer", "FakeService", "RecordedRequest"]

COMMON_MODES = frozenset({"ok", "slow", "error500", "drop"})


class RecordedRequest(NamedTuple):
    """One request a fake server received."""

    path: str
    query: dict[str, str]
    headers: dict[str, str]


class Answer(NamedTuple):
    """What a fake sends back: status, content type, body and extra headers."""

    status: int
    content_type: str
    body: bytes
    headers: dict[str, str] | None = None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Benchmarks open many connections at once; the stdlib's backlog of 5 refuses some.
    request_queue_size = 128
    # Closing must not wait for handlers still sleeping in "slow" mode.
    block_on_close = False
    service: FakeService


class _Handler(BaseHTTPRequestHandler):
    # Without this every answer waits ~40 ms for Nagle and delayed ACK.
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_GET(self) -> None:
        self.server.service._handle(self)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # request lines carry keys; tests read .requests instead


class FakeService(ClosedOnExit):
    """The shared machinery: server thread, request log, modes and fault injection."""

    MODES: ClassVar[frozenset[str]] = COMMON_MODES

    def __init__(
        self,
        *,
        mode: str = "ok",
        slow_seconds: float = 2.0,
        fault_rate: float = 0.0,
        fault_mode: str = "slow",
        seed: int | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._scripted: deque[str] = deque()
        self._requests: list[RecordedRequest] = []
        self.mode = mode
        self.slow_seconds = slow_seconds
        if not 0.0 <= fault_rate <= 1.0:
            raise ValueError(f"fault_rate must be within [0, 1], got {fault_rate}")
        self.fault_rate = fault_rate
        self.fault_mode = self._check_mode(fault_mode)
        self._random = random.Random(seed)
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.service = self
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"{type(self).__name__}:{self.port}",
            daemon=True,
        )
        self._thread.start()

    # --- public surface ---

    @property
    def mode(self) -> str:
        """How every request is answered unless scripted or faulted."""
        return self._mode

    @mode.setter
    def mode(self, value: str) -> None:
        self._mode = self._check_mode(value)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``, for ``AMAP_BASE_URL``/``BAIDU_BASE_URL``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of the requests received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def fail_next(self, n: int = 1, mode: str = "error500") -> None:
        """Answer the next ``n`` requests in ``mode``, then go back to normal."""
        self._check_mode(mode)
        with self._lock:
            self._scripted.extend([mode] * n)

    def reset(self, mode: str = "ok") -> None:
        """Forget the request log and scheduled failures and set ``mode``, for reuse across tests."""
        self.mode = mode
        with self._lock:
            self._requests.clear()
            self._scripted.clear()

    def close(self) -> None:
        """Stop serving and wake sleeping handlers (idempotent)."""
        if self._closing.is_set():
            return
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # --- request handling ---

    def _check_mode(self, mode: str) -> str:
        if mode not in self.MODES:
            raise ValueError(
                f"unknown mode {mode!r} for {type(self).__name__}: {sorted(self.MODES)}"
            )
        return mode

    def _next_mode(self) -> str:
        with self._lock:
            if self._scripted:
                return self._scripted.popleft()
            if self.fault_rate and self._random.random() < self.fault_rate:
                return self.fault_mode
            return self._mode

    def _handle(self, handler: _Handler) -> None:
        split = urlsplit(handler.path)
        query = dict(parse_qsl(split.query, keep_blank_values=True))
        with self._lock:
            self._requests.append(RecordedRequest(split.path, query, dict(handler.headers.items())))
        mode = self._next_mode()
        if mode == "drop":
            handler.close_connection = True
            with suppress(OSError):
                handler.connection.shutdown(socket.SHUT_RDWR)
            return
        if mode == "slow":
            # Interruptible, so close() does not wait for sleepers.
            if self._closing.wait(self.slow_seconds):
                handler.close_connection = True
                return
            mode = "ok"
        if mode == "error500":
            answer = Answer(500, "text/html; charset=utf-8", b"<h1>500 Internal Server Error</h1>")
        else:
            answer = self._answer(mode, split.path, query)
        with suppress(OSError):  # the client may have given up already
            handler.send_response(answer.status)
            handler.send_header("Content-Type", answer.content_type)
            handler.send_header("Content-Length", str(len(answer.body)))
            for name, value in (answer.headers or {}).items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(answer.body)

    def _answer(self, mode: str, path: str, query: dict[str, str]) -> Answer:
        raise NotImplementedError
