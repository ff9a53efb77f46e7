"""Calls written in words are calls: every reply of ``prose_calls.jsonl``, in both protocols.

A reply that writes a call out (a tool's name with an object of its arguments, Python
call syntax, ReAct's ``Action:`` lines, an object naming its tool, several of these) runs
that call; a plan in words, an answer showing JSON, a result quoted back, a call reported
or given as an example does not. ``python tests/core/prose_calls_support.py`` prints the
precision and recall over the file.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from prose_calls_support import CASES, PROTOCOLS, read, tools

from lcel_agent import StopReason, create_agent
from lcel_agent.stages._written import written_calls
from lcel_agent.testing import ScriptedChatModel


def test_the_set_covers_what_the_issue_asks():
    assert len(CASES) >= 40 and len({c["id"] for c in CASES}) == len(CASES)
    forms = Counter(c["form"] for c in CASES)
    calls = {"name-then-object", "name-with-object", "python-call", "react", "named-object",
             "parallel"}  # fmt: skip
    words = {"plan", "answer-json", "result-quoted", "report", "example"}
    assert set(forms) == calls | words
    assert all(bool(c["calls"]) == (c["form"] in calls) for c in CASES)
    assert sum(bool(c["calls"]) for c in CASES) >= 20 and sum(not c["calls"] for c in CASES) >= 20
    # Tools of one, two and three arguments are called; JSON and tool names stand in words.
    arity = {t.name: len(t.args) for t in tools()}
    called = {arity[name] for c in CASES for name, _ in c["calls"]}
    assert {1, 2, 3} <= called
    assert sum("{" in c["text"] for c in CASES if not c["calls"]) >= 10
    assert sum(any(t in c["text"] for t in arity) for c in CASES if not c["calls"]) >= 20
    assert sum(len(c["calls"]) > 1 for c in CASES) >= 4


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_a_reply_is_read_as_the_calls_it_writes(run, case: dict[str, Any], protocol: str):
    assert read(case, protocol, run) == case["calls"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_call_in_prose_runs_and_the_model_sees_it_answered(run, protocol):
    text = 'You can use the `get_forecast` tool with the following input:\n```json\n{"city": "Paris", "days": 3}\n```'
    final = '{"action": "final", "action_input": "Sunny."}' if protocol == "json" else "Sunny."
    llm = ScriptedChatModel([AIMessage(content=text), final])
    result = run(create_agent(llm, tools(), protocol=protocol))
    assert result.stop_reason is StopReason.FINAL and result.output == "Sunny."
    (observation,) = result.steps[0].observations
    assert observation.ok and observation.output == "Paris: sunny for 3 days"
    second = llm.calls[1]
    if protocol == "tool_calling":
        # Carried natively, the text as written, answered by its ToolMessage.
        call_message = next(m for m in second if isinstance(m, AIMessage) and m.tool_calls)
        assert call_message.content == text
        assert call_message.tool_calls[0]["args"] == {"city": "Paris", "days": 3}
        assert isinstance(second[second.index(call_message) + 1], ToolMessage)
    else:
        assert "Paris: sunny for 3 days" in str(second[-1].content)


def test_a_call_in_prose_that_does_not_fit_is_refused_with_the_schema(run):
    # The object's keys are the tool's, a required one left out: a call, and the
    # dispatcher names what is missing (the model can fix that; a plan notice would not).
    llm = ScriptedChatModel(['Let me call get_forecast with {"days": 3}',
                             '{"action": "final", "action_input": "done"}'])  # fmt: skip
    result = run(create_agent(llm, tools()))
    (observation,) = result.steps[0].observations
    assert not observation.ok and "'city' is missing" in observation.output


TOOLS = {"get_forecast": ["city", "days"], "get_weather": ["city"], "ls": []}


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        ('get_forecast("Paris", 3, 4)', []),  # more values than arguments
        ('get_forecast("Paris", city="Rome")', []),  # one argument given twice
        ("get_forecast(**options)", []),
        ("get_weather(city=input())", []),  # not a literal
        ("math.get_weather(city='Paris')", []),  # someone else's function
        ("get_weather(city='Paris', unit='C')", []),  # not the tool's argument
        ("get_weather()", []),  # its argument left out: nothing written to run
        ("ls()", [("ls", {})]),  # a tool that takes nothing, called
        (
            "get_forecast(city=('Paris'), days=-2)",
            [("get_forecast", {"city": "Paris", "days": -2})],
        ),
        ('get_weather(city="a)b")', [("get_weather", {"city": "a)b"})]),
        ('Use get_weather with {"input": {"city": "Oslo"}}', [("get_weather", {"city": "Oslo"})]),
    ],
)
def test_call_syntax_is_read_only_when_it_is_a_whole_call(text, calls):
    assert [(c.tool, c.arguments) for c in written_calls(text, TOOLS)] == calls


def test_a_call_already_made_is_reported_not_made_again():
    text = "Summary of get_weather(city='Paris') — sunny."
    assert [c.tool for c in written_calls(text, TOOLS)] == ["get_weather"]
    done = {"get_weather\x00" + json.dumps({"city": "Paris"}, sort_keys=True)}
    assert written_calls(text, TOOLS, done) == ()
