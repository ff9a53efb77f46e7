"""The HTTP side of :class:`~lcel_agent.testing.server.SimulatedOpenAIServer`: the request
handler, and the wire format of completions and server-sent events (the token counts are
:mod:`lcel_agent.testing._usage`'s)."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from lcel_agent._redact import redact
from lcel_agent.testing._schema import SchemaRefused, held
from lcel_agent.testing._usage import Counter, completion_tokens, cut_reply, prompt_tokens
from lcel_agent.testing.faults import (
    REPLY_FAULTS,
    Fault,
    FaultSampler,
    FaultSpec,
    Latency,
    error_body,
    status_response,
)
from lcel_agent.testing.policies import Reply, to_reply

__all__ = ["Counter", "RecordedRequest", "completion_tokens", "cut_reply", "prompt_tokens"]


@dataclass
class RecordedRequest:
    """One request the server received, and what it did with it (see ``srv.requests``)."""

    method: str
    path: str
    headers: dict[str, str]
    """Request headers, lower-cased names; the ``authorization`` value is masked."""
    body: dict[str, Any] | None
    """The parsed JSON body (None for GET or an unreadable body)."""
    authorized: bool | None = None
    """Whether the bearer key matched ``require_key`` (None when no key is required)."""
    status: int | None = None
    """HTTP status sent; None while pending and for a hang or a drop."""
    fault: Fault | None = None
    """The fault this request got, if any."""
    reply: Reply | None = None
    """The reply sent (after ``stop``/``max_tokens`` cuts)."""
    usage: dict[str, int] | None = None
    """The usage numbers sent."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The request's messages (empty if none)."""
        return list((self.body or {}).get("messages") or [])

    @property
    def tools(self) -> list[dict[str, Any]] | None:
        """The request's tools, or None."""
        return (self.body or {}).get("tools") or None

    @property
    def stream(self) -> bool:
        """Whether the client asked for a stream."""
        return bool((self.body or {}).get("stream"))


class Simulation(Protocol):
    """What the request handler asks of the simulator it serves.

    :class:`~lcel_agent.testing.server.SimulatedOpenAIServer` is one; naming the
    needs here keeps this module below the server (it imports this one, not back).
    """

    model: str
    count: Counter
    latency: Latency
    require_key: str | None
    auth_message: str | None
    context_limit: int | None
    response_formats: tuple[str, ...]
    sampler: FaultSampler | None
    hang_seconds: float
    _closing: threading.Event

    def _record(self, record: RecordedRequest) -> str: ...

    def _next_fault(self) -> FaultSpec | None: ...

    def _ask_policy(self, messages: list[dict[str, Any]], tools: Any) -> Reply | FaultSpec: ...


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # A batch opens dozens of connections at once; past the stdlib's backlog of 5 the
    # kernel drops the handshakes, and each client waits a second or more to resend.
    request_queue_size = 128
    # Do not join handler threads on close: a HANG may be sleeping in one.
    block_on_close = False
    sim: Simulation

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gives up (timeout, cancel) resets the socket: not worth a traceback.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Without this, Nagle's algorithm and delayed ACKs add ~40 ms to every response.
    disable_nagle_algorithm = True
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    # -- routing ---------------------------------------------------------------------------

    def _serve(self, method: str) -> None:
        sim = self.server.sim
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        if "authorization" in headers:
            headers["authorization"] = "Bearer ***"
        rec = RecordedRequest(method, self.path, headers, body if isinstance(body, dict) else None)
        self._id = sim._record(rec)
        self._rec = rec
        try:
            if sim.require_key is not None:
                rec.authorized = self.headers.get("Authorization") == f"Bearer {sim.require_key}"
                if not rec.authorized:
                    return self._fault(FaultSpec(Fault.AUTH, message=sim.auth_message))
            path = self.path.split("?", 1)[0].rstrip("/")
            if method == "GET" and path.endswith("/models"):
                created = int(time.time())
                data = [{"id": sim.model, "object": "model", "created": created, "owned_by": "sim"}]
                return self._json(200, {"object": "list", "data": data})
            if method == "POST" and path.endswith("/chat/completions"):
                return self._chat(rec.body)
            self._json(
                404,
                error_body(f"Unknown URL {method} {path}", "invalid_request_error", "unknown_url"),
            )
        except OSError:
            pass  # the client went away mid-answer

    def _chat(self, body: dict[str, Any] | None) -> None:
        sim = self.server.sim
        if body is None or not isinstance(body.get("messages"), list):
            msg = "The body must be a JSON object with a 'messages' list."
            return self._json(400, error_body(msg, "invalid_request_error", None, "messages"))
        spec = sim._next_fault()
        if spec is not None and spec.fault not in REPLY_FAULTS:
            return self._fault(spec, body)
        messages, tools = body["messages"], body.get("tools")
        used = prompt_tokens(messages, tools, sim.count)
        if sim.context_limit is not None and used > sim.context_limit:
            message = (
                f"This model's maximum context length is {sim.context_limit} tokens. However, "
                f"your messages resulted in {used} tokens. Please reduce the length of the messages."
            )
            return self._fault(FaultSpec(Fault.CONTEXT_TOO_LONG, message=message), body)
        try:
            answer: Reply | FaultSpec
            if spec is not None and spec.reply is not None:
                answer = to_reply(spec.reply)
            else:
                answer = sim._ask_policy(messages, tools)
            if isinstance(answer, FaultSpec) and answer.fault in REPLY_FAULTS:
                if answer.reply is None:
                    raise ValueError(f"Fault.{answer.fault.name} from a policy needs reply=")
                spec, answer = answer, to_reply(answer.reply)
        except Exception as exc:  # the policy is test code: report its failure as a 500
            message = redact(f"simulated model policy failed: {type(exc).__name__}: {exc}")
            return self._json(500, error_body(message, "server_error", None))
        if isinstance(answer, FaultSpec):
            return self._fault(answer, body)
        try:
            answer = held(answer, body.get("response_format"), sim.response_formats)
        except SchemaRefused as exc:
            return self._json(422, error_body(str(exc), "invalid_request_error", None))
        reply = self._cut(answer, body)
        if spec is not None:
            self._rec.fault = spec.fault
            half = max(1, completion_tokens(reply, sim.count) // 2)
            reply = cut_reply(reply, half, sim.count)
        out = completion_tokens(reply, sim.count)
        usage = {"prompt_tokens": used, "completion_tokens": out, "total_tokens": used + out}
        self._rec.reply, self._rec.usage = reply, usage
        damage = spec.fault if spec is not None else None
        if damage is Fault.CORRUPT_CHUNK and not body.get("stream"):
            return self._broken_body(body)
        if body.get("stream"):
            return self._stream(reply, usage, body, damage)
        self._sleep(sim.latency.total(out))
        self._json(200, self._completion(reply, usage, body, cut=damage is Fault.STREAM_CUT))

    # -- replies ---------------------------------------------------------------------------

    def _cut(self, reply: Reply, body: dict[str, Any]) -> Reply:
        """Apply ``stop`` to the text and ``max_tokens`` to the whole reply, as OpenAI does."""
        text = reply.content
        stops = body.get("stop") or []
        for stop in [stops] if isinstance(stops, str) else stops:
            if text is not None and stop and stop in text:
                text = text[: text.index(stop)]
        reply = Reply(content=text, tool_calls=reply.tool_calls, finish_reason=reply.finish_reason)
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        count = self.server.sim.count
        if isinstance(limit, int) and completion_tokens(reply, count) > limit:
            return cut_reply(reply, limit, count)
        return reply

    def _head(self, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{self._id}",
            "created": int(time.time()),
            "model": body.get("model") or self.server.sim.model,
            "system_fingerprint": "fp_simulated",
        }

    def _wire_calls(self, reply: Reply) -> list[dict[str, Any]]:
        return [
            {
                "id": str(call.get("id") or f"call_{self._id}_{i}"),
                "type": "function",
                "function": {"name": call["name"], "arguments": reply.arguments_json(i)},
            }
            for i, call in enumerate(reply.tool_calls)
        ]

    def _completion(
        self, reply: Reply | None, usage: dict[str, int], body: dict[str, Any], cut: bool = False
    ) -> dict[str, Any]:
        choices = []
        if reply is not None:
            message: dict[str, Any] = {
                "role": "assistant",
                "content": reply.content,
                "refusal": None,
            }
            if reply.tool_calls:
                message["tool_calls"] = self._wire_calls(reply)
            finish = None if cut else reply.finish
            choices.append(
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
            )
        return {**self._head(body), "object": "chat.completion", "choices": choices, "usage": usage}

    def _stream(
        self,
        reply: Reply | None,
        usage: dict[str, int],
        body: dict[str, Any],
        damage: Fault | None = None,
    ) -> None:
        """Stream ``reply``; a ``STREAM_CUT`` ends after its deltas, a ``CORRUPT_CHUNK``
        breaks the event that would have finished it."""
        sim = self.server.sim
        with_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        head = {**self._head(body), "object": "chat.completion.chunk"}
        if with_usage:
            head["usage"] = None

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return {**head, "choices": [choice]}

        self._start_stream()
        self._sleep(sim.latency.fixed)
        if reply is not None:
            first = {"role": "assistant", "content": "" if reply.content is not None else None}
            self._event(chunk(first))
            for piece in _pieces(reply.content or ""):
                self._sleep(sim.latency.per_output_token * sim.count(piece))
                self._event(chunk({"content": piece}))
            for i, call in enumerate(self._wire_calls(reply)):
                fn = call["function"]
                opening = {"index": i, "id": call["id"], "type": "function"}
                opening["function"] = {"name": fn["name"], "arguments": ""}
                self._event(chunk({"tool_calls": [opening]}))
                for piece in _pieces(fn["arguments"]):
                    self._sleep(sim.latency.per_output_token * sim.count(piece))
                    self._event(
                        chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
                    )
            if damage is Fault.STREAM_CUT:
                return self._write_chunk(b"")
            if damage is Fault.CORRUPT_CHUNK:
                broken = json.dumps(chunk({}, reply.finish), ensure_ascii=False)[:40]
                self._write_chunk(f"data: {broken}\n\n".encode())
                self._write_chunk(b"data: [DONE]\n\n")
                return self._write_chunk(b"")
            self._event(chunk({}, reply.finish))
        if with_usage:
            self._event({**head, "choices": [], "usage": usage})
        self._write_chunk(b"data: [DONE]\n\n")
        self._write_chunk(b"")

    # -- faults ----------------------------------------------------------------------------

    def _fault(self, spec: FaultSpec, body: dict[str, Any] | None = None) -> None:
        sim = self.server.sim
        self._rec.fault = spec.fault
        default_retry = sim.sampler.profile.retry_after if sim.sampler is not None else 1.0
        key = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
        answer = status_response(spec, default_retry, key)
        if answer is not None:
            status, payload, headers = answer
            return self._json(status, payload, headers)
        body = body or {}
        if spec.fault is Fault.HANG:
            sim._closing.wait(sim.hang_seconds if spec.hang_seconds is None else spec.hang_seconds)
            return self._drop()
        if spec.fault is Fault.DROP:
            return self._drop()
        usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        if spec.fault is Fault.EMPTY_CHOICES:
            if body.get("stream"):
                return self._stream(None, usage, body)
            return self._json(200, self._completion(None, usage, body))
        self._broken_body(body)

    def _broken_body(self, body: dict[str, Any]) -> None:
        """MALFORMED: the start of a valid answer, cut off mid-JSON."""
        usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        broken = json.dumps(self._completion(Reply(content="ok"), usage, body))[:40]
        if body.get("stream"):
            self._start_stream()
            self._write_chunk(f"data: {broken}\n\n".encode())
            self._write_chunk(b"data: [DONE]\n\n")
            return self._write_chunk(b"")
        self._send(200, broken.encode(), {"Content-Type": "application/json"})

    def _drop(self) -> None:
        self._rec.status = None
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    # -- the wire --------------------------------------------------------------------------

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.server.sim._closing.wait(seconds)

    def _send(self, status: int, data: bytes, headers: Mapping[str, str]) -> None:
        self._rec.status = status
        self.send_response(status)
        for name, value in {**headers, "Content-Length": str(len(data))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        self._send(status, data, {"Content-Type": "application/json", **(headers or {})})

    def _start_stream(self) -> None:
        self._rec.status = 200
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _write_chunk(self, data: bytes) -> None:
        # HTTP/1.1 chunked encoding keeps the connection reusable; b"" ends the body.
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _event(self, payload: dict[str, Any]) -> None:
        self._write_chunk(f"data: {json.dumps(payload, ensure_ascii=False)}\n\n".encode())


def _pieces(text: str, size: int = 6) -> list[str]:
    """Split a streamed text into small pieces, like a model's token-by-token deltas."""
    return [text[i : i + size] for i in range(0, len(text), size)]
