"""Helpers shared by the LangChain-native tests (fixtures are in conftest.py)."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.runnables import Runnable
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph


def act(action: str, value: Any) -> str:
    """A JSON-protocol reply: ``act("get_weather", "北京")``."""
    return json.dumps({"action": action, "action_input": value}, ensure_ascii=False)


def graph_of(agent: Runnable[Any, Any]) -> CompiledStateGraph:
    """A LangGraph ``MessagesState`` graph whose one node is ``agent``: ``graph_of(a).invoke(...)``."""
    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    return builder.compile()
