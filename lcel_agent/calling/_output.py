"""Turn whatever a tool returned into bounded text the model may read.

The dispatcher and :func:`lcel_agent.tools.safe_tool` share these helpers::

    from lcel_agent.tools import is_error_result, stringify_output, truncate_output

    text = truncate_output(stringify_output(raw), 20_000)
    if is_error_result(text):
        ...  # the tool failed: the ``ERROR:`` convention of the article
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import BaseMessage

__all__ = [
    "ERROR_PREFIX",
    "TransientError",
    "is_error_result",
    "stringify_output",
    "truncate_output",
]

ERROR_PREFIX = "ERROR:"
"""A tool result starting with this (after leading whitespace) means failure."""


class TransientError(str):
    """An ``ERROR:`` result that may clear if the call is made again: a timeout, a
    dropped connection, a 5xx. ::

        return TransientError("ERROR: the weather service did not answer in time")

    To the model, and to any other framework, it is the plain string. lcel_agent's
    dispatcher treats it like a timeout: an idempotent tool is retried once, under
    the ``tool_timeout`` policy, before the model hears of it. A permanent failure
    ("no such city") stays a plain ``ERROR:`` string and is never retried unasked.
    """

    __slots__ = ()

    def __new__(cls, text: str) -> TransientError:
        if not (isinstance(text, str) and text.lstrip().startswith(ERROR_PREFIX)):
            raise ValueError(f"a TransientError is an {ERROR_PREFIX!r} result, got {text!r}")
        return super().__new__(cls, text)


def is_error_result(value: Any) -> bool:
    """Whether ``value`` is a failed tool result, by the tool's own convention.

    Two conventions are read: a string starting with ``ERROR:`` (the article's;
    leading whitespace ignored), and an object whose only or first key is
    ``"error"`` with a value that says something (``{"error": "No such file"}``, as a
    dict or as its JSON text), which is how many backends and HTTP APIs answer a
    failed request. ``{"error": null, "data": ...}`` is a success: its error is empty.
    A message (e.g. a ``ToolMessage``) is judged by its content.
    """
    if isinstance(value, BaseMessage):
        value = value.content
    if isinstance(value, str):
        stripped = value.lstrip()
        if stripped.startswith(ERROR_PREFIX):
            return True
        if not (stripped.startswith("{") and _ERROR_KEY.match(stripped)):
            return False  # the cheap test first: no JSON parsed for an ordinary result
        try:
            value = json.loads(stripped)
        except ValueError:
            return False
    return isinstance(value, Mapping) and _error_first(value)


# An object whose first key is "error": the only shape worth parsing the JSON for.
_ERROR_KEY = re.compile(r'\{\s*"error"\s*:')


def _error_first(value: Mapping[Any, Any]) -> bool:
    first = next(iter(value), None)
    if first != "error":
        return False
    said = value[first]
    return said is not None and said is not False and said != "" and said != {} and said != []


def stringify_output(value: Any) -> str:
    """Render a tool's return value as text.

    Strings pass through, a message gives its content, JSON-serialisable values
    become JSON (``ensure_ascii=False``, so Chinese stays readable and short),
    and anything else falls back to ``str()``.
    """
    if isinstance(value, BaseMessage):
        value = value.content
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _marker(removed: int) -> str:
    return f"\n…[truncated {removed:,} characters]…\n"


def truncate_output(text: str, max_chars: int) -> str:
    """Cut ``text`` to at most ``max_chars`` characters, keeping its head and tail.

    The middle is replaced by a marker such as
    ``"\\n…[truncated 12,345 characters]…\\n"`` naming how many characters of
    ``text`` were dropped; the marker counts toward ``max_chars``. When
    ``max_chars`` is too small to hold the marker, the head alone is kept.
    """
    if max_chars < 0:
        raise ValueError(f"max_chars must be >= 0, got {max_chars}")
    if len(text) <= max_chars:
        return text
    # The marker's length depends on the count it reports; two rounds settle it
    # because the count only shrinks as the marker grows.
    keep = max_chars
    for _ in range(3):
        marker = _marker(len(text) - keep)
        keep = max_chars - len(marker)
    if keep < 2:
        return text[:max_chars]
    marker = _marker(len(text) - keep)
    head = (keep + 1) // 2
    tail = keep - head
    return text[:head] + marker + (text[-tail:] if tail else "")
