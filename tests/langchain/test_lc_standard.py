"""The bundled fake chat models pass langchain-tests' standard unit tests, in full."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_tests.unit_tests import ChatModelUnitTests

from lcel_agent.testing.fake import FunctionChatModel, ScriptedChatModel


def echo(messages, tools):
    return f"echo: {messages[-1].content}"


class TestFunctionChatModelStandard(ChatModelUnitTests):
    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return FunctionChatModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"fn": echo, "model": "fake-fn"}

    @property
    def has_tool_calling(self) -> bool:
        return True


class TestScriptedChatModelStandard(ChatModelUnitTests):
    @property
    def chat_model_class(self) -> type[BaseChatModel]:
        return ScriptedChatModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"replies": ["one", "two"], "model": "fake-script"}

    @property
    def has_tool_calling(self) -> bool:
        return True
