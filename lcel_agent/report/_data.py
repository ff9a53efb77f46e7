"""Reading ``AgentResult.to_dict()``-shaped data safely: whatever a field holds, a value of
the type the report needs (0, "", empty), every string redacted once, class-safe names."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from .._redact import redact

__all__ = ["css_name", "pretty", "scrub"]


def scrub(value: Any) -> Any:
    """``value`` with every string passed through the redactor (dicts and lists walked)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {redact(str(k)): scrub(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v) for v in value]
    return value


def _num(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return float(value) if math.isfinite(value) else 0.0


def _int(value: Any) -> int:
    return int(_num(value))


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _dict(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> Sequence[Any]:
    return value if isinstance(value, (list, tuple)) else ()


def pretty(value: Any) -> str:
    """``value`` as indented JSON (strings as they are)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)


def css_name(value: str) -> str:
    """A class-name-safe form of an error class or stage name."""
    return "".join(ch if ch.isalnum() else "-" for ch in value.lower()) or "unknown"
