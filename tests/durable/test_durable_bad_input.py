"""Checkpoints an agent must not use: a clear error before any model call, nothing overwritten."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from durable_support import Crash, CrashingSaver, World, make_agent, sqlite_saver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from lcel_agent import create_agent
from lcel_agent.errors import CheckpointError, ConfigurationError
from lcel_agent.testing.fake import FunctionChatModel

SCRIPT = [[("get_weather", "北京"), ("search_baidu", "台风")], "北京晴"]
CONFIG = {"configurable": {"thread_id": "b1"}}


def interrupted(path: Path, world: World) -> None:
    """A run killed inside its first call, its thread left unfinished in ``path``."""
    world.crash_in = 1
    with pytest.raises(Crash):
        make_agent(CrashingSaver(sqlite_saver(path), world), world, SCRIPT).invoke("查天气", CONFIG)
    world.revive()


def rows(path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        found = conn.execute("SELECT checkpoint_id, checkpoint FROM checkpoints ORDER BY 1")
        checkpoints = found.fetchall()
        writes = conn.execute("SELECT task_id, idx, value FROM writes ORDER BY 1, 2").fetchall()
    return checkpoints + writes


def refused(run, path: Path, world: World, agent: Any, task: Any, match: str) -> None:
    before, calls = rows(path), world.model_calls
    with pytest.raises(CheckpointError, match=match) as raised:
        run(agent, task, CONFIG)
    assert world.model_calls == calls  # no model call
    assert rows(path) == before  # nothing written, nothing overwritten
    assert raised.value.thread_id == "b1"


def test_a_checkpoint_of_an_agent_with_other_tools_is_refused(run, tmp_path, world):
    path = tmp_path / "c.db"
    interrupted(path, world)
    fewer = create_agent(FunctionChatModel(lambda m, t: "x"), [make_one_tool()],
                         checkpointer=sqlite_saver(path))  # fmt: skip
    refused(run, path, world, fewer, None, r"the tools \['get_weather', 'search_baidu'\]")
    refused(run, path, world, fewer, "查天气", "other tools|the tools")


def test_a_checkpoint_of_the_other_protocol_is_refused(run, tmp_path, world):
    path = tmp_path / "c.db"
    interrupted(path, world)
    native = make_agent(sqlite_saver(path), world, SCRIPT, native=True)
    refused(run, path, world, native, None, "protocol='json'")


def test_an_unreadable_checkpoint_is_refused(run, tmp_path, world):
    path = tmp_path / "c.db"
    interrupted(path, world)
    with sqlite3.connect(path) as conn:  # the disk or a hand damaged the newest checkpoint
        conn.execute(
            "UPDATE checkpoints SET checkpoint = ? WHERE checkpoint_id = "
            "(SELECT max(checkpoint_id) FROM checkpoints)",
            (b"\xc1\x00garbage",),
        )
    refused(run, path, world, make_agent(sqlite_saver(path), world, SCRIPT), None,
            "cannot be read")  # fmt: skip


def test_a_damaged_state_or_write_is_refused(run, tmp_path, world):
    path = tmp_path / "c.db"
    interrupted(path, world)
    saver = sqlite_saver(path)
    tip = saver.get_tuple(CONFIG)
    assert tip is not None
    value = tip.checkpoint["channel_values"]["lcel_agent"]
    value["state"]["loops"] = "three"  # a field of the wrong type
    checkpoint = {**tip.checkpoint, "channel_values": {"lcel_agent": value}}
    checkpoint["id"] = checkpoint["id"][:-1] + "f"  # a newer id, so it is the latest
    saver.put(tip.config, checkpoint, {"source": "update", "step": 9, "parents": {}},
              {"lcel_agent": saver.get_next_version(None, None)})  # fmt: skip
    refused(run, path, world, make_agent(sqlite_saver(path), world, SCRIPT), None,
            "damaged.*loops|damaged.*int")  # fmt: skip


def test_a_damaged_call_write_is_refused(run, tmp_path, world):
    path = tmp_path / "c.db"
    world.crash_in = 2  # the first call finished and was written
    with pytest.raises(Crash):
        make_agent(CrashingSaver(sqlite_saver(path), world), world, SCRIPT,
                   parallel_tool_calls=False).invoke("查天气", CONFIG)  # fmt: skip
    world.revive()
    saver = sqlite_saver(path)
    tip = saver.get_tuple(CONFIG)
    assert tip is not None and tip.pending_writes
    saver.put_writes(tip.config, [("lcel_agent:call", {"action": "not an action"})], "bad")
    refused(run, path, world, make_agent(sqlite_saver(path), world, SCRIPT), None, "damaged")


def test_a_langgraph_graphs_checkpoint_on_the_thread_is_refused(run, world):
    saver = InMemorySaver()
    graph = StateGraph(MessagesState)
    graph.add_node("echo", lambda state: {"messages": [("ai", "hi")]})
    graph.add_edge(START, "echo")
    graph.add_edge("echo", END)
    graph.compile(checkpointer=saver).invoke({"messages": [("user", "hi")]}, CONFIG)
    with pytest.raises(CheckpointError, match="not written by an lcel_agent agent"):
        run(make_agent(saver, world, SCRIPT), "查天气", CONFIG)
    assert world.model_calls == 0


def test_bad_configurations_fail_when_the_agent_is_built(tmp_path):
    llm = FunctionChatModel(lambda m, t: "x")
    with pytest.raises(TypeError, match="LangGraph checkpoint saver"):
        create_agent(llm, [make_one_tool()], checkpointer=str(tmp_path / "c.db"))
    with pytest.raises(TypeError, match="LangGraph checkpoint saver"):
        create_agent(llm, [make_one_tool()], checkpointer=InMemorySaver)  # the class


def test_resuming_needs_a_checkpointer_and_a_thread(run):
    agent = create_agent(FunctionChatModel(lambda m, t: "x"), [make_one_tool()])
    with pytest.raises(TypeError, match="resumes a thread's run, which needs create_agent"):
        run(agent, None, CONFIG)
    with pytest.raises(ConfigurationError, match="needs create_agent"):
        agent.get_state(CONFIG)


def make_one_tool() -> Any:
    from langchain_core.tools import tool

    @tool
    def get_weather(city: str) -> str:
        """查询城市实时天气"""
        return "晴"

    return get_weather


def test_a_storage_failure_is_the_storages_own_error_not_a_damaged_checkpoint(run, world):
    class Locked(InMemorySaver):
        def get_tuple(self, config: Any) -> Any:
            raise sqlite3.OperationalError("database is locked")

        async def aget_tuple(self, config: Any) -> Any:
            raise sqlite3.OperationalError("database is locked")

    # A locked file or a lost connection may clear on a retry: it is not CheckpointError.
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        run(make_agent(Locked(), world, SCRIPT), "查天气", CONFIG)
    assert world.model_calls == 0
