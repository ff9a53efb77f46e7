"""SessionStore: persistence, leases across threads and processes, the async twin."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time

import pytest

from lcel_agent.errors import ConfigurationError, SessionBusyError
from lcel_agent.memory import SlidingWindowMemory
from lcel_agent.sessions import SessionStore


@pytest.fixture
def template() -> SlidingWindowMemory:
    return SlidingWindowMemory(400, compactor=None)  # the store, not compaction, is under test


@pytest.fixture
def store(tmp_path):
    with SessionStore(tmp_path / "sessions.db") as opened:
        yield opened


def contents(memory: SlidingWindowMemory) -> list[str]:
    return [str(m.content) for m in memory.messages]


def test_a_window_persists_across_runs_and_store_objects(tmp_path, template):
    path = tmp_path / "s.db"
    with SessionStore(path) as first:
        with first.session("u1", template) as handle:
            assert handle.memory.messages == []
            handle.memory.add_user("北京天气？")
            handle.memory.add_assistant('{"action": "get_weather", "action_input": "北京"}')
            handle.save()
        with first.session("u1", template) as handle:
            handle.memory.add_observation("北京天气：晴")
            handle.save()
    with SessionStore(path) as reopened:
        assert reopened.list() == ["u1"]
        loaded = reopened.load("u1", template)
    assert loaded is not None
    assert contents(loaded)[-1] == "北京天气：晴" and len(loaded) == 3


def test_the_next_runs_question_is_pinned(store):
    template = SlidingWindowMemory(60, counter=len, compactor=None)
    with store.session("u1", template) as handle:
        handle.memory.add_user("q1")
        handle.memory.add_assistant("final 1")
        handle.save()
    with store.session("u1", template) as handle:
        handle.memory.add_user("q2")
        assert contents(handle.memory) == ["q1", "final 1", "q2"]
        for i in range(5):
            handle.memory.add_assistant(f"step {i} " * 2)
        assert contents(handle.memory)[0] == "q2"
        handle.save()
    loaded = store.load("u1", template)
    assert loaded is not None and contents(loaded)[0] == "q2"


def test_nothing_is_saved_without_save(store, template):
    with store.session("u1", template) as handle:
        handle.memory.add_user("lost")
    assert store.load("u1", template) is None and store.list() == []


def test_the_template_budget_and_counter_apply_on_load(store):
    with store.session("u1", SlidingWindowMemory(10_000)) as handle:
        for i in range(20):
            handle.memory.add_assistant(f"step {i}")
        handle.save()
    small = SlidingWindowMemory(50, counter=len)
    loaded = store.load("u1", small)
    assert loaded is not None and loaded.counter is len and loaded.max_tokens == 50
    assert loaded.token_count <= 50 and contents(loaded)[-1] == "step 19"


def test_overlapping_runs_raise_session_busy(store, template):
    with store.session("u1", template):
        assert store.is_busy("u1")
        with pytest.raises(SessionBusyError, match="u1"), store.session("u1", template):
            pass
        with store.session("other", template):  # other sessions are independent
            pass
    assert not store.is_busy("u1")
    with store.session("u1", template):  # released on exit
        pass


async def test_overlapping_runs_raise_session_busy_async(store, template):
    async with store.asession("u1", template) as handle:
        handle.memory.add_user("q")
        handle.save()
        with pytest.raises(SessionBusyError):
            async with store.asession("u1", template):
                pass
    async with store.asession("u1", template) as handle:
        assert contents(handle.memory) == ["q"]


def test_a_waiting_run_gets_the_session_when_it_is_released(tmp_path, template):
    store = SessionStore(tmp_path / "s.db", wait=10.0)
    entered = threading.Event()
    order: list[str] = []

    def first() -> None:
        with store.session("u1", template) as handle:
            entered.set()
            time.sleep(0.2)
            handle.memory.add_user("from the first run")
            handle.save()
            order.append("first done")

    worker = threading.Thread(target=first)
    worker.start()
    entered.wait(5)
    with store.session("u1", template) as handle:
        order.append("second in")
        assert contents(handle.memory) == ["from the first run"]
    worker.join()
    store.close()
    assert order == ["first done", "second in"]


async def test_a_waiting_run_gets_the_session_when_it_is_released_async(tmp_path, template):
    store = SessionStore(tmp_path / "s.db", wait=10.0)
    entered = asyncio.Event()

    async def first() -> None:
        async with store.asession("u1", template) as handle:
            entered.set()
            await asyncio.sleep(0.2)
            handle.memory.add_user("from the first run")
            handle.save()

    task = asyncio.create_task(first())
    await entered.wait()
    async with store.asession("u1", template) as handle:
        assert contents(handle.memory) == ["from the first run"]
    await task
    store.close()


def test_an_expired_lease_can_be_taken_and_the_old_holder_cannot_save(tmp_path, template):
    store = SessionStore(tmp_path / "s.db", lease_seconds=0.1)
    with store.session("u1", template) as stale:
        time.sleep(0.2)
        with store.session("u1", template) as fresh:
            fresh.memory.add_user("new owner")
            fresh.save()
            with pytest.raises(SessionBusyError):
                stale.save()
            with pytest.raises(SessionBusyError):
                stale.renew()
    loaded = store.load("u1", template)
    assert loaded is not None and contents(loaded) == ["new owner"]
    store.close()


def test_break_lease_frees_a_session_held_by_a_crashed_run(store, template):
    with store.session("u1", template) as crashed:
        store.break_lease("u1")
        with store.session("u1", template):
            pass
        with pytest.raises(SessionBusyError):
            crashed.save()


def test_delete_and_list(store, template):
    for sid in ["b", "a", "c"]:
        with store.session(sid, template) as handle:
            handle.save()
    assert store.list() == ["a", "b", "c"]
    store.delete("b")
    assert store.list() == ["a", "c"] and store.load("b", template) is None


def test_memory_store_is_shared_by_threads(template):
    store = SessionStore(":memory:")
    errors: list[BaseException] = []

    def run(sid: str) -> None:
        try:
            for i in range(5):
                with store.session(sid, template) as handle:
                    handle.memory.add_assistant(f"{sid}-{i}")
                    handle.save()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(f"s{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.list() == [f"s{i}" for i in range(8)]
    loaded = store.load("s3", template)
    assert loaded is not None and contents(loaded) == [f"s3-{i}" for i in range(5)]
    store.close()


def test_bad_settings_are_configuration_errors():
    with pytest.raises(ConfigurationError):
        SessionStore(lease_seconds=0)
    with pytest.raises(ConfigurationError):
        SessionStore(wait=-1)


# --- two real processes -----------------------------------------------------------------

CHILD = """
import sys
from lcel_agent.errors import SessionBusyError
from lcel_agent.memory import SlidingWindowMemory
from lcel_agent.sessions import SessionStore

path, action = sys.argv[1], sys.argv[2]
store = SessionStore(path)
template = SlidingWindowMemory(400, compactor=None)
try:
    with store.session("shared", template) as handle:
        if action == "append":
            handle.memory.add_observation("from pid-child")
            handle.save()
        print("|".join(str(m.content) for m in handle.memory.messages))
except SessionBusyError as exc:
    print("BUSY", exc)
store.close()
"""


def child(path, action: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), action],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_sessions_persist_and_lock_across_processes(tmp_path, template):
    path = tmp_path / "shared.db"
    with SessionStore(path) as store, store.session("shared", template) as handle:
        handle.memory.add_user("北京天气？")
        handle.memory.add_assistant("get_weather")
        handle.save()
        # While this process holds the session, another process is refused.
        busy = child(path, "append")
        assert busy.startswith("BUSY") and "shared" in busy
    # Released: the other process finds the window, extends it and saves.
    assert child(path, "append") == "北京天气？|get_weather|from pid-child"
    # A new process (a restart) finds the session again.
    assert child(path, "read") == "北京天气？|get_weather|from pid-child"
    with SessionStore(path) as again:
        loaded = again.load("shared", template)
    assert loaded is not None and contents(loaded)[-1] == "from pid-child"
