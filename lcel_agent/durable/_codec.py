"""The run's typed values as plain data and back, driven by their type hints.

A checkpoint holds only JSON-shaped data (dicts with string keys, lists, strings,
numbers, booleans, None), so every saver stores it the same way and reading it
back needs no class allow-list. :func:`dump` turns a value into such data;
:func:`load` rebuilds it from the type a field is declared with::

    data = dump(step)                    # a StepRecord -> a dict
    again = load(StepRecord, data)       # and back, field by field

Dataclasses are walked field by field (a field missing from the data takes its
default, so a checkpoint written before a field existed still loads), enums are
stored by value, messages as langchain-core's message dicts, tuples and sets as
lists. A value that does not fit its declared type raises ``ValueError``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import Enum
from typing import Any

from langchain_core.messages import BaseMessage, message_to_dict, messages_from_dict

__all__ = ["dump", "hints", "load", "load_fields"]

_PLAIN = (str, int, float, bool, type(None))


def dump(value: Any, skip: frozenset[str] = frozenset()) -> Any:
    """``value`` as plain data; ``skip`` names fields of a top-level dataclass left out."""
    if isinstance(value, Enum):  # before the plain types: a StrEnum is a str too
        return value.value
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, BaseMessage):
        return message_to_dict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: dump(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.name not in skip
        }
    if isinstance(value, (tuple, list)):
        return [dump(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted(dump(item) for item in value)
    if isinstance(value, dict):
        return {str(key): dump(item) for key, item in value.items()}
    # Anything else (a tool's own input object, say) is left to the saver's serializer.
    return value


_HINTS: dict[type[Any], dict[str, Any]] = {}


def hints(cls: type[Any]) -> dict[str, Any]:
    """The resolved type hints of a dataclass (names its module imports only for typing
    are resolved against the memory package, the one such import the run's types have)."""
    found = _HINTS.get(cls)
    if found is None:
        from .. import memory

        found = _HINTS[cls] = typing.get_type_hints(cls, localns=vars(memory))
    return found


def _fail(kind: Any, data: Any) -> ValueError:
    shown = repr(data)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return ValueError(f"expected {getattr(kind, '__name__', kind)}, found {shown}")


def _load_union(options: tuple[Any, ...], data: Any) -> Any:
    if data is None and type(None) in options:
        return None
    errors = []
    for option in options:
        if option is type(None):
            continue
        try:
            return load(option, data)
        except ValueError as exc:
            errors.append(str(exc))
    raise ValueError("; ".join(errors) or f"no type fits {data!r}")


def load_fields(cls: type[Any], data: Any) -> dict[str, Any]:
    """The fields of dataclass ``cls`` found in ``data``, each rebuilt from its type."""
    if not isinstance(data, dict):
        raise _fail(cls, data)
    kinds = hints(cls)
    return {
        f.name: load(kinds[f.name], data[f.name])
        for f in dataclasses.fields(cls)
        if f.init and f.name in data
    }


def _load_generic(kind: Any, origin: Any, data: Any) -> Any:
    args = typing.get_args(kind)
    if origin in (typing.Union, types.UnionType):
        return _load_union(args, data)
    if not isinstance(data, list) and origin is not dict:
        raise _fail(kind, data)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(load(args[0], item) for item in data)
        if len(args) != len(data):
            raise _fail(kind, data)
        return tuple(load(arg, item) for arg, item in zip(args, data, strict=True))
    if origin in (frozenset, set):
        return origin(load(args[0], item) for item in data)
    if origin is list:
        return [load(args[0], item) for item in data]
    if origin is dict and isinstance(data, dict):
        return {key: load(args[1], item) for key, item in data.items()}
    raise _fail(kind, data)


def load(kind: Any, data: Any) -> Any:
    """Rebuild a value of type ``kind`` from :func:`dump`'s data; ``ValueError`` if it does not fit."""
    if kind is Any:
        return data
    origin = typing.get_origin(kind)
    if origin is not None:
        return _load_generic(kind, origin, data)
    if isinstance(kind, type):
        if dataclasses.is_dataclass(kind):
            try:
                return kind(**load_fields(kind, data))
            except TypeError as exc:  # a required field is missing
                raise ValueError(f"{kind.__name__}: {exc}") from None
        if issubclass(kind, Enum):
            try:
                return kind(data)
            except ValueError:
                raise _fail(kind, data) from None
        if issubclass(kind, BaseMessage):
            if not isinstance(data, dict):
                raise _fail(kind, data)
            try:
                (message,) = messages_from_dict([data])
            except (KeyError, TypeError, ValueError):
                raise _fail(kind, data) from None
            if not isinstance(message, kind):
                raise _fail(kind, data)
            return message
        if kind is float and isinstance(data, int) and not isinstance(data, bool):
            return float(data)
        if (
            kind in _PLAIN
            and isinstance(data, kind)
            and (kind is bool or not isinstance(data, bool))
        ):
            return data
    raise _fail(kind, data)
