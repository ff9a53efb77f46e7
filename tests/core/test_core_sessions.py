"""Sessions: a window carried across runs by session id, and runs per session never overlap."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage

from lcel_agent import SessionBusyError, SessionStore, StopReason, create_agent
from lcel_agent.testing.fake import FunctionChatModel


def test_a_session_remembers_earlier_runs(tmp_path, weather, act):
    def model(messages, tools):
        questions = [m.content for m in messages if isinstance(m, HumanMessage)]
        return act("final", " | ".join(questions))

    store = SessionStore(tmp_path / "s.db")
    agent = create_agent(FunctionChatModel(model), [weather], sessions=store)
    config = {"configurable": {"session_id": "u1"}}
    agent.invoke("第一个问题", config)
    second = agent.invoke("第二个问题", config)
    assert second.stop_reason is StopReason.FINAL
    assert second.output == "第一个问题 | 第二个问题"
    other = agent.invoke("别的会话", {"configurable": {"session_id": "u2"}})
    assert other.output == "别的会话"
    # A new store on the same file (a restart) finds the session again.
    reopened = create_agent(
        FunctionChatModel(model), [weather], sessions=SessionStore(tmp_path / "s.db")
    )
    assert reopened.invoke("第三个", config).output == "第一个问题 | 第二个问题 | 第三个"


def test_overlapping_runs_of_one_session_fail_clearly(tmp_path, weather, act):
    store = SessionStore(tmp_path / "s.db")
    inner = {}

    def model(messages, tools):
        if not inner:
            with pytest.raises(SessionBusyError) as raised:
                agent.invoke("again", {"configurable": {"session_id": "u1"}})
            inner["result"] = raised
        return act("final", "ok")

    agent = create_agent(FunctionChatModel(model), [weather], sessions=store)
    assert agent.invoke("first", {"configurable": {"session_id": "u1"}}).output == "ok"
    assert "in use" in str(inner["result"].value)
