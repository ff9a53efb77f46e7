"""A tool's schema read as its writers mean it, for checking a call against it.

Tool schemas are written by people and converters, not by JSON Schema's authors, and two
idioms of theirs mean something else to a validator (both are found in OpenAPI documents,
and in BFCL's function docs: its live categories hold both):

* ``{"type": "array", "enum": ["trust", "view", ...]}``: the values each item may take.
  To JSON Schema, an ``enum`` beside ``"type": "array"`` lists whole arrays, so
  ``["view"]`` would fit none of them and every right call would be refused. Read as the
  items' enum (when no member is itself a list).
* ``{"type": "string", "default": null}``: the parameter's default is null, so null is a
  value it takes (``"country": null`` means the default). JSON Schema never validates a
  default, so ``null`` would be refused as "not a string". Read as allowing null.

Nothing else is changed: what the schema states is checked as stated::

    checkable({"type": "object", "properties": {"metrics": {"type": "array", "enum": ["a", "b"]}}})
    # {"type": "object", "properties": {"metrics": {"type": "array", "items": {"enum": ["a", "b"]}}}}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["checkable"]

# Keys whose value is one schema, or a mapping of name -> schema, or a list of schemas.
_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames")
_MANY = ("properties", "patternProperties", "$defs", "definitions")
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def _items_enum(spec: dict[str, Any]) -> None:
    """An array's enum of single values moved to its items (see the module docstring)."""
    enum = spec.get("enum")
    if spec.get("type") != "array" or not isinstance(enum, list) or not enum:
        return
    if any(isinstance(member, list) for member in enum):
        return  # whole arrays: a real enum of arrays
    items = dict(spec["items"]) if isinstance(spec.get("items"), Mapping) else {}
    items.setdefault("enum", enum)
    spec["items"] = items
    del spec["enum"]


def _null_default(spec: dict[str, Any]) -> None:
    """A parameter whose default is null takes null (see the module docstring)."""
    if "default" not in spec or spec["default"] is not None:
        return
    kind = spec.get("type")
    if isinstance(kind, str) and kind != "null":
        spec["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        spec["type"] = [*kind, "null"]
    enum = spec.get("enum")
    if isinstance(enum, list) and None not in enum:
        spec["enum"] = [*enum, None]


def checkable(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` with its writers' idioms read as they mean them."""
    spec = dict(schema)
    for key in _ONE:
        if isinstance(spec.get(key), Mapping):
            spec[key] = checkable(spec[key])
    for key in _MANY:
        if isinstance(spec.get(key), Mapping):
            spec[key] = {
                name: checkable(sub) if isinstance(sub, Mapping) else sub
                for name, sub in spec[key].items()
            }
    for key in _LISTS:
        if isinstance(spec.get(key), list):
            spec[key] = [checkable(s) if isinstance(s, Mapping) else s for s in spec[key]]
    _items_enum(spec)
    _null_default(spec)
    return spec
