"""Faults and latency that :class:`~lcel_agent.testing.server.SimulatedOpenAIServer` can inject.

A fault replaces the model's answer to one chat request. Inject them one by one::

    srv.inject(Fault.RATE_LIMIT, retry_after=1)   # the next request gets a 429
    srv.inject(Fault.DROP, times=2)                # the two after it lose their connection

or at random rates with a seeded generator, so a run is reproducible::

    SimulatedOpenAIServer(policy, faults=FaultProfile(rate_limit=0.05, server_error=0.02, seed=7))

A :class:`ScriptedPolicy <lcel_agent.testing.policies.ScriptedPolicy>` may also list a
``Fault`` (or a :class:`FaultSpec`) among its replies.

Most faults replace the answer. The *reply faults* (:data:`REPLY_FAULTS`: a reply cut at
the length limit, a stream cut short, a corrupted stream chunk) damage an answer instead:
the one given as ``reply=``, or else the one the policy gives for that request (which it
then has used up)::

    srv.inject(Fault.STREAM_CUT)                   # the next answer stops halfway
    ScriptedPolicy([FaultSpec(Fault.LENGTH, reply={"name": "get_weather",
                                                   "arguments": {"city": "上海"}})])
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any

__all__ = [
    "REPLY_FAULTS",
    "Fault",
    "FaultProfile",
    "FaultSampler",
    "FaultSpec",
    "Latency",
    "error_body",
    "status_response",
]


class Fault(StrEnum):
    """What the server does instead of answering. The client sees what a real outage shows."""

    RATE_LIMIT = "rate_limit"
    """429 with ``Retry-After`` (seconds) and ``retry-after-ms``: ``openai.RateLimitError``."""
    SERVER_ERROR = "server_error"
    """500: ``openai.InternalServerError``."""
    UNAVAILABLE = "unavailable"
    """503: ``openai.InternalServerError``."""
    HANG = "hang"
    """No answer for ``hang_seconds``, then the connection closes: ``openai.APITimeoutError``
    when the client's timeout is shorter."""
    DROP = "drop"
    """The connection closes without a response: ``openai.APIConnectionError``."""
    MALFORMED = "malformed"
    """200 whose body is not valid JSON (or an SSE event that is not)."""
    EMPTY_CHOICES = "empty_choices"
    """200 with ``"choices": []``."""
    AUTH = "auth"
    """401 ``invalid_api_key``: ``openai.AuthenticationError``."""
    BAD_REQUEST = "bad_request"
    """400 ``invalid_request_error``: ``openai.BadRequestError``."""
    CONTEXT_TOO_LONG = "context_too_long"
    """400 with code ``context_length_exceeded``: ``openai.BadRequestError``."""
    LENGTH = "length"
    """The reply cut to half its tokens, text and tool-call arguments alike, with
    ``finish_reason="length"``, streamed or not: what a provider sends at ``max_tokens``."""
    STREAM_CUT = "stream_cut"
    """The reply stops halfway (inside the tool-call arguments when it has tool calls) and
    the stream ends cleanly with no finish reason, no usage and no ``[DONE]``, as when a
    proxy loses its upstream. Not streamed: the half reply with ``finish_reason: null``."""
    CORRUPT_CHUNK = "corrupt_chunk"
    """Half the reply streams, then an event whose JSON is broken: ``json.JSONDecodeError``
    inside the client. Not streamed: a body cut off mid-JSON, as :attr:`MALFORMED`."""


@dataclass(frozen=True)
class FaultSpec:
    """One injected fault with its parameters (``Fault.X`` alone means all defaults)."""

    fault: Fault
    """Which fault."""
    retry_after: float | None = None
    """Seconds sent in ``Retry-After`` for :attr:`Fault.RATE_LIMIT` (default: the profile's)."""
    hang_seconds: float | None = None
    """How long :attr:`Fault.HANG` stalls (default: the server's ``hang_seconds``)."""
    message: str | None = None
    """Overrides the error message of a status fault. ``{key}`` in it becomes the API key
    the request presented and ``{key_body}`` that key without its ``sk-`` prefix, as
    providers that echo a refused key write it."""
    reply: Any = None
    """For a reply fault: the answer it damages (anything a policy may return); default
    the policy's answer to the request."""


#: The faults that damage an answer rather than replace it.
REPLY_FAULTS = frozenset({Fault.LENGTH, Fault.STREAM_CUT, Fault.CORRUPT_CHUNK})


@dataclass(frozen=True)
class FaultProfile:
    """Probabilities (0..1, summing to at most 1) of a fault on each chat request.

    One number is drawn from ``random.Random(seed)`` per chat request, so the same seed
    and the same order of requests give the same faults.
    """

    rate_limit: float = 0.0
    server_error: float = 0.0
    unavailable: float = 0.0
    hang: float = 0.0
    drop: float = 0.0
    malformed: float = 0.0
    empty_choices: float = 0.0
    seed: int | None = 0
    """Seed of the generator; ``None`` draws a fresh, unreproducible one."""
    retry_after: float = 1.0
    """Seconds announced by the 429s this profile produces."""
    # The reply faults come last, so profiles written before them keep their positions.
    length: float = 0.0
    stream_cut: float = 0.0
    corrupt_chunk: float = 0.0

    def __post_init__(self) -> None:
        rates = self.rates()
        for name, rate in rates.items():
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"FaultProfile.{name} must be within 0..1, got {rate!r}")
        if sum(rates.values()) > 1.0 + 1e-9:
            raise ValueError("FaultProfile rates must sum to at most 1")

    def rates(self) -> dict[str, float]:
        """The rate of each fault, by the field's name (which is also the ``Fault`` value)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name in _FAULT_FIELDS}


_FAULT_FIELDS = frozenset(
    {
        "rate_limit",
        "server_error",
        "unavailable",
        "hang",
        "drop",
        "malformed",
        "empty_choices",
        "length",
        "stream_cut",
        "corrupt_chunk",
    }
)


class FaultSampler:
    """Draws the faults of a :class:`FaultProfile`, one draw per call, thread-safe."""

    def __init__(self, profile: FaultProfile) -> None:
        self.profile = profile
        self._rng = random.Random(profile.seed)
        self._lock = threading.Lock()

    def draw(self) -> FaultSpec | None:
        """The fault for the next request, or None for a normal answer."""
        with self._lock:
            x = self._rng.random()
        edge = 0.0
        for name, rate in self.profile.rates().items():
            edge += rate
            if x < edge:
                fault = Fault(name)
                retry = self.profile.retry_after if fault is Fault.RATE_LIMIT else None
                return FaultSpec(fault, retry_after=retry)
        return None


@dataclass(frozen=True)
class Latency:
    """Simulated model latency: ``fixed`` seconds before the answer plus ``per_output_token``
    seconds per completion token (spread over the chunks when streaming)."""

    fixed: float = 0.0
    per_output_token: float = 0.0

    def total(self, output_tokens: int) -> float:
        """Seconds a whole reply of ``output_tokens`` takes."""
        return self.fixed + self.per_output_token * output_tokens


def error_body(
    message: str, type_: str, code: str | None, param: str | None = None
) -> dict[str, Any]:
    """An error body in OpenAI's shape: ``{"error": {"message", "type", "param", "code"}}``."""
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


# fault -> (status, default message, OpenAI error type, code)
_STATUS_FAULTS: dict[Fault, tuple[int, str, str, str | None]] = {
    Fault.RATE_LIMIT: (
        429,
        "Rate limit reached for requests (simulated). Please try again later.",
        "requests",
        "rate_limit_exceeded",
    ),
    Fault.SERVER_ERROR: (
        500,
        "The server had an error while processing your request (simulated).",
        "server_error",
        None,
    ),
    Fault.UNAVAILABLE: (
        503,
        "The engine is currently overloaded, please try again later (simulated).",
        "server_error",
        None,
    ),
    Fault.AUTH: (
        401,
        "Incorrect API key provided.",
        "invalid_request_error",
        "invalid_api_key",
    ),
    Fault.BAD_REQUEST: (
        400,
        "Invalid request (simulated).",
        "invalid_request_error",
        None,
    ),
    Fault.CONTEXT_TOO_LONG: (
        400,
        "This model's maximum context length is exceeded (simulated). "
        "Please reduce the length of the messages.",
        "invalid_request_error",
        "context_length_exceeded",
    ),
}


def status_response(
    spec: FaultSpec, default_retry_after: float = 1.0, key: str = ""
) -> tuple[int, dict[str, Any], dict[str, str]] | None:
    """``(status, body, headers)`` for a fault answered with an HTTP error, else None.

    ``key`` is the API key the request presented, for a message that echoes it.
    """
    entry = _STATUS_FAULTS.get(spec.fault)
    if entry is None:
        return None
    status, message, type_, code = entry
    if spec.message is not None:
        message = spec.message.replace("{key}", key).replace("{key_body}", key.removeprefix("sk-"))
    param = "messages" if spec.fault is Fault.CONTEXT_TOO_LONG else None
    headers: dict[str, str] = {}
    if spec.fault is Fault.RATE_LIMIT:
        seconds = default_retry_after if spec.retry_after is None else spec.retry_after
        # Retry-After takes whole seconds; retry-after-ms keeps the exact value.
        headers["Retry-After"] = str(max(0, round(seconds)))
        headers["retry-after-ms"] = str(max(0, round(seconds * 1000)))
    return status, error_body(message, type_, code, param), headers
