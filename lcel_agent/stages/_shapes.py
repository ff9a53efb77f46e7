"""The shapes models give an action, read into one: ``(name, input)``.

The JSON protocol asks for ``{"action": ..., "action_input": ...}``; models also
write the shape of the chat APIs' tool calls (``{"name": ..., "arguments": ...}``,
sometimes inside ``{"function": {...}}``), other common key names (``tool``,
``args``, ``parameters``, ``input``; ``function`` when it holds the name), the arguments inline beside the name
(``{"action": "get_weather", "city": "北京"}``), arguments as JSON text, and the
tool with its signature as the prompt lists it (``get_weather(city)``), and the
values written into the tool's schema (``{"properties": {"city": "北京"}, "required":
[...], "type": "object"}``, as a 1.5B model fills in the schema it was shown). Each is
read only where the meaning is unambiguous (and ``{"final": "..."}`` or an
action named ``final_answer`` is the final answer): two different names, or two input
keys, are not guessed between. A name is never corrected, only freed of a
signature; an unknown name stays unknown for the dispatcher to report.

::

    read_action({"name": "get_weather", "arguments": '{"city": "北京"}'}, {"get_weather"})
    # ("get_weather", {"city": "北京"})
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["FINAL_NAMES", "INPUT_KEYS", "NAME_KEYS", "ShapeError", "read_action", "tool_name"]

#: Keys that may name the action, in order of preference.
NAME_KEYS = ("action", "name", "tool", "tool_name")
#: Keys that may hold its input.
INPUT_KEYS = ("action_input", "arguments", "args", "parameters", "input", "tool_input")
# `get_weather(city)` or `get_weather("北京")`: a name followed by its signature.
_SIGNATURE = re.compile(r"\s*([A-Za-z_][\w.-]*)\s*\((.*)\)\s*", re.DOTALL)
_FINAL = "final"
#: Names models give the final answer, as an action or as the object's only key
#: (``{"final": "..."}``); a tool of the same name wins.
FINAL_NAMES = frozenset({"final", "final_answer", "final answer", "answer"})


class ShapeError(ValueError):
    """The object is not an action in any shape this module reads (the message says why)."""


def tool_name(name: str, tools: Collection[str]) -> tuple[str, str | None]:
    """``name`` as the agent knows it, and what stood inside a signature's parentheses.

    ``get_weather(city)`` becomes ``("get_weather", "city")`` when ``get_weather`` is a
    tool; any other name comes back as it is (stripped), with None.
    """
    name = name.strip()
    if name in tools:
        return name, None
    if name.lower() in FINAL_NAMES:
        return _FINAL, None
    match = _SIGNATURE.fullmatch(name)
    if match is not None and match.group(1) in tools:
        return match.group(1), match.group(2).strip()
    return name, None


def _one_of(item: Mapping[str, Any], keys: tuple[str, ...], what: str) -> tuple[str, Any] | None:
    present = [(key, item[key]) for key in keys if key in item]
    if len(present) > 1 and any(value != present[0][1] for _, value in present[1:]):
        raise ShapeError(f"the action has two {what}s ({', '.join(k for k, _ in present)})")
    return present[0] if present else None


def _from_signature(inside: str | None, arguments: Collection[str]) -> Any:
    """The input written inside a signature's parentheses, if it is a value, not a name."""
    if not inside:
        return None
    value = inside.strip().strip("'\"")
    return None if value in arguments else value or None


def _arguments_text(value: Any) -> Any:
    # The chat APIs send arguments as JSON text: an object in a string is that object.
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
        return decoded if isinstance(decoded, dict) else value
    return value


# The keys of a JSON schema for an object, besides its "properties".
_SCHEMA_KEYS = frozenset({"type", "required", "title", "description", "additionalProperties"})


def _schema_values(value: Any, names: Collection[str]) -> Any:
    """The arguments a model wrote into the tool's schema, or ``value`` as it is.

    Read only when unambiguous: an object of schema keys whose ``properties`` holds
    values (no ``{"type": ...}`` in it: that is the schema itself) for the tool's own
    argument names, and no argument of the tool is itself named ``properties``.
    """
    if not isinstance(value, dict) or "properties" in names:
        return value
    inner = value.get("properties")
    if not isinstance(inner, dict) or not inner or set(value) - {"properties"} - _SCHEMA_KEYS:
        return value
    if names and set(inner) - set(names):
        return value
    if any(isinstance(v, dict) and "type" in v for v in inner.values()):
        return value
    return inner


def read_action(
    item: Any, tools: Collection[str] = (), arguments: Mapping[str, Collection[str]] | None = None
) -> tuple[str, Any]:
    """Read one action object into ``(name, input)``.

    Args:
        item: the parsed JSON value of one action.
        tools: the agent's tool names (empty: names are taken as written).
        arguments: each tool's argument names, so ``get_weather(city)`` is known to name
            its argument rather than give it.

    Raises:
        ShapeError: when ``item`` is not an object naming an action, or is ambiguous.
    """
    if not isinstance(item, dict):
        raise ShapeError(f"an action must be a JSON object, not {type(item).__name__}")
    # "function" names the tool when it is a string ({"function": "f", "parameters": {...}});
    # an object under it is the chat APIs' wrapper, read below.
    keys = (*NAME_KEYS, "function") if isinstance(item.get("function"), str) else NAME_KEYS
    named = _one_of(item, keys, "name")
    if named is None and isinstance(item.get("function"), dict):
        return read_action(item["function"], tools, arguments)  # {"type": "function", ...}
    if named is None and len(item) == 1:
        ((key, value),) = item.items()
        if key.lower() in FINAL_NAMES and key not in tools:
            return _FINAL, value  # {"final": "the answer"}
    if named is None or not isinstance(named[1], str) or not named[1].strip():
        raise ShapeError("the action has no 'action' name")
    name, inside = tool_name(named[1], tools)
    given = _one_of(item, INPUT_KEYS, "input")
    if given is not None:
        value = given[1]
    else:
        rest = {k: v for k, v in item.items() if k not in keys and k != "type"}
        from_signature = _from_signature(inside, (arguments or {}).get(name, ()))
        if from_signature is not None and not rest:
            value = from_signature
        elif name.lower() == _FINAL and len(rest) == 1:
            value = next(iter(rest.values()))  # {"action": "final", "answer": "..."}
        elif rest and name.lower() != _FINAL:
            value = rest  # the arguments written inline beside the name
        else:
            raise ShapeError("the action has no 'action_input'")
    if name.lower() == _FINAL:
        return _FINAL, value
    return name, _schema_values(_arguments_text(value), (arguments or {}).get(name, ()))
