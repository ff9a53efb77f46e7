"""Tools written for langchain 1.x: ``runtime: ToolRuntime``, ``InjectedState`` (issue 23, item 3).

``agent.invoke(input, config, context=ctx)`` hands ``ctx`` to tools as LangChain's own
agents do; a tool whose injected argument cannot be filled is refused when the agent is
built, before any model call. ``ToolRuntime`` and ``context=`` exist only in langchain
1.x: on the article's 0.3 stack those tests skip, and ``context=`` raises a clear error.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.prebuilt import InjectedState, InjectedStore

from lcel_agent import create_agent
from lcel_agent.errors import ConfigurationError
from lcel_agent.testing.fake import ScriptedChatModel

try:
    from langchain.tools import ToolRuntime
except ImportError:  # langchain 0.3: no tool runtime
    ToolRuntime = None

needs_runtime = pytest.mark.skipif(
    ToolRuntime is None,
    reason="langchain.tools.ToolRuntime (and agent context=) exist only in langchain 1.x",
)


# Typed as LangChain's docs write it: a bare ``ToolRuntime`` makes pydantic warn about the
# context's type (LangGraph's own ToolNode warns the same).
@dataclass
class Context:
    user_id: str


@needs_runtime
def test_context_reaches_a_tool_runtime(act):
    seen = []

    @tool
    def whoami(question: str, runtime: ToolRuntime[Context]) -> str:
        """Who is asking."""
        seen.append(runtime)
        return f"user {runtime.context.user_id}"

    llm = ScriptedChatModel([act("whoami", "me"), act("final", "done")])
    agent = create_agent(llm, [whoami])
    result = agent.invoke("我是谁", context=Context("u-42"))
    assert result.steps[0].observations[0].output == "user u-42"
    (runtime,) = seen
    assert runtime.tool_call_id == result.steps[0].observations[0].action.call_id
    assert runtime.state["messages"][-1].content == act("whoami", "me")
    assert [t.name for t in runtime.tools] == ["whoami"]


@needs_runtime
def test_context_reaches_a_tool_runtime_async(act):
    @tool
    async def whoami(question: str, runtime: ToolRuntime[Context]) -> str:
        """Who is asking."""
        return f"user {runtime.context.user_id}"

    llm = ScriptedChatModel([act("whoami", "me"), act("final", "done")])
    result = asyncio.run(create_agent(llm, [whoami]).ainvoke("我是谁", context=Context("u-7")))
    assert result.steps[0].observations[0].output == "user u-7"


@needs_runtime
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_context_reaches_tools_when_streaming(act, mode):
    @tool
    def whoami(question: str, runtime: ToolRuntime[Context]) -> str:
        """Who is asking."""
        return f"user {runtime.context.user_id}"

    llm = ScriptedChatModel([act("whoami", "me"), act("final", "done")])
    agent = create_agent(llm, [whoami])
    if mode == "sync":
        events = list(agent.stream("我是谁", context=Context("u-9")))
    else:

        async def collect():
            return [e async for e in agent.astream("我是谁", context=Context("u-9"))]

        events = asyncio.run(collect())
    assert events[-1].steps[0].observations[0].output == "user u-9"


def test_injected_state_gets_the_agents_state(run, act):
    @tool
    def recap(
        topic: str,
        messages: Annotated[list, InjectedState("messages")],
        state: Annotated[dict, InjectedState],
    ) -> str:
        """Recap the conversation."""
        assert state["messages"] == messages
        return f"{len(messages)} messages, first question: {messages[1].content}"

    llm = ScriptedChatModel([act("recap", "all"), act("final", "ok")])
    result = run(create_agent(llm, [recap]), {"messages": [HumanMessage("总结一下")]})
    output = run(
        create_agent(ScriptedChatModel([act("recap", "all"), act("final", "ok")]), [recap]),
        "总结一下",
    )
    assert output.steps[0].observations[0].output.endswith("first question: 总结一下")
    assert result["messages"][2].content.endswith("first question: 总结一下")


def test_an_unfillable_injected_argument_is_refused_before_any_model_call():
    @tool
    def save(note: str, store: Annotated[object, InjectedStore()]) -> str:
        """Save a note."""
        return "saved"

    @tool
    def pick(note: str, city: Annotated[str, InjectedState("city")]) -> str:
        """Read the city from the state."""
        return city

    llm = ScriptedChatModel(["never"])
    with pytest.raises(ConfigurationError, match="InjectedStore"):
        create_agent(llm, [save])
    with pytest.raises(ConfigurationError, match="InjectedState\\('city'\\)"):
        create_agent(llm, [pick])
    assert llm.calls == []


@pytest.mark.skipif(ToolRuntime is not None, reason="the 0.3 stack's refusal of context=")
def test_context_on_the_03_stack_is_a_clear_error(weather):
    agent = create_agent(ScriptedChatModel(["never"]), [weather])
    with pytest.raises(ConfigurationError, match="ToolRuntime"):
        agent.invoke("北京天气", context=Context("u-1"))
