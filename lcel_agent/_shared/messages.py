"""Reading chat messages: the one helper every layer shares, so none reaches upward for it."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage

__all__ = ["MEDIA_TYPES", "has_media", "message_text"]

#: Content block types that carry media rather than text (OpenAI's, and LangChain's standard).
MEDIA_TYPES = frozenset({"image", "image_url", "audio", "input_audio", "file", "video"})


def has_media(value: Any) -> bool:
    """True when a message (or its content) holds a media block: an image, audio, a file."""
    if isinstance(value, BaseMessage):
        value = value.content
    return isinstance(value, list) and any(
        isinstance(p, dict) and p.get("type") in MEDIA_TYPES for p in value
    )


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
