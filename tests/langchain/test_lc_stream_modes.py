"""Streaming as a chat UI and LangGraph users expect it (issue 23, item 6).

Under LangGraph's ``stream_mode="messages"``, with the agent as a node, a UI sees the
answer (never the JSON protocol's action JSON) and sees it once; the agent's own
``stream``/``astream`` take ``"messages"``, ``"updates"`` and ``"values"``.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from lc_support import graph_of

from lcel_agent import AgentResult, create_agent
from lcel_agent.testing.fake import FunctionChatModel

ANSWER = "北京今天晴，气温二十五度。"


def weather_model(protocol, act):
    def reply(messages, tools):
        if not any(isinstance(m, ToolMessage) or "天气：" in str(m.content) for m in messages):
            if protocol == "json":
                return act("get_weather", "北京")
            call = {"name": "get_weather", "args": {"city": "北京"}, "id": "call_1"}
            return AIMessage("我查一下。", tool_calls=[call])
        return act("final", ANSWER) if protocol == "json" else ANSWER

    return FunctionChatModel(reply)


def texts_by_id(chunks):
    """What a chat UI shows: the streamed pieces of each message, joined by message id."""
    shown = defaultdict(str)
    for message, _meta in chunks:
        shown[message.id] += message.content if isinstance(message.content, str) else ""
    return dict(shown)


@pytest.mark.parametrize("protocol", ["json", "tool_calling"])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_langgraph_messages_mode_shows_the_answer_once(weather, act, protocol, mode):
    graph = graph_of(create_agent(weather_model(protocol, act), [weather], protocol=protocol))
    question = {"messages": [HumanMessage("北京天气")]}
    if mode == "sync":
        chunks = list(graph.stream(question, stream_mode="messages"))
    else:

        async def collect():
            return [c async for c in graph.astream(question, stream_mode="messages")]

        chunks = asyncio.run(collect())
    shown = texts_by_id(chunks)
    assert not any('"action"' in text for text in shown.values())  # no raw action JSON
    answers = [text for text in shown.values() if ANSWER in text]
    assert answers == [ANSWER]  # the answer, once, whole
    assert any(isinstance(m, ToolMessage) for m, _ in chunks)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_the_agents_own_stream_modes(weather, act, mode):
    agent = create_agent(weather_model("tool_calling", act), [weather], protocol="tool_calling")
    question = {"messages": [HumanMessage("北京天气", id="q1")]}

    def stream(stream_mode):
        if mode == "sync":
            return list(agent.stream(question, stream_mode=stream_mode))

        async def collect():
            return [e async for e in agent.astream(question, stream_mode=stream_mode)]

        return asyncio.run(collect())

    messages = stream("messages")
    assert [type(m).__name__ for m, _ in messages] == ["AIMessage", "ToolMessage", "AIMessage"]
    assert messages[0][0].content == "我查一下。" and messages[0][1] == {"loop": 1}
    assert messages[-1][0].content == ANSWER and messages[-1][1] == {"loop": 2}

    updates = stream("updates")
    assert list(updates[0]) == ["loop:1"] and len(updates[0]["loop:1"]["messages"]) == 2
    assert updates[-1]["final"]["messages"][0].content == ANSWER
    assert updates[-1]["final"]["result"]["messages"][-1].content == ANSWER

    values = stream("values")
    assert values[0]["messages"][0].id == "q1" and len(values[0]["messages"]) == 3
    assert [m.content for m in values[-1]["messages"]][-1] == ANSWER
    assert len(values[-1]["messages"]) == 4

    steps = stream("steps")
    assert isinstance(steps[-1], dict) and steps[-1]["messages"][-1].content == ANSWER
    with pytest.raises(ValueError, match="stream_mode must be one of"):
        stream("tokens")


def test_a_task_streams_updates_ending_with_its_result(weather, act):
    agent = create_agent(weather_model("json", act), [weather])
    *loops, last = agent.stream("北京天气", stream_mode="updates")
    assert isinstance(last["final"]["result"], AgentResult)
    assert last["final"]["result"].output == ANSWER and list(loops[0]) == ["loop:1"]
