"""Many tools and the default window (issue 35: BFCL offers 18-39 functions, 4k+ tokens).

The rule: the default window is 800 tokens plus what the agent's own system prompt takes
beyond 200 of them. A handful of tools is part of the 800 (the article's prompt is about
150 tokens); forty tools' descriptions are counted apart, so the question and the results
keep the room they would have with a few tools. Under ``tool_calling`` the schemas travel
as the request's ``tools`` and never were in the window. A window given as ``memory=`` is
used as it is.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.tools import BaseTool, StructuredTool

from lcel_agent import SlidingWindowMemory, StopReason, create_agent
from lcel_agent.agent._parts import DEFAULT_WINDOW, OWN_PROMPT_SHARE
from lcel_agent.memory.counters import count_message, resolve_counter
from lcel_agent.testing import FunctionChatModel
from lcel_agent.tools import get_weather, search_baidu

#: What the listing tool returns: about 300 tokens the next call needs (a name inside it).
LISTING = "\n".join(f"report_{i:03d}_quarterly_summary_final.txt" for i in range(40))


def many_tools(n: int = 40) -> list[BaseTool]:
    """``n`` tools with descriptions and two typed arguments each, like BFCL's backends."""

    def make(i: int) -> BaseTool:
        def run(path: str, recursive: bool = False) -> str:
            return LISTING if i == 0 else f"tool_{i} done for {path}"

        return StructuredTool.from_function(
            run,
            name=f"tool_{i}",
            description=(
                f"Operation number {i} on the workspace: lists, moves or inspects files under "
                "a path, with an option to walk into every folder below it."
            ),
        )

    return [make(i) for i in range(n)]


def silent() -> FunctionChatModel:
    return FunctionChatModel(fn=lambda messages, tools: AIMessage("unused"))


def own_prompt_tokens(agent: Any) -> int:
    return count_message(SystemMessage(agent.system_prompt), resolve_counter(None))


@pytest.mark.parametrize("protocol", ["json", "tool_calling"])
def test_a_few_tools_keep_the_articles_800_tokens(protocol):
    agent = create_agent(silent(), [get_weather, search_baidu], protocol=protocol)
    assert own_prompt_tokens(agent) < OWN_PROMPT_SHARE
    assert agent.memory.max_tokens == DEFAULT_WINDOW == 800


def test_forty_tools_descriptions_are_counted_apart_in_the_json_protocol():
    agent = create_agent(silent(), many_tools())
    own = own_prompt_tokens(agent)
    assert own > 1_500  # the descriptions alone would fill two default windows
    assert agent.memory.max_tokens == DEFAULT_WINDOW + own - OWN_PROMPT_SHARE


def test_under_tool_calling_the_schemas_are_not_in_the_window():
    agent = create_agent(silent(), many_tools(), protocol="tool_calling")
    assert own_prompt_tokens(agent) < OWN_PROMPT_SHARE
    assert agent.memory.max_tokens == 800


def test_a_window_given_is_used_as_it_is():
    window = SlidingWindowMemory(800)
    agent = create_agent(silent(), many_tools(), memory=window)
    assert agent.memory.max_tokens == 800


def test_with_forty_tools_a_listing_is_in_view_when_the_next_call_is_written(caplog):
    asked: list[list[BaseMessage]] = []
    replies = [
        {"action": "tool_0", "action_input": {"path": "/reports"}},
        {"action": "tool_1", "action_input": {"path": "/reports/report_039_quarterly_summary_final.txt"}},
        {"action": "final", "action_input": "Moved report_039_quarterly_summary_final.txt."},
    ]  # fmt: skip

    def model(messages: list[BaseMessage], tools: Any) -> AIMessage:
        asked.append(list(messages))
        return AIMessage(json.dumps(replies[len(asked) - 1]))

    agent = create_agent(FunctionChatModel(fn=model), many_tools())
    with caplog.at_level(logging.WARNING, logger="lcel_agent.memory"):
        result = agent.invoke({"input": "Move the newest quarterly report."})
    assert result.stop_reason == StopReason.FINAL
    assert result.output == "Moved report_039_quarterly_summary_final.txt."
    # The second call (the one that names a file from the listing) saw the listing whole.
    second = "\n".join(str(m.content) for m in asked[1])
    assert all(f"report_{i:03d}_quarterly_summary_final.txt" in second for i in range(40))
    # ...and nobody was told that tool results have little room.
    assert not [r for r in caplog.records if "little room" in r.getMessage()]


def test_the_same_run_in_an_800_token_window_loses_the_listing(caplog):
    """Why the rule exists: the descriptions counted inside 800 tokens leave nothing."""
    asked: list[list[BaseMessage]] = []

    def model(messages: list[BaseMessage], tools: Any) -> AIMessage:
        asked.append(list(messages))
        reply = (
            {"action": "tool_0", "action_input": {"path": "/reports"}}
            if len(asked) == 1
            else {"action": "final", "action_input": "done"}
        )
        return AIMessage(json.dumps(reply))

    agent = create_agent(FunctionChatModel(fn=model), many_tools(), memory=SlidingWindowMemory(800))
    with caplog.at_level(logging.WARNING, logger="lcel_agent.memory"):
        agent.invoke({"input": "Move the newest quarterly report."})
    second = "\n".join(str(m.content) for m in asked[1])
    assert "report_039_quarterly_summary_final.txt" not in second
    assert [r for r in caplog.records if "little room" in r.getMessage()]
