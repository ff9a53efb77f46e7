"""Readers that turn the answer stage's streamed replies into words, and only words.

* :class:`WordsReader` reads a text reply: its words as they come, without the
  whitespace around them; a reply that turns out to be JSON (a ``final`` action written
  out of habit) streams only the ``final``'s answer, and a call nothing.
* :class:`FieldsReader` reads a reply held to the stage's lines schema
  (``{"1. 北京": "...", "summary": "..."}``): each field's line as soon as the field is
  complete, formatted as the stage formats it (led by its subject where it needs it),
  the lines joined by newlines, so the text streamed is the text delivered.

::

    reader = FieldsReader(lambda key, value: value)
    [reader.feed(p) for p in ['{"1. 北京": "晴', '", "summary": "好"}']]   # ['', '晴\\n好']
"""

from __future__ import annotations

import json
from collections.abc import Callable

from .json_answer import JsonAnswerReader

__all__ = ["FieldsReader", "WordsReader"]

_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"


class WordsReader:
    """A text reply's words (see the module docstring)."""

    __slots__ = ("_json", "_pending", "_started")

    def __init__(self) -> None:
        self._started = False
        self._json: JsonAnswerReader | None = None
        self._pending = ""  # whitespace held until words follow it

    def feed(self, fragment: str) -> str:
        if self._json is not None:
            return self._json.feed(fragment)
        if not self._started:
            fragment = fragment.lstrip(_SPACE)
            if not fragment:
                return ""
            self._started = True
            if fragment[0] in "{[`":
                self._json = JsonAnswerReader()
                return self._json.feed(fragment)
        text = self._pending + fragment
        body = text.rstrip(_SPACE)
        self._pending = text[len(body) :]
        return body


class FieldsReader:
    """A schema-held reply's lines, each once its field is complete (see the module doc).

    Args:
        line: ``line(key, value)`` -> the line as the stage delivers it, or None for a
            field that is no line of the answer.
    """

    __slots__ = ("_at", "_count", "_line", "_text")

    def __init__(self, line: Callable[[str, str], str | None]) -> None:
        self._line = line
        self._text = ""
        self._at = -1  # the position after the last complete field (-1: before the "{")
        self._count = 0

    def feed(self, fragment: str) -> str:
        self._text += fragment
        if self._at < 0:
            start = self._text.find("{")
            if start < 0:
                return ""
            self._at = start + 1
        out: list[str] = []
        while (field := self._next()) is not None:
            key, value = field
            line = self._line(key, value) if isinstance(value, str) else None
            if line:
                out.append(("\n" if self._count else "") + line)
                self._count += 1
        return "".join(out)

    def _next(self) -> tuple[str, object] | None:
        """The next complete ``key: value`` pair after ``_at``, or None until it is whole."""
        text, at = self._text, self._at
        while at < len(text) and text[at] in _SPACE + ",":
            at += 1
        if at >= len(text) or text[at] != '"':
            return None
        try:
            key, after = _DECODER.raw_decode(text, at)
            while after < len(text) and text[after] in _SPACE:
                after += 1
            if after >= len(text) or text[after] != ":":
                return None
            after += 1
            while after < len(text) and text[after] in _SPACE:
                after += 1
            value, end = _DECODER.raw_decode(text, after)
        except ValueError:
            return None  # not whole yet
        if not isinstance(value, str) and end >= len(text):
            return None  # a number or a literal may go on in the next fragment
        self._at = end
        return str(key), value
