"""Run a call with a time limit, in sync and async code alike.

A sync call that overruns cannot be killed in Python; it is left to finish on a
daemon thread that nobody waits for, so the caller moves on and the process can
still exit. An async call that overruns is cancelled.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import queue
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = [
    "CANCEL_GRACE",
    "CallTimeout",
    "acall_with_timeout",
    "arun_sync_with_timeout",
    "call_async_with_timeout",
    "call_with_timeout",
]

T = TypeVar("T")


class CallTimeout(TimeoutError):
    """The call ran past its time limit (a ``TimeoutError``)."""

    def __init__(self, what: str, seconds: float) -> None:
        super().__init__(f"{what} did not finish within {seconds:g} s")
        self.seconds = seconds


class _DaemonWorkers:
    """Daemon threads that run jobs and wait for more, started only when none is idle.

    Starting a thread per call cost about a third of the loop's own time. A job that
    hangs keeps its worker, and the next call simply gets a new one, so abandoning
    an overrunning call is still free. A worker idle for ``idle_seconds`` exits: long
    enough to serve the next step of a busy loop, short enough that a finished burst
    of runs leaves no threads behind.
    """

    def __init__(self, idle_seconds: float = 2.0) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], Callable[[], None]]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._idle_seconds = idle_seconds

    def submit(self, job: Callable[[], Callable[[], None]]) -> None:
        """Run ``job`` on a worker; the callable it returns is called once the worker is idle."""
        # Every change of the idle count and every put happens under the lock, so a
        # worker that times out can tell whether a job was just promised to it.
        with self._lock:
            if self._idle:
                self._idle -= 1
                self._jobs.put(job)
                return
        threading.Thread(
            target=self._work, args=(job,), name="lcel-agent-worker", daemon=True
        ).start()

    def _work(self, job: Callable[[], Callable[[], None]]) -> None:
        while True:
            deliver = job()
            del job
            # Idle before the caller hears back: its next call then finds this worker
            # instead of starting another.
            with self._lock:
                self._idle += 1
            deliver()
            # An idle worker must not keep its last call alive (the model, its HTTP client,
            # the reply): freed now, they are not left for a later garbage collection.
            del deliver
            try:
                job = self._jobs.get(timeout=self._idle_seconds)
            except queue.Empty:
                with self._lock:
                    try:
                        job = self._jobs.get_nowait()
                    except queue.Empty:
                        self._idle -= 1
                        return


_WORKERS = _DaemonWorkers()


def _submit(fn: Callable[[], T]) -> concurrent.futures.Future[T]:
    """Run ``fn`` on a daemon worker with the caller's context variables."""
    future: concurrent.futures.Future[T] = concurrent.futures.Future()
    ctx = contextvars.copy_context()

    def job() -> Callable[[], None]:
        if not future.set_running_or_notify_cancel():
            return lambda: None
        try:
            value = ctx.run(fn)
        except BaseException as exc:  # handed back to the caller through the future
            # partial, not a lambda: the name ``exc`` is unbound when the except block ends.
            return functools.partial(future.set_exception, exc)
        return functools.partial(future.set_result, value)

    _WORKERS.submit(job)
    return future


def call_with_timeout(fn: Callable[[], T], timeout: float | None, what: str = "call") -> T:
    """Return ``fn()``, or raise :class:`CallTimeout` after ``timeout`` seconds.

    With ``timeout=None`` the call runs on the calling thread. Otherwise it runs
    on a daemon worker carrying the caller's context variables (so callbacks and
    tracing still see the parent run).
    """
    if timeout is None:
        return fn()
    future = _submit(fn)
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        if future.done():  # the call's own TimeoutError, not an overrun
            raise
        raise CallTimeout(what, timeout) from None


async def acall_with_timeout(
    fn: Callable[[], Awaitable[T]], timeout: float | None, what: str = "call"
) -> T:
    """Await ``fn()``, cancelling it and raising :class:`CallTimeout` after ``timeout`` s.

    The call is cancelled at the limit and awaited while it unwinds; whatever it does
    then (finish late, raise something of its own), an expired limit is an overrun,
    so a timeout is always reported as :class:`CallTimeout`. A call's own
    ``TimeoutError`` before the limit passes through as it is.
    """
    if timeout is None:
        return await fn()
    # ``asyncio.timeout`` cancels the awaiting task itself at the limit: no task of
    # its own per call (a task and ``asyncio.wait`` cost a loop turn or two each time).
    limit = asyncio.timeout(timeout)
    try:
        async with limit:
            value = await fn()
    except Exception as exc:
        if not limit.expired():  # the call's own error, its own TimeoutError included
            raise
        raise CallTimeout(what, timeout) from (None if isinstance(exc, TimeoutError) else exc)
    if limit.expired():  # it swallowed the cancellation and finished late
        raise CallTimeout(what, timeout)
    return value


async def arun_sync_with_timeout(
    fn: Callable[[], T], timeout: float | None, what: str = "call"
) -> T:
    """Await a blocking ``fn()`` run on a daemon worker, giving up after ``timeout`` s.

    Unlike ``loop.run_in_executor``, an overrunning call does not hold up
    ``asyncio.run``'s shutdown, which waits for the default executor's threads.
    """
    return await acall_with_timeout(lambda: _asubmit(fn), timeout, what)


def _asubmit(fn: Callable[[], T]) -> asyncio.Future[T]:
    """Run ``fn`` on a daemon worker; its outcome settles an asyncio future of the running loop.

    One ``call_soon_threadsafe`` per call: cheaper than a concurrent future chained
    to an asyncio one (``wrap_future``), which the sync tools of every async loop pay.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    ctx = contextvars.copy_context()

    def job() -> Callable[[], None]:
        if future.cancelled():  # given up on before a worker took it
            return lambda: None
        try:
            value = ctx.run(fn)
        except BaseException as exc:  # handed back to the awaiting task
            return functools.partial(_deliver, loop, future, None, exc)
        return functools.partial(_deliver, loop, future, value, None)

    _WORKERS.submit(job)
    return future


def _deliver(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[T],
    value: T | None,
    exc: BaseException | None,
) -> None:
    """From a worker: settle ``future`` on its loop, unless the loop has gone meanwhile."""
    # A closed loop raises RuntimeError: nobody is waiting any more. Nothing else may
    # escape either, or the worker thread would die with jobs queued to it.
    with contextlib.suppress(Exception):
        loop.call_soon_threadsafe(_settle, future, value, exc)


def _settle(future: asyncio.Future[T], value: T | None, exc: BaseException | None) -> None:
    if future.done():  # cancelled at its time limit
        return
    if isinstance(exc, StopIteration):
        # A future refuses StopIteration (it would end a generator): the caller would
        # wait forever. Hand it over as the RuntimeError Python itself turns it into.
        error = RuntimeError(f"the call raised StopIteration: {exc!r}")
        error.__cause__ = exc
        exc = error
    if exc is not None:
        future.set_exception(exc)
    else:
        future.set_result(value)  # type: ignore[arg-type]


#: Seconds a coroutine cancelled at its limit gets to unwind before a sync caller gives up on it.
CANCEL_GRACE = 1.0


def call_async_with_timeout(
    fn: Callable[[], Awaitable[T]], timeout: float | None, what: str = "call"
) -> T:
    """From sync code, run the coroutine ``fn()`` on a loop of its own, cancelled at ``timeout``.

    The coroutine runs on a daemon worker (the caller may be inside a running loop
    already), under its own limit, so an overrun is cancelled rather than left
    running; the caller waits :data:`CANCEL_GRACE` longer for that to happen and
    only then abandons a coroutine that ignores cancellation.
    """
    outer = None if timeout is None else timeout + CANCEL_GRACE
    return call_with_timeout(
        lambda: asyncio.run(acall_with_timeout(fn, timeout, what)), outer, what
    )
