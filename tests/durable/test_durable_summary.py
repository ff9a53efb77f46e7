"""``summarize_thread``: a thread's latest run from any saver, without the agent that wrote it.

It reads what ``agent.get_state`` reads — paused, unfinished after a crash, finished
and why — for a run written with any tools and protocol, and says None for a thread
with no lcel_agent run (nothing yet, or a LangGraph graph's own checkpoints). A
damaged checkpoint is a CheckpointError, as for a resume.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from durable_support import Crash, CrashingSaver, make_agent
from langgraph.graph import END, START, MessagesState, StateGraph

from lcel_agent import StopReason
from lcel_agent.approval import pause
from lcel_agent.durable import summarize_thread
from lcel_agent.errors import CheckpointError

SCRIPT = [[("get_weather", "北京")], [("search_baidu", "台风")], "北京晴"]


def test_each_state_of_a_run_reads_without_an_agent(storage, world):
    saver = storage()
    paused = make_agent(saver, world, SCRIPT, approve=pause, native=True)
    paused.invoke("查天气\n第二行", {"configurable": {"thread_id": "p"}})
    found = summarize_thread(saver, "p")
    assert found is not None
    assert (found.status, found.stop_reason, found.loops) == ("paused", StopReason.PAUSED, 1)
    assert found.task == "查天气\n第二行"
    assert datetime.fromisoformat(found.updated_at).tzinfo is not None

    world.crash_in = 2  # inside the search: the run stays unfinished
    with pytest.raises(Crash):
        make_agent(CrashingSaver(saver, world), world, SCRIPT).invoke(
            "查天气", {"configurable": {"thread_id": "u"}}
        )
    world.revive()
    found = summarize_thread(storage(), "u")
    assert found is not None and (found.status, found.stop_reason, found.loops) == (
        "unfinished",
        None,
        2,
    )

    make_agent(saver, world, SCRIPT, max_loops=2).invoke("查", {"configurable": {"thread_id": "f"}})
    found = summarize_thread(saver, "f")
    assert found is not None
    assert (found.status, found.stop_reason, found.loops) == ("finished", StopReason.MAX_LOOPS, 2)
    assert summarize_thread(saver, "nobody") is None


def test_a_graphs_own_thread_is_not_a_run_and_a_damaged_one_is_an_error(storage, world):
    saver = storage()
    graph = StateGraph(MessagesState)
    graph.add_node("echo", lambda state: {"messages": [("ai", "hi")]})
    graph.add_edge(START, "echo")
    graph.add_edge("echo", END)
    graph.compile(checkpointer=saver).invoke(
        {"messages": [("user", "hi")]}, {"configurable": {"thread_id": "g"}}
    )
    assert summarize_thread(saver, "g") is None

    make_agent(saver, world, SCRIPT).invoke("查天气", {"configurable": {"thread_id": "d"}})
    tip = saver.get_tuple({"configurable": {"thread_id": "d", "checkpoint_ns": ""}})
    damaged = {**tip.checkpoint}
    value = dict(damaged["channel_values"]["lcel_agent"])
    value["state"] = "garbage"
    damaged["channel_values"] = {"lcel_agent": value}
    versions = damaged["channel_versions"]
    saver.put(tip.config, damaged, tip.metadata, versions)
    with pytest.raises(CheckpointError, match="'d'"):
        summarize_thread(saver, "d")
