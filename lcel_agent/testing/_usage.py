"""The token counts a provider reports, and the cut it makes at ``max_tokens``.

:class:`~lcel_agent.testing.server.SimulatedOpenAIServer` counts every prompt and reply
with these (OpenAI's published recipe for the prompt), so ``usage`` in its answers adds
up the way a real provider's does::

    from lcel_agent.testing.server import completion_tokens, cut_reply, prompt_tokens
    prompt_tokens([{"role": "user", "content": "hi"}], None, len)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from lcel_agent.testing.policies import Reply

__all__ = ["Counter", "completion_tokens", "cut_reply", "prompt_tokens"]

Counter = Callable[[str], int]


def _text(content: Any) -> str:
    """The text of a message ``content``: a string or a list of ``{"type": "text"}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""


def prompt_tokens(
    messages: Iterable[Mapping[str, Any]], tools: list[Any] | None, count: Counter
) -> int:
    """Prompt tokens as the server reports them (OpenAI's published recipe).

    Per message: 3 + tokens of the role, the text, the ``name`` (+1) and each tool call's
    name and arguments; plus 3 priming the reply; plus the tokens of ``json.dumps(tools)``.
    """
    total = 3
    for message in messages:
        total += 3 + count(str(message.get("role", ""))) + count(_text(message.get("content")))
        if message.get("name"):
            total += 1 + count(str(message["name"]))
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            total += count(str(function.get("name", ""))) + count(
                str(function.get("arguments", ""))
            )
    if tools:
        total += count(json.dumps(tools, ensure_ascii=False))
    return total


def completion_tokens(reply: Reply, count: Counter) -> int:
    """Completion tokens: the text plus each tool call's name and arguments."""
    total = count(reply.content or "")
    for index, call in enumerate(reply.tool_calls):
        total += count(str(call["name"])) + count(reply.arguments_json(index))
    return total


def _prefix(text: str, limit: int, count: Counter) -> str:
    """The longest beginning of ``text`` within ``limit`` tokens."""
    if count(text) <= limit:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if count(text[:mid]) <= limit else (lo, mid - 1)
    return text[:lo]


def cut_reply(reply: Reply, limit: int, count: Counter) -> Reply:
    """``reply`` cut to ``limit`` completion tokens, as a provider cuts at ``max_tokens``.

    The text comes first, then the tool calls in order; the call that crosses the limit
    keeps the beginning of its arguments (JSON cut mid-way) and the later calls are lost.
    The finish reason is ``"length"``.
    """
    left = limit
    text = reply.content
    if text:
        text = _prefix(text, left, count)
        left -= count(text)
    calls: list[Mapping[str, Any]] = []
    for index, call in enumerate(reply.tool_calls):
        left -= count(str(call["name"]))
        if left < 0:
            break
        arguments = reply.arguments_json(index)
        kept = _prefix(arguments, left, count)
        calls.append({**call, "arguments": kept})
        left -= count(kept)
        if kept != arguments:
            break
    return Reply(content=text, tool_calls=tuple(calls), finish_reason="length")
