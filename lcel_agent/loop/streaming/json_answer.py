"""An incremental reader of JSON-protocol replies that yields only the answer's text.

A model answering ``{"action": "final", "action_input": "北京晴，25℃"}`` streams it
in fragments (``'{"acti'``, ``'on": "fi'``, ...). :class:`JsonAnswerReader` is fed
those fragments and returns, from each, the characters of the ``action_input``
string that are known to belong to a ``final`` action, JSON escapes decoded::

    reader = JsonAnswerReader()
    [reader.feed(p) for p in ['{"action": "fin', 'al", "action_input": "北', '京晴"}']]
    # ['', '', '北', '京晴']

Rules: the first top-level object of the reply is read (prose or a fence before
it is skipped); a reply that opens with a list (parallel actions) streams
nothing; an ``action_input`` that comes before ``action`` is held back until
the action is known; anything but a string ``action_input`` streams nothing
(the loop emits such answers whole, at the end); a tool action streams nothing.
"""

from __future__ import annotations

from ...state import FINAL_ACTION

__all__ = ["JsonAnswerReader"]

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_SPACE = " \t\r\n"

# Phases of the reader.
_SEEK = 0  # before the top-level object
_KEY_OR_END = 1  # after '{' or ','
_KEY = 2  # inside a key string
_COLON = 3
_VALUE = 4  # before a value
_STRING = 5  # inside a string value
_SKIP = 6  # inside a value of no interest that is not a plain string
_AFTER = 7  # after a value: ',' or '}'
_DONE = 8

# What the string being read is.
_OTHER, _ACTION, _ANSWER = 0, 1, 2


class JsonAnswerReader:
    """Feed a reply's text in fragments; each ``feed`` returns the new answer text."""

    __slots__ = (
        "_action",
        "_escape",
        "_held",
        "_high",
        "_key",
        "_kind",
        "_nest",
        "_out",
        "_phase",
        "_skip_escape",
        "_skip_string",
        "_text",
        "_unicode",
    )

    def __init__(self) -> None:
        self._phase = _SEEK
        self._text: list[str] = []  # the key, or the action's name, being read
        self._key = ""
        self._kind = _OTHER
        self._action: bool | None = None  # is the action "final"? None until known
        self._held: list[str] = []  # answer text read before the action was known
        self._out: list[str] = []
        self._escape = False
        self._unicode: str | None = None  # hex digits of a \\u escape being read
        self._high: str | None = None  # a high surrogate waiting for its pair
        self._nest = 0
        self._skip_string = False
        self._skip_escape = False

    @property
    def done(self) -> bool:
        """True once the top-level object has closed, or the reply cannot hold an answer."""
        return self._phase == _DONE

    def feed(self, fragment: str) -> str:
        """Read ``fragment``; return the answer text it completes (often empty)."""
        for char in fragment:
            if self._phase == _DONE:
                break
            self._step(char)
        out = "".join(self._out)
        self._out.clear()
        return out

    # --- the machine ------------------------------------------------------------------
    def _step(self, char: str) -> None:
        phase = self._phase
        if phase in (_KEY, _STRING):
            self._string_char(char)
        elif phase == _SKIP:
            self._skip_char(char)
        elif char in _SPACE:
            return
        elif phase == _SEEK:
            if char == "{":
                self._phase = _KEY_OR_END
            elif char == "[":
                self._phase = _DONE  # parallel actions are not streamed
        elif phase == _KEY_OR_END:
            if char == '"':
                self._phase, self._kind = _KEY, _OTHER
            else:
                self._phase = _DONE  # '}' (an empty object) or a broken one
        elif phase == _COLON:
            self._phase = _VALUE if char == ":" else _DONE
        elif phase == _VALUE:
            self._value_start(char)
        elif phase == _AFTER:
            self._phase = _KEY_OR_END if char == "," else _DONE

    def _value_start(self, char: str) -> None:
        if char == '"':
            self._phase = _STRING
            self._kind = {"action": _ACTION, "action_input": _ANSWER}.get(self._key, _OTHER)
            return
        if self._key == "action_input":
            self._phase = _DONE  # a non-string answer is emitted whole, when the run ends
            return
        self._phase, self._nest = _SKIP, 0
        self._skip_char(char)

    def _skip_char(self, char: str) -> None:
        if self._skip_string:
            if self._skip_escape:
                self._skip_escape = False
            elif char == "\\":
                self._skip_escape = True
            elif char == '"':
                self._skip_string = False
            return
        if char == '"':
            self._skip_string = True
        elif char in "{[":
            self._nest += 1
        elif char in "}]":
            if self._nest == 0:
                self._phase = _DONE  # the top-level object closed
                return
            self._nest -= 1
        elif char == "," and self._nest == 0:
            self._phase = _KEY_OR_END

    # --- strings ------------------------------------------------------------------------
    def _string_char(self, char: str) -> None:
        if self._unicode is not None:
            self._unicode += char
            if len(self._unicode) == 4:
                code, self._unicode = self._unicode, None
                try:
                    self._decoded(chr(int(code, 16)))
                except ValueError:
                    self._phase = _DONE  # not hex: a broken reply
            return
        if self._escape:
            self._escape = False
            if char == "u":
                self._unicode = ""
            elif char in _ESCAPES:
                self._decoded(_ESCAPES[char])
            else:
                self._phase = _DONE
            return
        if char == "\\":
            self._escape = True
        elif char == '"':
            self._string_end()
        else:
            self._decoded(char)

    def _decoded(self, char: str) -> None:
        if "\ud800" <= char <= "\udbff":
            self._high = char  # the first half of a surrogate pair
            return
        if self._high is not None:
            high, self._high = self._high, None
            if "\udc00" <= char <= "\udfff":
                char = chr(0x10000 + ((ord(high) - 0xD800) << 10) + (ord(char) - 0xDC00))
            else:
                char = high + char
        if self._phase == _KEY or self._kind == _ACTION:
            self._text.append(char)
        elif self._kind == _ANSWER:
            if self._action is True:
                self._out.append(char)
            elif self._action is None:
                self._held.append(char)

    def _string_end(self) -> None:
        text = "".join(self._text)
        self._text.clear()
        if self._phase == _KEY:
            self._key, self._phase = text, _COLON
            return
        self._phase = _AFTER
        if self._kind == _ACTION:
            self._settle(final=text.strip().lower() == FINAL_ACTION)

    def _settle(self, *, final: bool) -> None:
        """The action is known: release the held answer, or drop it for good."""
        if self._action is not None:
            return  # a repeated key: the first reading stands
        self._action = final
        if final:
            self._out.extend(self._held)
        else:
            self._phase = _DONE
        self._held.clear()
