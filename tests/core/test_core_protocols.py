"""Parallel actions, native tool calls, fallbacks, call limits, the forced last answer, timeouts."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool

from lcel_agent import ErrorClass, StopReason, create_agent
from lcel_agent.memory import DigestCompactor, SlidingWindowMemory
from lcel_agent.testing.fake import FunctionChatModel, ScriptedChatModel


def acts(*pairs):
    return json.dumps([{"action": a, "action_input": v} for a, v in pairs], ensure_ascii=False)


@pytest.fixture
def slow_weather():
    """A weather tool that takes 0.3 s and records how many calls overlap."""
    state = {"now": 0, "peak": 0}
    lock = threading.Lock()

    @tool
    def get_weather(city: str) -> str:
        """Weather of a city."""
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.3)
        with lock:
            state["now"] -= 1
        if city == "火星":
            return "ERROR: no such city"
        return f"{city}市天气：晴"

    get_weather.metadata = {"state": state}
    return get_weather


def test_parallel_actions_run_concurrently_in_order(run, slow_weather, act):
    llm = ScriptedChatModel(
        [
            acts(("get_weather", "北京"), ("get_weather", "火星"), ("get_weather", "上海")),
            act("final", "ok"),
        ]
    )
    result = run(create_agent(llm, [slow_weather]))
    obs = result.steps[0].observations
    assert [o.action.tool_input for o in obs] == ["北京", "火星", "上海"]
    assert [o.ok for o in obs] == [True, False, True]  # one failure loses nothing of the others
    assert result.steps[0].error is None  # a batch with a success is a success
    assert slow_weather.metadata["state"]["peak"] == 3
    assert "北京市天气" in llm.calls[1][-1].content and "上海市天气" in llm.calls[1][-1].content


def test_parallel_off_runs_one_at_a_time(run, slow_weather, act):
    llm = ScriptedChatModel(
        [acts(("get_weather", "北京"), ("get_weather", "上海")), act("final", "ok")]
    )
    result = run(create_agent(llm, [slow_weather], parallel_tool_calls=False))
    assert slow_weather.metadata["state"]["peak"] == 1
    assert [o.ok for o in result.steps[0].observations] == [True, True]


def test_a_final_beside_tool_calls_is_dropped_and_the_calls_run(run, weather, act, calls):
    # A plan: calls, and an answer guessed before their results. The calls run; the model
    # answers again with the results in hand.
    llm = ScriptedChatModel(
        [
            acts(("get_weather", "北京"), ("final", "猜的"), ("get_weather", "上海")),
            act("final", "ok"),
        ]
    )
    result = run(create_agent(llm, [weather]))
    assert result.steps[0].error_class is None and result.output == "ok"
    # Run concurrently: the order they were called in is the threads', not the reply's.
    assert sorted(calls.items) == sorted([("get_weather", "北京"), ("get_weather", "上海")])
    assert [a.tool_input for a in result.steps[0].actions] == ["北京", "上海"]


def test_several_objects_one_after_another_are_one_list(run, weather, act, calls):
    plan = (
        "```json\n"
        '{"action": "get_weather", "action_input": "北京"}\n'
        '{"action": "final", "action_input": "北京今天的天气: ..."}\n'
        '{"action": "get_weather", "action_input": "上海"}\n'
        "```"
    )
    result = run(create_agent(ScriptedChatModel([plan, act("final", "ok")]), [weather]))
    assert sorted(calls.items) == sorted([("get_weather", "北京"), ("get_weather", "上海")])
    assert result.output == "ok"


def test_reserve_final_answer_keeps_the_exact_bound(run, weather, act, calls):
    cities = itertools.count()

    def model(messages, tools):
        if "last allowed step" in str(messages[-1].content):
            return act("final", "best effort")
        return act("get_weather", f"城{next(cities)}")

    llm = FunctionChatModel(model)
    result = run(create_agent(llm, [weather], max_loops=3, reserve_final_answer=True))
    assert len(llm.calls) == 3 and result.loops == 3
    assert (
        result.stop_reason is StopReason.MAX_LOOPS
        and result.forced
        and result.output == "best effort"
    )
    assert len(calls.items) == 2 and result.steps[-1].forced


def test_reserved_loop_runs_no_tool(run, weather, act, calls):
    llm = FunctionChatModel(lambda m, t: act("get_weather", f"城{len(m)}"))
    result = run(create_agent(llm, [weather], max_loops=2, reserve_final_answer=True))
    assert len(calls.items) == 1 and result.loops == 2
    assert result.stop_reason is StopReason.MAX_LOOPS
    assert "did not give a final answer" in result.error.message
    # Issue 41: a run stopped with a result in hand delivers it, marked incomplete.
    assert result.output == "get_weather(城2): 城2市天气：晴，温度25℃，湿度40%"
    assert result.answer.source == "results" and result.answer.complete is False


def test_tool_call_limits_refuse_and_count(run, weather, act, calls):
    llm = ScriptedChatModel(
        [act("get_weather", "北京"), act("get_weather", "上海"), act("final", "ok")]
    )
    result = run(create_agent(llm, [weather], tool_call_limits={"get_weather": 1}, max_errors=3))
    assert calls.items == [("get_weather", "北京")]
    assert result.steps[1].error_class is ErrorClass.TOOL_LIMIT
    assert "at most 1 times" in result.steps[1].observations[0].output


def test_fallback_tool_stands_in_with_the_same_input(run, weather, act):
    @tool
    def backup_weather(city: str) -> str:
        """Second source."""
        return f"{city}: cloudy (backup)"

    llm = ScriptedChatModel([act("get_weather", "火星"), act("final", "ok")])
    result = run(create_agent(llm, [weather], fallback_tools={"get_weather": backup_weather}))
    obs = result.steps[0].observations[0]
    assert (
        obs.ok
        and obs.tool == "backup_weather"
        and obs.output == "火星: cloudy (backup)"
        and obs.attempts == 2
    )


def test_a_hanging_tool_is_abandoned_at_its_timeout(run, act):
    @tool
    def hang(x: str) -> str:
        """Never returns in time."""
        time.sleep(6)
        return "late"

    llm = ScriptedChatModel([act("hang", "x"), act("final", "gave up")])
    started = time.monotonic()
    result = run(create_agent(llm, [hang], tool_timeout=0.2))
    assert time.monotonic() - started < 3.0  # not the tool's 6 s
    assert result.steps[0].error_class is ErrorClass.TOOL_TIMEOUT and result.output == "gave up"


def test_idempotent_tool_is_retried_after_a_timeout(run, act):
    state = {"n": 0}

    @tool
    def flaky(x: str) -> str:
        """Slow the first time."""
        state["n"] += 1
        if state["n"] == 1:
            time.sleep(1)
        return "fine"

    flaky.metadata = {"idempotent": True}
    llm = ScriptedChatModel([act("flaky", "x"), act("final", "ok")])
    result = run(create_agent(llm, [flaky], tool_timeout=0.2))
    obs = result.steps[0].observations[0]
    assert obs.ok and obs.attempts == 2


def tool_calling_model():
    def reply(messages, tools):
        assert [t["function"]["name"] for t in tools] == ["get_weather"] or not tools
        # Results arrive as ToolMessages, or in the window's digest once compacted.
        seen = "".join(str(m.content) for m in messages[1:])
        done = [line for line in seen.splitlines() if "市天气" in line]
        if not done:
            return AIMessage(
                content="",
                tool_calls=[
                    {"name": "get_weather", "args": {"city": "北京"}, "id": "c1"},
                    {"name": "get_weather", "args": {"city": "上海"}, "id": "c2"},
                ],
            )
        return AIMessage(content="北京、上海都晴：" + " / ".join(done))

    return FunctionChatModel(reply)


def test_native_tool_calling_protocol(run, weather):
    llm = tool_calling_model()
    result = run(create_agent(llm, [weather], protocol="tool_calling"))
    assert result.stop_reason is StopReason.FINAL
    assert "北京市天气" in result.output and "上海市天气" in result.output
    # A window that keeps the newest turn word for word shows the assistant's tool calls
    # and one ToolMessage per call, as the chat APIs require.
    llm = tool_calling_model()
    chatty = SlidingWindowMemory(800, compactor=DigestCompactor(eager=False))
    run(create_agent(llm, [weather], protocol="tool_calling", memory=chatty))
    window = llm.calls[1]
    tool_messages = [m for m in window if isinstance(m, ToolMessage)]
    assert [m.tool_call_id for m in tool_messages] == ["c1", "c2"]
    # The system prompt does not describe the JSON format in this protocol.
    assert "action_input" not in window[0].content


def test_tool_calling_needs_bind_tools(weather):
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from lcel_agent import ConfigurationError

    with pytest.raises(ConfigurationError, match="tool calling"):
        create_agent(FakeListChatModel(responses=["x"]), [weather], protocol="tool_calling")


def test_cancelling_ainvoke_stops_promptly(act):
    @tool
    async def wait(x: str) -> str:
        """Waits long."""
        await asyncio.sleep(10)
        return "late"

    agent = create_agent(ScriptedChatModel([act("wait", "x")]), [wait])

    async def main() -> float:
        task = asyncio.create_task(agent.ainvoke("q"))
        await asyncio.sleep(0.2)
        started = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - started

    assert asyncio.run(main()) < 5.0  # not the tool's 10 s


def test_a_steps_actions_carry_the_call_ids_of_their_observations(run, weather, act):
    # JSON actions have no id until dispatch gives one: the record shows the same ids twice.
    llm = ScriptedChatModel(
        [acts(("get_weather", "北京"), ("get_weather", "上海")), act("final", "ok")]
    )
    steps = run(create_agent(llm, [weather])).to_dict()["steps"]
    ids = [a["call_id"] for a in steps[0]["actions"]]
    assert all(ids) and len(set(ids)) == 2
    assert ids == [o["action"]["call_id"] for o in steps[0]["observations"]]
    assert steps[1]["actions"][0]["call_id"] is None  # the final answer is no call


def test_a_plan_of_bracketed_calls_and_a_guessed_answer_runs_the_calls(run, weather, act, calls):
    # Written by the 1.5B model: each call in brackets instead of braces, then an answer.
    plan = (
        "```json\n"
        '["action": "get_weather", "action_input": "北京"],\n'
        '["action": "get_weather", "action_input": "上海"],\n'
        '{"action": "final", "action_input": "可以通过查询天气预报来了解。"}\n'
        "```"
    )
    result = run(create_agent(ScriptedChatModel([plan, act("final", "ok")]), [weather]))
    assert sorted(calls.items) == sorted([("get_weather", "北京"), ("get_weather", "上海")])
    assert result.output == "ok" and result.steps[0].error_class is None
