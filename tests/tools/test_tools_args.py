"""coerce_single_arg: the argument shapes models really send (the article's pitfall 1)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from lcel_agent.tools import SingleArgInput, WeatherInput, coerce_single_arg


@pytest.mark.parametrize(
    "value",
    [
        "北京",
        {"city": "北京"},
        {"action_input": "北京"},
        {"input": "北京"},
        {"__arg1": "北京"},
        {"query": "北京"},
        {"location": "北京"},  # one key of any name
        {"city": "北京", "unit": "c"},  # the field wins over extras
        '{"city": "北京"}',
        ' {"action_input": "北京"} ',
        '"北京"',
        '["北京"]',
        ["北京"],
        {"action_input": {"city": "北京"}},
        '{"action_input": "{\\"city\\": \\"北京\\"}"}',
    ],
)
def test_shapes_that_mean_beijing(value):
    assert coerce_single_arg(value, "city") == "北京"


def test_numbers_become_strings():
    assert coerce_single_arg(110000, "city") == "110000"
    assert coerce_single_arg({"city": 110000}, "city") == "110000"


@pytest.mark.parametrize("text", ["[1, 2]", "{not json", '{"a": 1, "b": 2}', "[]", "{}"])
def test_text_that_only_looks_like_json_is_kept(text):
    assert coerce_single_arg(text, "query") == text


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        {},
        {"a": "x", "b": "y"},
        {"city": None},
        ["a", "b"],
        [],
        1j,
        {"a": {"b": {"c": {"d": {"e": {"f": "x"}}}}}},
    ],
)
def test_unsafe_shapes_raise_value_error(value):
    with pytest.raises(ValueError):
        coerce_single_arg(value, "city")


# Text that is itself JSON (an object, a list, a quoted string) is unwrapped on purpose:
# that is how '"北京"' and '{"city": "北京"}' sent as strings reach the tool as 北京.
@given(st.text().filter(lambda t: t.strip()[:1] not in ("{", "[", '"')))
def test_any_plain_string_survives_every_wrapper(text):
    assert coerce_single_arg({"city": text}, "city") == text
    assert coerce_single_arg({"action_input": text}, "city") == text
    assert coerce_single_arg(json.dumps({"city": text}, ensure_ascii=False), "city") == text
    assert coerce_single_arg(json.dumps({"action_input": text}), "city") == text


@given(st.text().filter(lambda t: t.strip()[:1] not in ("{", "[", '"')))
def test_plain_strings_pass_through_unchanged(text):
    assert coerce_single_arg(text, "city") == text


def test_schema_model_accepts_loose_input_and_stays_one_field():
    assert WeatherInput.model_validate({"action_input": "上海"}).city == "上海"
    assert WeatherInput.model_validate('{"city": "上海"}').city == "上海"
    assert list(WeatherInput.model_json_schema()["properties"]) == ["city"]
    with pytest.raises(ValidationError):
        WeatherInput.model_validate({"a": 1, "b": 2})


def test_schema_base_needs_exactly_one_field():
    class TwoFields(SingleArgInput):
        a: str
        b: str

    with pytest.raises(ValidationError):
        TwoFields.model_validate("x")
