"""The gauntlet's API-fault column again, over real HTTP: ChatOpenAI against the simulated server.

The fault answers the second chat request (it is listed in the server's script),
so the run has made progress when it hits: transient faults (a corrupted
response among them) are retried by the loop and the run finishes; a cut-off
reply costs one loop, is re-asked, and the run finishes; a refused key, or a
``Retry-After`` past ``max_retry_after``, stops it with ``llm_error`` at loop 2.
Every fault runs with a streamed and a plain ``ChatOpenAI``. The attempt timeout
(1.5 s) is far above an answer's time even on a loaded machine: an attempt that timed
out would make the server serve the next reply of its script early.
"""

from __future__ import annotations

import pytest
from langchain_core.tools import tool
from rel_support import act, chat_model, run_over_http

from lcel_agent import AgentResult, ErrorClass, StopReason, create_agent
from lcel_agent.testing.faults import Fault, FaultSpec
from lcel_agent.testing.server import SimulatedOpenAIServer

# Async attempts cancelled mid-request leave their sockets to the garbage collector on
# the pinned stack: collect them here, not in whichever test runs next.
pytestmark = pytest.mark.usefixtures("closes_async_clients")

KEY = "sk-test-http-faults-000"
ANSWER = act("final", "北京晴")

FAULTS: dict[str, FaultSpec] = {
    "429": FaultSpec(Fault.RATE_LIMIT, retry_after=0),
    "500": FaultSpec(Fault.SERVER_ERROR),
    "503": FaultSpec(Fault.UNAVAILABLE),
    "timeout": FaultSpec(Fault.HANG, hang_seconds=5),
    "dropped": FaultSpec(Fault.DROP),
    "malformed": FaultSpec(Fault.MALFORMED),
    "corrupt_chunk": FaultSpec(Fault.CORRUPT_CHUNK, reply=ANSWER),
    "401": FaultSpec(Fault.AUTH),
    "retry_after_75": FaultSpec(Fault.RATE_LIMIT, retry_after=75),
    "context": FaultSpec(Fault.CONTEXT_TOO_LONG),
    "length": FaultSpec(Fault.LENGTH, reply=ANSWER),
    "stream_cut": FaultSpec(Fault.STREAM_CUT, reply=ANSWER),
}
#: Faults that stop the run with ``llm_error`` at loop 2, with their error class.
STOPPING = {"401": ErrorClass.LLM_FATAL, "retry_after_75": ErrorClass.LLM_TRANSIENT}
#: Faults that cut the reply: the loop is spent, the model asked again.
CUTTING = {"length", "stream_cut"}


@tool
def probe(city: str) -> str:
    """查询城市实时天气，城市名称必须是中文，例如'北京'"""
    return f"{city}市天气：晴"


@pytest.mark.parametrize("streaming", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("fault", list(FAULTS))
def test_api_fault_over_http(fault: str, mode: str, streaming: bool) -> None:
    script = [act("probe", "北京"), FAULTS[fault], ANSWER]
    with SimulatedOpenAIServer(script, require_key=KEY) as srv:
        llm = chat_model(srv.base_url, KEY, streaming=streaming)
        agent = create_agent(llm, [probe], llm_timeout=1.5, llm_backoff=(0.0, 0.0))
        result = run_over_http(mode, agent, llm)
        statuses = [r.status for r in srv.chat_requests]
    assert isinstance(result, AgentResult)
    if fault in STOPPING:
        assert result.stop_reason is StopReason.LLM_ERROR and result.loops == 2
        assert result.output is None
        assert result.error is not None
        assert (result.error.step, result.error.stage) == (2, "call_llm")
        assert result.error.error_class is STOPPING[fault]
        assert statuses[0] == 200 and len(statuses) == 2  # not retried
    elif fault in CUTTING:
        assert result.stop_reason is StopReason.FINAL, result.error
        assert result.output == "北京晴" and result.loops == 3
        assert result.steps[1].error_class is ErrorClass.TRUNCATED
        assert statuses == [200, 200, 200]
    else:
        assert result.stop_reason is StopReason.FINAL, result.error
        assert result.output == "北京晴" and result.loops == 2
        assert len(statuses) == 3  # the fault was served once, then the retry got through
        assert statuses[0] == 200 and statuses[-1] == 200
