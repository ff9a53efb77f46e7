"""How the simulated server holds a reply to a JSON schema, as servers with grammars do.

A request's ``response_format`` with a schema (OpenAI's ``{"type": "json_schema",
"json_schema": {"schema": ...}}``, llama-cpp-python's ``{"type": "json_object",
"schema": ...}``) makes a real server decode under a grammar: the reply is JSON with
the schema's keys, in order. The simulation maps the policy's text onto those keys,
a line per key (the last key takes whatever lines are left), as a model writing each
field in turn would; a reply that is already such JSON passes as it is. A form the
server does not take is refused with HTTP 422, as llama-cpp-python refuses
``json_schema``.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from lcel_agent.testing.policies import Reply

__all__ = ["SchemaRefused", "held"]


class SchemaRefused(ValueError):
    """The request's ``response_format`` is of a type this server does not take."""


def _schema(response_format: Any) -> dict[str, Any] | None:
    if not isinstance(response_format, dict):
        return None
    kind = response_format.get("type")
    if kind == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
    elif kind == "json_object":
        schema = response_format.get("schema")
    else:
        return None
    return schema if isinstance(schema, dict) else None


def held(reply: Reply, response_format: Any, accepted: Collection[str]) -> Reply:
    """``reply`` as a server holding it to ``response_format`` would send it.

    Raises:
        SchemaRefused: the format's type is not in ``accepted``.
    """
    if not isinstance(response_format, dict) or response_format.get("type") in (None, "text"):
        return reply
    if response_format.get("type") not in accepted:
        # As llama-cpp-python's validation error says it: which types it does take.
        taken = " or ".join(repr(t) for t in accepted)
        raise SchemaRefused(f"response_format.type: Input should be {taken}")
    schema = _schema(response_format)
    keys = list((schema or {}).get("properties") or {})
    text = (reply.content or "").strip()
    if not keys or reply.tool_calls:
        return reply
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict) and list(value) == keys:
        return reply
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    fields = [*lines[: len(keys) - 1], "\n".join(lines[len(keys) - 1 :])]
    fields += [""] * (len(keys) - len(fields))
    return Reply(content=json.dumps(dict(zip(keys, fields, strict=True)), ensure_ascii=False))
