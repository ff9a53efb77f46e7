"""Drift after the nudge: an oscillation that goes on after the warning ends the run.

The gauntlet's oscillating model with a tool whose results are too big for the
memory window: the "its result is already in the conversation" check cannot
fire (the window evicted it), so only the A, B, A, B pattern check can.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from langchain_core.tools import tool
from rel_support import act

from lcel_agent import AgentResult, ErrorClass, SlidingWindowMemory, StopReason, create_agent
from lcel_agent.testing.fake import FunctionChatModel


@tool
def report(city: str) -> str:
    """返回一份很长的天气报告"""
    return f"{city}:" + "晴" * 100_000


@pytest.mark.parametrize(
    ("memory", "first_nudge", "answer"),
    [
        # Without the answer stage, a plain window forgets A's result: only the
        # A, B, A, B pattern gives it away.
        (SlidingWindowMemory(800, compactor=None), 4, "model"),
        # The default window keeps the newest turn whole; a result this long leaves no
        # room for the older one's line, so again the pattern is what gives it away.
        (SlidingWindowMemory(800), 4, "model"),
        # Where the older result's line fits, A is refused at once.
        (SlidingWindowMemory(6000), 3, "model"),
        # With the answer stage too: the dispatcher does not read its options (issue 34),
        # so what the window shows decides, as without it.
        (SlidingWindowMemory(800), 4, "auto"),
    ],
    ids=["plain", "digest", "roomy", "kept"],
)
def test_oscillation_that_continues_after_the_nudge_stops_the_run(
    run: Callable[..., AgentResult], memory: SlidingWindowMemory, first_nudge: int, answer: str
) -> None:
    answered = [0]

    def reply(messages: object, tools: object) -> str:
        answered[0] += 1
        return act("report", "北京" if answered[0] % 2 else "上海")

    agent = create_agent(
        FunctionChatModel(reply), [report], max_loops=10, max_errors=5, memory=memory, answer=answer
    )
    result = run(agent)
    nudges = [s.step for s in result.steps if s.error_class is ErrorClass.DRIFT]
    assert nudges[:1] == [first_nudge]
    # DESIGN.md: "the loop nudges once and then stops". The model goes straight back
    # to A, B after the nudge; that must end the run within one more cycle.
    assert result.stop_reason is StopReason.DRIFT
    # Acting loops: after the drift stop the answer stage may try to write the answer from
    # the results (its calls are steps of kind "answer"; this script only acts).
    acting = [s for s in result.steps if s.kind == "act"]
    assert len(acting) <= 6, [(s.step, s.actions[0].tool_input, s.error_class) for s in acting]
