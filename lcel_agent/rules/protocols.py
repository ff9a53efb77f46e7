"""How one loop is written into the memory window, per protocol.

The JSON protocol keeps the conversation as plain user/assistant text: the
action the model took (re-serialised, so fences and prose do not pile up in the
history) and one user message of observations. The tool-calling protocol keeps
the assistant message with its ``tool_calls`` and one ``ToolMessage`` per call,
as the chat APIs require. Either way a loop is one turn, evicted as a whole.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from .. import texts
from .._redact import redact
from .._shared.messages import message_text
from ..state import AgentState

__all__ = ["JsonTranscript", "ToolCallTranscript", "Transcript", "with_blocks"]

# An unreadable reply is shown back to the model (it must see what it wrote to put it
# right), but only its start: it is the newest turn, which the window never cuts, and on
# the 1.5B model a reply copying every observation back (300 characters, ~250 tokens)
# pushed the turns that held the facts out of the 800-token window.
_MAX_BAD_REPLY_CHARS = 160


def _bad_reply(state: AgentState) -> str:
    """The start of a reply that could not be read, redacted, for the model's history."""
    # Redacted before it is cut: a secret cut in half would no longer be recognised.
    raw = redact(message_text(state.reply)) if state.reply is not None else ""
    shown = raw if len(raw) <= _MAX_BAD_REPLY_CHARS else raw[:_MAX_BAD_REPLY_CHARS] + "…"
    return shown or "(empty reply)"


def with_blocks(text: str, blocks: Sequence[dict[str, Any]]) -> str | list[str | dict[str, Any]]:
    """Message content: ``text``, followed by media blocks (a tool's images) when there are any."""
    if not blocks:
        return text
    return [{"type": "text", "text": text}, *blocks]


class Transcript(Protocol):
    """Writes a finished loop as messages for the window."""

    def messages(self, state: AgentState, notice: str | None) -> list[BaseMessage]:
        """The loop's messages; ``notice`` is a re-prompt for loops without observations."""
        ...


class JsonTranscript:
    """JSON protocol: assistant JSON, then one user message of observations."""

    def messages(self, state: AgentState, notice: str | None) -> list[BaseMessage]:
        if state.actions:
            body = [a.to_dict() for a in state.actions]
            said = json.dumps(body[0] if len(body) == 1 else body, ensure_ascii=False)
        else:
            said = _bad_reply(state)
        out: list[BaseMessage] = [AIMessage(content=said)]
        if len(state.observations) == 1:
            lines = [texts.OBSERVATION.format(output=state.observations[0].output)]
        else:  # several calls: say which result answers which call
            lines = [
                texts.OBSERVATION_OF.format(
                    name=o.action.tool, input=o.action.input_text, output=o.output
                )
                for o in state.observations
            ]
        if notice:
            lines.append(notice)
        if lines:
            media = [b for o in state.observations for b in o.blocks]
            out.append(HumanMessage(content=with_blocks("\n".join(lines), media)))
        return out


class ToolCallTranscript:
    """Tool-calling protocol: the assistant's tool calls, then a ToolMessage per call."""

    def messages(self, state: AgentState, notice: str | None) -> list[BaseMessage]:
        reply = state.reply
        calls = [a for a in state.actions if a.call_id is not None]
        if reply is not None and calls:
            out: list[BaseMessage] = [AIMessage(content=reply.content, tool_calls=reply.tool_calls)]
            outputs = {
                o.action.call_id: with_blocks(o.output, o.blocks) for o in state.observations
            }
            for action in calls:
                fallback = notice or texts.TOOL_NOT_RUN.format(name=action.tool)
                out.append(
                    ToolMessage(
                        content=outputs.get(action.call_id, fallback),
                        tool_call_id=action.call_id or "",
                    )
                )
            return out
        out = [AIMessage(content=_bad_reply(state))]
        if notice:
            out.append(HumanMessage(content=notice))
        return out
