"""A recording proxy on loopback between the frameworks and the llama.cpp server.

Every framework talks to the proxy's ``base_url`` as to an OpenAI-compatible server;
the proxy forwards each request unchanged and keeps, per chat completion, the request
body, the response body (a streamed one reassembled), the server's ``usage`` and the
server's log lines written while it answered::

    with RecordingProxy("http://127.0.0.1:8080", log=server.log) as proxy:
        llm = ChatOpenAI(base_url=proxy.base_url + "/v1", ...)
        ...
        calls = proxy.take()      # this run's calls, oldest first; the list is emptied

It records what was sent and answered, nothing else: no header (no key) is kept.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

#: Gives the server log's current end, then the text written since a given mark.
LogReader = tuple[Callable[[], int], Callable[[int], str]]

_HOP_HEADERS = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length"})


def assemble_stream(raw: bytes) -> dict[str, Any]:
    """A chat completion rebuilt from its server-sent-event chunks (content, finish, usage)."""
    content: list[str] = []
    finish = None
    usage = None
    for line in raw.decode("utf-8", errors="replace").splitlines():
        if not line.startswith("data:") or line.strip() == "data: [DONE]":
            continue
        try:
            chunk = json.loads(line[5:])
        except ValueError:
            continue
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or []:
            content.append((choice.get("delta") or {}).get("content") or "")
            finish = choice.get("finish_reason") or finish
    message = {"role": "assistant", "content": "".join(content)}
    return {"choices": [{"message": message, "finish_reason": finish}], "usage": usage}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else ~40 ms per answer (Nagle and delayed ACK)
    server: _Server

    def do_GET(self) -> None:
        self.server.proxy.forward(self, "GET")

    def do_POST(self) -> None:
        self.server.proxy.forward(self, "POST")

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    proxy: RecordingProxy


class RecordingProxy:
    """Forwards to ``upstream`` and records every ``/v1/chat/completions`` exchange."""

    def __init__(self, upstream: str, *, log: LogReader | None = None, timeout: float = 900.0):
        split = urlsplit(upstream)
        self._host, self._port = split.hostname or "127.0.0.1", split.port or 80
        self._log = log
        self._timeout = timeout
        self._lock = threading.Lock()
        self._calls: list[dict[str, Any]] = []
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.proxy = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>`` (append ``/v1`` for an OpenAI client)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def take(self) -> list[dict[str, Any]]:
        """The calls recorded since the last ``take``, oldest first."""
        with self._lock:
            calls, self._calls = self._calls, []
        return calls

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> RecordingProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def forward(self, handler: _Handler, method: str) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else b""
        headers = {k: v for k, v in handler.headers.items() if k.lower() not in _HOP_HEADERS}
        chat = method == "POST" and handler.path.rstrip("/").endswith("/chat/completions")
        mark = self._log[0]() if chat and self._log else 0
        started, start = time.time(), time.perf_counter()
        upstream = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
        try:
            upstream.request(method, handler.path, body=body or None, headers=headers)
            reply = upstream.getresponse()
            data = reply.read()
        except OSError as exc:
            upstream.close()
            if chat:
                self._record(body, started, time.perf_counter() - start, 502, None, "", mark)
            self._send(handler, 502, "text/plain", f"proxy: {exc!r}".encode())
            return
        upstream.close()
        content_type = reply.getheader("Content-Type", "application/json")
        if chat:
            # Recorded before the answer goes out: once the client has it, the run may end
            # and ``take`` it, and a record appended later would land in the next run.
            if "text/event-stream" in content_type:
                answer: Any = assemble_stream(data)
            else:
                try:
                    answer = json.loads(data)
                except ValueError:
                    answer = {"raw": data.decode("utf-8", errors="replace")[:2000]}
            elapsed = time.perf_counter() - start
            self._record(body, started, elapsed, reply.status, answer, content_type, mark)
        self._send(handler, reply.status, content_type, data)

    @staticmethod
    def _send(handler: _Handler, status: int, content_type: str, data: bytes) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
        except OSError:
            pass  # the client gave up (its timeout); the call is still recorded

    def _record(
        self, body: bytes, started: float, elapsed: float, status: int, answer: Any,
        content_type: str, mark: int,
    ) -> None:  # fmt: skip
        try:
            request = json.loads(body)
        except ValueError:
            request = {"raw": body.decode("utf-8", errors="replace")[:2000]}
        server_log = self._log[1](mark) if self._log else ""
        call = {
            "started": started,
            "elapsed_s": round(elapsed, 3),
            "status": status,
            "streamed": "text/event-stream" in content_type,
            "request": request,
            "response": answer,
            "usage": (answer or {}).get("usage") if isinstance(answer, dict) else None,
            "server_log": [ln for ln in server_log.splitlines() if "Llama.generate" in ln],
        }
        with self._lock:
            self._calls.append(call)
