"""Durable runs keep a decision, go on past a raised bound, and count lost requests (issue 43).

* A refusal written down holds when the run is resumed by an agent without an approver
  (``lcel-agent resume --no-pause`` builds one): the refused call never runs and the
  model reads its refusal.
* A run that stopped at its ``max_loops`` goes on with ``invoke(None, config)`` and a
  higher ``max_loops`` in the config, asking nothing twice; with none it stays finished.
* A model request is written down as it goes out: one whose reply the run lost (the
  process died inside the call) is counted in the resumed run's usage, estimated.

Sync and async (``run``), on SQLite and the in-memory saver (``storage``).
"""

from __future__ import annotations

import pytest
from durable_support import Crash, CrashingSaver, make_agent
from langgraph.types import Command

from lcel_agent import StopReason
from lcel_agent.approval import pause
from lcel_agent.errors import CheckpointError

SCRIPT = [[("get_weather", "北京"), ("get_weather", "上海"), ("search_baidu", "台风")], "都查到了"]
CONFIG = {"configurable": {"thread_id": "i43"}}


def test_a_refusal_holds_when_the_run_goes_on_without_an_approver(run, storage, world):
    first = run(make_agent(storage(), world, SCRIPT, approve=pause), "查天气", CONFIG)
    _, shanghai, _ = first.pending
    partly = run(make_agent(storage(), world, SCRIPT, approve=pause),
                 Command(resume={shanghai.call_id: "不要上海"}), CONFIG)  # fmt: skip
    assert partly.stop_reason is StopReason.PAUSED and len(partly.pending) == 2

    done = run(make_agent(storage(), world, SCRIPT), Command(resume=True), CONFIG)  # no approver
    assert done.stop_reason is StopReason.FINAL
    assert sorted(world.finished) == [("get_weather", "北京"), ("search_baidu", "台风")]
    refused = {o.action.call_id: o for o in done.steps[0].observations}[shanghai.call_id]
    assert not refused.ok and refused.output == "ERROR: 不要上海"


def test_a_run_stopped_at_its_bound_goes_on_with_a_higher_one(run, storage, world):
    script = [[("get_weather", "北京")], [("get_weather", "上海")], "都查到了"]
    bound = run(make_agent(storage(), world, script, max_loops=1), "查天气", CONFIG)
    assert bound.stop_reason is StopReason.MAX_LOOPS and bound.loops == 1
    with pytest.raises(CheckpointError, match="a higher max_loops"):
        run(make_agent(storage(), world, script, max_loops=1), None, CONFIG)
    same = {"configurable": {**CONFIG["configurable"], "max_loops": 1}}
    with pytest.raises(CheckpointError, match="nothing to resume"):
        run(make_agent(storage(), world, script), None, same)

    raised = {"configurable": {**CONFIG["configurable"], "max_loops": 5}}
    done = run(make_agent(storage(), world, script, max_loops=1), None, raised)
    assert done.stop_reason is StopReason.FINAL and done.loops == 3 and done.error is None
    assert world.model_calls == 3 and world.finished == [
        ("get_weather", "北京"),
        ("get_weather", "上海"),
    ]
    assert [s.step for s in done.steps] == [1, 2, 3]
    state = make_agent(storage(), world, script).get_state(CONFIG)
    assert state is not None and state.status == "finished" and state.limits.max_loops == 5


def test_a_model_request_lost_to_a_crash_is_counted(run, storage, world):
    script = [[("get_weather", "北京")], "北京晴"]
    first = run(make_agent(storage(), world, script, max_loops=1), "查天气", CONFIG)
    assert first.stop_reason is StopReason.MAX_LOOPS  # one loop, checkpointed
    raised = {"configurable": {**CONFIG["configurable"], "max_loops": 5}}
    world.crash_in_model = True  # the process dies inside the next model call
    with pytest.raises(Crash):
        run(make_agent(CrashingSaver(storage(), world), world, script), None, raised)
    world.revive()
    done = run(make_agent(storage(), world, script), None, CONFIG)
    assert done.stop_reason is StopReason.FINAL and done.loops == 2 and world.model_calls == 2
    assert done.usage.interrupted == 1 and done.usage.estimated
    assert done.usage.input_tokens > sum(s.usage.input_tokens for s in done.steps)
    assert done.to_dict()["usage"]["interrupted_requests"] == 1


def test_a_run_that_lost_nothing_counts_no_lost_request(run, storage, world):
    done = run(make_agent(storage(), world, SCRIPT), "查天气", CONFIG)
    assert done.usage.interrupted == 0 and "interrupted_requests" not in done.to_dict()["usage"]
