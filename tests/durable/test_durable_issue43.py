"""Durable runs keep a decision (issue 43).

* A refusal written down holds when the run is resumed by an agent without an approver
  (``lcel-agent resume --no-pause`` builds one): the refused call never runs and the
  model reads its refusal.

Sync and async (``run``), on SQLite and the in-memory saver (``storage``).
"""

from __future__ import annotations

from durable_support import make_agent
from langgraph.types import Command

from lcel_agent import StopReason
from lcel_agent.approval import pause

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
