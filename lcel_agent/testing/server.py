"""A loopback HTTP server that speaks OpenAI's Chat Completions API, answered by a policy.

Point any OpenAI client at it — the ``openai`` SDK, ``ChatOpenAI``, another framework —
and test an agent over real sockets, faults included::

    from lcel_agent.testing.server import SimulatedOpenAIServer
    from lcel_agent.testing.policies import ScriptedPolicy
    from lcel_agent.testing.faults import Fault

    with SimulatedOpenAIServer(ScriptedPolicy(["你好"]), require_key="sk-test") as srv:
        srv.inject(Fault.RATE_LIMIT, retry_after=1)
        llm = ChatOpenAI(base_url=srv.base_url, api_key="sk-test", max_retries=1, timeout=5)
        llm.invoke("hi")                      # a 429, a retry, then "你好"
        assert [r.status for r in srv.requests] == [429, 200]

Served: ``POST /v1/chat/completions`` (plain and ``stream=true`` server-sent events, with
``stream_options.include_usage``) and ``GET /v1/models``. ``usage`` holds exact token counts
(see :func:`prompt_tokens` and :func:`completion_tokens`). The server honours ``stop``, and
``max_tokens``/``max_completion_tokens`` by cutting the reply, tool-call arguments included
(``finish_reason="length"``, see :func:`cut_reply`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any, Self

from lcel_agent.testing._http import RecordedRequest, _Handler, _HTTPServer
from lcel_agent.testing._served import ClosedOnExit
from lcel_agent.testing._usage import Counter, completion_tokens, cut_reply, prompt_tokens
from lcel_agent.testing.faults import Fault, FaultProfile, FaultSampler, FaultSpec, Latency
from lcel_agent.testing.policies import Policy, Reply, ReplyLike, ScriptedPolicy, to_reply

__all__ = [
    "RecordedRequest",
    "SimulatedOpenAIServer",
    "completion_tokens",
    "cut_reply",
    "prompt_tokens",
]


class SimulatedOpenAIServer(ClosedOnExit):
    """An OpenAI-compatible server on ``127.0.0.1`` and a free port, answered by ``policy``.

    ``policy`` is a callable ``(messages, tools) -> reply`` (see
    :mod:`lcel_agent.testing.policies`) or a list of replies, played by a ``ScriptedPolicy``.
    Use as a context manager, or call :meth:`start` and :meth:`close`.

    Options: ``require_key`` answers 401 unless ``Authorization: Bearer <key>`` matches,
    with ``auth_message`` as its message if given (``{key}`` and ``{key_body}`` in it echo
    the key presented, with and without its ``sk-`` prefix); ``context_limit`` answers 400 ``context_length_exceeded`` when the prompt has more
    tokens; ``faults`` draws faults at random; ``latency`` delays answers; ``hang_seconds``
    is how long :attr:`Fault.HANG` stalls; ``count`` replaces the exact token counter;
    ``response_formats`` are the ``response_format`` types it takes (a reply held to a
    schema is the policy's text mapped onto the schema's keys, see
    :mod:`lcel_agent.testing._schema`; another type is answered 422).
    """

    def __init__(
        self,
        policy: Policy | Iterable[ReplyLike],
        *,
        require_key: str | None = None,
        auth_message: str | None = None,
        context_limit: int | None = None,
        faults: FaultProfile | None = None,
        latency: Latency | None = None,
        hang_seconds: float = 10.0,
        model: str = "gpt-4o-mini",
        count: Counter | None = None,
        response_formats: tuple[str, ...] = ("text", "json_object", "json_schema"),
    ) -> None:
        self.response_formats = response_formats
        self.policy: Policy = policy if callable(policy) else ScriptedPolicy(policy)
        self.require_key = require_key
        self.auth_message = auth_message
        self.context_limit = context_limit
        self.sampler = FaultSampler(faults) if faults is not None else None
        self.latency = latency or Latency()
        self.hang_seconds = hang_seconds
        self.model = model
        if count is None:
            from lcel_agent.memory.counters import default_exact_counter

            count = default_exact_counter()
        self.count: Counter = count
        self._queue: list[FaultSpec] = []
        self._records: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._ids = 0
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind a free loopback port and serve on a daemon thread. Returns ``self``."""
        if self._httpd is None:
            self._closing.clear()
            self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
            self._httpd.sim = self
            # A short poll interval keeps close() (and so every test's teardown) quick.
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, args=(0.02,), name="simulated-openai", daemon=True
            )
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving; stalled (hanging) requests are released at once."""
        self._closing.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (the server must be started)."""
        if self._httpd is None:
            raise RuntimeError("SimulatedOpenAIServer is not running: use `with` or start()")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def base_url(self) -> str:
        """The ``base_url`` for OpenAI clients: ``http://127.0.0.1:PORT/v1``."""
        return self.url + "/v1"

    # -- faults and the log ----------------------------------------------------------------

    def inject(
        self,
        fault: Fault,
        *,
        retry_after: float | None = None,
        hang_seconds: float | None = None,
        message: str | None = None,
        reply: ReplyLike | None = None,
        times: int = 1,
    ) -> None:
        """Queue ``fault`` for the next ``times`` chat requests (before any profile draw).

        The keywords are :class:`FaultSpec`'s; ``reply`` is the answer a reply fault
        damages (default: the policy's answer to that request).
        """
        spec = FaultSpec(
            fault,
            retry_after=retry_after,
            hang_seconds=hang_seconds,
            message=message,
            reply=reply,
        )
        with self._lock:
            self._queue.extend([spec] * times)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of the request log, oldest first."""
        with self._lock:
            return list(self._records)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The log's chat-completion requests only."""
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def clear(self) -> None:
        """Forget the request log and the queued faults."""
        with self._lock:
            self._records.clear()
            self._queue.clear()

    # -- used by the handler ---------------------------------------------------------------

    def _record(self, record: RecordedRequest) -> str:
        with self._lock:
            self._records.append(record)
            self._ids += 1
            return f"sim{self._ids}"

    def _next_fault(self) -> FaultSpec | None:
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
        return self.sampler.draw() if self.sampler is not None else None

    def _ask_policy(self, messages: list[dict[str, Any]], tools: Any) -> Reply | FaultSpec:
        return to_reply(self.policy(messages, tools))
