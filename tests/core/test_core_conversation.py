"""The conversation the model sees: its own turns, as turns, while the window has room.

A real small model that did not see its own earlier action repeated it (round 2's digest
folded each call into the question at once). Each test runs through ``invoke`` and
``ainvoke`` (the ``run`` fixture).
"""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from lcel_agent import SlidingWindowMemory, StopReason, create_agent
from lcel_agent.testing.fake import ScriptedChatModel


def test_each_json_action_and_its_result_come_back_as_turns(run, weather, search, act):
    llm = ScriptedChatModel(
        [
            act("get_weather", "北京"),
            act("search_baidu", "台风最新路径"),
            act("final", "北京晴；台风北上"),
        ]
    )
    # The window that keeps turns word for word while there is room (the agent's own, with
    # the answer stage holding every result, folds short results into lines at once).
    result = run(create_agent(llm, [weather, search], memory=SlidingWindowMemory(800)))
    assert result.stop_reason is StopReason.FINAL
    third = llm.calls[2]
    assert [type(m) for m in third] == [
        SystemMessage,
        HumanMessage,
        AIMessage,
        HumanMessage,
        AIMessage,
        HumanMessage,
    ]
    assert third[1].content == "查询北京天气"  # the question alone: nothing folded into it
    assert json.loads(third[2].content) == {"action": "get_weather", "action_input": "北京"}
    assert third[3].content == "Observation: 北京市天气：晴，温度25℃，湿度40%"
    assert json.loads(third[4].content) == {
        "action": "search_baidu",
        "action_input": "台风最新路径",
    }
    assert third[5].content.startswith("Observation: [")


def test_native_tool_calls_come_back_with_their_tool_messages(run, weather):
    call = {"name": "get_weather", "args": {"city": "北京"}, "id": "c1"}
    llm = ScriptedChatModel([AIMessage("", tool_calls=[call]), AIMessage("北京晴")])
    run(create_agent(llm, [weather], protocol="tool_calling"))
    second = llm.calls[1]
    assert [type(m) for m in second] == [SystemMessage, HumanMessage, AIMessage, ToolMessage]
    assert second[2].tool_calls[0]["id"] == "c1" and second[3].tool_call_id == "c1"
    assert second[3].content == "北京市天气：晴，温度25℃，湿度40%"


def test_turns_fold_only_when_the_window_is_full(run, weather, act):
    cities = [f"城{i}" for i in range(12)]
    llm = ScriptedChatModel([*(act("get_weather", c) for c in cities), act("final", "好")])
    memory = SlidingWindowMemory(400)
    result = run(create_agent(llm, [weather], memory=memory, max_loops=20, max_errors=5))
    assert result.stop_reason is StopReason.FINAL
    folded_at = None
    for index, prompt in enumerate(llm.calls):
        turns = [m for m in prompt[2:] if isinstance(m, AIMessage)]
        if folded_at is None and len(turns) < index:
            folded_at = index  # the first call that does not carry every earlier turn
        if folded_at is None:
            assert prompt[1].content == "查询北京天气"
    assert folded_at is not None and folded_at > 3
    last = llm.calls[-1]
    # Folded turns left their facts with the question; the newest turn is whole.
    assert "Done so far:" in last[1].content and "城0市天气" in last[1].content
    assert last[-1].content == "Observation: 城11市天气：晴，温度25℃，湿度40%"
    assert all(s.window_tokens <= 400 for s in result.steps)
