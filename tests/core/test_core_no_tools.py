"""An agent with no tools (``create_agent(llm, [])``, an MCP server that lists none).

LangChain's ``create_agent`` accepts ``tools=[]``; so does this one. Its prompt offers
no tools and one form, the answer; its words are the answer; a call it makes anyway is
refused with a message that says it has none.
"""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage

from lcel_agent import StopReason, create_agent
from lcel_agent.stages.prompt import build_system_prompt
from lcel_agent.testing.fake import FunctionChatModel, ScriptedChatModel


def final(text: str) -> str:
    return json.dumps({"action": "final", "action_input": text}, ensure_ascii=False)


@pytest.mark.parametrize("protocol", ["json", "tool_calling"])
def test_the_prompt_offers_no_tools(protocol):
    prompt = build_system_prompt([], protocol=protocol)
    assert "tools:" not in prompt and "Tool results" not in prompt
    assert prompt.startswith("Answer the user's question.")
    if protocol == "json":
        assert '"action": "final"' in prompt and "<tool name>" not in prompt


@pytest.mark.parametrize("reply", [final("我是天气助手"), "我是天气助手"], ids=["json", "prose"])
def test_an_agent_without_tools_answers(run, reply):
    llm = ScriptedChatModel([reply])
    result = run(create_agent(llm, []), "你是谁")
    assert result.stop_reason is StopReason.FINAL and result.output == "我是天气助手"
    assert result.loops == 1 and result.answer is None
    (system, _question) = llm.calls[0]
    assert "You can use these tools" not in system.content


def test_a_call_without_tools_is_refused_and_the_model_answers(run):
    llm = ScriptedChatModel(
        [json.dumps({"action": "get_weather", "action_input": "北京"}), final("我查不了天气")]
    )
    result = run(create_agent(llm, []), "北京天气")
    assert result.stop_reason is StopReason.FINAL and result.output == "我查不了天气"
    (refused,) = result.steps[0].observations
    assert not refused.ok and "you have no tools" in refused.output


class NoBinding(FunctionChatModel):
    """A model that fails if tools are bound: some providers refuse an empty list."""

    def bind_tools(self, tools, **kwargs):  # type: ignore[override]
        raise AssertionError(f"bind_tools({tools!r}) was called")


def test_tool_calling_without_tools_binds_nothing(run):
    model = NoBinding(fn=lambda messages, tools: AIMessage("我是天气助手"))
    result = run(create_agent(model, [], protocol="tool_calling"), "你是谁")
    assert result.stop_reason is StopReason.FINAL and result.output == "我是天气助手"
