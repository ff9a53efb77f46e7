"""A ``session_id`` set by someone else, on an agent without a checkpointer: ignored, said once.

RunnableWithMessageHistory and other components put their own ``session_id`` in the
config. Two runs started together (``batch`` / ``abatch``, over HTTP against the
simulated server) each see only their own question, and each leaves one DEBUG record
saying the id was ignored. (With a checkpointer, ``session_id`` names the thread:
tests/durable and tests/core/test_core_sessions.py.)
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

from lcel_agent import StopReason, create_agent
from lcel_agent.testing.faults import Latency
from lcel_agent.testing.server import SimulatedOpenAIServer

KEY = "sk-test-sessions-0000"
MODES = ["sync", "async"]


@tool
def probe(city: str) -> str:
    """查询城市实时天气，城市名称必须是中文，例如'北京'"""
    return f"{city}市天气：晴"


def _count_questions(messages: list[dict[str, Any]], tools: Any) -> str:
    """Answers with how many questions the window holds: 2 would mean a run saw another's."""
    asked = sum(1 for m in messages if m["role"] == "user")
    return json.dumps({"action": "final", "action_input": str(asked)})


@contextmanager
def _agent() -> Iterator[tuple[Any, ChatOpenAI]]:
    """An agent on a server slow enough (0.4 s an answer) for two runs to overlap."""
    with SimulatedOpenAIServer(
        _count_questions, require_key=KEY, latency=Latency(fixed=0.4)
    ) as srv:
        llm = chat_model(srv.base_url, KEY)
        yield create_agent(llm, [probe]), llm


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
def test_a_session_id_without_a_store_is_ignored(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="lcel_agent")
    # What RunnableWithMessageHistory and other components put in the config.
    config = {"configurable": {"session_id": "someone-elses"}}
    with _agent() as (agent, llm):
        results, _ = _both(mode, agent, llm, config)
    assert [(r.stop_reason, r.output) for r in results] == [(StopReason.FINAL, "1")] * 2
    ignored = [r for r in caplog.records if "session_id 'someone-elses' ignored" in r.getMessage()]
    assert len(ignored) == 2 and all(r.levelno == logging.DEBUG for r in ignored)
