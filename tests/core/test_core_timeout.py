"""The time-limit helpers: daemon workers are reused, a hung call never blocks the next one."""

from __future__ import annotations

import threading
import time

import pytest

from lcel_agent._timeout import CallTimeout, _DaemonWorkers, call_with_timeout


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
