"""What a LangChain user gives and gets back is kept whole (issue 23, items 1, 2 and 5).

Messages out are the conversation as it happened (ids, metadata, usage details, the
model's words beside its calls, artifacts); images pass through both ways; tool
returns LangChain knows (``content_and_artifact``, a LangGraph ``Command``) are read
as LangChain reads them, and generator tools are refused when the agent is built.
Every test runs under ``invoke`` and ``ainvoke`` (the ``run`` fixture).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import lc_support
import pytest
from langchain_core.language_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.types import Command

from lcel_agent import StopReason, create_agent
from lcel_agent.errors import ConfigurationError
from lcel_agent.testing.fake import FunctionChatModel, ScriptedChatModel

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
IMAGE = {"type": "image", "source_type": "base64", "data": PNG, "mime_type": "image/png"}
META = {"model_name": "gpt-test", "system_fingerprint": "fp_test", "finish_reason": "tool_calls"}


def has_image(content) -> bool:
    """The image is there as a block (langchain-core 1.x rewrites its older keys)."""
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "image" and PNG in json.dumps(b) for b in content
    )


def usage(cache_read: int, reasoning: int) -> dict:
    return {
        "input_tokens": 120,
        "output_tokens": 30,
        "total_tokens": 150,
        "input_token_details": {"cache_read": cache_read},
        "output_token_details": {"reasoning": reasoning},
    }


def said(content, msg_id, *, calls=(), finish="tool_calls", cache_read=64, reasoning=8):
    return AIMessage(
        content=content,
        id=msg_id,
        tool_calls=list(calls),
        response_metadata={**META, "finish_reason": finish},
        usage_metadata=usage(cache_read, reasoning),
    )


# --- item 1: the conversation as it happened -----------------------------------------------


def test_tool_calling_messages_keep_ids_metadata_usage_and_words(run, weather):
    call = {"name": "get_weather", "args": {"city": "北京"}, "id": "call_1"}
    llm = ScriptedChatModel(
        [
            said("Let me check.", "msg-1", calls=[call]),
            said("北京晴，25℃", "msg-2", finish="stop", cache_read=96, reasoning=12),
        ]
    )
    agent = create_agent(llm, [weather], protocol="tool_calling")
    earlier = [HumanMessage("你好", id="h-0"), AIMessage("你好！", id="a-0")]
    question = HumanMessage("北京天气", id="h-1")
    out = run(agent, {"messages": [*earlier, question]})
    given, (ai, result, answer) = out["messages"][:3], out["messages"][3:]
    assert [m.id for m in given] == ["h-0", "a-0", "h-1"]
    assert ai.id == "msg-1" and ai.content == "Let me check."
    assert ai.tool_calls[0]["id"] == "call_1"
    assert ai.response_metadata["system_fingerprint"] == "fp_test"
    assert ai.usage_metadata["input_token_details"] == {"cache_read": 64}
    assert ai.usage_metadata["output_token_details"] == {"reasoning": 8}
    assert isinstance(result, ToolMessage) and result.tool_call_id == "call_1"
    assert answer.id == "msg-2" and answer.content == "北京晴，25℃"
    assert answer.response_metadata["model_name"] == "gpt-test"
    assert answer.response_metadata["finish_reason"] == "stop"
    assert answer.response_metadata["stop_reason"] == "final"
    assert answer.usage_metadata["input_token_details"] == {"cache_read": 96}
    assert answer.usage_metadata["output_token_details"] == {"reasoning": 12}
    assert answer.response_metadata["run_usage"]["total_tokens"] == 300


def test_json_protocol_messages_keep_the_replies_ids_and_usage(run, weather, act):
    llm = ScriptedChatModel(
        [
            said(act("get_weather", "北京"), "msg-1"),
            said(act("final", "晴"), "msg-2", finish="stop"),
        ]
    )
    out = run(
        create_agent(llm, [weather]),
        {"messages": [HumanMessage("北京天气", id="h-1")]},
    )
    question, ai, result, answer = out["messages"]
    assert question.id == "h-1"
    assert ai.id == "msg-1" and ai.tool_calls[0]["name"] == "get_weather"
    assert ai.usage_metadata["input_token_details"] == {"cache_read": 64}
    assert result.tool_call_id == ai.tool_calls[0]["id"]
    assert answer.id == "msg-2" and answer.content == "晴"
    assert answer.response_metadata["system_fingerprint"] == "fp_test"


def test_an_estimated_usage_says_it_is_one(run, weather, act):
    # langchain-core's own fake reports no usage: the agent estimates, and says so.
    llm = FakeMessagesListChatModel(
        responses=[AIMessage(act("get_weather", "北京")), AIMessage(act("final", "晴"))]
    )
    agent = create_agent(llm, [weather])
    out = run(agent, {"messages": [HumanMessage("北京天气")]})
    ai, answer = out["messages"][1], out["messages"][-1]
    assert ai.usage_metadata["estimated"] is True and ai.usage_metadata["total_tokens"] > 0
    assert answer.usage_metadata["estimated"] is True
    assert answer.response_metadata["run_usage"]["estimated"] is True
    result = run(agent, "北京天气")
    assert result.usage.estimated and result.to_dict()["usage"]["estimated"] is True


def test_reported_usage_is_not_marked_estimated(run, weather, act):
    llm = ScriptedChatModel([said(act("final", "晴"), "msg-1", finish="stop")])
    result = run(create_agent(llm, [weather]), "北京天气")
    assert not result.usage.estimated and "estimated" not in result.to_dict()["usage"]


# --- item 2: images ---------------------------------------------------------------------------


def image_question(text: str = "图里是哪个城市？") -> HumanMessage:
    blocks = [{"type": "text", "text": text}] if text else []
    return HumanMessage(content=[*blocks, IMAGE])


@pytest.mark.parametrize("protocol", ["json", "tool_calling"])
def test_an_image_in_the_question_reaches_the_model(run, weather, act, protocol):
    llm = ScriptedChatModel([act("final", "北京") if protocol == "json" else "北京"])
    out = run(create_agent(llm, [weather], protocol=protocol), {"messages": [image_question()]})
    (prompt,) = llm.calls
    human = prompt[-1]
    assert isinstance(human, HumanMessage) and isinstance(human.content, list)
    assert has_image(human.content)  # the blocks stay in the human turn
    assert any(b.get("text", "").startswith("图里是哪个城市") for b in human.content)
    assert out["messages"][-1].content == "北京"


def test_an_image_only_question_is_a_question(run, weather, act):
    llm = ScriptedChatModel([act("final", "一只猫")])
    result = run(create_agent(llm, [weather]), image_question(text=""))
    assert result.stop_reason is StopReason.FINAL and result.output == "一只猫"
    assert has_image(llm.calls[0][-1].content)


def calls_then_answers(protocol: str, tool_name: str) -> FunctionChatModel:
    """A model that calls ``tool_name`` for 北京, then answers 晴, in ``protocol``'s form;
    again from the start on the next run (its calls alternate)."""

    def reply(messages: list[BaseMessage], tools: Any) -> str | AIMessage:
        if len(llm.calls) % 2 == 1:
            if protocol == "json":
                return lc_support.act(tool_name, "北京")
            return AIMessage(
                "", tool_calls=[{"name": tool_name, "args": {"city": "北京"}, "id": "c1"}]
            )
        return lc_support.act("final", "晴") if protocol == "json" else "晴"

    llm = FunctionChatModel(reply)
    return llm


@pytest.fixture
def camera():
    @tool
    def snapshot(city: str) -> list:
        """A photo of the city's sky."""
        return [{"type": "text", "text": f"{city} now"}, IMAGE]

    return snapshot


@pytest.mark.parametrize("protocol", ["json", "tool_calling"])
def test_an_image_a_tool_returns_goes_back_as_an_image(run, camera, protocol):
    llm = calls_then_answers(protocol, "snapshot")
    out = run(
        create_agent(llm, [camera], protocol=protocol),
        {"messages": [HumanMessage("拍一张")]},
    )
    observed = llm.calls[1][-1]
    assert has_image(observed.content)
    text = json.dumps(observed.content)
    assert text.count(PNG) == 1  # the image once, as a block; never as base64 in the text
    assert "北京 now" in observed.content[0]["text"]
    (result,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert has_image(result.content)


# --- item 5: what tools return --------------------------------------------------------------


@pytest.fixture
def with_artifact():
    @tool(response_format="content_and_artifact")
    def lookup(city: str) -> tuple[str, dict]:
        """Weather with the raw record."""
        return f"{city}: 晴", {"city": city, "temp_c": 25, "source": "station-7"}

    return lookup


@pytest.mark.parametrize("protocol", ["json", "tool_calling"])
def test_content_and_artifact_keeps_its_artifact(run, with_artifact, protocol):
    llm = calls_then_answers(protocol, "lookup")
    agent = create_agent(llm, [with_artifact], protocol=protocol)
    out = run(agent, {"messages": [HumanMessage("北京天气")]})
    (result,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert result.content == "北京: 晴"
    assert result.artifact == {"city": "北京", "temp_c": 25, "source": "station-7"}
    assert "station-7" not in json.dumps([str(m.content) for m in llm.calls[1]])
    record = run(agent, "北京天气")
    assert record.steps[0].observations[0].artifact["temp_c"] == 25


def test_a_command_with_a_tool_message_answers_the_call(run, act):
    @tool
    def book(city: str, call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Book a trip."""
        return Command(update={"messages": [ToolMessage(f"booked {city}", tool_call_id=call_id)]})

    llm = ScriptedChatModel([act("book", "北京"), act("final", "done")])
    result = run(create_agent(llm, [book]), "订票")
    obs = result.steps[0].observations[0]
    assert obs.ok and obs.output == "booked 北京"
    assert "Command" not in str(llm.calls[1][-1].content)


def test_a_command_that_updates_graph_state_is_a_clear_tool_error(run, act):
    @tool
    def remember(city: str) -> Command:
        """Remember the city."""
        return Command(update={"city": city})

    llm = ScriptedChatModel([act("remember", "北京"), act("final", "ok")])
    result = run(create_agent(llm, [remember]), "记住北京")
    obs = result.steps[0].observations[0]
    assert not obs.ok and "LangGraph Command that updates city" in obs.output
    assert "Command(" not in obs.output


def test_generator_tools_are_refused_when_the_agent_is_built():
    @tool
    async def stream_rows(n: int):
        """Rows, one by one."""
        for i in range(n):
            yield i

    @tool
    def rows(n: int):
        """Rows, one by one."""
        yield from range(n)

    llm = ScriptedChatModel([])
    for gen in (stream_rows, rows):
        with pytest.raises(ConfigurationError, match="generator function"):
            create_agent(llm, [gen])
    assert llm.calls == []
