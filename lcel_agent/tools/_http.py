"""HTTP plumbing shared by the built-in tools: sessions, one retry, deadlines, quiet logs.

``fetch`` never raises for a network problem: it returns the response (a
status below 500) or an ``ERROR:`` string with every secret redacted::

    answer = fetch("Amap", url, params={"city": "北京", "key": key},
                   attempt_timeout=5, time_limit=12)
    if isinstance(answer, str):
        return answer              # "ERROR: ..."

Importing this module also installs a logging filter on the HTTP clients'
loggers (see :mod:`lcel_agent._redact`): urllib3 logs every request line at
DEBUG *with its query string*, which is where Amap's key travels.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any, Self

import requests
from pydantic import model_validator
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    retry_if_result,
    stop_after_attempt,
    wait_fixed,
)
from tenacity.stop import stop_base

from lcel_agent._redact import install_client_log_redaction, redact
from lcel_agent.calling import TransientError
from lcel_agent.tools._args import SingleArgTool

__all__ = [
    "BROWSER_USER_AGENT",
    "USER_AGENT",
    "HttpTool",
    "fetch",
    "install_log_redaction",
    "session",
]

USER_AGENT = "lcel-agent/0.1 (+python-requests)"
"""Sent to APIs, so their operators can tell this library's traffic apart."""

BROWSER_USER_AGENT = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 "
    "(KHTML, like Gecko) Chrome/124.0 Safari/537.36"
)
"""Sent to web pages (Baidu), which serve a verification page to unknown clients."""

_MAX_REASON_CHARS = 300

_local = threading.local()


def session() -> requests.Session:
    """This thread's ``requests.Session``: pooled connections, no sharing across threads."""
    current: requests.Session | None = getattr(_local, "session", None)
    if current is None:
        current = requests.Session()
        _local.session = current
    return current


def install_log_redaction() -> None:
    """Mask secrets in the HTTP clients' log records (idempotent; done on import)."""
    install_client_log_redaction()


install_log_redaction()


def _is_transient(exc: BaseException) -> bool:
    return isinstance(exc, requests.Timeout | requests.ConnectionError)


def _is_server_error(response: Any) -> bool:
    return isinstance(response, requests.Response) and response.status_code >= 500


class _StopNear(stop_base):
    """Stop retrying when the next attempt could not start before the deadline."""

    def __init__(self, deadline: float, wait: float) -> None:
        self.deadline, self.wait = deadline, wait

    def __call__(self, retry_state: RetryCallState) -> bool:
        return time.monotonic() + self.wait >= self.deadline


def _short_reason(exc: BaseException) -> str:
    reason = redact(str(exc) or type(exc).__name__)
    if len(reason) > _MAX_REASON_CHARS:
        reason = reason[: _MAX_REASON_CHARS - 1] + "…"
    return reason


def fetch(
    service: str,
    url: str,
    *,
    params: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    attempt_timeout: float,
    time_limit: float,
    attempts: int = 2,
    retry_wait: float = 0.2,
    allow_redirects: bool = True,
) -> requests.Response | str:
    """GET ``url``, retrying timeouts, connection errors and 5xx, within ``time_limit``.

    ``attempts`` counts the first try. Each attempt waits at most
    ``attempt_timeout`` seconds and never past the deadline; no retry starts
    once the deadline is too close for it. Returns the response (any status
    below 500) or an ``ERROR:`` string naming ``service``.
    """
    deadline = time.monotonic() + time_limit

    retrying = Retrying(
        stop=stop_after_attempt(attempts) | _StopNear(deadline, retry_wait),
        wait=wait_fixed(retry_wait),
        retry=retry_if_exception(_is_transient) | retry_if_result(_is_server_error),
        retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
        reraise=True,
    )

    def attempt() -> requests.Response:
        timeout = max(0.001, min(attempt_timeout, deadline - time.monotonic()))
        return session().get(
            url,
            params=params,
            headers=dict(headers or {}),
            timeout=timeout,
            allow_redirects=allow_redirects,
        )

    started = time.monotonic()
    try:
        response = retrying(attempt)
    except requests.Timeout:
        return TransientError(
            f"ERROR: {service} did not answer in time "
            f"({_tries(retrying)}, {time.monotonic() - started:.1f} s)"
        )
    except requests.ConnectionError as exc:
        return TransientError(
            f"ERROR: could not connect to {service} ({_tries(retrying)}): {_short_reason(exc)}"
        )
    except requests.RequestException as exc:
        return f"ERROR: request to {service} failed: {_short_reason(exc)}"
    if not isinstance(response, requests.Response):  # retry_error_callback saw no outcome
        return f"ERROR: request to {service} failed"
    if response.status_code >= 500:
        return TransientError(
            f"ERROR: {service} answered HTTP {response.status_code} ({_tries(retrying)})"
        )
    return response


def _tries(retrying: Retrying) -> str:
    count = int(retrying.statistics.get("attempt_number", 1))
    return "1 attempt" if count == 1 else f"{count} attempts"


class HttpTool(SingleArgTool):
    """Base of the bundled web tools: one string argument, HTTP limits, never a raise.

    Subclasses set ``name``, ``description``, ``args_schema`` and the limits'
    defaults, and implement :meth:`_call`; :meth:`fetch_limits` hands the limits
    to :func:`fetch`.
    """

    request_timeout: float = 5.0
    """Seconds one HTTP attempt may take."""
    time_limit: float = 12.0
    """Seconds the whole call (every attempt) may take; published as ``metadata["timeout"]``."""
    attempts: int = 2
    """HTTP attempts for timeouts, connection errors and 5xx, the first included."""
    retry_wait: float = 0.2
    """Seconds between attempts."""

    @model_validator(mode="after")
    def _publish_limits(self) -> Self:
        # The dispatcher reads these: the tool may be retried, and how long it may run.
        self.metadata = {**(self.metadata or {}), "idempotent": True, "timeout": self.time_limit}
        return self

    def fetch_limits(self) -> dict[str, Any]:
        """The keyword arguments of :func:`fetch` that carry this tool's limits."""
        return {
            "attempt_timeout": self.request_timeout,
            "time_limit": self.time_limit,
            "attempts": self.attempts,
            "retry_wait": self.retry_wait,
        }

    def _call(self, value: str) -> str:
        """Do the work for the (stripped) argument; return the result or an ``ERROR:`` text."""
        raise NotImplementedError

    def _run(self, *args: Any, **kwargs: Any) -> str:
        (field,) = self.args  # a SingleArgTool has exactly one field
        value = kwargs.get(field, args[0] if args else "")
        try:
            return self._call(str(value).strip())
        except Exception as exc:  # the tool's contract: a string, never a raise
            return redact(f"ERROR: {self.name} failed unexpectedly: {exc!r}")
