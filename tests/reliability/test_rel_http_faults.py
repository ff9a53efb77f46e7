"""The gauntlet's API-fault column again, over real HTTP: ChatOpenAI against the simulated server.

The fault answers the second chat request (it is listed in the server's script),
so the run has made progress when it hits: transient faults are retried by the
loop and the run finishes; a refused key stops it with ``llm_error`` at loop 2.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic import SecretStr
from rel_support import act, run_over_http

from lcel_agent import AgentResult, ErrorClass, StopReason, create_agent
from lcel_agent.testing.faults import Fault, FaultSpec
from lcel_agent.testing.server import SimulatedOpenAIServer

KEY = "sk-test-http-faults-000"

FAULTS: dict[str, FaultSpec] = {
    "429": FaultSpec(Fault.RATE_LIMIT, retry_after=0),
    "500": FaultSpec(Fault.SERVER_ERROR),
    "503": FaultSpec(Fault.UNAVAILABLE),
    "timeout": FaultSpec(Fault.HANG, hang_seconds=3),
    "dropped": FaultSpec(Fault.DROP),
    "401": FaultSpec(Fault.AUTH),
    "context": FaultSpec(Fault.CONTEXT_TOO_LONG),
}


@tool
def probe(city: str) -> str:
    """查询城市实时天气，城市名称必须是中文，例如'北京'"""
    return f"{city}市天气：晴"


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("fault", list(FAULTS))
def test_api_fault_over_http(fault: str, mode: str) -> None:
    script: list[Any] = [act("probe", "北京"), FAULTS[fault], act("final", "北京晴")]
    with SimulatedOpenAIServer(script, require_key=KEY) as srv:
        llm = ChatOpenAI(
            base_url=srv.base_url, api_key=SecretStr(KEY), model="gpt-4o-mini", max_retries=0
        )
        agent = create_agent(llm, [probe], llm_timeout=0.5, llm_backoff=(0.0, 0.0))
        result = run_over_http(mode, agent, llm)
        statuses = [r.status for r in srv.chat_requests]
    assert isinstance(result, AgentResult)
    assert result.loops == 2
    if fault == "401":
        assert result.stop_reason is StopReason.LLM_ERROR
        assert result.output is None
        assert result.error is not None
        assert (result.error.step, result.error.stage) == (2, "call_llm")
        assert result.error.error_class is ErrorClass.LLM_FATAL
        assert statuses == [200, 401]  # a fatal error is not retried
    else:
        assert result.stop_reason is StopReason.FINAL, result.error
        assert result.output == "北京晴"
        assert len(statuses) == 3  # the fault was served once, then the retry got through
        assert statuses[0] == 200 and statuses[-1] == 200
