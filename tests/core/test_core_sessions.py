"""``session_id`` names a thread: configs written for the retired SessionStore keep their
conversation on a checkpointer, across a restart."""

from __future__ import annotations

import sqlite3

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.sqlite import SqliteSaver

from lcel_agent import StopReason, create_agent
from lcel_agent.testing.fake import FunctionChatModel


def test_a_session_id_remembers_earlier_runs_on_a_checkpointer(tmp_path, weather, act):
    def model(messages, tools):
        questions = [m.content for m in messages if isinstance(m, HumanMessage)]
        return act("final", " | ".join(questions))

    def agent_on(path):
        saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
        return create_agent(FunctionChatModel(model), [weather], checkpointer=saver), saver

    agent, saver = agent_on(tmp_path / "s.db")
    config = {"configurable": {"session_id": "u1"}}
    agent.invoke("第一个问题", config)
    second = agent.invoke("第二个问题", config)
    assert second.stop_reason is StopReason.FINAL
    assert second.output == "第一个问题 | 第二个问题"
    other = agent.invoke("别的会话", {"configurable": {"session_id": "u2"}})
    assert other.output == "别的会话"
    saver.conn.close()
    # A new saver on the same file (a restart) finds the conversation again.
    reopened, saver = agent_on(tmp_path / "s.db")
    assert reopened.invoke("第三个", config).output == "第一个问题 | 第二个问题 | 第三个"
    saver.conn.close()
