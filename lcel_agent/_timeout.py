"""Run a call with a time limit, in sync and async code alike.

A sync call that overruns cannot be killed in Python; it is left to finish on a
daemon thread that nobody waits for, so the caller moves on and the process can
still exit. An async call that overruns is cancelled.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["CallTimeout", "acall_with_timeout", "call_with_timeout"]

T = TypeVar("T")


class CallTimeout(TimeoutError):
    """The call ran past its time limit (a ``TimeoutError``)."""

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(f"{what} did not finish within {seconds:g} s")
        self.seconds = seconds


def call_with_timeout(fn: Callable[[], T], timeout: float | None, what: str = "call") -> T:
    """Return ``fn()``, or raise :class:`CallTimeout` after ``timeout`` seconds.

    With ``timeout=None`` the call runs on the calling thread. Otherwise it runs
    on a daemon thread carrying the caller's context variables (so callbacks and
    tracing still see the parent run).
    """
    if timeout is None:
        return fn()
    box: dict[str, Any] = {}
    done = threading.Event()
    ctx = contextvars.copy_context()

    def target() -> None:
        try:
            box["value"] = ctx.run(fn)
        except BaseException as exc:  # handed back to the caller below
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, name=f"lcel-agent:{what}", daemon=True).start()
    if not done.wait(timeout):
        raise CallTimeout(what, timeout)
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


async def acall_with_timeout(
    fn: Callable[[], Awaitable[T]], timeout: float | None, what: str = "call"
) -> T:
    """Await ``fn()``, cancelling it and raising :class:`CallTimeout` after ``timeout`` s."""
    if timeout is None:
        return await fn()
    try:
        return await asyncio.wait_for(fn(), timeout)
    except TimeoutError as exc:
        if isinstance(exc, CallTimeout):
            raise
        raise CallTimeout(what, timeout) from None
