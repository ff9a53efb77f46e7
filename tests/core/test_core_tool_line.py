"""How a tool reads in the JSON protocol's prompt: the arguments a model must fill, what
each may hold, and which it may leave out."""

from __future__ import annotations

from typing import Literal

from langchain_core.tools import tool

from lcel_agent.stages.prompt import tool_signature


@tool
def area_circle(radius: int, units: str = "units") -> str:
    """The area of a circle."""
    return ""


@tool
def forecast(city: str, unit: Literal["celsius", "fahrenheit"], days: int = 1) -> str:
    """The forecast of a city."""
    return ""


@tool
def many(choice: Literal["a", "b", "c", "d", "e", "f", "g", "h", "i"], count: int) -> str:
    """A long list of values."""
    return ""


@tool
def get_weather(city: str) -> str:
    """The weather of a city."""
    return ""


def test_an_argument_with_a_default_is_marked_optional_and_a_required_one_is_not():
    line = tool_signature(area_circle)
    assert '"radius": <integer>' in line
    assert '"units": <string, optional>' in line


def test_an_enum_shows_its_allowed_values():
    line = tool_signature(forecast)
    assert '"unit": <"celsius" | "fahrenheit">' in line
    assert '"city": <string>' in line and '"days": <integer, optional>' in line


def test_a_long_enum_is_shown_by_its_type_alone():
    # Nine values: the line is paid on every call, so only the type is shown.
    assert '"choice": <string>' in tool_signature(many)


def test_a_one_string_tool_reads_as_before():
    # The article's tools take one string: their line is unchanged by the argument marks.
    assert tool_signature(get_weather) == "- get_weather: The weather of a city. Input: city"
