"""Tools as users write them: injected arguments, return_direct, plain functions, model
names, and a person approving each call."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolArg, InjectedToolCallId, tool

from lcel_agent import (
    Action,
    ConfigurationError,
    ErrorClass,
    Policy,
    StopReason,
    create_agent,
)
from lcel_agent.stages import DispatchTools
from lcel_agent.testing.fake import FunctionChatModel, ScriptedChatModel

pytest_plugins = ["lcel_agent.testing.fixtures"]

seen: list[tuple[str, str, str]] = []


@tool
def account(
    query: str, user_id: Annotated[str, InjectedToolArg], call: Annotated[str, InjectedToolCallId]
) -> str:
    """Look something up in the user's account."""
    seen.append((query, user_id, call))
    return f"{user_id}: {query} ok"


@pytest.fixture(autouse=True)
def _clear() -> None:
    seen.clear()


def test_injected_arguments_are_hidden_and_filled(run, act):
    llm = ScriptedChatModel(
        [act("account", {"query": "余额", "user_id": "someone-else"}), act("final", "done")]
    )
    result = run(create_agent(llm, [account]), "查余额", {"configurable": {"user_id": "u-42"}})
    assert result.stop_reason is StopReason.FINAL
    ((query, user_id, call_id),) = seen
    # The model's own user_id was dropped: the run's config decides who the user is.
    assert (query, user_id) == ("余额", "u-42")
    obs = result.steps[0].observations[0]
    assert obs.ok and obs.output == "u-42: 余额 ok" and obs.action.call_id == call_id
    assert call_id.startswith("call_")
    system = llm.calls[0][0].content
    assert "user_id" not in system and "InjectedToolCallId" not in system


def test_tool_calling_protocol_binds_only_what_the_model_writes(run):
    def reply(messages, tools):
        (spec,) = tools
        assert set(spec["function"]["parameters"]["properties"]) == {"query"}
        if isinstance(messages[-1], ToolMessage):
            return AIMessage("好了")
        return AIMessage("", tool_calls=[{"name": "account", "args": {"query": "q"}, "id": "c7"}])

    agent = create_agent(FunctionChatModel(reply), [account], protocol="tool_calling")
    result = run(agent, "t", {"configurable": {"user_id": "u1"}})
    assert result.output == "好了" and seen == [("q", "u1", "c7")]


def test_a_missing_injected_argument_is_a_clear_error(run, act):
    llm = ScriptedChatModel([act("account", {"query": "余额"})])
    with pytest.raises(ConfigurationError, match="injected argument 'user_id'"):
        run(create_agent(llm, [account]))


def test_the_dispatcher_alone_fills_them_too():
    obs = DispatchTools([account]).invoke(
        {"name": "account", "args": {"query": "x"}, "id": "c1"},
        {"configurable": {"user_id": "u9"}},
    )
    assert obs.ok and seen == [("x", "u9", "c1")]


async def test_the_dispatcher_alone_fills_them_too_async():
    obs = await DispatchTools([account]).ainvoke(
        {"name": "account", "args": {"query": "y"}, "id": "c2"},
        {"configurable": {"user_id": "u8"}},
    )
    assert obs.ok and seen == [("y", "u8", "c2")]


def test_return_direct_ends_the_run_with_the_tool_output(run, act):
    @tool(return_direct=True)
    def transfer(amount: int) -> str:
        """Transfer money."""
        return f"已转账 {amount} 元"

    llm = ScriptedChatModel([act("transfer", {"amount": 5}), act("final", "never asked")])
    result = run(create_agent(llm, [transfer]))
    assert result.stop_reason is StopReason.FINAL and result.output == "已转账 5 元"
    assert result.loops == 1 and len(llm.calls) == 1
    out = run(
        create_agent(ScriptedChatModel([act("transfer", {"amount": 7})]), [transfer]),
        {"messages": [HumanMessage("转账")]},
    )
    assert [m.type for m in out["messages"]] == ["human", "ai", "tool", "ai"]
    assert out["messages"][-1].content == "已转账 7 元"


def test_a_failed_return_direct_call_does_not_end_the_run(run, act):
    @tool(return_direct=True)
    def transfer(amount: int) -> str:
        """Transfer money."""
        return "ERROR: 余额不足"

    llm = ScriptedChatModel([act("transfer", {"amount": 5}), act("final", "转账失败")])
    result = run(create_agent(llm, [transfer]))
    assert result.output == "转账失败" and result.loops == 2


def test_plain_typed_functions_are_tools(run, act):
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    async def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    llm = ScriptedChatModel([act("add", {"a": 2, "b": 3}), act("shout", "hi"), act("final", "ok")])
    result = run(create_agent(llm, [add, shout], max_errors=5))
    assert [o.output for s in result.steps for o in s.observations] == ["5", "HI"]


def _named_model_server(simulated_openai, monkeypatch, act):
    srv = simulated_openai([act("get_weather", "北京"), act("final", "北京晴")])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_API_BASE", srv.base_url)
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    return srv


def test_a_model_by_name_talks_to_an_openai_compatible_server(
    simulated_openai, monkeypatch, weather, act
):
    srv = _named_model_server(simulated_openai, monkeypatch, act)
    # With langchain installed (the article's stack) init_chat_model builds it; without, we do.
    agent = create_agent("openai:gpt-4o-mini", [weather])
    try:
        result = agent.invoke("北京天气")
    finally:  # langchain-openai 0.2 never closes its client: close it, or the socket lingers
        agent.stages["call_llm"].llm.root_client.close()
    assert result.output == "北京晴"
    assert [r.body["model"] for r in srv.chat_requests] == ["gpt-4o-mini"] * 2


async def test_a_model_by_name_talks_to_an_openai_compatible_server_async(
    simulated_openai, monkeypatch, weather, act
):
    srv = _named_model_server(simulated_openai, monkeypatch, act)
    agent = create_agent("openai:gpt-4o-mini", [weather])
    try:
        assert (await agent.ainvoke("北京天气")).output == "北京晴"
    finally:  # the async client belongs to this event loop: close it here
        await agent.stages["call_llm"].llm.root_async_client.close()
    assert len(srv.chat_requests) == 2


def test_unknown_providers_are_clear_errors(weather):
    with pytest.raises(ConfigurationError, match="no-such-provider"):
        create_agent("no-such-provider:model-x", [weather])


# --- approval ----------------------------------------------------------------------------


def _two_calls(act):
    return ScriptedChatModel(
        [
            json.dumps(
                [
                    {"action": "get_weather", "action_input": "北京"},
                    {"action": "get_weather", "action_input": "上海"},
                ],
                ensure_ascii=False,
            ),
            act("final", "ok"),
        ]
    )


def test_approve_is_asked_in_order_and_refusals_are_observations(run, weather, calls, act):
    asked: list[Action] = []

    def approve(action: Action) -> bool | str:
        asked.append(action)
        return True if action.tool_input == "北京" else "上海不在服务范围"

    result = run(create_agent(_two_calls(act), [weather], approve=approve))
    assert [a.tool_input for a in asked] == ["北京", "上海"]
    assert calls == [("get_weather", "北京")]
    ok, refused = result.steps[0].observations
    assert ok.ok and not refused.ok
    assert refused.error_class is ErrorClass.REFUSED
    assert refused.output == "ERROR: 上海不在服务范围"
    assert result.steps[0].error is None  # one call of the batch ran: the loop succeeded


def test_an_async_approver_and_a_plain_no(run, weather, calls, act):
    async def approve(action: Action) -> bool:
        await asyncio.sleep(0)
        return False

    llm = ScriptedChatModel([act("get_weather", "北京"), act("final", "好吧")])
    result = run(create_agent(llm, [weather], approve=approve))
    assert calls == []
    assert result.steps[0].error_class is ErrorClass.REFUSED
    assert "was not approved" in result.steps[0].observations[0].output
    assert "was not approved" in llm.calls[1][-1].content  # the model is told
    assert result.output == "好吧"


def test_a_refusal_can_stop_the_run(run, weather, act):
    llm = ScriptedChatModel([act("get_weather", "北京"), act("final", "never")])
    agent = create_agent(
        llm, [weather], approve=lambda a: False, policies={ErrorClass.REFUSED: Policy.STOP}
    )
    result = run(agent)
    assert result.stop_reason is StopReason.MAX_ERRORS and result.loops == 1


def test_a_bad_approver_answer_is_a_programmer_error(run, weather, act):
    llm = ScriptedChatModel([act("get_weather", "北京")])
    with pytest.raises(TypeError, match="approve must return True, False or a string"):
        run(create_agent(llm, [weather], approve=lambda a: 1))
    with pytest.raises(TypeError, match="approve must be a callable"):
        create_agent(llm, [weather], approve="yes")
