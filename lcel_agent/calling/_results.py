"""Read whatever a tool returned into what the model reads, what it sees, and what it keeps.

A tool may return a string, a JSON-able value, a ``ToolMessage`` (a tool invoked
with a full tool call answers with one, carrying ``response_format=
"content_and_artifact"``'s artifact), a list of content blocks (an MCP tool's
text and images), or a LangGraph ``Command`` whose update holds the
``ToolMessage``. :func:`read_result` turns each into a :class:`ToolResult`::

    result = read_result(tool.invoke(call))
    result.text       # the text blocks joined: what the JSON protocol reads, what is judged
    result.blocks     # images and other media blocks: sent to the model as blocks
    result.artifact   # never shown to the model; kept on the observation

The text of a list of blocks is the text itself, never the JSON of the blocks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import ToolMessage

from .._shared.messages import MEDIA_TYPES
from ._output import ERROR_PREFIX, is_error_result, stringify_output

__all__ = ["ToolResult", "is_media_block", "media_blocks", "read_result"]


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One tool return, read."""

    text: str
    """The text the model reads (the text blocks joined, or the value as text)."""
    blocks: tuple[dict[str, Any], ...] = ()
    """Media blocks the tool returned (images ...), passed to the model as they are."""
    artifact: Any = None
    """The tool's artifact, if it gave one."""
    value: Any = None
    """What the tool returned when it was a plain value (a ``TransientError`` stays one)."""


def is_media_block(value: Any) -> bool:
    """True for a content block carrying an image, audio, a file or a video."""
    return isinstance(value, Mapping) and value.get("type") in MEDIA_TYPES


def media_blocks(content: Any) -> tuple[dict[str, Any], ...]:
    """The media blocks of a message's content (none for a plain string)."""
    if not isinstance(content, list):
        return ()
    return tuple(dict(part) for part in content if is_media_block(part))


def _is_block(value: Any) -> bool:
    return isinstance(value, str) or (
        isinstance(value, Mapping) and isinstance(value.get("type"), str)
    )


def _block_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if part.get("type") == "text" and isinstance(part.get("text"), str):
        return str(part["text"])
    # A resource, a JSON block: its meaning is in its fields; the id is LangChain's own.
    return stringify_output({k: v for k, v in part.items() if k != "id"})


def _from_blocks(parts: Sequence[Any], artifact: Any) -> ToolResult:
    media = tuple(dict(p) for p in parts if is_media_block(p))
    text = "\n".join(_block_text(p) for p in parts if not is_media_block(p))
    if not text and media:
        text = f"(the tool returned {len(media)} media block{'s' if len(media) > 1 else ''})"
    return ToolResult(text, media, artifact)


def _is_command(value: Any) -> bool:
    # Checked by name: langgraph is the user's dependency, not lcel_agent's.
    kind = type(value)
    return kind.__name__ == "Command" and kind.__module__.startswith("langgraph")


def _command_message(command: Any, tool: str, call_id: str | None) -> ToolMessage | str:
    """The ToolMessage a ``Command`` answers the call with, or why it cannot be applied."""
    update = command.update
    items = list(update.items()) if isinstance(update, Mapping) else list(update or ())
    others = sorted({str(key) for key, _ in items if key != "messages"})
    moves = [name for name in ("goto", "graph", "resume") if getattr(command, name, None)]
    if others or moves:
        return (
            f"{ERROR_PREFIX} tool {tool!r} returned a LangGraph Command that "
            f"{'updates ' + ', '.join(others) if others else 'moves to ' + ', '.join(moves)}; "
            "this agent runs no graph to apply it to: return the result itself"
        )
    messages = [m for key, value in items if key == "messages" for m in _listed(value)]
    replies = [m for m in messages if isinstance(m, ToolMessage)]
    mine = [m for m in replies if m.tool_call_id == call_id] or replies
    if not mine:
        return f"{ERROR_PREFIX} tool {tool!r} returned a LangGraph Command with no ToolMessage"
    return mine[0]


def _listed(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


def read_result(value: Any, *, tool: str = "tool", call_id: str | None = None) -> ToolResult:
    """Read one tool return (see the module docstring).

    ``tool`` and ``call_id`` name the call, for a ``Command``'s ``ToolMessage`` and
    for the message saying why a ``Command`` cannot be applied.
    """
    if _is_command(value):
        value = _command_message(value, tool, call_id)
    if not isinstance(value, ToolMessage):
        if isinstance(value, list) and value and all(_is_block(v) for v in value):
            return _from_blocks(value, None)
        if is_media_block(value):
            return _from_blocks([value], None)
        return ToolResult(stringify_output(value), value=value)
    artifact = value.artifact
    content = value.content
    read = (
        _from_blocks(content, artifact)
        if isinstance(content, list)
        else ToolResult(content, (), artifact)
    )
    if value.status == "error" and not is_error_result(read.text):
        return ToolResult(f"{ERROR_PREFIX} {read.text}", read.blocks, artifact)
    return read
