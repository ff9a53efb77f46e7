"""PostgresSaver and AsyncPostgresSaver against a real PostgreSQL server on loopback.

The server is the session's own (conftest.postgres_url). Each "process" opens its own
connection, as a restarted worker would; each test uses threads of its own.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from durable_support import Crash, CrashingSaver, World, make_agent, tool_calls_of
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.types import Command
from psycopg.rows import dict_row

from lcel_agent import StopReason
from lcel_agent.approval import pause

SCRIPT = [
    [("get_weather", "北京"), ("get_weather", "上海"), ("search_baidu", "台风")],
    [("get_weather", "广州")],
    "都是晴天",
]
_OPTIONS: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}


@pytest.fixture
def connect(postgres_url: str) -> Iterator[Any]:
    """Open a PostgresSaver on its own connection (tables made once)."""
    opened: list[Any] = []

    def open_saver() -> PostgresSaver:
        conn = psycopg.Connection.connect(postgres_url, **_OPTIONS)
        opened.append(conn)
        saver = PostgresSaver(conn)
        saver.setup()
        return saver

    yield open_saver
    for conn in opened:
        conn.close()


def config() -> dict[str, Any]:
    return {"configurable": {"thread_id": f"pg-{uuid.uuid4().hex[:8]}"}}


@pytest.mark.parametrize("crash", [{"tool": 2}, {"put": 3}], ids=["in-tool", "after-2nd-reply"])
def test_a_run_killed_mid_way_resumes_from_postgres(connect, crash):
    world, cfg = World(), config()
    world.crash_in = crash.get("tool")
    crashing = CrashingSaver(connect(), world, crash_after_put=crash.get("put"))
    with pytest.raises(Crash):
        make_agent(crashing, world, SCRIPT).invoke("查天气", cfg)
    world.revive()
    result = make_agent(connect(), world, SCRIPT).invoke(None, cfg)
    assert result.stop_reason is StopReason.FINAL and len(result.steps) == 3
    assert Counter(world.finished) == Counter(tool_calls_of(SCRIPT))
    assert world.model_calls == 3


def test_a_pause_survives_a_new_connection(connect):
    world, cfg = World(), config()
    first = make_agent(connect(), world, SCRIPT, approve=pause).invoke("查天气", cfg)
    assert first.stop_reason is StopReason.PAUSED and len(first.pending) == 3
    state = make_agent(connect(), world, SCRIPT).get_state(cfg)
    assert state is not None and state.status == "paused"
    again = make_agent(connect(), world, [*SCRIPT[:1], "好"], approve=lambda a: True)
    done = again.invoke(Command(resume=True), cfg)
    assert done.stop_reason is StopReason.FINAL and done.output == "好"
    assert Counter(world.finished) == Counter(SCRIPT[0]) and world.model_calls == 2


def test_the_async_saver_resumes_an_async_run(postgres_url):
    async def scenario() -> tuple[World, Any]:
        world, cfg = World(), config()
        world.crash_in = 2
        async with await psycopg.AsyncConnection.connect(postgres_url, **_OPTIONS) as conn:
            saver = AsyncPostgresSaver(conn)
            await saver.setup()
            with pytest.raises(Crash):
                await make_agent(CrashingSaver(saver, world), world, SCRIPT).ainvoke("查天气", cfg)
        world.revive()
        async with await psycopg.AsyncConnection.connect(postgres_url, **_OPTIONS) as conn:
            result = await make_agent(AsyncPostgresSaver(conn), world, SCRIPT).ainvoke(None, cfg)
        return world, result

    world, result = asyncio.run(scenario())
    assert result.stop_reason is StopReason.FINAL
    assert Counter(world.finished) == Counter(tool_calls_of(SCRIPT))
    assert world.model_calls == 3
