"""Policies decide what the simulated model answers.

A policy is anything callable as ``policy(messages, tools) -> reply``, where ``messages``
are the request's OpenAI message dicts and ``tools`` the request's ``tools`` list (or None).
A reply may be:

* a ``str``: the assistant's text;
* a :class:`Reply`: text and/or tool calls;
* a ``dict``: one tool call ``{"name": ..., "arguments": {...}}`` or a whole reply
  ``{"content": ..., "tool_calls": [...]}``;
* a :class:`~lcel_agent.testing.faults.Fault` or ``FaultSpec``: answer this request with a fault.

:class:`ScriptedPolicy` plays a fixed list of such replies in order::

    policy = ScriptedPolicy([
        {"name": "get_weather", "arguments": {"city": "北京"}},
        Fault.RATE_LIMIT,
        "北京今天晴。",
    ])

or write a function::

    def echo(messages, tools):
        return Reply(content=messages[-1]["content"])
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from lcel_agent.testing.faults import REPLY_FAULTS, Fault, FaultSpec

__all__ = [
    "Policy",
    "Reply",
    "ReplyLike",
    "ScriptExhaustedError",
    "ScriptedPolicy",
    "to_reply",
]


@dataclass(frozen=True)
class Reply:
    """What the simulated model answers: text, tool calls, or both.

    Each tool call is ``{"name": str, "arguments": dict | str}`` with an optional ``"id"``;
    a ``str`` argument is sent verbatim, so a test can send arguments that are not JSON.
    """

    content: str | None = None
    """The assistant's text (None with tool calls is what OpenAI sends)."""
    tool_calls: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)
    """The tool calls, in order."""
    finish_reason: str | None = None
    """Overrides the finish reason (default ``tool_calls`` when there are calls, else ``stop``)."""

    def __post_init__(self) -> None:
        # Accept a list for convenience but keep the dataclass hashable and immutable.
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))
        for call in self.tool_calls:
            if not isinstance(call.get("name"), str):
                raise ValueError(f"a tool call needs a string 'name': {call!r}")

    @property
    def finish(self) -> str:
        """The finish reason sent to the client."""
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"

    def arguments_json(self, index: int) -> str:
        """The ``arguments`` string of tool call ``index`` as sent on the wire."""
        args = self.tool_calls[index].get("arguments", {})
        return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)


ReplyLike: TypeAlias = str | Reply | Mapping[str, Any] | Fault | FaultSpec
"""Anything a policy may return."""

Policy: TypeAlias = Callable[[list[dict[str, Any]], list[dict[str, Any]] | None], ReplyLike]
"""``(messages, tools) -> reply``: the simulated model."""


def to_reply(value: ReplyLike) -> Reply | FaultSpec:
    """Normalise a policy's return value to a :class:`Reply` or a :class:`FaultSpec`."""
    if isinstance(value, Reply | FaultSpec):
        return value
    if isinstance(value, Fault):
        return FaultSpec(value)
    if isinstance(value, str):
        return Reply(content=value)
    if isinstance(value, Mapping):
        if "tool_calls" in value or "content" in value:
            return Reply(
                content=value.get("content"),
                tool_calls=tuple(value.get("tool_calls") or ()),
                finish_reason=value.get("finish_reason"),
            )
        if "name" in value:
            return Reply(tool_calls=(value,))
        raise ValueError(f"a dict reply needs 'name' or 'content'/'tool_calls': {value!r}")
    raise TypeError(f"a policy returned {type(value).__name__}; expected str, Reply, dict or Fault")


class ScriptExhaustedError(RuntimeError):
    """A :class:`ScriptedPolicy` was asked for more replies than it has.

    The server answers such a request with a 500 whose message says so.
    """


class ScriptedPolicy:
    """Plays a fixed list of replies, one per chat request, thread-safe.

    Faults in the list answer their request with that fault. Faults injected with
    ``srv.inject`` or drawn from a ``FaultProfile`` do not consume a reply, so a client
    that retries after them gets the reply it would have got.
    """

    def __init__(self, replies: Iterable[ReplyLike]) -> None:
        self._replies = [to_reply(r) for r in replies]
        for reply in self._replies:
            if isinstance(reply, FaultSpec) and reply.fault in REPLY_FAULTS and not reply.reply:
                raise ValueError(
                    f"a scripted Fault.{reply.fault.name} damages a reply: give it one, "
                    f"FaultSpec(Fault.{reply.fault.name}, reply=...)"
                )
        self._next = 0
        self._lock = threading.Lock()

    @property
    def remaining(self) -> int:
        """How many replies are left."""
        with self._lock:
            return len(self._replies) - self._next

    def __call__(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
    ) -> Reply | FaultSpec:
        with self._lock:
            if self._next >= len(self._replies):
                raise ScriptExhaustedError(
                    f"ScriptedPolicy ran out of replies: all {len(self._replies)} were used "
                    "and another chat request arrived"
                )
            reply = self._replies[self._next]
            self._next += 1
            return reply
