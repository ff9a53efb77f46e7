"""BFCL's function docs, as the harness offers them: arguments are checked before a call runs.

``bfcl_functions.jsonl`` holds five function docs copied verbatim from bfcl-eval's data
(Apache-2.0; each line names its source): an enum at the top, enums in a nested object,
an array whose items have an enum, an integer with a maximum, BFCL's ``tuple`` of
``float``, an enum written on an array (the values of its items), and defaults of null.
They become tools as the harness makes them (``StructuredTool(args_schema=<dict>)``,
which LangChain never validates), and the dispatcher checks each call against the schema
the model was shown: a call that breaks it never reaches BFCL's backend, and the model
is told what is allowed; a call that fits runs, after the safe coercions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from benchmarks.bfcl.schema import make_tools
from lcel_agent import ErrorClass, StopReason, create_agent
from lcel_agent.testing import ScriptedChatModel

DOCS = [
    json.loads(line)["function"]
    for line in (Path(__file__).parent / "bfcl_functions.jsonl").read_text("utf-8").splitlines()
]
PROTOCOLS = ["json", "tool_calling"]


def _reply(protocol: str, name: str, arguments: dict[str, Any]) -> str | AIMessage:
    if protocol == "json":
        return json.dumps({"action": name, "action_input": arguments}, ensure_ascii=False)
    return AIMessage(content="", tool_calls=[{"name": name, "args": arguments, "id": "c1"}])


def _play(run, protocol: str, name: str, arguments: dict[str, Any]):
    ran: list[tuple[str, dict[str, Any]]] = []
    tools = make_tools(DOCS, lambda n, a: ran.append((n, a)) or "The call was received.")
    final = '{"action": "final", "action_input": "done"}' if protocol == "json" else "done"
    llm = ScriptedChatModel([_reply(protocol, name, arguments), final, final])
    result = run(create_agent(llm, tools, protocol=protocol))
    return result, ran, llm


ALL_METRICS = ["favorability", "admired employer", "buzz", "community impact",
               "purchasing consideration", "trust", "usage frequency", "value", "promoter",
               "view"]  # fmt: skip
BODY = {"airConJobMode": "COOL", "windStrength": "MID", "monitoringEnabled": True}


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize(
    ("name", "arguments", "told"),
    [
        # Out of an enum: every allowed value is named, and what the model wrote.
        ("temperature", {"location": "Paris, France", "units": "Rankine"},
         ['\'units\' must be one of "Celsius", "Fahrenheit", "Kelvin", not "Rankine"']),
        # Out of an enum inside a nested object.
        ("ThinQ_Connect", {"body": {**BODY, "windStrength": "TURBO"}},
         ['\'body.windStrength\' must be one of "LOW", "HIGH", "MID", not "TURBO"']),
        # Out of the enum of an array's items.
        ("lawyer_find_nearby", {"city": "Chicago, IL", "specialty": ["Tax"], "fee": 300},
         ['\'specialty.0\' must be one of "Civil", "Divorce", "Immigration", "Business", '
          '"Criminal", not "Tax"']),
        # An enum written on an array: the values its items may take, all ten named.
        ("extract_parameters_v1", {"targets": ["brand:Apple"], "metrics": ["sales"]},
         ["'metrics.0' must be one of " + ", ".join(json.dumps(m) for m in ALL_METRICS)]),
        # Out of range.
        ("lawyer_find_nearby", {"city": "Chicago, IL", "specialty": ["Civil"], "fee": 450},
         ["'fee' must be at most 400, not 450"]),
        # A required argument left out.
        ("lawyer_find_nearby", {"specialty": ["Civil"], "fee": 300}, ["'city' is missing"]),
        # Wrong types: text for an integer, words for BFCL's tuple of floats.
        ("ThinQ_Connect", {"body": {**BODY, "coolTargetTemperature": "cold"}},
         ["'body.coolTargetTemperature' must be an integer, not a string"]),
        ("calculate_distance", {"coord1": [33.4484, "N"], "coord2": [34.05, -118.24],
                                "unit": "miles"},
         ["'coord1.1' must be a number, not a string"]),
        # A float where BFCL says integer.
        ("lawyer_find_nearby", {"city": "Chicago, IL", "specialty": ["Civil"], "fee": 299.5},
         ["'fee' must be an integer, not a number"]),
    ],
)  # fmt: skip
def test_a_call_that_breaks_the_schema_never_runs_and_the_model_is_told(
    run, protocol, name, arguments, told
):
    result, ran, llm = _play(run, protocol, name, arguments)
    assert ran == []  # BFCL's backend never saw it
    (refused,) = result.steps[0].observations
    assert refused.error_class is ErrorClass.BAD_ARGUMENTS and refused.attempts == 0
    for phrase in told:
        assert phrase in refused.output
    # The refusal is what the model reads next, where it reads results.
    second = llm.calls[1]
    shown = [m for m in second if protocol == "json" or isinstance(m, ToolMessage)]
    assert refused.output in "\n".join(str(m.content) for m in shown)
    assert result.stop_reason is StopReason.FINAL


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize(
    ("name", "arguments", "received"),
    [
        # An enum member told apart only by case or by quotes around it.
        ("temperature", {"location": "Paris, France", "units": "kelvin"},
         {"location": "Paris, France", "units": "Kelvin"}),
        ("temperature", {"location": "Paris, France", "units": "'Fahrenheit'"},
         {"location": "Paris, France", "units": "Fahrenheit"}),
        # Quotes around a value no constraint speaks of stay: they may be meant.
        ("temperature", {"location": "'Paris, France'"}, {"location": "'Paris, France'"}),
        # Null where the default is null; the items of an enum written on the array.
        ("extract_parameters_v1", {"targets": ["brand:Apple"], "metrics": ["view", "trust"],
                                   "country": None, "interval": None},
         {"targets": ["brand:Apple"], "metrics": ["view", "trust"], "country": None,
          "interval": None}),
        # Null for an optional argument whose default is not null: left out, as not given.
        ("ThinQ_Connect", {"body": {**BODY, "targetTemperature": None}}, {"body": BODY}),
        # BFCL's tuple written as Python, an integer as text, a lone item for a list.
        ("calculate_distance", {"coord1": "(33.4484, -112.074)", "coord2": [34.0522, -118.2437],
                                "unit": "miles"},
         {"coord1": [33.4484, -112.074], "coord2": [34.0522, -118.2437], "unit": "miles"}),
        ("lawyer_find_nearby", {"city": "Chicago, IL", "specialty": "Divorce", "fee": "400"},
         {"city": "Chicago, IL", "specialty": ["Divorce"], "fee": 400}),
    ],
)  # fmt: skip
def test_a_call_that_fits_runs_after_the_safe_coercions(run, protocol, name, arguments, received):
    result, ran, _ = _play(run, protocol, name, arguments)
    assert [a for _, a in ran] == [received]
    assert result.steps[0].observations[0].ok
