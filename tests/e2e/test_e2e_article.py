"""The article's task end to end: real agent, real ChatOpenAI, real requests, all on 127.0.0.1.

These run unchanged on the article's stack (langchain-openai 0.2.9, openai 1.59.6) and
on today's, which is the point: the loop's error handling must not depend on either.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from langchain_openai import ChatOpenAI

from lcel_agent import ErrorClass, StopReason, create_agent
from lcel_agent.testing.article import ARTICLE_TASK, ArticleTaskModel, NoiseProfile
from lcel_agent.testing.faults import Fault, FaultProfile
from lcel_agent.testing.server import SimulatedOpenAIServer, completion_tokens, prompt_tokens
from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer, use_services
from lcel_agent.tools import get_weather, search_baidu

KEY = "sk-e2e-test-key-0123456789"
NOISY = NoiseProfile(fenced_json=0.3, prose_json=0.2, dict_input=0.2, misspelt_tool=0.1)


@pytest.fixture
def services() -> Iterator[tuple[FakeAmapServer, FakeBaiduServer]]:
    with FakeAmapServer() as amap, FakeBaiduServer() as baidu, use_services(amap, baidu):
        yield amap, baidu


_OPEN: list[ChatOpenAI] = []


@pytest.fixture(autouse=True)
def close_clients() -> Iterator[None]:
    """Close the clients each test opened: pooled sockets must not outlive the test."""
    yield
    while _OPEN:
        llm = _OPEN.pop()
        llm.root_client.close()


def chat(server: SimulatedOpenAIServer, **options: Any) -> ChatOpenAI:
    llm = ChatOpenAI(
        model="gpt-4o-mini",
        base_url=server.base_url,
        api_key=KEY,
        temperature=0.2,
        max_tokens=1024,
        # Clients of its own, closed below: langchain-openai 1.x shares a cached one per
        # base URL, which closing would break for a later test whose server reuses the port.
        http_client=openai.DefaultHttpxClient(),
        http_async_client=openai.DefaultAsyncHttpxClient(),
        **options,
    )
    _OPEN.append(llm)
    return llm


def agent_for(server: SimulatedOpenAIServer, **options: Any):
    options.setdefault("llm_backoff", (0.01, 0.05))
    return create_agent(chat(server), [get_weather, search_baidu], **options)


def invoke(agent, mode: str):
    if mode == "sync":
        return agent.invoke(ARTICLE_TASK.prompt)

    async def main():
        try:
            return await agent.ainvoke(ARTICLE_TASK.prompt)
        finally:  # pooled connections belong to this event loop: close them inside it
            for llm in _OPEN:
                await llm.root_async_client.close()

    return asyncio.run(main())


def assert_article_answer(output: str | None) -> None:
    assert output is not None
    assert "北京市天气" in output and "上海市天气" in output and "台风" in output


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_clean_run(services, mode):
    with SimulatedOpenAIServer(ArticleTaskModel(seed=0)) as server:
        result = invoke(agent_for(server), mode)
    assert result.stop_reason is StopReason.FINAL and result.loops == 4
    assert_article_answer(result.output)
    chats = [r for r in server.requests if r.path.endswith("/chat/completions")]
    assert len(chats) == 4
    # Usage is what the server counted, request by request.
    counted = sum(
        prompt_tokens(r.body["messages"], r.body.get("tools"), server.count) for r in chats
    )
    assert result.usage.input_tokens == counted
    replied = sum(completion_tokens(r.reply, server.count) for r in chats)
    assert result.usage.output_tokens == replied


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_noisy_model_with_api_faults(services, mode, seed):
    faults = FaultProfile(
        rate_limit=0.15, server_error=0.1, unavailable=0.05, seed=seed, retry_after=0
    )
    with SimulatedOpenAIServer(ArticleTaskModel(noise=NOISY, seed=seed), faults=faults) as server:
        result = invoke(agent_for(server, max_errors=3, llm_retries=4), mode)
    chats = [r for r in server.requests if r.path.endswith("/chat/completions")]
    faulted = [r for r in chats if r.fault is not None]
    assert result.loops <= 10 and result.loops == len(chats) - len(faulted)
    assert result.stop_reason in (StopReason.FINAL, StopReason.MAX_ERRORS)
    if result.stop_reason is StopReason.FINAL:
        assert_article_answer(result.output)
    else:
        assert result.error is not None and result.error.step == result.loops


def test_429_is_retried_honouring_retry_after(services):
    with SimulatedOpenAIServer(ArticleTaskModel(seed=0)) as server:
        server.inject(Fault.RATE_LIMIT, retry_after=0.4)
        started = time.monotonic()
        result = agent_for(server).invoke(ARTICLE_TASK.prompt)
    assert time.monotonic() - started >= 0.4
    assert result.stop_reason is StopReason.FINAL and result.loops == 4
    assert server.requests[0].fault is Fault.RATE_LIMIT and len(server.requests) == 5


def test_401_is_fatal_at_once(services):
    with SimulatedOpenAIServer(
        ArticleTaskModel(seed=0), require_key="sk-the-right-key-000"
    ) as server:
        result = agent_for(server).invoke(ARTICLE_TASK.prompt)
    assert result.stop_reason is StopReason.LLM_ERROR and result.loops == 1
    assert len(server.requests) == 1  # neither the client nor the loop retried
    assert result.error.error_class is ErrorClass.LLM_FATAL and "401" in result.error.message
    assert KEY not in str(result.to_dict())


def test_hang_times_out_and_is_retried(services):
    with SimulatedOpenAIServer(ArticleTaskModel(seed=0), hang_seconds=3) as server:
        server.inject(Fault.HANG)
        result = agent_for(server, llm_timeout=0.3).invoke(ARTICLE_TASK.prompt)
    assert result.stop_reason is StopReason.FINAL and result.loops == 4
    assert server.requests[0].fault is Fault.HANG


@pytest.mark.parametrize(
    "fault",
    [Fault.DROP, Fault.MALFORMED, Fault.EMPTY_CHOICES, Fault.SERVER_ERROR, Fault.UNAVAILABLE],
)
def test_each_transient_fault_is_survived(services, fault):
    with SimulatedOpenAIServer(ArticleTaskModel(seed=0)) as server:
        server.inject(fault, times=2)
        result = agent_for(server, llm_retries=3).invoke(ARTICLE_TASK.prompt)
    survived = result.stop_reason is StopReason.FINAL
    if fault in (Fault.DROP, Fault.SERVER_ERROR, Fault.UNAVAILABLE):
        assert survived and result.loops == 4
    else:
        # A malformed body or no choices is the provider's bug, not a transient status:
        # the run stops with llm_error and says so, having made one model call.
        assert survived or (result.stop_reason is StopReason.LLM_ERROR and result.loops == 1)


def test_exhausted_retries_stop_with_llm_error(services):
    with SimulatedOpenAIServer(ArticleTaskModel(seed=0)) as server:
        server.inject(Fault.SERVER_ERROR, times=10)
        result = agent_for(server, llm_retries=3).invoke(ARTICLE_TASK.prompt)
    assert result.stop_reason is StopReason.LLM_ERROR and result.loops == 1
    assert len(server.requests) == 3  # the client's own retries are off: 3 attempts, not 9
    assert result.error.error_class is ErrorClass.LLM_TRANSIENT


def test_weather_timeout_is_retried_by_the_tool(services):
    amap, _ = services
    amap.fail_next(1, "slow")
    with SimulatedOpenAIServer(ArticleTaskModel(seed=0)) as server:
        result = agent_for(server).invoke(ARTICLE_TASK.prompt)
    assert result.stop_reason is StopReason.FINAL
    assert_article_answer(result.output)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_native_tool_calls_end_to_end(services, mode):
    with SimulatedOpenAIServer(ArticleTaskModel(seed=0, parallel=True)) as server:
        result = invoke(agent_for(server, protocol="tool_calling"), mode)
    assert result.stop_reason is StopReason.FINAL
    assert_article_answer(result.output)
    assert "tools" in server.requests[0].body  # type: ignore[operator]
    first = [(a.tool, a.tool_input) for a in result.steps[0].actions]  # independent calls at once
    assert ("get_weather", {"city": "北京"}) in first and ("get_weather", {"city": "上海"}) in first


def test_parallel_json_actions_end_to_end(services):
    with SimulatedOpenAIServer(ArticleTaskModel(seed=0, parallel=True)) as server:
        result = agent_for(server).invoke(ARTICLE_TASK.prompt)
    assert result.stop_reason is StopReason.FINAL
    assert len(result.steps[0].actions) >= 2 and result.loops <= 3
    assert_article_answer(result.output)
