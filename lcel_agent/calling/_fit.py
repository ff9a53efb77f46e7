"""Does a call's input fit its tool? Checked before the call runs, against the tool's schema.

A model's arguments are checked against the JSON schema the model was shown (the
one ``bind_tools`` sends, ``tool_call_schema``): what LangChain itself validates for
a pydantic ``args_schema`` and never for a dict one (an MCP tool, a tool built from
an OpenAPI document, BFCL's functions). First the safe coercions, the ones that
cannot change what the model meant, each guided by the schema:

* a number written as text where a number is wanted (``"3"`` for an integer);
* ``"true"`` / ``"false"`` where a boolean is wanted;
* a number where a string is wanted (``110000`` for an adcode);
* JSON text of an object or a list where one is wanted, or its Python literal
  (``"(33.4, -112.1)"``, ``"['a', 'b']"``);
* one value where a list of such values is wanted (``"a.txt"`` for ``["a.txt"]``);
* the one enum member a value names, told apart only by case, surrounding spaces or
  quotes around it (``"Celsius"`` or ``"'celsius'"`` for ``"celsius"``; ``true`` for
  ``"True"``); none when two members differ only so;
* quotes wrapping a string, taken off only when the quoted value breaks what the schema
  states (a pattern, a length) and the bare one keeps it: a value may mean its quotes
  (a search for an exact phrase), so where nothing speaks against them they stay;
* a null given for an optional argument that takes no null: left out, as not given.

The schema is read as its writers mean it (:mod:`lcel_agent.calling._idioms`: an enum on
an array lists its items' values; a default of null makes null a value). Then everything
it states is checked (types, required arguments, enums, ranges, lengths, patterns;
``format`` is an annotation, as JSON Schema has it), and what is still wrong is said in
words the model can act on, one short phrase a problem, never the validator's own
message (which quotes the whole input). An enum's values are all named (up to 50), with
what the model wrote::

    fitted = fit_input({"source": "a.txt", "dest": "b"}, schema)
    fitted.problems      # ["'destination' is missing", "'dest' is not an argument"]
    fit_input({"city": "Paris", "unit": "kelvin"}, weather_schema).problems
    # ['\'unit\' must be one of "celsius", "fahrenheit", not "kelvin"']

A schema that cannot be read (an invalid schema is the tool author's bug) checks
nothing: the tool gets the input as it came, as before.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, UnknownType, ValidationError
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from ._idioms import checkable

__all__ = ["Fitted", "call_schema", "fit_input", "schema_line"]

# The most problems named at once: a model fixes a few at a time.
_MAX_PROBLEMS = 4
_TRUE, _FALSE = frozenset({"true", "yes"}), frozenset({"false", "no"})
_QUOTE_PAIRS = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’"}
# The most values of an enum named in a refusal (BFCL's longest enum has 35).
_MAX_CHOICES = 50
# The most shown in a tool's one-line input, where the refusal names them all.
_LINE_CHOICES = 8


@dataclass(frozen=True, slots=True)
class Fitted:
    """An input after the safe coercions, and what is still wrong with it."""

    value: Any
    problems: list[str] = field(default_factory=list)


def _types(spec: Mapping[str, Any]) -> set[str]:
    kind = spec.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return set()


def _number(text: str) -> int | float | None:
    try:
        value = json.loads(text.strip())
    except ValueError:
        return None
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _decoded(text: str) -> Any:
    """The object or list ``text`` writes, as JSON or as a Python literal (tuples as lists)."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return list(value) if isinstance(value, tuple) else value


def _valid(value: Any, spec: Mapping[str, Any]) -> bool:
    try:
        return bool(Draft202012Validator(dict(spec)).is_valid(value))
    except (SchemaError, TypeError, re.error):
        return False


def _unquoted(text: str) -> str | None:
    """The text inside one pair of quotes that wraps the whole of ``text``, else None."""
    body = text.strip()
    if len(body) < 2 or _QUOTE_PAIRS.get(body[0]) != body[-1]:
        return None
    inner = body[1:-1]
    return None if body[0] in inner or body[-1] in inner else inner


def _bare(text: str) -> str:
    inner = _unquoted(text)
    return (text if inner is None else inner).strip().casefold()


def _enum_member(value: Any, spec: Mapping[str, Any]) -> Any:
    """The one member of the enum that ``value`` names, told apart only by case, spaces or
    wrapping quotes (``"Celsius"``, ``"'celsius'"``, ``true`` for ``"True"``); else ``value``."""
    enum = spec.get("enum")
    if not isinstance(enum, list) or not isinstance(value, str | bool | int | float):
        return value
    if any(type(member) is type(value) and member == value for member in enum):
        return value
    text = value if isinstance(value, str) else json.dumps(value)
    found = [m for m in enum if isinstance(m, str) and _bare(m) == _bare(text)]
    return found[0] if len(found) == 1 else value


def _string(value: str, spec: Mapping[str, Any]) -> str:
    """A string where a string is wanted: quotes that wrap it go only if the schema says so.

    A value may mean its quotes (a search for an exact phrase, ``'"solar eclipse"'``), so
    they are taken off only when the quoted value breaks what the schema states (an enum, a
    pattern, a length) and the value inside them keeps it.
    """
    member = _enum_member(value, spec)
    if member != value:
        return str(member)
    inner = _unquoted(value)
    if inner is not None and not _valid(value, spec) and _valid(inner, spec):
        return inner
    return value


def _from_text(value: str, spec: Mapping[str, Any], kinds: set[str]) -> Any:
    """A string made to fit ``spec``'s types: a value written as text, where that is safe."""
    if kinds & {"object", "array"} and value.strip()[:1] in ("{", "[", "("):
        decoded = _decoded(value)
        if isinstance(decoded, dict) and "object" in kinds:
            return _coerce(decoded, spec)
        if isinstance(decoded, list) and "array" in kinds:
            return _coerce(decoded, spec)
    if "string" in kinds:
        return _string(value, spec)
    if kinds & {"integer", "number"} and (number := _number(value)) is not None:
        if "integer" in kinds and float(number).is_integer():
            return int(number)
        if "number" in kinds:
            return number
    if "boolean" in kinds and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    return _coerce_container(value, spec, kinds)


def _object(value: dict[str, Any], spec: Mapping[str, Any]) -> dict[str, Any]:
    """Each argument made to fit; a null given for an optional one that takes no null is
    left out, as if not given (the model's way of saying "none": its default applies)."""
    properties = spec.get("properties")
    if not isinstance(properties, Mapping):
        return value
    required = set(spec.get("required") or ())
    fitted: dict[str, Any] = {}
    for key, item in value.items():
        sub = properties.get(key)
        if not isinstance(sub, Mapping):
            fitted[key] = item
        elif item is None and key not in required and not _valid(None, sub):
            continue
        else:
            fitted[key] = _coerce(item, sub)
    return fitted


def _coerce_container(value: Any, spec: Mapping[str, Any], kinds: set[str]) -> Any:
    if isinstance(value, dict) and "object" in kinds:
        return _object(value, spec)
    if "array" in kinds:
        items = spec.get("items")
        item_spec = items if isinstance(items, Mapping) else {}
        if isinstance(value, list):
            return [_coerce(v, item_spec) for v in value]
        if value is not None and not (
            isinstance(value, dict) and "object" not in _types(item_spec)
        ):
            return [_coerce(value, item_spec)]
    return value


def _coerce(value: Any, spec: Mapping[str, Any]) -> Any:
    """``value`` made to fit ``spec`` where that cannot change its meaning (else as it is)."""
    kinds = _types(spec)
    if isinstance(value, str) and kinds:
        return _from_text(value, spec, kinds)
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "integer" in kinds and isinstance(value, float) and value.is_integer():
            value = int(value)
        elif kinds - {"null"} == {"string"}:
            return _string(str(value), spec)
    if isinstance(value, bool) and "boolean" not in kinds:
        return _enum_member(value, spec)
    return _coerce_container(value, spec, kinds)


def _path(error: ValidationError) -> str:
    return ".".join(str(p) for p in error.absolute_path)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _choices(values: Any, most: int = _MAX_CHOICES) -> str:
    values = list(values)
    shown = ", ".join(_json(v) for v in values[:most])
    return shown + (f" (and {len(values) - most} more)" if len(values) > most else "")


def _given(value: Any) -> str:
    """``, not <value>`` for a short scalar the model gave (what it wrote, to compare)."""
    if isinstance(value, dict | list) or len(_json(value)) > 40:
        return ""
    return f", not {_json(value)}"


def _describe(spec: Any) -> str:
    """What one alternative of an ``anyOf`` / ``oneOf`` wants, in a few words."""
    if not isinstance(spec, Mapping):
        return "something else"
    if isinstance(spec.get("enum"), list):
        return f"one of {_choices(spec['enum'])}"
    if "const" in spec:
        return _json(spec["const"])
    kinds = sorted(_types(spec))
    if kinds == ["null"]:
        return "null"
    return " or ".join(f"{_article(k)}{k}" for k in kinds) or "something else"


# How a broken bound reads: "'days' must be at most 14, not 30".
_BOUNDS = {
    "minimum": "at least {}", "maximum": "at most {}",
    "exclusiveMinimum": "greater than {}", "exclusiveMaximum": "less than {}",
    "multipleOf": "a multiple of {}",
    "minLength": "at least {} characters long", "maxLength": "at most {} characters long",
    "minItems": "a list of at least {} items", "maxItems": "a list of at most {} items",
}  # fmt: skip


def _problem(error: ValidationError) -> str:
    where = _path(error)
    named = f"'{where}'" if where else "the input"
    validator, expected, given = error.validator, error.validator_value, error.instance
    if validator == "required":
        missing = [k for k in expected if isinstance(given, Mapping) and k not in given]
        prefix = f"{where}." if where else ""
        return ", ".join(f"'{prefix}{k}' is missing" for k in missing) or f"{named} is incomplete"
    if validator == "type":
        wanted = expected if isinstance(expected, str) else " or ".join(map(str, expected))
        return f"{named} must be {_article(wanted)}{wanted}, not {_kind(given)}"
    if validator == "enum":
        return f"{named} must be one of {_choices(expected)}{_given(given)}"
    if validator == "const":
        return f"{named} must be {_json(expected)}{_given(given)}"
    if validator == "additionalProperties":
        extra = sorted(set(given) - set(error.schema.get("properties") or {}))
        return ", ".join(f"'{k}' is not an argument" for k in extra) or f"{named} has extra keys"
    if validator in _BOUNDS:
        return f"{named} must be {_BOUNDS[str(validator)].format(expected)}{_given(given)}"
    if validator == "pattern":
        return f"{named} must match the pattern {_json(expected)}{_given(given)}"
    if validator in ("anyOf", "oneOf") and isinstance(expected, list):
        wanted = " or ".join(dict.fromkeys(_describe(s) for s in expected))
        return f"{named} must be {wanted}{_given(given)}"
    return f"{named} does not fit ({validator})"


def _article(word: str) -> str:
    return "an " if word[:1] in "aeiou" else "a "


def _kind(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "a list", dict: "an object", type(None): "null"}  # fmt: skip
    return names.get(type(value), type(value).__name__)


def _unknown(value: Any, schema: Mapping[str, Any]) -> list[str]:
    """Keys the schema does not name (the model's own names for arguments)."""
    properties = schema.get("properties")
    if not isinstance(value, Mapping) or not isinstance(properties, Mapping) or not properties:
        return []
    return [f"'{k}' is not an argument" for k in value if k not in properties]


def fit_input(value: Any, schema: Mapping[str, Any]) -> Fitted:
    """``value`` coerced to ``schema`` where safe, and the problems left (see the module doc).

    Keys the schema does not name are a problem only beside another problem: alone,
    they are passed on (pydantic ignores them; a dict-schema tool may take them).
    """
    checked = checkable(schema)
    coerced = _coerce(value, checked)
    try:
        validator = Draft202012Validator(checked)
        errors: Iterable[ValidationError] = sorted(
            validator.iter_errors(coerced), key=lambda e: (len(e.absolute_path), str(e.path))
        )
        found = [_problem(e) for e in errors]
    except (SchemaError, UnknownType, re.error):
        return Fitted(value)
    if not found:
        return Fitted(coerced)
    problems = list(dict.fromkeys([*found, *_unknown(coerced, schema)]))
    return Fitted(coerced, problems[:_MAX_PROBLEMS])


def _line_kind(spec: Mapping[str, Any]) -> str:
    """One argument's kind as ``schema_line`` writes it."""
    enum = spec.get("enum")
    if isinstance(enum, list):
        shown = " | ".join(_json(c) for c in enum[:_LINE_CHOICES])
        return shown + (" | …" if len(enum) > _LINE_CHOICES else "")
    options = spec.get("anyOf") or spec.get("oneOf")
    if isinstance(options, list) and options:
        return " | ".join(_line_kind(o) if isinstance(o, Mapping) else "any" for o in options)
    kind = "|".join(sorted(_types(spec))) or "any"
    items = spec.get("items")
    if kind == "array" and isinstance(items, Mapping) and (items.get("enum") or _types(items)):
        inner = _line_kind(items)
        return f"array of ({inner})" if " " in inner else f"array of {inner}"
    return kind


def schema_line(schema: Mapping[str, Any]) -> str:
    """A tool's arguments in one line: ``{source: string, destination: string, count?: integer}``.

    Optional arguments carry a ``?``; an enum shows its first values (a refusal names them
    all), a list what its items are.
    """
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return "{}"
    required = set(schema.get("required") or ())
    parts = []
    for name, spec in checkable(schema)["properties"].items():
        spec = spec if isinstance(spec, Mapping) else {}
        parts.append(f"{name}{'' if name in required else '?'}: {_line_kind(spec)}")
    return "{" + ", ".join(parts) + "}"


def call_schema(tool: BaseTool) -> dict[str, Any]:
    """The JSON schema of ``tool``'s input as the model is shown it (``bind_tools``'s)."""
    parameters = convert_to_openai_tool(tool)["function"].get("parameters")
    return dict(parameters) if isinstance(parameters, Mapping) else {}
