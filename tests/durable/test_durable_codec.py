"""The checkpoint's plain-data form of the run's values: a round trip, and strict reading."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from lcel_agent.conversation import InputForm, RunInput
from lcel_agent.durable._codec import dump, load
from lcel_agent.errors import ErrorClass
from lcel_agent.rules.breaker import BreakerState
from lcel_agent.rules.limits import Limits
from lcel_agent.state import (
    Action,
    AgentState,
    Observation,
    RunError,
    StepRecord,
    StopReason,
    Usage,
)

CALL = Action("get_weather", {"city": "北京"}, "call_1")
STEP = StepRecord(
    step=1,
    raw='{"action": "get_weather"}',
    actions=(CALL, Action("final", "晴")),
    observations=(
        Observation(CALL, "北京：晴", True, tool="get_weather", attempts=2, latency_ms=1.5),
        Observation(CALL, "ERROR: 超时", False, ErrorClass.TOOL_TIMEOUT, attempts=0),
    ),
    error=RunError(1, "dispatch_tools", ErrorClass.TOOL_TIMEOUT, "timed out", notice="再试"),
    usage=Usage(12, 3),
    llm_ms=4.0,
    tools_ms=2.0,
    stage_ms=(("call_llm", 4.0), ("dispatch_tools", 2.0)),
    window_tokens=40,
    window_budget=800,
)


def test_a_step_record_survives_the_round_trip_through_json():
    data = json.loads(json.dumps(dump(STEP)))  # plain data: JSON keeps it whole
    assert load(StepRecord, data) == STEP
    assert data["error"]["error_class"] == "tool_timeout"  # enums by value, not by class


def test_the_run_input_keeps_its_messages_and_form():
    run = RunInput(
        task="北京呢？",
        form=InputForm.MESSAGES,
        before=(HumanMessage("上海天气"), AIMessage("", tool_calls=[
            {"name": "get_weather", "args": {"city": "上海"}, "id": "c1"}])),
        after=(ToolMessage("晴", tool_call_id="c1"),),
        persona="你是天气助手",
        messages=(HumanMessage("北京呢？"),),
    )  # fmt: skip
    again = load(RunInput, json.loads(json.dumps(dump(run))))
    assert again == run and isinstance(again.before[1], AIMessage)
    assert again.before[1].tool_calls[0]["id"] == "c1"


def test_state_fields_round_trip_and_missing_ones_take_their_defaults():
    from lcel_agent.durable._codec import load_fields
    from lcel_agent.memory import SlidingWindowMemory

    state = AgentState(
        task="查天气",
        memory=SlidingWindowMemory(),
        started=0.0,
        loops=2,
        breaker=BreakerState(stalled=1, known=frozenset({"a", "b"})),
        steps=(STEP,),
        history=(("sig", True, "北京"),),
        tool_counts=(("get_weather", 2),),
        stop=StopReason.FINAL,
        reply=AIMessage("ok"),
        actions=(CALL,),
    )
    data = dump(state, skip=frozenset({"memory", "started"}))
    fields = load_fields(AgentState, json.loads(json.dumps(data)))
    assert AgentState(memory=state.memory, started=0.0, **fields) == state
    del data["history"]  # a checkpoint from before a field existed
    assert load_fields(AgentState, data).get("history") is None


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        (int, True),  # a bool is not a count
        (int, "3"),
        (float, "1.5"),
        (StopReason, "exploded"),
        (tuple[str, ...], "abc"),
        (Usage, {"input_tokens": "many"}),
        (Limits, ["max_loops", 3]),
        (Action, {"tool_input": "北京"}),  # the tool is missing
        (AIMessage, {"type": "human", "data": {"content": "x"}}),  # the wrong message type
        (AIMessage, {"type": "nonsense"}),
    ],
)
def test_a_value_that_does_not_fit_its_type_is_refused(kind, data):
    with pytest.raises(ValueError):
        load(kind, data)
