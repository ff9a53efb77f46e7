"""BFCL's function docs as LangChain tools.

    tools = make_tools(entry["function"], call=backends.call)   # StructuredTools
    tools[0].invoke({"folder": "document"})                      # -> backends.call("cd", {...})

BFCL writes a function's parameters in its own dialect (``"type": "dict"``, ``"float"``,
``"tuple"``, ``"any"``); :func:`parameters_schema` maps them to JSON Schema with BFCL's
own table, ``GORILLA_TO_OPENAPI``, the way BFCL's function-calling handlers do before
they send tools to a model (``bfcl_eval/model_handler/utils.py``, ``_cast_to_openai_type``:
an unknown or missing type becomes ``string``; a ``float`` keeps ``"format": "float"``).
The schema becomes the tool's ``args_schema`` as a dict, which LangChain sends to the
model as it is and does not validate: what the model writes reaches ``call`` unchanged,
so every framework's own argument handling is what is measured.

Names: OpenAI-style tool names allow no dot, so ``math.factorial`` (single-turn data)
becomes ``math_factorial``; the AST checker is told to compare names that way
(``_bfcl.CHECKER_MODEL``). Multi-turn names have no dots.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool

from benchmarks.bfcl._bfcl import bfcl_ready

bfcl_ready()

from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI  # noqa: E402

#: ``call(function_name, arguments) -> result text``: what a tool does when the model calls it.
Call = Callable[[str, dict[str, Any]], str]


def tool_name(function_name: str) -> str:
    """The tool name for a BFCL function name (dots become underscores)."""
    return re.sub(r"\.", "_", function_name)


def _json_type(spec: dict[str, Any]) -> str:
    return GORILLA_TO_OPENAPI.get(str(spec.get("type")), "string")


def _cast(properties: dict[str, Any]) -> dict[str, Any]:
    """Each property's type (and nested ones) in JSON Schema."""
    out: dict[str, Any] = {}
    for name, given in properties.items():
        spec = dict(given)
        if spec.get("type") == "float":
            spec["format"] = "float"
        spec["type"] = _json_type(spec)
        if "properties" in spec:
            spec["properties"] = _cast(spec["properties"])
        if isinstance(spec.get("items"), dict):
            items = dict(spec["items"])
            items["type"] = _json_type(items)
            if "properties" in items:
                items["properties"] = _cast(items["properties"])
            if isinstance(items.get("items"), dict):
                items["items"] = {**items["items"], "type": _json_type(items["items"])}
            spec["items"] = items
        out[name] = spec
    return out


def parameters_schema(function: dict[str, Any]) -> dict[str, Any]:
    """A BFCL function doc's ``parameters`` as a JSON Schema object."""
    given = copy.deepcopy(function.get("parameters") or {})
    schema: dict[str, Any] = {"type": "object", "properties": _cast(given.get("properties") or {})}
    if given.get("required"):
        schema["required"] = list(given["required"])
    return schema


def make_tool(function: dict[str, Any], call: Call) -> StructuredTool:
    """One function doc as a tool whose calls go to ``call(name, arguments)``."""
    name = function["name"]

    def run(**arguments: Any) -> str:
        return call(name, arguments)

    return StructuredTool(
        name=tool_name(name),
        description=function.get("description") or name,
        args_schema=parameters_schema(function),
        func=run,
    )


def make_tools(functions: Sequence[dict[str, Any]], call: Call) -> list[BaseTool]:
    """Every function doc as a tool, in the entry's order."""
    return [make_tool(f, call) for f in functions]
