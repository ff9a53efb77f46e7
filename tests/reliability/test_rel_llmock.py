"""A third-party mock model that LangChain agents finish on: llmock 0.2.2 (PyPI).

llmock plays "a well-mannered model in an agent loop": offered tools and no tool result
yet, it calls the best-matching tool with schema-valid arguments; when the last message is
a tool result, it answers in words. Every peer ends on that answer; so must we, under
``tool_calling``, with its rate limits and server errors injected, 30 runs at once, each
ending ``final`` or in a transient ``llm_error`` once its retries are spent, each with
its own task. Its server runs in this process, on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from llmock.chaos import ChaosSettings
from llmock.testing import LLMockServer
from pydantic import SecretStr

from lcel_agent import ErrorClass, StopReason, create_agent
from lcel_agent.stages.llm_client import is_own_client

pytestmark = pytest.mark.usefixtures("closes_async_clients")


@tool
def get_weather(city: str) -> str:
    """Get the current weather of a city."""
    return f"{city}: sunny, 21°C, humidity 40%"


def _llm(base_url: str) -> ChatOpenAI:
    return ChatOpenAI(
        model="gpt-4o-mini", base_url=base_url, api_key=SecretStr("sk-mock-1234567890abcdef"),
        timeout=10,
    )  # fmt: skip


def test_a_call_then_an_answer_in_words_is_a_finished_run():
    with LLMockServer() as server:
        llm = _llm(server.base_url("openai"))
        try:
            agent = create_agent(llm, [get_weather], protocol="tool_calling")
            result = agent.invoke("What's the weather in Paris right now?")
        finally:
            if is_own_client(llm.root_client):
                llm.root_client.close()
    assert result.stop_reason is StopReason.FINAL and result.output
    # One call, then its answer: no repeated call, no notice, no answer stage rewrite.
    assert result.loops == 2 and [len(s.actions) for s in result.steps] == [1, 1]
    assert result.steps[0].observations[0].ok and result.answer.repair == ""


def test_thirty_concurrent_runs_with_injected_faults_all_end_well():
    chaos = ChaosSettings(error_rate_429=0.1, error_rate_500=0.1, error_rate_503=0.1)
    tasks = [f"What's the weather in city number {i}?" for i in range(30)]
    with LLMockServer(chaos=chaos) as server:
        llm = _llm(server.base_url("openai"))
        try:
            agent = create_agent(
                llm, [get_weather], protocol="tool_calling", llm_backoff=(0.0, 0.05)
            )
            results = asyncio.run(agent.abatch(tasks))
        finally:
            if is_own_client(llm.root_client):
                llm.root_client.close()
    stops = Counter(r.stop_reason for r in results)
    assert set(stops) <= {StopReason.FINAL, StopReason.LLM_ERROR}, stops
    assert stops[StopReason.FINAL] >= 20, stops  # at 30 % faults, 3 attempts: a few give up
    for task, result in zip(tasks, results, strict=True):
        assert result.input == task  # each run kept its own task
        first = next(m for m in result.messages if isinstance(m, HumanMessage))
        assert first.content == task
        if result.stop_reason is StopReason.FINAL:
            assert result.output and result.error is None
        else:  # only a transient model error, after its retries
            assert result.error.error_class is ErrorClass.LLM_TRANSIENT
            assert "gave up after 3 attempt" in result.error.message
        assert not any(s.error_class is ErrorClass.DRIFT for s in result.steps)
