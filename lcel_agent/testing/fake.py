"""In-process chat models for testing agents: no server, no network.

``FunctionChatModel(fn)`` lets a plain function play the model: it gets the
messages (and the tools, when bound) and returns the reply. ``ScriptedChatModel``
plays a list of replies in order. Both support ``bind_tools`` (a binding, as
real models return), sync and async calls, streaming (text in pieces of
``chunk_chars`` characters, tool calls as tool-call chunks, so nothing is lost
when streamed), report token usage, and raise any exception you put in the
script, so API failures can be rehearsed. They pass langchain-tests'
``ChatModelUnitTests``::

    from lcel_agent.testing import ScriptedChatModel

    llm = ScriptedChatModel([
        '```json\\n{"action": "get_weather", "action_input": "北京"}\\n```',
        RateLimited(retry_after=0),                 # any exception is raised
        '{"action": "final", "action_input": "北京晴"}',
    ])
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.base import LangSmithParams
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, PrivateAttr

from ..memory.counters import count_message, estimate_tokens

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

    model_config = ConfigDict(arbitrary_types_allowed=True, populate_by_name=True)

    fn: Callable[[list[BaseMessage], list[dict[str, Any]]], FakeReply]
    tools: list[dict[str, Any]] = Field(default_factory=list)
    model_name: str = Field(default="lcel-agent-fake", alias="model")
    """The name traces show (``ls_model_name``)."""
    temperature: float | None = None
    max_tokens: int | None = None
    stop: list[str] | None = None
    chunk_chars: int = 4
    """Characters per streamed text chunk."""
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

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        params = super()._get_ls_params(stop=stop, **kwargs)
        params["ls_provider"] = "lcel_agent"
        params["ls_model_name"] = str(kwargs.get("model", self.model_name))
        if self.temperature is not None:
            params["ls_temperature"] = self.temperature
        if self.max_tokens is not None:
            params["ls_max_tokens"] = self.max_tokens
        if stop or self.stop:
            params["ls_stop"] = stop or self.stop
        return params

    def _reply(self, messages: list[BaseMessage], tools: list[dict[str, Any]]) -> FakeReply:
        return self.fn(messages, tools)

    def _message(self, messages: list[BaseMessage], **kwargs: Any) -> AIMessage:
        with self._lock:
            self._calls.append(list(messages))
        # Outside the lock: a slow fn must not block retries.
        reply = self._reply(messages, kwargs.get("tools") or self.tools)
        if isinstance(reply, BaseException):
            raise reply
        message = _to_message(reply).model_copy()
        if message.usage_metadata is not None:  # a scripted reply's own usage (details and all)
            return message
        prompt_tokens = sum(count_message(m, estimate_tokens) for m in messages)
        output_tokens = count_message(message, estimate_tokens)
        message.usage_metadata = {
            "input_tokens": prompt_tokens,
            "output_tokens": output_tokens,
            "total_tokens": prompt_tokens + output_tokens,
        }
        return message

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._message(messages, **kwargs))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        message = self._message(messages, **kwargs)
        text = message.content if isinstance(message.content, str) else ""
        step = max(1, self.chunk_chars)
        for start in range(0, len(text), step):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=text[start : start + step]))
            if run_manager is not None:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk
        # Tool calls and usage last, in one chunk: a streamed reply loses nothing.
        last = AIMessageChunk(
            content="" if text or not message.content else message.content,
            tool_call_chunks=[
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
                for i, c in enumerate(message.tool_calls)
            ],
            usage_metadata=message.usage_metadata,
        )
        yield ChatGenerationChunk(message=last)

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """This model, bound to ``tools`` (OpenAI format); the script and calls are shared."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)


class ScriptedChatModel(FunctionChatModel):
    """A chat model that plays ``replies`` in order; past the end it raises ``IndexError``."""

    replies: list[Any] = Field(default_factory=list)  # Any: pydantic must not coerce exceptions
    _position: list[int] = PrivateAttr(default_factory=lambda: [0])

    def __init__(self, replies: Sequence[FakeReply], **kwargs: Any) -> None:
        super().__init__(fn=lambda messages, tools: "", replies=list(replies), **kwargs)

    def _reply(self, messages: list[BaseMessage], tools: list[dict[str, Any]]) -> FakeReply:
        index = self._position[0]
        if index >= len(self.replies):
            return IndexError(
                f"ScriptedChatModel ran out of replies after {len(self.replies)} calls"
            )
        self._position[0] += 1
        reply: FakeReply = self.replies[index]
        return reply
