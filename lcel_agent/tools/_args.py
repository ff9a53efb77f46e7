"""Accept the loose argument shapes models really send to a one-string tool.

The article's pitfall 1: a model asked for ``get_weather("北京")`` may send
``"北京"``, ``{"city": "北京"}``, ``{"action_input": "北京"}`` or the JSON text of
either. :func:`coerce_single_arg` turns all of them into the string, and
:class:`SingleArgInput` / :class:`SingleArgTool` make a tool accept them while
its schema still shows one clean string field::

    coerce_single_arg('{"city": "北京"}', "city")   # -> "北京"

    class WeatherInput(SingleArgInput):
        city: str = Field(description="城市中文名")
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ValidationError, model_validator

from lcel_agent._redact import redact

__all__ = [
    "ALIAS_KEYS",
    "SingleArgInput",
    "SingleArgTool",
    "coerce_single_arg",
    "text_problem",
    "validation_error_text",
]

ALIAS_KEYS: tuple[str, ...] = ("action_input", "input", "__arg1", "query", "tool_input")
"""Keys tried, after the field's own name, when an object wraps the argument."""

_MAX_DEPTH = 4


def coerce_single_arg(value: Any, field: str) -> str:
    """Return the one string argument hidden in ``value``.

    Accepted, in order: a plain string (returned as is, unless it is the JSON
    text of a value that itself coerces, which is unwrapped); an int or float
    (``110000`` -> ``"110000"``); an object with key ``field`` or one of
    :data:`ALIAS_KEYS`, or with a single key of any name; a one-element list.
    Wrappers may nest a few levels. Raises ``ValueError`` when no single string
    can be found safely (``None``, a bool, an empty or ambiguous object, a longer
    list): the caller should re-prompt with the schema.
    """
    return _coerce(value, field, 0)


def _coerce(value: Any, field: str, depth: int) -> str:
    if depth > _MAX_DEPTH:
        raise ValueError(f"'{field}' is nested too deeply")
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "[", '"'):
            try:
                return _coerce(json.loads(stripped), field, depth + 1)
            except ValueError:
                # Text that merely looks like JSON ("[1, 2]", "{x"): the model did
                # send a string, so it is the argument.
                return value
        return value
    if isinstance(value, bool) or value is None:
        raise ValueError(f"expected a string for '{field}', got {value!r}")
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, dict):
        for key in (field, *ALIAS_KEYS):
            if key in value:
                return _coerce(value[key], field, depth + 1)
        if len(value) == 1:
            return _coerce(next(iter(value.values())), field, depth + 1)
        keys = ", ".join(sorted(map(str, value))) or "none"
        raise ValueError(f"expected a string for '{field}', got an object with keys: {keys}")
    if isinstance(value, list | tuple) and len(value) == 1:
        return _coerce(value[0], field, depth + 1)
    raise ValueError(f"expected one string for '{field}', got {type(value).__name__}")


class SingleArgInput(BaseModel):
    """Base of an args schema with exactly one ``str`` field that takes loose input.

    Subclass it with the field; ``model_validate`` then accepts every shape
    :func:`coerce_single_arg` does, while the JSON schema stays one string field.
    """

    @model_validator(mode="before")
    @classmethod
    def _coerce_loose_input(cls, data: Any) -> dict[str, str]:
        # model_fields is read on the class, never an instance (deprecated in pydantic 2.11).
        (field,) = cls.model_fields
        return {field: coerce_single_arg(data, field)}


def validation_error_text(error: ValidationError) -> str:
    """Turn a pydantic error about a tool's input into a short ``ERROR:`` result."""
    details = error.errors()
    message = str(details[0]["msg"]) if details else str(error)
    message = message.removeprefix("Value error, ")
    return redact(f"ERROR: invalid tool input: {message}")


class SingleArgTool(BaseTool):
    """A tool whose ``args_schema`` is a :class:`SingleArgInput`.

    Input of any shape that :func:`coerce_single_arg` understands reaches
    ``_run`` as the one keyword argument; input that cannot be coerced becomes an
    ``ERROR:`` result (through ``handle_validation_error``), never an exception.
    Subclasses set ``args_schema`` and implement ``_run(self, <field>: str)``.
    """

    handle_validation_error: Any = validation_error_text

    def _to_args_and_kwargs(
        self, tool_input: str | dict[str, Any], tool_call_id: str | None
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        # BaseTool passes a plain string through unvalidated and, on langchain-core
        # 0.3, drops fields a "before" validator renamed; validating the raw input
        # here works the same on 0.3 and 1.x.
        schema = self.args_schema
        if not (isinstance(schema, type) and issubclass(schema, SingleArgInput)):
            raise TypeError(f"{type(self).__name__}.args_schema must be a SingleArgInput")
        return (), schema.model_validate(tool_input).model_dump()


def text_problem(text: str, what: str, max_chars: int, hint: str) -> str | None:
    """The ``ERROR:`` text when a one-string tool's argument cannot be one: empty, longer
    than ``max_chars``, or holding control characters (None: it may be). ``what`` names
    the argument ("the city"); ``hint`` says what to give instead of an empty or too long
    one."""
    if not text:
        return f"ERROR: {what} is empty: {hint}"
    if len(text) > max_chars:
        return f"ERROR: {what} is too long ({len(text)} characters, at most {max_chars}): {hint}"
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in text):
        return f"ERROR: {what} contains control characters"
    return None
