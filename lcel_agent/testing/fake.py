"""In-process chat models for testing agents: no server, no network.

``FunctionChatModel(fn)`` lets a plain function play the model: it gets the
messages (and the tools, when bound) and returns the reply. ``ScriptedChatModel``
plays a list of replies in order. Both support ``bind_tools``, sync and async
calls, report token usage, and raise any exception you put in the script, so
API failures can be rehearsed::

    from lcel_agent.testing import ScriptedChatModel

    llm = ScriptedChatModel([
        '```json\\n{"action": "get_weather", "action_input": "北京"}\\n```',
        RateLimited(retry_after=0),                 # any exception is raised
        '{"action": "final", "action_input": "北京晴"}',
    ])
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, PrivateAttr

from ..tokens import count_message, estimate_tokens

__all__ = ["APIStatusFault", "FakeReply", "FunctionChatModel", "ScriptedChatModel"]

#: What a fake model may return: text, a message, or an exception to raise.
FakeReply = str | AIMessage | BaseException


class APIStatusFault(Exception):
    """An HTTP-status failure as model clients raise it (``status_code``, response headers).

    ``APIStatusFault(429, retry_after=1)`` is classified like ``openai.RateLimitError``.
    """

    def __init__(
        self, status_code: int, message: str = "", *, retry_after: float | None = None
    ) -> None:
        super().__init__(message or f"HTTP {status_code}")
        self.status_code = status_code
        headers = {} if retry_after is None else {"retry-after": str(retry_after)}
        self.response = type("Response", (), {"status_code": status_code, "headers": headers})()


def _to_message(reply: str | AIMessage) -> AIMessage:
    return reply if isinstance(reply, AIMessage) else AIMessage(content=reply)


class FunctionChatModel(BaseChatModel):
    """A chat model whose replies come from ``fn(messages, tools)``.

    ``tools`` is the list of OpenAI-format tool dicts bound with ``bind_tools``
    (empty when none). ``calls`` records every call's messages.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    fn: Callable[[list[BaseMessage], list[dict[str, Any]]], FakeReply]
    tools: list[dict[str, Any]] = Field(default_factory=list)
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(
        self, fn: Callable[[list[BaseMessage], list[dict[str, Any]]], FakeReply], **kwargs: Any
    ) -> None:
        super().__init__(**{"fn": fn, **kwargs})

    @property
    def _llm_type(self) -> str:
        return "lcel-agent-function"

    @property
    def calls(self) -> list[list[BaseMessage]]:
        """The messages of every call so far."""
        return list(self._calls)

    def _reply(self, messages: list[BaseMessage]) -> FakeReply:
        return self.fn(messages, self.tools)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            self._calls.append(list(messages))
        reply = self._reply(messages)  # outside the lock: a slow fn must not block retries
        if isinstance(reply, BaseException):
            raise reply
        message = _to_message(reply).model_copy()
        prompt_tokens = sum(count_message(m, estimate_tokens) for m in messages)
        output_tokens = count_message(message, estimate_tokens)
        message.usage_metadata = {
            "input_tokens": prompt_tokens,
            "output_tokens": output_tokens,
            "total_tokens": prompt_tokens + output_tokens,
        }
        return ChatResult(generations=[ChatGeneration(message=message)])

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """A copy of this model that sees ``tools`` (OpenAI format) and shares its script."""
        copy = self.model_copy(update={"tools": [convert_to_openai_tool(t) for t in tools]})
        copy._calls = self._calls
        copy._lock = self._lock
        self._share_with(copy)
        return copy

    def _share_with(self, copy: FunctionChatModel) -> None:
        """Hook for subclasses whose state must be shared with bound copies."""


class ScriptedChatModel(FunctionChatModel):
    """A chat model that plays ``replies`` in order; past the end it raises ``IndexError``."""

    replies: list[Any] = Field(default_factory=list)  # Any: pydantic must not coerce exceptions
    _position: list[int] = PrivateAttr(default_factory=lambda: [0])

    def __init__(self, replies: Sequence[FakeReply], **kwargs: Any) -> None:
        super().__init__(fn=lambda messages, tools: "", replies=list(replies), **kwargs)

    def _reply(self, messages: list[BaseMessage]) -> FakeReply:
        index = self._position[0]
        if index >= len(self.replies):
            return IndexError(
                f"ScriptedChatModel ran out of replies after {len(self.replies)} calls"
            )
        self._position[0] += 1
        reply: FakeReply = self.replies[index]
        return reply

    def _share_with(self, copy: FunctionChatModel) -> None:
        if isinstance(copy, ScriptedChatModel):
            copy._position = self._position
