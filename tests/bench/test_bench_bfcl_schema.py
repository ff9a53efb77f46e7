"""BFCL's function docs become LangChain tools that a model can be offered and that run calls."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from benchmarks.bfcl.entries import entries
from benchmarks.bfcl.schema import make_tools, parameters_schema, tool_name

JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}


def multi_turn_functions() -> dict[str, dict]:
    """Every function of every multi-turn backend BFCL's multi-turn categories offer."""
    from benchmarks.bfcl._bfcl import bfcl_ready

    bfcl_ready()
    from bfcl_eval.constants.eval_config import MULTI_TURN_FUNC_DOC_PATH
    from bfcl_eval.constants.executable_backend_config import MULTI_TURN_FUNC_DOC_FILE_MAPPING

    docs: dict[str, dict] = {}
    for backend, file in MULTI_TURN_FUNC_DOC_FILE_MAPPING.items():
        if backend.startswith(("MemoryAPI", "WebSearch")):  # agentic categories: not run here
            continue
        for line in (MULTI_TURN_FUNC_DOC_PATH / file).read_text().splitlines():
            doc = json.loads(line)
            docs[doc["name"]] = doc
    return docs


def _types(schema: dict) -> set[str]:
    found = {schema["type"]} if "type" in schema else set()
    for sub in (schema.get("properties") or {}).values():
        found |= _types(sub)
    if isinstance(schema.get("items"), dict):
        found |= _types(schema["items"])
    return found


def test_all_128_multi_turn_functions_become_tools_with_json_schema_arguments():
    docs = multi_turn_functions()
    calls: list[tuple[str, dict]] = []
    tools = make_tools(
        list(docs.values()), lambda name, arguments: calls.append((name, arguments)) or "ok"
    )
    assert len(docs) == len(tools) == 128
    for doc, tool in zip(docs.values(), tools, strict=True):
        assert isinstance(tool, StructuredTool) and tool.name == doc["name"]
        schema = tool.args_schema
        assert isinstance(schema, dict)
        Draft202012Validator.check_schema(schema)
        assert _types(schema) <= JSON_TYPES, (doc["name"], _types(schema))
        assert set(schema["properties"]) == set(doc["parameters"]["properties"])
        sent = convert_to_openai_tool(tool)["function"]
        assert (
            sent["name"] == doc["name"] and sent["parameters"]["properties"] == schema["properties"]
        )


def test_bfcls_own_types_are_mapped_and_floats_keep_their_format():
    doc = {"name": "f", "description": "d", "parameters": {"type": "dict", "properties": {
        "x": {"type": "float", "description": "x"},
        "options": {"type": "dict", "properties": {"deep": {"type": "tuple", "items": {"type": "any"}}}},
        "tags": {"type": "array", "items": {"type": "float"}},
        "untyped": {"description": "no type"},
    }, "required": ["x"]}}  # fmt: skip
    schema = parameters_schema(doc)
    assert schema["type"] == "object" and schema["required"] == ["x"]
    props = schema["properties"]
    assert props["x"] == {"type": "number", "format": "float", "description": "x"}
    assert props["options"]["type"] == "object"
    assert props["options"]["properties"]["deep"] == {"type": "array", "items": {"type": "string"}}
    assert props["tags"]["items"] == {"type": "number"}
    assert props["untyped"]["type"] == "string"
    assert doc["parameters"]["properties"]["x"]["type"] == "float"  # the entry is not mutated


def test_a_tool_passes_the_models_arguments_unchanged_to_the_call():
    docs = multi_turn_functions()
    seen: list[tuple[str, dict]] = []
    (mv,) = make_tools(
        [docs["mv"]], lambda name, arguments: seen.append((name, arguments)) or "moved"
    )
    # Not validated (a dict args_schema): an unknown key and a wrong type reach the backend,
    # which answers as BFCL's backends do; each framework's own checks are what is measured.
    assert mv.invoke({"source": "a.txt", "destination": 3, "extra": True}) == "moved"
    assert seen == [("mv", {"source": "a.txt", "destination": 3, "extra": True})]


def test_single_turn_dotted_names_become_tool_names_without_dots():
    (entry,) = [e for e in entries("multiple") if any("." in f["name"] for f in e["function"])][:1]
    tools = make_tools(entry["function"], lambda name, arguments: "ok")
    assert all("." not in t.name for t in tools)
    assert {t.name for t in tools} == {tool_name(f["name"]) for f in entry["function"]}
