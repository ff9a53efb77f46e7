"""A call's arguments against everything its schema states, before the call runs.

``fit_input`` (what the dispatcher runs on every call) directly, on schemas as pydantic
and hand-written dict schemas give them; BFCL's own function docs are in
``tests/bench/test_bench_bfcl_checks.py``.
"""

from __future__ import annotations

import enum
from typing import Any, Literal

import pytest
from langchain_core.tools import StructuredTool, tool
from pydantic import BaseModel, Field

from lcel_agent import create_agent
from lcel_agent.calling import call_schema, fit_input, schema_line
from lcel_agent.testing import ScriptedChatModel


class Unit(enum.StrEnum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class ForecastArgs(BaseModel):
    city: str
    unit: Unit = Unit.CELSIUS
    days: int = Field(1, ge=1, le=14)
    mode: Literal["fast", "slow"] | None = None


@tool(args_schema=ForecastArgs)
def forecast(city: str, unit: Unit = Unit.CELSIUS, days: int = 1, mode: str | None = None) -> str:
    """Weather forecast."""
    return city


SCHEMA = call_schema(forecast)


@pytest.mark.parametrize(
    ("arguments", "problems"),
    [
        ({"city": "Paris", "unit": "kelvin"},
         ['\'unit\' must be one of "celsius", "fahrenheit", not "kelvin"']),
        ({"city": "Paris", "days": 30}, ["'days' must be at most 14, not 30"]),
        ({"city": "Paris", "days": "0"}, ["'days' must be at least 1, not 0"]),
        ({"city": "Paris", "mode": "medium"},
         ['\'mode\' must be one of "fast", "slow" or null, not "medium"']),
        ({"city": None}, ["'city' must be a string, not null"]),  # required: never left out
        ({"unit": "celsius"}, ["'city' is missing"]),
    ],
)  # fmt: skip
def test_what_breaks_the_schema_is_named_with_what_is_allowed(arguments, problems):
    assert fit_input(arguments, SCHEMA).problems == problems


@pytest.mark.parametrize(
    ("arguments", "fitted"),
    [
        ({"city": "Paris", "unit": "Celsius"}, {"city": "Paris", "unit": "celsius"}),
        ({"city": "Paris", "unit": " 'FAHRENHEIT' "}, {"city": "Paris", "unit": "fahrenheit"}),
        ({"city": "Paris", "unit": None, "days": 2.0}, {"city": "Paris", "days": 2}),
        ({"city": "Paris", "mode": None}, {"city": "Paris", "mode": None}),
    ],
)
def test_safe_coercions_follow_the_schema(arguments, fitted):
    result = fit_input(arguments, SCHEMA)
    assert result.value == fitted and result.problems == []


def _schema(**spec: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"v": spec}, "required": ["v"]}


def test_quotes_come_off_only_where_the_schema_says_they_cannot_be_meant():
    # An exact-phrase search means its quotes: no constraint speaks against them.
    assert fit_input({"v": '"solar eclipse"'}, _schema(type="string")).value == {
        "v": '"solar eclipse"'
    }
    # A pattern the quoted value breaks and the bare one keeps.
    code = _schema(type="string", pattern="^[A-Z]{3}$")
    assert fit_input({"v": "'USD'"}, code).value == {"v": "USD"}
    # Quotes inside the value: not a pair that wraps it.
    assert fit_input({"v": "'a' or 'b'"}, _schema(type="string", enum=["a", "b"])).problems


def test_an_enum_member_is_chosen_only_when_one_fits():
    ambiguous = _schema(type="string", enum=["C", "c"])
    assert fit_input({"v": "  C "}, ambiguous).problems  # two members differ only by case
    flags = _schema(type="string", enum=["True", "False", "dontcare"])
    assert fit_input({"v": True}, flags).value == {"v": "True"}


def test_the_schema_line_shows_lists_and_marks_a_cut_enum():
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            "lang": {"type": "string", "enum": [f"l{i}" for i in range(10)]},
        },
        "required": ["tags"],
    }
    line = schema_line(schema)
    assert 'tags: array of ("a" | "b")' in line
    assert line.endswith('"l7" | …}')
    assert schema_line(SCHEMA).endswith('mode?: "fast" | "slow" | null}')


def test_a_tool_whose_arguments_are_all_optional_runs_with_none_given(run):
    seen: list[dict[str, Any]] = []

    def mandates(**kwargs: Any) -> str:
        seen.append(kwargs)
        return "3 mandates"

    listing = StructuredTool.from_function(
        mandates,
        name="partner_mandates",
        description="List mandates.",
        args_schema={
            "type": "object",
            "properties": {"status": {"type": "string", "enum": ["active", "inactive"]}},
        },
    )
    llm = ScriptedChatModel(
        [
            '{"action": "partner_mandates", "action_input": {}}',
            '{"action": "final", "action_input": "3"}',
        ]
    )
    result = run(create_agent(llm, [listing]))
    assert seen == [{}] and result.steps[0].observations[0].ok
