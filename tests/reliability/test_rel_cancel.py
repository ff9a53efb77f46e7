"""Cancellation and time: a cancelled run stops and cleans up; a hung tool is abandoned."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator

import pytest
from langchain_core.tools import tool
from rel_support import act

from lcel_agent import AgentResult, ErrorClass, StopReason, create_agent
from lcel_agent.testing.fake import ScriptedChatModel


@pytest.fixture
def release() -> Iterator[threading.Event]:
    event = threading.Event()
    yield event
    event.set()  # lets abandoned tool threads end with the test


async def test_cancelling_ainvoke_cancels_the_running_tool() -> None:
    started, cleaned = asyncio.Event(), asyncio.Event()

    @tool
    async def wait_forever(city: str) -> str:
        """一个永远不返回的工具"""
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            cleaned.set()  # what the tool opened is closed
        return "never"

    llm = ScriptedChatModel([act("wait_forever", "北京"), act("final", "x")])
    agent = create_agent(llm, [wait_forever], tool_timeout=600)
    task = asyncio.ensure_future(agent.ainvoke("查询北京天气"))
    await asyncio.wait_for(started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 10)  # a bound so a bug fails instead of hanging
    assert cleaned.is_set()
    assert len(llm.calls) == 1  # nothing ran after the cancellation


async def test_cancelling_ainvoke_during_a_model_call_stops_the_run(
    release: threading.Event,
) -> None:
    entered = threading.Event()

    def slow_reply(index: int) -> str:
        entered.set()
        release.wait(10)
        return act("final", "late")

    from lcel_agent.testing.fake import FunctionChatModel

    llm = FunctionChatModel(lambda messages, tools: slow_reply(len(messages)))

    @tool
    def probe(city: str) -> str:
        """查询城市实时天气"""
        return city

    task = asyncio.ensure_future(create_agent(llm, [probe]).ainvoke("查询北京天气"))
    await asyncio.wait_for(asyncio.to_thread(entered.wait, 10), 15)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 10)
    release.set()  # the model thread cannot be interrupted; let it end before the loop closes
    assert len(llm.calls) == 1


def test_a_hung_sync_tool_is_abandoned_at_its_timeout(
    run: Callable[..., AgentResult], release: threading.Event
) -> None:
    @tool
    def hang(city: str) -> str:
        """一个会卡住的工具"""
        release.wait(30)
        return "too late"

    llm = ScriptedChatModel([act("hang", "北京"), act("final", "换个办法")])
    result = run(create_agent(llm, [hang], tool_timeout=0.1))
    assert result.stop_reason is StopReason.FINAL and result.output == "换个办法"
    (observation,) = result.steps[0].observations
    assert observation.error_class is ErrorClass.TOOL_TIMEOUT
    assert "timed out" in observation.output


def test_a_hung_async_tool_is_cancelled_at_its_timeout(run: Callable[..., AgentResult]) -> None:
    cancelled: list[bool] = []

    @tool
    async def ahang(city: str) -> str:
        """一个会卡住的异步工具"""
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return "too late"

    llm = ScriptedChatModel([act("ahang", "北京"), act("final", "换个办法")])
    result = run(create_agent(llm, [ahang], tool_timeout=0.1))
    assert result.stop_reason is StopReason.FINAL
    assert result.steps[0].observations[0].error_class is ErrorClass.TOOL_TIMEOUT
    assert cancelled == [True]


def test_a_hung_model_is_abandoned_at_llm_timeout(
    run: Callable[..., AgentResult], release: threading.Event
) -> None:
    from lcel_agent.testing.fake import FunctionChatModel

    def reply(messages: object, tools: object) -> str:
        # Short: a sync model's thread cannot be interrupted, and asyncio.run waits for it.
        release.wait(1)
        return act("final", "late")

    @tool
    def probe(city: str) -> str:
        """查询城市实时天气"""
        return city

    llm = FunctionChatModel(reply)
    result = run(create_agent(llm, [probe], llm_timeout=0.1, llm_retries=2, llm_backoff=(0.0, 0.0)))
    assert result.stop_reason is StopReason.LLM_ERROR
    assert result.error is not None and result.error.error_class is ErrorClass.LLM_TRANSIENT
    assert result.loops == 1 and len(llm.calls) == 2  # two attempts, one loop
