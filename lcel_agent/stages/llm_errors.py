"""Sort a model call's exception into transient (retry) or fatal (stop).

Works on every supported stack: langchain-core 1.x model errors carry an
``is_retryable`` flag; the openai client's exceptions (both 1.x and 3.x) carry
a status code and the response headers; plain ``TimeoutError`` and
``ConnectionError`` are transient, and so is a response the client could not
decode (a corrupted stream chunk or body raises ``json.JSONDecodeError`` or
``UnicodeDecodeError`` inside the client: the same glitch as a dropped
connection, and as likely to clear on a second try). Anything else a model
raises is fatal: it will not get better by asking again. Between attempts the call waits
what the server asked (``Retry-After``), else :func:`backoff_wait`.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tenacity import RetryCallState

from ..errors import ErrorClass

__all__ = ["ModelErrorInfo", "backoff_wait", "classify_model_error", "retry_after_seconds"]

#: Status codes worth retrying: timeout, conflict, rate limit, and any 5xx.
TRANSIENT_STATUS = frozenset({408, 409, 429})

_TRANSIENT_NAMES = (
    "Timeout",
    "ConnectError",
    "ConnectionError",
    "RemoteProtocolError",
    "ReadError",
)


@dataclass(frozen=True, slots=True)
class ModelErrorInfo:
    """What :func:`classify_model_error` found out about an exception."""

    error_class: ErrorClass
    status_code: int | None = None
    retry_after: float | None = None
    context_overflow: bool = False

    @property
    def transient(self) -> bool:
        return self.error_class is ErrorClass.LLM_TRANSIENT


def _status_code(exc: BaseException) -> int | None:
    for holder in (exc, getattr(exc, "response", None)):
        code = getattr(holder, "status_code", None)
        if isinstance(code, int):
            return code
    return None


def retry_after_seconds(exc: BaseException) -> float | None:
    """The server's ``retry-after-ms`` / ``retry-after`` (seconds) header, if any."""
    headers: Any = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) * scale
        except (TypeError, ValueError):
            continue  # an HTTP date: rare for model APIs, fall back to backoff
        if value >= 0:
            return value
    return None


def _is_context_overflow(exc: BaseException) -> bool:
    text = f"{getattr(exc, 'code', '')} {exc}".lower()
    return "context_length_exceeded" in text or "maximum context length" in text


def classify_model_error(exc: BaseException) -> ModelErrorInfo:
    """Classify one exception raised by a model call."""
    status = _status_code(exc)
    retryable = getattr(type(exc), "is_retryable", None)
    transient: bool
    if isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):
        # Checked first: the client may hang the 200 response that failed to decode on it.
        transient = True
    elif isinstance(retryable, bool):
        transient = retryable
    elif status is not None:
        transient = status in TRANSIENT_STATUS or status >= 500
    elif isinstance(exc, TimeoutError | ConnectionError | asyncio.TimeoutError):
        transient = True
    else:
        # openai.APIConnectionError / APITimeoutError and httpx transport errors have no
        # status; matching on the class names keeps this free of version-specific imports.
        names = [cls.__name__ for cls in type(exc).__mro__]
        transient = any(part in name for name in names for part in _TRANSIENT_NAMES) or (
            "APIConnectionError" in names
        )
    return ModelErrorInfo(
        error_class=ErrorClass.LLM_TRANSIENT if transient else ErrorClass.LLM_FATAL,
        status_code=status,
        retry_after=retry_after_seconds(exc) if transient else None,
        context_overflow=(not transient) and _is_context_overflow(exc),
    )


def backoff_wait(first: float, most: float) -> Callable[[RetryCallState], float]:
    """The wait before attempt ``n + 1``: ``first * 2**(n - 1)`` seconds plus up to ``first``
    at random, at most ``most``, as tenacity's ``wait_exponential_jitter(first, most,
    jitter=first)`` computes it.

    Written out because tenacity names that first wait two ways: 9.2.1 (on both stacks
    today) warns on ``initial`` and wants ``multiplier``, and older releases the dependency
    range admits (``tenacity>=8.2``) know only ``initial``.
    """

    def wait(retry_state: RetryCallState) -> float:
        try:
            seconds = first * 2.0 ** (retry_state.attempt_number - 1) + random.uniform(0, first)
        except OverflowError:
            seconds = most
        return max(0.0, min(seconds, most))

    return wait
