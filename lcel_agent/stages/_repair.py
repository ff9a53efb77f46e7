"""Read JSON the way models write it, without ever completing what was cut off.

Small models asked for JSON write it almost right: a line break inside a string
(a summary of several lines), Python quotes, a trailing comma, a comment after
the object. :func:`read_lenient` accepts those, using ``json-repair`` for the
repair itself. What it never does is finish a value: the text must hold a whole
object or list (every bracket closed, every string ended) before anything is
repaired, because a reply cut off mid-way is not an action (``json-repair``
alone would happily close ``{"action": "final", "action_input": "hal`` and call
it an answer).

::

    read_lenient('{"action": "final", "action_input": "line 1\\nline 2",}')
    # {'action': 'final', 'action_input': 'line 1\\nline 2'}
    read_lenient('{"action": "final", "action_input": "cut of')   # None
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import json_repair

__all__ = [
    "end_of_group",
    "read_closed_outer",
    "read_lenient",
    "top_level_spans",
    "top_level_values",
    "whole_spans",
]

_OPENERS = "{["
# Starting points tried at most: a reply of prose full of braces costs no more than this.
_MAX_STARTS = 64
_CLOSERS = {"{": "}", "[": "]"}
# A call's parentheses, for end_of_group: the brackets inside it must close in order too.
_GROUP_CLOSERS = {**_CLOSERS, "(": ")"}
_QUOTES = "\"'"


def _end_of_value(text: str, start: int, closers: dict[str, str] = _CLOSERS) -> int | None:
    """Index just past the object or list opening at ``start``, or None if it never closes.

    Strings open with either quote and end at the same quote (a backslash escapes the
    next character); brackets must close in order.
    """
    ends = "".join(closers.values())
    stack: list[str] = []
    quote = ""
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
            continue
        if char in _QUOTES:
            quote = char
        elif char in closers:
            stack.append(closers[char])
        elif char in ends:
            if not stack or stack.pop() != char:
                return None
            if not stack:
                return index + 1
    return None


def end_of_group(text: str, start: int) -> int | None:
    """Index just past the bracket group opening at ``start`` (``(``, ``[`` or ``{``), or None.

    As for a JSON value: quotes are respected, and every bracket inside must close in order
    (``get_weather(city="a)b")`` ends at its last parenthesis).
    """
    return _end_of_value(text, start, _GROUP_CLOSERS)


def whole_spans(text: str) -> Iterator[str]:
    """Every complete ``{...}`` or ``[...]`` in ``text``, leftmost first (nested ones too)."""
    starts = (index for index, char in enumerate(text) if char in _OPENERS)
    for _, start in zip(range(_MAX_STARTS), starts, strict=False):
        if (end := _end_of_value(text, start)) is not None:
            yield text[start:end]


def _load(span: str) -> Any:
    try:
        # strict=False lets control characters (a raw line break) stand inside strings.
        return json.loads(span, strict=False)
    except ValueError:
        pass
    try:
        return json_repair.loads(span, skip_json_loads=True)
    except (ValueError, RecursionError):
        return None


# How a reply ends when its writer closed the value but slipped on the way (a closing
# quote after the brace: ``..."}`` written ``...}"``), after any closing fence.
_CLOSED_ENDINGS = ("}", "]", '}"', ']"')


def _closed_at_the_end(text: str) -> str | None:
    """From the first ``{`` or ``[`` to the end, when the text ends the way a value closes."""
    body = text.rstrip().removesuffix("```").rstrip()
    starts = [i for i in (body.find("{"), body.find("[")) if i >= 0]
    if not starts or not body.endswith(_CLOSED_ENDINGS):
        return None
    return body[min(starts) :]


def read_lenient(text: str) -> dict[str, Any] | list[Any] | None:
    """The first complete object or list in ``text``, repaired if need be; None if none.

    "Complete" means every bracket closed and every string ended.
    """
    for span in whole_spans(text):
        value = _load(span)
        # The repair must keep the shape it was given: braces stay an object.
        kind = dict if span.startswith("{") else list
        if isinstance(value, kind) and value:
            return value
    return None


def read_closed_outer(text: str) -> dict[str, Any] | list[Any] | None:
    """The outermost value of a text that ends the way a value closes, repaired; else None.

    For a reply whose first object does not parse but whose text ends in ``}``, ``]``
    (or a closer and a stray quote: ``..."}`` written ``...}"``): its writer finished it
    and slipped inside, so the whole of it is repaired, rather than an inner object
    being taken for the reply. A text that stops anywhere else was cut off, and is not
    completed.
    """
    tail = _closed_at_the_end(text)
    if tail is None:
        return None
    try:
        json.JSONDecoder().raw_decode(tail)
        return None  # the first value is whole: the strict reading takes it
    except ValueError:
        pass
    value = _load(tail)
    kind = dict if tail.startswith("{") else list
    return value if isinstance(value, kind) and value else None


def top_level_spans(text: str) -> list[tuple[int, int, dict[str, Any] | list[Any]]]:
    """Every whole object or list in ``text`` that is not inside another, with where it lies.

    ``(start, end, value)`` in order, ``text[start:end]`` being the value's text. Each is read
    strictly, else leniently; a span that reads as neither is skipped.
    """
    spans: list[tuple[int, int, dict[str, Any] | list[Any]]] = []
    index = 0
    while len(spans) < _MAX_STARTS:
        starts = [i for i in (text.find("{", index), text.find("[", index)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        end = _end_of_value(text, start)
        if end is None:
            index = start + 1
            continue
        value = _load(text[start:end])
        kind = dict if text[start] == "{" else list
        if isinstance(value, kind) and value:
            spans.append((start, end, value))
        index = end
    return spans


def top_level_values(text: str) -> list[dict[str, Any] | list[Any]]:
    """Every whole object or list in ``text`` that is not inside another, in order.

    Small models write a plan as several objects one after another (in one fence or
    not) instead of a JSON list: ``{...}\n{...}\n{...}``. Each is read strictly, else
    leniently; a span that reads as neither is skipped.
    """
    return [value for _, _, value in top_level_spans(text)]
