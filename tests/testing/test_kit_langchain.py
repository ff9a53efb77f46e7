"""The simulated server through the real ``langchain_openai.ChatOpenAI``."""

from __future__ import annotations

import openai
import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.tools import tool

from lcel_agent.memory.counters import default_exact_counter
from lcel_agent.testing.faults import Fault
from lcel_agent.testing.policies import Reply

pytest_plugins = ["lcel_agent.testing.fixtures"]

COUNT = default_exact_counter()
ANSWER = "北京市天气：晴，温度25℃，湿度40%"


@tool
def get_weather(city: str) -> str:
    """查询城市实时天气，城市名称必须是中文，例如'北京'"""
    return f"{city}市天气：晴，温度25℃，湿度40%"


def expected_input_tokens(text: str) -> int:
    return 3 + 3 + COUNT("user") + COUNT(text)


def test_invoke_with_usage_metadata(simulated_openai, chat):
    srv = simulated_openai([ANSWER])
    out = chat(srv).invoke("北京天气")
    assert out.content == ANSWER
    assert out.usage_metadata is not None
    assert out.usage_metadata["input_tokens"] == expected_input_tokens("北京天气")
    assert out.usage_metadata["output_tokens"] == COUNT(ANSWER)


async def test_invoke_with_usage_metadata_async(simulated_openai, achat):
    srv = simulated_openai([ANSWER])
    out = await achat(srv).ainvoke("北京天气")
    assert out.content == ANSWER
    assert out.usage_metadata is not None
    assert out.usage_metadata["output_tokens"] == COUNT(ANSWER)


def _joined(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    total = chunks[0]
    for chunk in chunks[1:]:
        total += chunk
    return total


def test_stream_with_usage(simulated_openai, chat):
    srv = simulated_openai([ANSWER])
    chunks = list(chat(srv, stream_usage=True).stream("北京天气"))
    assert len([c for c in chunks if c.content]) > 1
    total = _joined(chunks)
    assert total.content == ANSWER
    assert total.usage_metadata is not None
    assert total.usage_metadata["output_tokens"] == COUNT(ANSWER)
    assert total.usage_metadata["input_tokens"] == expected_input_tokens("北京天气")
    assert srv.requests[0].stream


async def test_stream_with_usage_async(simulated_openai, achat):
    srv = simulated_openai([ANSWER])
    chunks = [c async for c in achat(srv, stream_usage=True).astream("北京天气")]
    total = _joined(chunks)
    assert total.content == ANSWER
    assert total.usage_metadata is not None
    assert total.usage_metadata["output_tokens"] == COUNT(ANSWER)


def weather_then_answer(messages, tools):
    """Call get_weather until a tool result arrives, then answer with it."""
    results = [m["content"] for m in messages if m["role"] == "tool"]
    if results:
        return Reply(content="结果：" + results[-1])
    assert tools is not None
    assert tools[0]["function"]["name"] == "get_weather"
    return {"name": "get_weather", "arguments": {"city": "北京"}}


def _round_trip_check(srv, first, final) -> None:
    (call,) = first.tool_calls
    assert (call["name"], call["args"]) == ("get_weather", {"city": "北京"})
    assert final.content == "结果：" + ANSWER
    second = srv.chat_requests[1].messages
    assert second[1]["tool_calls"][0]["id"] == call["id"]
    assert second[2] == {"role": "tool", "content": ANSWER, "tool_call_id": call["id"]}


@pytest.mark.parametrize("streaming", [False, True])
def test_bind_tools_round_trip(simulated_openai, streaming, chat):
    srv = simulated_openai(weather_then_answer)
    model = chat(srv).bind_tools([get_weather])
    history = [HumanMessage("北京天气")]
    first = _joined(list(model.stream(history))) if streaming else model.invoke(history)
    call = first.tool_calls[0]
    history += [first, ToolMessage(get_weather.invoke(call["args"]), tool_call_id=call["id"])]
    _round_trip_check(srv, first, model.invoke(history))


@pytest.mark.parametrize("streaming", [False, True])
async def test_bind_tools_round_trip_async(simulated_openai, streaming, achat):
    srv = simulated_openai(weather_then_answer)
    model = achat(srv).bind_tools([get_weather])
    history = [HumanMessage("北京天气")]
    if streaming:
        first = _joined([c async for c in model.astream(history)])
    else:
        first = await model.ainvoke(history)
    call = first.tool_calls[0]
    history += [
        first,
        ToolMessage(await get_weather.ainvoke(call["args"]), tool_call_id=call["id"]),
    ]
    _round_trip_check(srv, first, await model.ainvoke(history))


FAULTS = [
    (Fault.RATE_LIMIT, openai.RateLimitError),
    (Fault.SERVER_ERROR, openai.InternalServerError),
    (Fault.AUTH, openai.AuthenticationError),
    (Fault.CONTEXT_TOO_LONG, openai.BadRequestError),
    (Fault.HANG, openai.APITimeoutError),
    (Fault.DROP, openai.APIConnectionError),
]


@pytest.mark.parametrize(("fault", "error"), FAULTS)
def test_faults_reach_chat_openai(simulated_openai, fault, error, chat):
    srv = simulated_openai(["never"], hang_seconds=3)
    srv.inject(fault)
    with pytest.raises(error):
        chat(srv, timeout=0.3).invoke("hi")


@pytest.mark.parametrize(("fault", "error"), FAULTS)
async def test_faults_reach_chat_openai_async(simulated_openai, fault, error, achat):
    srv = simulated_openai(["never"], hang_seconds=3)
    srv.inject(fault)
    with pytest.raises(error):
        await achat(srv, timeout=0.3).ainvoke("hi")


def test_empty_choices_and_malformed_bodies_fail_loudly(simulated_openai, chat):
    srv = simulated_openai(["never"])
    srv.inject(Fault.EMPTY_CHOICES, times=2)
    with pytest.raises(IndexError):  # langchain-openai indexes the missing generation
        chat(srv).invoke("hi")
    with pytest.raises(ValueError, match="No generation chunks"):
        list(chat(srv).stream("hi"))
    srv.inject(Fault.MALFORMED)
    with pytest.raises(ValueError):
        chat(srv).invoke("hi")
