"""Replies the loop must not take at face value: a native call named ``final``; prompts too long.

Over real HTTP against the simulated server, sync and async:

* in the tool-calling protocol the final answer is a reply without tool calls; a
  call of a tool named ``final`` is an unknown tool (no tool may have that name),
  so its arguments are never the answer and nothing else in that reply runs;
* after a context-length error the retry sends a strictly smaller prompt, or,
  when the window holds nothing it could drop, the run stops at once saying why.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.tools import tool
from rel_support import Probe, act, chat_model, run_over_http

from lcel_agent import ConfigurationError, ErrorClass, SlidingWindowMemory, StopReason, create_agent
from lcel_agent.memory.counters import default_exact_counter
from lcel_agent.testing.faults import Fault
from lcel_agent.testing.server import SimulatedOpenAIServer, prompt_tokens
from lcel_agent.texts import FINAL_NOT_A_TOOL

KEY = "sk-test-replies-0000"
#: Long observations, so two turns make a prompt worth trimming.
PADDING = "今日风力三级，空气质量良好，适宜出行。" * 12
MODES = ["sync", "async"]
COUNT = default_exact_counter()


def _run(mode: str, srv: SimulatedOpenAIServer, probe: Probe, **options: Any) -> Any:
    llm = chat_model(srv.base_url, KEY)
    return run_over_http(mode, create_agent(llm, [probe.tool], **options), llm)


# --- a native call named "final" ---------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_native_call_named_final_is_an_unknown_tool(mode: str) -> None:
    probe = Probe(PADDING)
    hijack = {"name": "final", "arguments": {"answer": "hijacked"}}
    with SimulatedOpenAIServer([hijack, "北京晴"], require_key=KEY) as srv:
        result = _run(mode, srv, probe, protocol="tool_calling")
        second = srv.chat_requests[1].messages
    assert result.stop_reason is StopReason.FINAL and result.output == "北京晴"
    assert result.steps[0].error_class is ErrorClass.UNKNOWN_TOOL
    assert result.steps[0].actions == ()
    assert FINAL_NOT_A_TOOL in [m["content"] for m in second if m["role"] == "user"]


@pytest.mark.parametrize("mode", MODES)
def test_a_final_call_beside_a_real_one_runs_neither(mode: str) -> None:
    probe = Probe(PADDING)
    both = {
        "tool_calls": [
            {"name": "probe", "arguments": {"city": "北京"}},
            {"name": "Final", "arguments": {"answer": "hijacked"}},
        ]
    }
    with SimulatedOpenAIServer([both, "北京晴"], require_key=KEY) as srv:
        result = _run(mode, srv, probe, protocol="tool_calling")
    assert probe.cities == []
    assert result.output == "北京晴" and result.steps[0].error_class is ErrorClass.UNKNOWN_TOOL


@pytest.mark.parametrize("name", ["final", "Final", "FINAL"])
def test_a_tool_named_final_is_refused_when_the_agent_is_built(name: str) -> None:
    @tool
    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    lookup.name = name
    with pytest.raises(
        ConfigurationError, match="may not be named 'final': that name ends the run"
    ):
        create_agent(chat_model(None, KEY), [lookup])


# --- context overflow ---------------------------------------------------------------------------


def _script() -> list[Any]:
    return [act("probe", "北京"), act("probe", "上海"), act("final", "北京晴，上海晴")]


def _sizes(srv: SimulatedOpenAIServer) -> list[int]:
    return [prompt_tokens(r.messages, r.tools, COUNT) for r in srv.chat_requests]


@pytest.mark.parametrize("mode", MODES)
def test_after_a_context_overflow_the_retry_is_strictly_smaller(mode: str) -> None:
    memory = SlidingWindowMemory(max_tokens=4000)
    with SimulatedOpenAIServer(_script(), require_key=KEY) as free:
        _run(mode, free, Probe(PADDING), memory=memory)
        sizes = _sizes(free)
    # Refuse the third prompt (two observations long), and only that one.
    with SimulatedOpenAIServer(_script(), require_key=KEY, context_limit=sizes[2] - 1) as srv:
        result = _run(mode, srv, Probe(PADDING), memory=memory)
        statuses = [r.status for r in srv.chat_requests]
        tried = _sizes(srv)
    assert result.stop_reason is StopReason.FINAL, result.error
    assert statuses == [200, 200, 400, 200] and result.loops == 3
    assert tried[3] < tried[2]  # the retry was smaller, not the same request again
    assert [r.fault for r in srv.chat_requests].count(Fault.CONTEXT_TOO_LONG) == 1


@pytest.mark.parametrize("mode", MODES)
def test_with_nothing_to_drop_the_longest_message_is_cut(mode: str) -> None:
    # Only pinned messages: the system prompt, and a long question (with, later, the digest
    # of what was done). The question is cut in the middle; the system prompt never is.
    task = "查询北京天气。背景资料：" + "北京今日多云转晴，风力三级，空气质量良好。" * 30
    with SimulatedOpenAIServer([act("final", "北京晴")], require_key=KEY) as free:
        llm = chat_model(free.base_url, KEY)
        run_over_http(mode, create_agent(llm, [Probe().tool]), llm, task)
        (size,) = _sizes(free)
    with SimulatedOpenAIServer(
        [act("final", "北京晴")], require_key=KEY, context_limit=size - 1
    ) as srv:
        llm = chat_model(srv.base_url, KEY)
        result = run_over_http(mode, create_agent(llm, [Probe().tool]), llm, task)
        first, second = srv.chat_requests
    assert result.stop_reason is StopReason.FINAL and result.loops == 1
    assert (first.status, second.status) == (400, 200)
    assert _sizes(srv)[1] < size
    assert first.messages[0] == second.messages[0]  # the system prompt, whole
    assert "…[truncated" in second.messages[1]["content"]


@pytest.mark.parametrize("mode", MODES)
def test_a_prompt_that_cannot_shrink_stops_at_once_saying_why(mode: str) -> None:
    with SimulatedOpenAIServer(_script(), require_key=KEY, context_limit=10) as srv:
        result = _run(mode, srv, Probe(PADDING))
        statuses = [r.status for r in srv.chat_requests]
    assert statuses == [400]  # before: the identical request was sent a second time
    assert result.stop_reason is StopReason.LLM_ERROR and result.loops == 1
    assert result.error.error_class is ErrorClass.LLM_FATAL
    assert "maximum context length is 10 tokens" in result.error.message
    assert "the prompt cannot be made smaller" in result.error.message
