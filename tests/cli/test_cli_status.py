"""The status line says what became of an attempt before it says the model is tried again."""

from __future__ import annotations

import re

import pytest
from cli_support import json_action
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from lcel_agent import create_agent
from lcel_agent.cli._display import StatusWatch
from lcel_agent.testing.faults import Fault
from lcel_agent.testing.server import SimulatedOpenAIServer
from lcel_agent.tools import get_weather


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        (Fault.HANG, r"step 1 · attempt 1 timed out after 0\.5 s · the model is thinking \(attempt 2 of 3\)…"),
        # langchain-openai 1.x raises OpenAIRateLimitError, 0.2 openai's RateLimitError
        (Fault.RATE_LIMIT, r"step 1 · attempt 1 failed \((OpenAI)?RateLimitError\) · the model is thinking \(attempt 2 of 3\)…"),
    ],
    ids=["hung-call", "rate-limited"],
)  # fmt: skip
def test_a_retry_says_why_the_attempt_before_it_ended(run, fault, said, closes_async_clients):
    statuses: list[str] = []
    watch = StatusWatch(statuses.append, timeout=0.5, retries=3)
    with SimulatedOpenAIServer([json_action("final", "晴")], hang_seconds=3.0) as server:
        server.inject(fault, retry_after=0)
        llm = ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key=SecretStr("k"))
        agent = create_agent(
            llm, [get_weather], llm_timeout=0.5, llm_retries=3, llm_backoff=(0.01, 0.05)
        )
        result = run(agent, "查询北京天气", {"callbacks": [watch]})

    assert result.output == "晴"
    assert statuses[0] == "step 1 · the model is thinking…"
    assert any(re.fullmatch(said, s) for s in statuses), statuses
    assert not any("attempt 3" in s for s in statuses)


def test_first_attempt_says_no_attempt_number():
    statuses: list[str] = []
    watch = StatusWatch(statuses.append)
    with SimulatedOpenAIServer([json_action("final", "晴")]) as server:
        llm = ChatOpenAI(model="gpt-4o-mini", base_url=server.base_url, api_key=SecretStr("k"))
        create_agent(llm, [get_weather]).invoke("查询北京天气", {"callbacks": [watch]})

    assert statuses == ["step 1 · the model is thinking…"]
