"""The circuit breaker: a stuck model is stopped fast, an unlucky one is not stopped at all."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.tools import tool

from lcel_agent import ErrorClass, SlidingWindowMemory, StopReason, create_agent
from lcel_agent.rules.breaker import BreakerState, advance
from lcel_agent.testing.fake import FunctionChatModel, ScriptedChatModel


def act(action: str, value: object) -> str:
    return json.dumps({"action": action, "action_input": value}, ensure_ascii=False)


@tool
def get_weather(city: str) -> str:
    """查询城市实时天气"""
    if city.startswith("火星"):
        return "ERROR: 城市不存在"
    if city == "爆炸":
        raise RuntimeError("boom")
    return f"{city}市天气：晴"


# --- the rule itself ---------------------------------------------------------------------


def test_progress_resets_everything():
    state, why = advance(BreakerState(), failure="f", results=(), max_errors=2)
    assert (state.stalled, state.streak, why) == (1, 1, None)
    state, why = advance(state, failure=None, results=("get_weather 北京",), max_errors=2)
    assert state == BreakerState(progressed=True, known=frozenset({"get_weather 北京"}))


def test_the_same_failure_trips_at_max_errors_and_one_later_after_progress():
    state = BreakerState()
    state, why = advance(state, failure="f", results=(), max_errors=2)
    assert why is None
    assert advance(state, failure="f", results=(), max_errors=2)[1] == "repeated"
    worked = BreakerState(progressed=True, known=frozenset({"r"}))
    state, _ = advance(worked, failure="f", results=(), max_errors=2)
    state, why = advance(state, failure="f", results=(), max_errors=2)
    assert why is None
    assert advance(state, failure="f", results=(), max_errors=2)[1] == "repeated"


def test_different_failures_trip_after_twice_max_errors_loops():
    state, whys = BreakerState(), []
    for failure in ["a", "b", "a", "b"]:
        state, why = advance(state, failure=failure, results=(), max_errors=2)
        whys.append(why)
    assert whys == [None, None, None, "stalled"]


def test_a_second_drift_before_progress_trips_whatever_max_errors_is():
    state, _ = advance(BreakerState(), failure="d1", results=(), max_errors=9, drift=True)
    state, _ = advance(state, failure="x", results=(), max_errors=9)
    assert advance(state, failure="d2", results=(), max_errors=9, drift=True)[1] == "drifted"


def test_a_call_that_succeeded_before_is_not_progress():
    state, _ = advance(BreakerState(), failure=None, results=("r",), max_errors=1)
    state, why = advance(state, failure=None, results=("r",), max_errors=1)
    assert (state.stalled, why) == (1, None)
    assert advance(state, failure=None, results=("r",), max_errors=1)[1] == "stalled"


# --- through the agent: the invariant, for any model that stops making progress -----------

behaviour = st.one_of(
    st.tuples(st.just("garbage"), st.integers(0, 2)),
    st.tuples(st.just("unknown"), st.integers(0, 2)),
    st.tuples(st.just("fail"), st.integers(0, 2)),
    st.tuples(st.just("raise"), st.just(0)),
    st.tuples(st.just("repeat"), st.integers(0, 2)),
)
# Unreadable attempts at JSON. (Plain prose after a successful call is the answer: see
# test_core_reply_shapes.py.)
GARBAGE = ['{"oops', '{"action": "get_weather", "action_in', '{"action": "get_wea']


def reply(kind: str, k: int, done: int) -> str:
    if kind == "garbage" or (kind == "repeat" and not done):
        return GARBAGE[k]
    if kind == "unknown":
        return act(f"tool_{k}", "x")
    if kind == "fail":
        return act("get_weather", "火星" + "星" * k)
    if kind == "raise":
        return act("get_weather", "爆炸")
    return act("get_weather", f"城{k % done}")  # a call whose result is in memory


@settings(max_examples=120, deadline=None)
@given(
    max_errors=st.integers(1, 3),
    progress=st.integers(0, 3),
    stuck=st.lists(behaviour, min_size=1, max_size=8),
)
def test_a_model_without_progress_is_stopped_within_2_max_errors_plus_1(
    max_errors, progress, stuck
):
    script = itertools.chain(
        (act("get_weather", f"城{i}") for i in range(progress)),
        (reply(kind, k, progress) for kind, k in itertools.cycle(stuck)),
    )
    llm = FunctionChatModel(lambda messages, tools: next(script))
    agent = create_agent(llm, [get_weather], max_errors=max_errors, max_loops=60)
    result = agent.invoke("查询天气")
    assert result.stop_reason in (StopReason.MAX_ERRORS, StopReason.DRIFT)
    # The bound is on acting loops: after a drift stop with results in hand, the answer
    # stage's rescue (its calls are steps of kind "answer", after the stop) is left out.
    acting = sum(s.kind == "act" for s in result.steps)
    assert acting + (result.answer.calls if result.answer else 0) == result.loops
    # The issue asks for 2 * max_errors + 1; the rules give one call less.
    assert progress <= acting <= progress + 2 * max_errors
    if progress == 0 and len(set(stuck)) == 1:  # the same failure from the start
        assert acting <= max_errors


def test_the_invariant_holds_under_ainvoke_too(run):
    stuck = ScriptedChatModel([GARBAGE[0], act("tool_1", "x"), GARBAGE[1], act("tool_2", "x")] * 3)
    result = run(create_agent(stuck, [get_weather], max_errors=2, max_loops=30))
    assert result.stop_reason is StopReason.MAX_ERRORS and result.loops == 4
    same = ScriptedChatModel([act("tool_1", "x")] * 5)
    result = run(create_agent(same, [get_weather], max_errors=2, max_loops=30))
    assert result.loops == 2 and result.error.error_class is ErrorClass.UNKNOWN_TOOL


def test_a_model_that_progresses_between_slips_is_never_stopped(run):
    replies = []
    for i in range(6):  # two unrelated slips in a row, then progress, six times over
        replies += [GARBAGE[i % 3], act("tool_x", str(i)), act("get_weather", f"城{i}")]
    llm = ScriptedChatModel([*replies, act("final", "done")])
    result = run(create_agent(llm, [get_weather], max_errors=2, max_loops=30))
    assert result.stop_reason is StopReason.FINAL and result.loops == 19


def test_different_unreadable_tool_calls_are_different_failures(run):
    from langchain_core.messages import AIMessage

    def broken(name: str, args: str) -> AIMessage:
        bad = {"name": name, "args": args, "id": f"c_{name}", "error": "bad json"}
        return AIMessage(content="", invalid_tool_calls=[bad])

    good = {"name": "get_weather", "args": {"city": "北京"}, "id": "c1"}
    llm = ScriptedChatModel(
        [
            broken("get_weather", '{"city": "北'),
            broken("search", '{"q'),
            AIMessage(content="", tool_calls=[good]),
            AIMessage(content="北京晴"),
        ]
    )
    result = run(create_agent(llm, [get_weather], protocol="tool_calling"))
    assert result.stop_reason is StopReason.FINAL and result.loops == 4
    same = ScriptedChatModel([broken("get_weather", '{"city": "北')] * 3)
    result = run(create_agent(same, [get_weather], protocol="tool_calling"))
    assert result.stop_reason is StopReason.MAX_ERRORS and result.loops == 2


def test_a_result_that_changes_every_time_does_not_keep_a_run_alive(run):
    ticks = itertools.count()

    @tool
    def now(zone: str) -> str:
        """The time, to the microsecond (and a long report the small window evicts)."""
        return f"{zone} {next(ticks)}: " + "时" * 400

    llm = FunctionChatModel(lambda messages, tools: act("now", "北京"))
    plain = SlidingWindowMemory(300, compactor=None)  # the result leaves: asking is allowed
    # (nothing keeps the results in the window: a call whose result left may run again)
    result = run(create_agent(llm, [now], max_errors=2, max_loops=30, memory=plain))
    # One progress (the first answer); after it, each answer is new text but the same
    # call: no progress, so the run stops within 2 * max_errors loops, not at max_loops.
    acting = sum(s.kind == "act" for s in result.steps)  # the stage's rescue comes after
    assert result.stop_reason is StopReason.DRIFT and acting <= 1 + 2 * 2
    assert sum(o.ok for s in result.steps for o in s.observations) >= 2  # it did run again
