"""response_format: the final answer is checked, re-prompted with the problem, and typed."""

from __future__ import annotations

import json
import sys
import typing

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

from lcel_agent import ConfigurationError, ErrorClass, StopReason, create_agent
from lcel_agent.testing.fake import ScriptedChatModel


class Weather(BaseModel):
    city: str
    celsius: int = Field(ge=-90, le=60)


class WeatherDict(TypedDict):
    city: str
    celsius: int


WEATHER_SCHEMA = {
    "title": "Weather",
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "integer"}},
    "required": ["city", "celsius"],
}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        (Weather, Weather(city="北京", celsius=25)),
        (WeatherDict, {"city": "北京", "celsius": 25}),
        (WEATHER_SCHEMA, {"city": "北京", "celsius": 25}),
    ],
)
def test_the_answer_is_validated_and_typed(run, weather, act, schema, expected):
    llm = ScriptedChatModel([act("final", {"city": "北京", "celsius": 25})])
    result = run(create_agent(llm, [weather], response_format=schema))
    assert result.stop_reason is StopReason.FINAL
    assert result.output == expected
    assert '"celsius"' in llm.calls[0][0].content  # the schema is in the system prompt
    assert result.to_dict()["output"] == {"city": "北京", "celsius": 25}


def test_a_bad_answer_is_a_format_error_with_the_problem_for_the_model(run, weather, act):
    llm = ScriptedChatModel(
        [
            act("final", {"city": "北京", "celsius": "很热"}),
            act("final", '```json\n{"city": "北京", "celsius": 25}\n```'),
        ]
    )
    result = run(create_agent(llm, [weather], response_format=Weather))
    assert result.output == Weather(city="北京", celsius=25)
    first = result.steps[0]
    assert first.error_class is ErrorClass.FORMAT
    assert "celsius" in first.error.message
    notice = llm.calls[1][-1].content
    assert notice == first.error.notice and "celsius" in notice
    assert "very" not in notice and len(notice) < 400


def test_bad_answers_count_toward_max_errors(run, weather, act):
    # The same bad answer twice is the same failure twice: the breaker's max_errors=2.
    llm = ScriptedChatModel([act("final", {"city": 1}), act("final", {"city": 1})])
    result = run(create_agent(llm, [weather], response_format=Weather, max_errors=2))
    assert result.stop_reason is StopReason.MAX_ERRORS and result.output is None
    assert [s.error_class for s in result.steps] == [ErrorClass.FORMAT, ErrorClass.FORMAT]


def test_tool_calling_protocol_reads_the_answer_text_as_json(run, weather):
    llm = ScriptedChatModel([AIMessage("北京很热"), AIMessage('{"city": "北京", "celsius": 31}')])
    result = run(
        create_agent(llm, [weather], protocol="tool_calling", response_format=WEATHER_SCHEMA)
    )
    assert result.output == {"city": "北京", "celsius": 31}
    assert result.steps[0].error_class is ErrorClass.FORMAT


def test_messages_mode_has_the_structured_response(run, weather, act):
    llm = ScriptedChatModel([act("final", {"city": "北京", "celsius": 25})])
    agent = create_agent(llm, [weather], response_format=Weather)
    out = run(agent, {"messages": [HumanMessage("北京天气")]})
    assert out["structured_response"] == Weather(city="北京", celsius=25)
    assert json.loads(out["messages"][-1].content) == {"city": "北京", "celsius": 25}
    message = run(
        create_agent(
            ScriptedChatModel([act("final", {"city": "上海", "celsius": 1})]),
            [weather],
            response_format=Weather,
        ),
        [HumanMessage("上海")],
    )
    assert json.loads(message.content) == {"city": "上海", "celsius": 1}


def test_bad_response_formats_fail_at_construction(weather):
    llm = ScriptedChatModel([])
    with pytest.raises(TypeError, match="pydantic model, a TypedDict or a JSON-schema dict"):
        create_agent(llm, [weather], response_format=int)
    if sys.version_info < (3, 12):

        class Old(typing.TypedDict):
            city: str

        with pytest.raises(ConfigurationError, match=r"typing_extensions\.TypedDict"):
            create_agent(llm, [weather], response_format=Old)
    with pytest.raises(ConfigurationError, match="not a valid JSON schema"):
        create_agent(llm, [weather], response_format={"type": "no-such-type"})

    @tool(return_direct=True)
    def lookup(q: str) -> str:
        """Look it up."""
        return q

    with pytest.raises(ConfigurationError, match="return_direct"):
        create_agent(llm, [lookup], response_format=Weather)
