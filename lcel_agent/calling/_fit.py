"""Does a call's input fit its tool? Checked before the call runs, against the tool's schema.

A model's arguments are checked against the JSON schema the model was shown (the
one ``bind_tools`` sends, ``tool_call_schema``): what LangChain itself validates for
a pydantic ``args_schema`` and never for a dict one (an MCP tool, a tool built from
an OpenAPI document, BFCL's functions). First the safe coercions, the ones that
cannot change what the model meant, each guided by the schema:

* a number written as text where a number is wanted (``"3"`` for an integer);
* ``"true"`` / ``"false"`` where a boolean is wanted;
* a number where a string is wanted (``110000`` for an adcode);
* JSON text of an object or a list where one is wanted;
* one value where a list of such values is wanted (``"a.txt"`` for ``["a.txt"]``).

Then what is still wrong is said in words the model can act on, one short phrase a
problem, never the validator's own message (which quotes the whole input)::

    fitted = fit_input({"source": "a.txt", "dest": "b"}, schema)
    fitted.problems      # ["'destination' is missing", "'dest' is not an argument"]

A schema that cannot be read (an invalid schema is the tool author's bug) checks
nothing: the tool gets the input as it came, as before.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, ValidationError
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

__all__ = ["Fitted", "call_schema", "fit_input", "schema_line"]

# The most problems named at once: a model fixes a few at a time.
_MAX_PROBLEMS = 4
_TRUE, _FALSE = frozenset({"true", "yes"}), frozenset({"false", "no"})


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


def _coerce(value: Any, spec: Mapping[str, Any]) -> Any:
    """``value`` made to fit ``spec`` where that cannot change its meaning (else as it is)."""
    kinds = _types(spec)
    if not kinds:
        return value
    if isinstance(value, str):
        if kinds & {"object", "array"} and value.strip()[:1] in ("{", "["):
            try:
                decoded = json.loads(value)
            except ValueError:
                decoded = None
            if isinstance(decoded, dict) and "object" in kinds:
                return _coerce(decoded, spec)
            if isinstance(decoded, list) and "array" in kinds:
                return _coerce(decoded, spec)
        if "string" in kinds:
            return value
        if kinds & {"integer", "number"} and (number := _number(value)) is not None:
            if "integer" in kinds and float(number).is_integer():
                return int(number)
            if "number" in kinds:
                return number
        if "boolean" in kinds and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
    elif isinstance(value, int | float) and not isinstance(value, bool):
        if "integer" in kinds and isinstance(value, float) and value.is_integer():
            return int(value)
        if kinds == {"string"}:
            return str(value)
    if isinstance(value, dict) and "object" in kinds:
        properties = spec.get("properties")
        if isinstance(properties, Mapping):
            return {
                k: _coerce(v, properties[k]) if isinstance(properties.get(k), Mapping) else v
                for k, v in value.items()
            }
        return value
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


def _path(error: ValidationError) -> str:
    return ".".join(str(p) for p in error.absolute_path)


def _problem(error: ValidationError) -> str:
    where = _path(error)
    named = f"'{where}'" if where else "the input"
    validator, expected = error.validator, error.validator_value
    if validator == "required":
        missing = [
            k for k in expected if isinstance(error.instance, Mapping) and k not in error.instance
        ]
        prefix = f"{where}." if where else ""
        return ", ".join(f"'{prefix}{k}' is missing" for k in missing) or f"{named} is incomplete"
    if validator == "type":
        wanted = expected if isinstance(expected, str) else " or ".join(map(str, expected))
        return f"{named} must be {_article(wanted)}{wanted}, not {_kind(error.instance)}"
    if validator == "enum":
        choices = ", ".join(json.dumps(c, ensure_ascii=False) for c in list(expected)[:8])
        return f"{named} must be one of {choices}"
    if validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties") or {}))
        return ", ".join(f"'{k}' is not an argument" for k in extra) or f"{named} has extra keys"
    if validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return f"{named} is out of range ({validator} {expected})"
    if validator in ("minLength", "maxLength", "minItems", "maxItems", "pattern", "format"):
        return f"{named} breaks the rule {validator}={json.dumps(expected, ensure_ascii=False)}"
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
    coerced = _coerce(value, schema)
    try:
        validator = Draft202012Validator(dict(schema))
        errors: Iterable[ValidationError] = sorted(
            validator.iter_errors(coerced), key=lambda e: (len(e.absolute_path), str(e.path))
        )
        found = [_problem(e) for e in errors]
    except SchemaError:
        return Fitted(value)
    if not found:
        return Fitted(coerced)
    problems = list(dict.fromkeys([*found, *_unknown(coerced, schema)]))
    return Fitted(coerced, problems[:_MAX_PROBLEMS])


def schema_line(schema: Mapping[str, Any]) -> str:
    """A tool's arguments in one line: ``{source: string, destination: string, count?: integer}``.

    Optional arguments carry a ``?``; an enum shows its values.
    """
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return "{}"
    required = set(schema.get("required") or ())
    parts = []
    for name, spec in properties.items():
        spec = spec if isinstance(spec, Mapping) else {}
        kind = "|".join(sorted(_types(spec))) or "any"
        if isinstance(spec.get("enum"), list):
            kind = " | ".join(json.dumps(c, ensure_ascii=False) for c in spec["enum"][:8])
        parts.append(f"{name}{'' if name in required else '?'}: {kind}")
    return "{" + ", ".join(parts) + "}"


def call_schema(tool: BaseTool) -> dict[str, Any]:
    """The JSON schema of ``tool``'s input as the model is shown it (``bind_tools``'s)."""
    parameters = convert_to_openai_tool(tool)["function"].get("parameters")
    return dict(parameters) if isinstance(parameters, Mapping) else {}
