"""Approvals that survive a restart: a paused run resumes with the decision, asking no model.

Alone, ``approve=pause`` stops the run with ``stop_reason="paused"``; a new agent on
the same storage (a restarted process) resumes it with ``Command(resume=...)``. As a
node of a LangGraph graph, the pause is LangGraph's ``interrupt()`` and the graph's
own ``Command(resume=...)`` brings the decision back. Either way exactly the
approved calls run and the reply that asked for them is not asked for again.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from durable_support import Crash, CrashingSaver, make_agent
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command

from lcel_agent import StopReason
from lcel_agent.approval import pause
from lcel_agent.errors import ConfigurationError
from lcel_agent.state import Action

SCRIPT = [[("get_weather", "北京"), ("search_baidu", "台风")], "北京晴"]
CONFIG = {"configurable": {"thread_id": "a1"}}


def test_a_paused_run_resumes_in_a_new_process_with_exactly_the_approved_calls(run, storage, world):
    first = run(make_agent(storage(), world, SCRIPT, approve=pause), "查天气", CONFIG)
    assert first.stop_reason is StopReason.PAUSED and first.error is None
    assert [(a.tool, a.tool_input) for a in first.pending] == SCRIPT[0]
    assert world.finished == [] and world.model_calls == 1

    # Days later, another process: the person approves the weather, refuses the search.
    state = make_agent(storage(), world, SCRIPT).get_state(CONFIG)
    assert state is not None and state.status == "paused"
    assert [a.call_id for a in state.pending] == [a.call_id for a in first.pending]
    weather, search = first.pending
    decisions = {weather.call_id: True, search.call_id: "不要搜索"}
    done = run(make_agent(storage(), world, SCRIPT, approve=pause), Command(resume=decisions),
               CONFIG)  # fmt: skip

    assert done.stop_reason is StopReason.FINAL and done.output == "北京晴"
    assert world.finished == [("get_weather", "北京")]  # exactly the approved call ran
    assert world.model_calls == 2  # the paused reply was not asked for again
    refused = done.steps[0].observations[1]
    assert not refused.ok and refused.output == "ERROR: 不要搜索"


def test_decisions_given_in_parts_keep_the_rest_waiting(run, storage, world):
    first = run(make_agent(storage(), world, SCRIPT, approve=pause), "查天气", CONFIG)
    weather, search = first.pending
    partly = run(make_agent(storage(), world, SCRIPT, approve=pause),
                 Command(resume={weather.call_id: True}), CONFIG)  # fmt: skip
    assert partly.stop_reason is StopReason.PAUSED and partly.pending == (search,)
    assert world.finished == []  # nothing runs until every call of the reply is decided
    # A plain resume (no decision) pauses again without doing anything.
    again = run(make_agent(storage(), world, SCRIPT, approve=pause), None, CONFIG)
    assert again.stop_reason is StopReason.PAUSED and again.pending == (search,)
    done = run(make_agent(storage(), world, SCRIPT, approve=pause), Command(resume=[False]),
               CONFIG)  # fmt: skip
    assert done.stop_reason is StopReason.FINAL
    assert world.finished == [("get_weather", "北京")] and world.model_calls == 2


def test_an_approver_may_pause_only_some_calls_and_is_not_asked_twice(run, storage, world):
    asked: list[str] = []

    def approve(action: Action) -> bool:
        asked.append(action.tool)
        return pause(action) if action.tool == "search_baidu" else True

    first = run(make_agent(storage(), world, SCRIPT, approve=approve), "查天气", CONFIG)
    assert [a.tool for a in first.pending] == ["search_baidu"]
    done = run(make_agent(storage(), world, SCRIPT, approve=approve), Command(resume=True),
               CONFIG)  # fmt: skip
    assert done.stop_reason is StopReason.FINAL
    assert asked == ["get_weather", "search_baidu"]  # the weather was decided once, and kept
    assert sorted(world.finished) == sorted(SCRIPT[0])


def test_a_decision_made_before_a_crash_is_not_asked_for_again(run, storage, world):
    asked: list[str] = []

    def approve(action: Action) -> bool:
        asked.append(action.tool_input)
        return True

    world.crash_in = 1  # the process dies inside the first approved call
    crashing = CrashingSaver(storage(), world)
    with pytest.raises(Crash):
        run(make_agent(crashing, world, SCRIPT, approve=approve, parallel_tool_calls=False),
            "查天气", CONFIG)  # fmt: skip
    world.revive()
    done = run(make_agent(storage(), world, SCRIPT, approve=approve), None, CONFIG)
    assert done.stop_reason is StopReason.FINAL
    assert asked == ["北京", "台风"]  # asked once each, before the crash
    assert sorted(world.finished) == sorted(SCRIPT[0]) and world.model_calls == 2


def test_a_paused_run_does_not_raise_with_raise_on_failure(run, storage, world):
    agent = make_agent(storage(), world, SCRIPT, approve=pause, raise_on_failure=True)
    assert run(agent, "查天气", CONFIG).stop_reason is StopReason.PAUSED


def test_pausing_needs_a_checkpointer_and_a_thread(run, storage, world):
    no_thread = make_agent(storage(), world, SCRIPT, approve=pause)
    with pytest.raises(ConfigurationError, match="needs a checkpointer and a thread"):
        run(no_thread, "查天气")
    assert world.finished == []


def test_decisions_that_cannot_be_read_are_refused(run, storage, world):
    run(make_agent(storage(), world, SCRIPT, approve=pause), "查天气", CONFIG)
    with pytest.raises(ConfigurationError, match="cannot read the decisions"):
        run(make_agent(storage(), world, SCRIPT, approve=pause), Command(resume=3.5), CONFIG)
    assert world.finished == []


def _graph(agent: Any, saver: Any) -> Any:
    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_edge(START, "agent")
    graph.add_edge("agent", END)
    return graph.compile(checkpointer=saver)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_inside_a_langgraph_graph_the_pause_is_an_interrupt_and_the_reply_is_not_replayed(
    world, mode
):
    saver = InMemorySaver()  # the graph's and the agent's checkpoints, side by side
    graph = _graph(make_agent(saver, world, SCRIPT, approve=pause), saver)
    config = {"configurable": {"thread_id": "g1"}}

    def call(value: Any) -> Any:
        if mode == "sync":
            return graph.invoke(value, config)
        return asyncio.run(graph.ainvoke(value, config))

    paused = call({"messages": [("user", "查天气")]})
    (interrupt,) = paused["__interrupt__"]
    shown = [(c["tool"], c["input"]) for c in interrupt.value["calls"]]
    assert shown == SCRIPT[0] and world.finished == [] and world.model_calls == 1

    done = call(Command(resume=True))
    assert "__interrupt__" not in done
    assert done["messages"][-1].content == "北京晴"
    assert sorted(world.finished) == sorted(SCRIPT[0])
    # Two model calls, as HumanInTheLoopMiddleware makes: the approved reply is not asked again.
    assert world.model_calls == 2
