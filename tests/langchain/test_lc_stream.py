"""stream_mode="answer": the answer's text while the model writes it, for both protocols."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from pydantic import Field

from lcel_agent import AgentRunError, ConfigurationError, StepRecord, create_agent
from lcel_agent.loop.streaming import JsonAnswerReader
from lcel_agent.testing.fake import ScriptedChatModel

ANSWER = '北京晴，25℃。"引号"\n第二行 😀'


async def collect(agent, task, **kwargs):
    return [x async for x in agent.astream(task, **kwargs)]


@pytest.fixture(params=["sync", "async"])
def stream(request):
    def run(agent, task="北京天气", **kwargs):
        if request.param == "sync":
            return list(agent.stream(task, **kwargs))
        return asyncio.run(collect(agent, task, **kwargs))

    return run


def test_json_protocol_streams_only_the_final_answer(stream, weather, act):
    llm = ScriptedChatModel([act("get_weather", "北京"), act("final", ANSWER)], chunk_chars=3)
    pieces = stream(create_agent(llm, [weather]), stream_mode="answer")
    assert "".join(pieces) == ANSWER
    assert len(pieces) > 3  # it came in pieces, as the model wrote it
    assert all("action" not in p and "北京市天气" not in p for p in pieces)


def test_tool_calling_protocol_streams_the_answer_text(stream, weather):
    call = AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "北京"}, "id": "c"}])
    llm = ScriptedChatModel([call, AIMessage(ANSWER)], chunk_chars=2)
    pieces = stream(create_agent(llm, [weather], protocol="tool_calling"), stream_mode="answer")
    assert "".join(pieces) == ANSWER and len(pieces) > 5


class HeldModel(ScriptedChatModel):
    """Stops a few chunks into its answer until ``release`` is set (or 10 s pass)."""

    release: Any = None
    released: list[bool] = Field(default_factory=list)

    def _stream(self, *args, **kwargs):  # sync: on a worker thread under astream too
        reply = self.replies[0]
        halfway = (reply.index(ANSWER[0]) + 8) // 2  # a few chunks into the answer
        for i, chunk in enumerate(super()._stream(*args, **kwargs)):
            if i == halfway:
                self.released.append(self.release.wait(10))
            yield chunk


def _held(act) -> HeldModel:
    return HeldModel([act("final", ANSWER)], chunk_chars=2, release=threading.Event(), released=[])


def test_pieces_arrive_before_the_model_is_done(weather, act):
    """Each piece is handed over while the model call is still running."""
    llm = _held(act)
    pieces = []
    for piece in create_agent(llm, [weather]).stream("t", stream_mode="answer"):
        pieces.append(piece)
        llm.release.set()  # the model is still held: this piece came while it was writing
    assert llm.released == [True]
    assert "".join(pieces) == ANSWER


async def test_pieces_arrive_before_the_model_is_done_async(weather, act):
    llm = _held(act)
    pieces = []
    async for piece in create_agent(llm, [weather]).astream("t", stream_mode="answer"):
        pieces.append(piece)
        llm.release.set()
    assert llm.released == [True]
    assert "".join(pieces) == ANSWER


def test_answer_mode_through_a_binding_in_a_chain(weather, act):
    llm = ScriptedChatModel([act("final", ANSWER)], chunk_chars=3)
    chain = RunnableLambda(lambda x: x["q"]) | create_agent(llm, [weather]).bind(
        stream_mode="answer"
    )
    pieces = list(chain.stream({"q": "北京天气"}))
    assert "".join(pieces) == ANSWER and len(pieces) > 3


def test_an_answer_the_model_did_not_stream_comes_whole(stream, weather, act):
    class NoStream(ScriptedChatModel):
        _stream = BaseChatModel._stream  # as a model without streaming support

    silent = NoStream([act("final", ANSWER)])
    assert stream(create_agent(silent, [weather]), stream_mode="answer") == [ANSWER]
    # A structured (non-string) answer also comes whole, at the end.
    plain = ScriptedChatModel([act("final", {"a": 1})])
    assert stream(create_agent(plain, [weather]), stream_mode="answer") == ['{"a": 1}']


def test_the_default_mode_is_unchanged_and_a_bad_mode_is_refused(stream, weather, act):
    # (An answer that carries the weather it was asked for: "ok" alone would be rewritten.)
    llm = ScriptedChatModel([act("get_weather", "北京"), act("final", "北京晴，25℃")])
    events = stream(create_agent(llm, [weather]))
    assert [type(e) for e in events[:-1]] == [StepRecord, StepRecord]
    assert events[-1].output == "北京晴，25℃"
    with pytest.raises(ConfigurationError, match="stream_mode"):
        stream(create_agent(llm, [weather]), stream_mode="tokens")


def test_raise_on_failure_raises_after_the_stream(stream, weather, act):
    agent = create_agent(ScriptedChatModel(['{"x', '{"x']), [weather], raise_on_failure=True)
    with pytest.raises(AgentRunError) as raised:
        stream(agent, stream_mode="answer")
    assert raised.value.result.stop_reason == "max_errors"


def test_stopping_early_stops_the_run(weather):
    # Text before a tool call streams (the stream cannot know yet); the reader stops there.
    call = AIMessage(
        "先查一下", tool_calls=[{"name": "get_weather", "args": {"city": "北京"}, "id": "c"}]
    )
    closed = threading.Event()

    class Held(ScriptedChatModel):
        def _stream(self, *args, **kwargs):  # holds the first reply until the reader is gone
            for i, chunk in enumerate(super()._stream(*args, **kwargs)):
                yield chunk
                if i == 0 and len(self.calls) == 1:
                    closed.wait(10)

    llm = Held([call] * 5 + [AIMessage("完")], chunk_chars=1)
    agent = create_agent(llm, [weather], protocol="tool_calling", max_loops=10)
    iterator = agent.stream("t", stream_mode="answer")
    assert next(iterator) == "先"
    iterator.close()  # the run, on its own thread, stops before its next loop
    closed.set()
    deadline = time.monotonic() + 5
    while any(t.name == "lcel-agent-run" for t in threading.enumerate()):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert len(llm.calls) == 1


async def test_stopping_early_stops_the_run_async(weather, act):
    gate = asyncio.Event()

    async def slow_weather(city: str) -> str:
        """查询城市实时天气"""
        await gate.wait()
        return "晴"

    llm = ScriptedChatModel([act("slow_weather", "北京"), act("final", "never")])
    agent = create_agent(llm, [tool(slow_weather)], max_loops=10)
    stream = agent.astream("t", stream_mode="answer")
    task = asyncio.ensure_future(stream.__anext__())
    await asyncio.sleep(0.2)  # the run now waits inside the tool
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await stream.aclose()
    assert len(llm.calls) == 1  # cancelled in the tool: no further model call


def test_astream_events_carry_the_answer_stream(weather, act):
    agent = create_agent(ScriptedChatModel([act("final", ANSWER)], chunk_chars=4), [weather])

    async def chunks() -> list[str]:
        return [
            e["data"]["chunk"]
            async for e in agent.astream_events("t", version="v2", stream_mode="answer")
            if e["event"] == "on_chain_stream" and e["name"] == "lcel_agent"
        ]

    assert "".join(asyncio.run(chunks())) == ANSWER


def _reply(action: str, value: object, order: str) -> str:
    if order == "action_first":
        return json.dumps({"action": action, "action_input": value}, ensure_ascii=False)
    return json.dumps({"action_input": value, "action": action}, ensure_ascii=False)


@given(
    answer=st.text(max_size=40),
    cuts=st.lists(st.integers(min_value=1, max_value=7), max_size=40),
    order=st.sampled_from(["action_first", "input_first"]),
    prose=st.sampled_from(["", "好的：\n```json\n", "Sure. "]),
)
def test_the_reader_returns_exactly_the_answer_whatever_the_cuts(answer, cuts, order, prose):
    text = prose + _reply("final", answer, order)
    reader, out, at = JsonAnswerReader(), [], 0
    for cut in cuts:
        out.append(reader.feed(text[at : at + cut]))
        at += cut
    out.append(reader.feed(text[at:]))
    assert "".join(out) == answer


@given(answer=st.text(max_size=20), order=st.sampled_from(["action_first", "input_first"]))
def test_the_reader_returns_nothing_for_a_tool_action(answer, order):
    reader = JsonAnswerReader()
    assert reader.feed(_reply("get_weather", answer, order)) == ""
    assert JsonAnswerReader().feed("[" + _reply("final", answer, order) + "]") == ""
