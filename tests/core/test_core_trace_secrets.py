"""Secrets stay out of LangSmith (issue 23, item 8; issue 31, item 3).

A LangSmith client pointed at a capture endpoint on 127.0.0.1 records every request it
sends; a secret registered with the redactor (``create_agent(secrets=...)``) that a tool
echoes, whole or in part, or puts in the error it raises, must not be in any of them.
The masking goes in front of the client the tracer already has (no private attribute
of the client is touched), so the client's own anonymizer still runs, after it.
"""

from __future__ import annotations

import contextlib
import gzip
import http.server
import threading
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from langchain_core.tools import tool
from langchain_core.tracers.context import tracing_v2_enabled
from langchain_core.tracers.langchain import wait_for_all_tracers

from lcel_agent import create_agent
from lcel_agent.testing.fake import ScriptedChatModel

SECRET = "tok-5f3c9a1e7b2d4c6e8a0b"


class _Capture(http.server.BaseHTTPRequestHandler):
    bodies: ClassVar[list[bytes]] = []

    def _take(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        type(self).bodies.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    do_POST = do_PATCH = do_PUT = _take

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def capture() -> Iterator[tuple[str, list[bytes]]]:
    _Capture.bodies = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Capture)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _Capture.bodies
    finally:
        server.shutdown()
        server.server_close()


def _windows(secret: str) -> list[bytes]:
    """Every 16-character run of ``secret``: none may reach LangSmith."""
    return [secret[i : i + 16].encode() for i in range(len(secret) - 15)]


@pytest.mark.parametrize("context", [None, "tracing_context"])
@pytest.mark.parametrize("anonymizer", [None, "theirs"])
def test_a_registered_secret_is_masked_in_everything_sent_to_langsmith(
    run, act, capture, anonymizer, context
):
    import langsmith
    from langsmith import Client

    url, bodies = capture

    @tool
    def account(name: str) -> str:
        """The account record of a user."""
        # Whole, without its "tok-" prefix, and a stretch from its middle.
        return f"user {name}, api token {SECRET}, id {SECRET[4:]}, ref {SECRET[3:21]}, plan pro"

    @tool
    def billing(name: str) -> str:
        """The billing record of a user."""
        raise RuntimeError(f"billing refused token {SECRET[2:20]} for {name}")

    seen: list[Any] = []

    def theirs(data: dict) -> dict:
        seen.append(data)
        return data

    client = Client(
        api_url=url,
        api_key="test-key",
        auto_batch_tracing=False,
        anonymizer=theirs if anonymizer else None,
    )
    llm = ScriptedChatModel([act("account", "li"), act("billing", "li"), act("final", "done")])
    agent = create_agent(llm, [account, billing], secrets=[SECRET], max_errors=3)
    # langsmith's tracing_context with metadata makes langchain-core 1.x give each run
    # copies of the tracer: every copy must mask too.
    outer = (
        langsmith.run_helpers.tracing_context(metadata={"team": "i31"})
        if context
        else contextlib.nullcontext()
    )
    with outer, tracing_v2_enabled(project_name="i23", client=client):
        result = run(agent, "查账户")
    with contextlib.suppress(AttributeError):  # the pinned langsmith has no Client.flush
        wait_for_all_tracers()
    deadline = time.monotonic() + 10  # the tool runs' records may still be on their way
    while time.monotonic() < deadline and not (
        b"plan pro" in b"\n".join(bodies) and b"billing refused" in b"\n".join(bodies)
    ):
        time.sleep(0.05)
    assert result.output == "done"
    sent = b"\n".join(bodies)
    assert b"plan pro" in sent  # the tool run's output was sent ...
    assert b"billing refused" in sent  # ... and the other tool run's error ...
    assert [w for w in _windows(SECRET) if w in sent] == []  # ... with the secret masked
    assert SECRET[4:].encode() not in sent
    if anonymizer:  # a client's own anonymizer still runs, on text already masked
        assert seen and SECRET[3:19] not in repr(seen)
