"""A run whose model failed for good (``llm_error``) is ``failed``, and resumable.

The model is down from its second call on (a 401: fatal at once; the loop's own retries
are not what is tested). The thread then reads ``failed``, with the run's result, from
the agent, from :func:`summarize_thread` and from :func:`read_thread`; ``invoke(None)``
on a healthy model goes on from the checkpoint before the failure: the failed model
call is asked again and nothing else is (no tool call runs twice, the loops add up to
those of a run that never failed). Sync and async, on SQLite and the in-memory saver.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from durable_support import World, json_reply, make_tools, tool_calls_of
from langchain_core.messages import AIMessage, BaseMessage

from lcel_agent import SlidingWindowMemory, StopReason, create_agent
from lcel_agent.durable import read_thread, summarize_thread
from lcel_agent.errors import CheckpointError
from lcel_agent.testing.fake import APIStatusFault, FunctionChatModel

SCRIPT = [[("get_weather", "北京")], [("get_weather", "上海")], "北京晴，上海晴"]
CONFIG = {"configurable": {"thread_id": "t1"}}


def _agent(saver: Any, world: World, down_from: int | None) -> Any:
    """The scripted agent whose model answers 401 from its ``down_from``-th call on."""
    asked = []

    def reply(messages: list[BaseMessage], tools: Any) -> Any:
        asked.append(1)
        if down_from is not None and len(asked) >= down_from:
            return APIStatusFault(401, "invalid api key")
        world.model_calls += 1
        turn = sum(isinstance(m, AIMessage) for m in messages)
        return json_reply(SCRIPT[min(turn, len(SCRIPT) - 1)])

    return create_agent(
        FunctionChatModel(reply),
        make_tools(world),
        checkpointer=saver,
        memory=SlidingWindowMemory(max_tokens=100_000, compactor=None),
        llm_backoff=(0.0, 0.0),
    )


def test_a_failed_run_reads_failed_and_resumes_asking_only_the_failed_call(run, storage, world):
    failed = run(_agent(storage(), world, down_from=2), "查天气", CONFIG)
    assert failed.stop_reason is StopReason.LLM_ERROR and failed.loops == 2
    assert world.finished == [("get_weather", "北京")] and world.model_calls == 1

    state = _agent(storage(), world, None).get_state(CONFIG)
    assert state is not None and state.status == "failed"
    assert state.result is not None and state.result.stop_reason is StopReason.LLM_ERROR
    summary = summarize_thread(storage(), "t1")
    assert summary is not None and summary.status == "failed"
    assert summary.stop_reason is StopReason.LLM_ERROR
    read = read_thread(storage(), "t1")
    assert read is not None and read.status == "failed" and read.result is not None
    assert read.result.to_dict()["stop_reason"] == "llm_error"

    done = run(_agent(storage(), world, None), None, CONFIG)
    assert done.stop_reason is StopReason.FINAL and done.output == SCRIPT[-1]
    # The failed call was asked again (one more successful call than before), nothing else.
    assert world.model_calls == 3 == done.loops == len(done.steps)
    assert done.usage.interrupted == 0  # it failed: no reply was lost to an interruption
    assert Counter(world.finished) == Counter(tool_calls_of(SCRIPT))
    after = _agent(storage(), world, None).get_state(CONFIG)
    assert after is not None and after.status == "finished"


def test_a_failed_run_that_fails_again_is_still_failed_and_still_resumable(run, storage, world):
    run(_agent(storage(), world, down_from=2), "查天气", CONFIG)
    again = run(_agent(storage(), world, down_from=1), None, CONFIG)
    assert again.stop_reason is StopReason.LLM_ERROR and again.loops == 2
    state = _agent(storage(), world, None).get_state(CONFIG)
    assert state is not None and state.status == "failed"
    done = run(_agent(storage(), world, None), None, CONFIG)
    assert done.stop_reason is StopReason.FINAL and done.loops == 3
    assert Counter(world.finished) == Counter(tool_calls_of(SCRIPT))


def test_a_decision_on_a_failed_run_is_refused(run, storage, world):
    from langgraph.types import Command

    run(_agent(storage(), world, down_from=2), "查天气", CONFIG)
    with pytest.raises(CheckpointError, match="nothing in it waits for a decision"):
        run(_agent(storage(), world, None), Command(resume=True), CONFIG)
    assert world.model_calls == 1
