"""The time-limit helpers: daemon workers are reused, a hung call never blocks the next one."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from lcel_agent._shared.timeout import CallTimeout, _DaemonWorkers, call_with_timeout


def test_sequential_calls_reuse_one_worker():
    existing = {t.ident for t in threading.enumerate()}
    ran_on = {call_with_timeout(lambda: threading.get_ident(), 5.0) for _ in range(50)}
    # Idle workers left by earlier tests may serve some calls; at most one is started.
    assert len(ran_on - existing) <= 1


def test_a_hung_call_is_abandoned_and_the_next_gets_a_fresh_worker():
    release = threading.Event()
    with pytest.raises(CallTimeout):
        call_with_timeout(lambda: release.wait(10), 0.05, "hang")
    assert call_with_timeout(lambda: "next", 1.0) == "next"
    release.set()


def test_the_calls_own_errors_pass_through():
    def boom() -> None:
        raise TimeoutError("the tool's own timeout")

    with pytest.raises(TimeoutError, match="own timeout") as raised:
        call_with_timeout(boom, 1.0)
    assert not isinstance(raised.value, CallTimeout)


def test_idle_workers_exit():
    workers = _DaemonWorkers(idle_seconds=0.1)
    ran_on: list[threading.Thread] = []
    workers.submit(lambda: ran_on.append(threading.current_thread()) or (lambda: None))
    deadline = time.monotonic() + 2.0
    while not ran_on and time.monotonic() < deadline:
        time.sleep(0.01)
    (worker,) = ran_on
    worker.join(2.0)
    assert not worker.is_alive() and workers._idle == 0  # idle 0.1 s, then it left


def test_an_async_call_that_overruns_is_a_timeout_whatever_it_does_when_cancelled():
    import asyncio

    from lcel_agent._shared.timeout import acall_with_timeout

    async def stubborn() -> str:  # swallows the cancellation and finishes late
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            await asyncio.sleep(0.1)
        return "late result"

    async def converts() -> str:  # turns the cancellation into an error of its own
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            raise RuntimeError("connection aborted") from None
        return "never"

    async def own_timeout() -> str:
        raise TimeoutError("the call's own")

    async def outcome(fn: Any) -> BaseException | str:
        try:
            return await acall_with_timeout(fn, 0.1, "tool")
        except Exception as exc:
            return exc

    assert isinstance(asyncio.run(outcome(stubborn)), CallTimeout)
    converted = asyncio.run(outcome(converts))
    assert isinstance(converted, CallTimeout)
    assert isinstance(converted.__cause__, RuntimeError)  # what it raised is kept as the cause
    own = asyncio.run(outcome(own_timeout))
    assert isinstance(own, TimeoutError) and not isinstance(own, CallTimeout)
    assert str(own) == "the call's own"


def test_a_sync_call_raising_stopiteration_under_asyncio_fails_at_once():
    import asyncio

    from lcel_agent._shared.timeout import arun_sync_with_timeout

    def empty_next() -> int:
        return next(iter([]))

    async def outcome(timeout: float | None) -> tuple[BaseException, float]:
        started = time.monotonic()
        try:
            await asyncio.wait_for(arun_sync_with_timeout(empty_next, timeout, "tool"), 20)
        except BaseException as exc:
            return exc, time.monotonic() - started
        raise AssertionError("no error")

    # Failing late would mean waiting out the time limit (10 s) or the wait_for (20 s).
    for timeout in (None, 10.0):
        error, took = asyncio.run(outcome(timeout))
        assert type(error) is RuntimeError and isinstance(error.__cause__, StopIteration)
        assert took < 5.0
