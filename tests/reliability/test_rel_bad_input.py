"""Bad input to the public API fails loudly and clearly (extends tests/core/test_core_config.py)."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import BaseTool, tool

from lcel_agent import ConfigurationError, create_agent
from lcel_agent.testing.fake import ScriptedChatModel


@tool
def probe(city: str) -> str:
    """查询城市实时天气"""
    return city


@tool("final")
def final_tool(city: str) -> str:
    """一个占用了保留名的工具"""
    return city


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"max_loops": -3}, ConfigurationError, "max_loops must be >= 1"),
        ({"max_loops": True}, TypeError, "max_loops must be an int"),
        ({"max_loops": "10"}, TypeError, "max_loops must be an int"),
        ({"max_errors": 1.0}, TypeError, "max_errors must be an int"),
        ({"llm_retries": None}, TypeError, "llm_retries must be an int"),
        ({"max_concurrency": 0}, ConfigurationError, "max_concurrency"),
        ({"max_observation_chars": 10}, ConfigurationError, "max_observation_chars must be >= 100"),
        ({"tool_timeout": math.nan}, ConfigurationError, "tool_timeout must be > 0"),
        ({"tool_timeout": "30"}, TypeError, "tool_timeout must be a number"),
        ({"llm_timeout": 0}, ConfigurationError, "llm_timeout must be > 0"),
        ({"time_budget": False}, TypeError, "time_budget must be a number"),
        ({"token_budget": 1.5}, TypeError, "token_budget must be an int"),
        ({"llm_backoff": (2.0, 1.0)}, ConfigurationError, "llm_backoff"),
        ({"llm_backoff": [0.1, 1.0]}, ConfigurationError, "llm_backoff"),
        ({"llm_backoff": (-1.0, 1.0)}, ConfigurationError, "llm_backoff"),
        ({"tool_call_limits": {"probe": -1}}, ConfigurationError, "tool_call_limits"),
        ({"fallback_tools": {"probe": "other"}}, TypeError, "fallback_tools"),
        ({"system_prompt": 42}, TypeError, "system_prompt must be a string"),
        ({"sessions": "sessions.db"}, TypeError, "unexpected keyword argument 'sessions'"),
    ],
)
def test_bad_options_are_refused_at_construction(
    options: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        create_agent(ScriptedChatModel([]), [probe], **options)


def test_bad_tool_lists() -> None:
    llm = ScriptedChatModel([])
    with pytest.raises(ConfigurationError, match="may not be named 'final'"):
        create_agent(llm, [final_tool])
    with pytest.raises(TypeError, match="list of langchain-core tools"):
        create_agent(llm, "probe")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="list of langchain-core tools"):
        create_agent(llm, None)  # type: ignore[arg-type]


def _dup() -> BaseTool:
    @tool("probe")
    def other(city: str) -> str:
        """另一个同名工具"""
        return city

    return other


def test_duplicate_names_from_different_tools() -> None:
    with pytest.raises(ConfigurationError, match="two tools are named 'probe'"):
        create_agent(ScriptedChatModel([]), [probe, _dup()])


BAD_TASKS: list[tuple[Any, type[Exception], str]] = [
    ("", ValueError, "task is empty"),
    ("   \n\t", ValueError, "task is empty"),
    (None, TypeError, "must be a task string"),
    (42, TypeError, "must be a task string"),
    ([42], TypeError, "must be a list of messages"),
    ([AIMessage("only an answer")], ValueError, "no human message"),
    ({"messages": "北京"}, TypeError, "must be a list of messages"),
    ({"messages": [HumanMessage("  ")]}, ValueError, "task is empty"),
    ({"query": "北京"}, ValueError, "needs an 'input' or 'messages' key"),
    ({"input": ""}, ValueError, "task is empty"),
]


@pytest.mark.parametrize(("task", "error", "match"), BAD_TASKS)
def test_bad_tasks_sync(task: Any, error: type[Exception], match: str) -> None:
    llm = ScriptedChatModel([])
    with pytest.raises(error, match=match):
        create_agent(llm, [probe]).invoke(task)
    assert llm.calls == []  # refused before any model call


@pytest.mark.parametrize(("task", "error", "match"), BAD_TASKS)
def test_bad_tasks_async(task: Any, error: type[Exception], match: str) -> None:
    llm = ScriptedChatModel([])
    with pytest.raises(error, match=match):
        asyncio.run(create_agent(llm, [probe]).ainvoke(task))
    assert llm.calls == []
