"""Run a call with a time limit, in sync and async code alike.

A sync call that overruns cannot be killed in Python; it is left to finish on a
daemon thread that nobody waits for, so the caller moves on and the process can
still exit. An async call that overruns is cancelled.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

__all__ = ["CallTimeout", "acall_with_timeout", "arun_sync_with_timeout", "call_with_timeout"]

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
    task = asyncio.ensure_future(fn())
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if not done:
        task.cancel()
        raise CallTimeout(what, timeout)
    # The call's own exceptions, a TimeoutError of its own included, pass through as they are.
    return task.result()


async def arun_sync_with_timeout(
    fn: Callable[[], T], timeout: float | None, what: str = "call"
) -> T:
    """Await a blocking ``fn()`` run on a daemon thread, giving up after ``timeout`` s.

    Unlike ``loop.run_in_executor``, an overrunning call does not hold up
    ``asyncio.run``'s shutdown, which waits for the default executor's threads.
    """
    future: concurrent.futures.Future[T] = concurrent.futures.Future()
    ctx = contextvars.copy_context()

    def target() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(ctx.run(fn))
        except BaseException as exc:  # handed back to the awaiting task
            future.set_exception(exc)

    threading.Thread(target=target, name=f"lcel-agent:{what}", daemon=True).start()
    return await acall_with_timeout(lambda: asyncio.wrap_future(future), timeout, what)
