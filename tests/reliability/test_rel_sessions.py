"""Sessions under asyncio: overlapping async runs of one session queue without blocking the loop.

Two runs of one session id started together (``abatch``) against the simulated
server, whose latency keeps the first run holding the session while the second
asks for it. With a store that waits, both finish, one after the other, and the
second sees the first's turn; the event loop keeps ticking meanwhile (a
heartbeat task measures it). With a store that does not wait, the second fails
with ``SessionBusyError`` at once. A ``session_id`` set by someone else on an
agent without a store is ignored, with a DEBUG record saying so.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from rel_support import chat_model

from lcel_agent import SessionBusyError, SessionStore, StopReason, create_agent
from lcel_agent.testing.faults import Latency
from lcel_agent.testing.server import SimulatedOpenAIServer

KEY = "sk-test-sessions-0000"
SESSION = {"configurable": {"session_id": "user-42"}}
MODES = ["sync", "async"]


@tool
def probe(city: str) -> str:
    """查询城市实时天气，城市名称必须是中文，例如'北京'"""
    return f"{city}市天气：晴"


def _count_questions(messages: list[dict[str, Any]], tools: Any) -> str:
    """Answers with how many questions the window holds: 2 means the session carried one."""
    asked = sum(1 for m in messages if m["role"] == "user")
    return json.dumps({"action": "final", "action_input": str(asked)})


@contextmanager
def _agent(store: SessionStore | None) -> Iterator[tuple[Any, ChatOpenAI]]:
    """An agent on a server slow enough (0.4 s an answer) for two runs to overlap."""
    with SimulatedOpenAIServer(
        _count_questions, require_key=KEY, latency=Latency(fixed=0.4)
    ) as srv:
        llm = chat_model(srv.base_url, KEY)
        yield create_agent(llm, [probe], sessions=store), llm


async def _abatch_with_heartbeat(
    agent: Any, tasks: list[str], config: Any
) -> tuple[list[Any], float]:
    """``abatch`` the tasks while a task measures the event loop's longest gap."""
    gaps: list[float] = [0.0]
    done = asyncio.Event()

    async def heartbeat() -> None:
        last = time.monotonic()
        while not done.is_set():
            await asyncio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    beat = asyncio.create_task(heartbeat())
    try:
        results = await agent.abatch(tasks, config, return_exceptions=True)
    finally:
        done.set()
        await beat
    return results, max(gaps)


def _both(mode: str, agent: Any, llm: ChatOpenAI, config: Any) -> tuple[list[Any], float]:
    """Two runs started together (``batch`` or ``abatch``); the loop's longest gap (async)."""
    tasks = ["第一个问题", "第二个问题"]

    async def arun() -> tuple[list[Any], float]:
        try:
            return await _abatch_with_heartbeat(agent, tasks, config)
        finally:
            await llm.root_async_client.close()

    try:
        if mode == "sync":
            return agent.batch(tasks, config, return_exceptions=True), 0.0
        return asyncio.run(arun())
    finally:
        llm.root_client.close()


@pytest.mark.parametrize("mode", MODES)
def test_overlapping_runs_of_one_session_queue(mode: str, tmp_path: Any) -> None:
    with _agent(SessionStore(tmp_path / "s.db", wait=10.0)) as (agent, llm):
        started = time.monotonic()
        results, longest_gap = _both(mode, agent, llm, SESSION)
        elapsed = time.monotonic() - started
    assert all(getattr(r, "stop_reason", None) is StopReason.FINAL for r in results), results
    assert sorted(r.output for r in results) == ["1", "2"]  # the second saw the first's turn
    assert elapsed >= 0.8  # one after the other: they queued, they did not overlap
    # Before, the waiting async run slept on the event loop's thread and froze the holder
    # until the store's 10 s wait ran out; the heartbeat ticks every 10 ms.
    assert longest_gap < 3.0


@pytest.mark.parametrize("mode", MODES)
def test_without_a_wait_the_second_run_fails_clearly(mode: str, tmp_path: Any) -> None:
    with _agent(SessionStore(tmp_path / "s.db", wait=0.0)) as (agent, llm):
        results, _ = _both(mode, agent, llm, SESSION)
    busy = [r for r in results if isinstance(r, SessionBusyError)]
    finished = [r for r in results if getattr(r, "stop_reason", None) is StopReason.FINAL]
    assert len(busy) == 1 and len(finished) == 1
    assert "'user-42' is in use by another run" in str(busy[0])


@pytest.mark.parametrize("mode", MODES)
def test_a_session_id_without_a_store_is_ignored(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lcel_agent")
    # What RunnableWithMessageHistory and other components put in the config.
    config = {"configurable": {"session_id": "someone-elses"}}
    with _agent(None) as (agent, llm):
        results, _ = _both(mode, agent, llm, config)
    assert [(r.stop_reason, r.output) for r in results] == [(StopReason.FINAL, "1")] * 2
    ignored = [r for r in caplog.records if "session_id 'someone-elses' ignored" in r.getMessage()]
    assert len(ignored) == 2 and all(r.levelno == logging.DEBUG for r in ignored)
