"""Reading chat messages: the one helper every layer shares, so none reaches upward for it."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage

__all__ = ["message_text"]


def message_text(value: Any) -> str:
    """The text of a str, a message, or a message's list of content parts."""
    if isinstance(value, BaseMessage):
        value = value.content
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [
            p if isinstance(p, str) else str(p.get("text", ""))
            for p in value
            if isinstance(p, (str, dict))
        ]
        return "".join(parts)
    raise TypeError(f"expected a str or a message, not {type(value).__name__}")
