"""A run killed at each kind of point resumes where it stopped: nothing finished runs again.

Every test runs sync and async (the ``run`` fixture), on SQLite on disk and on the
in-memory saver. The crash is :class:`~durable_support.Crash` (see durable_support);
the restarted process is a new agent object on the same storage.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from durable_support import Crash, CrashingSaver, World, make_agent, tool_calls_of

from lcel_agent import StopReason
from lcel_agent.errors import CheckpointError

SCRIPT = [
    [("get_weather", "北京"), ("get_weather", "上海"), ("search_baidu", "台风")],
    [("get_weather", "广州")],
    "北京晴，上海晴，广州晴",
]
CONFIG = {"configurable": {"thread_id": "t1"}}


def crash_then_resume(run, storage, world: World, crash: dict[str, int], **options: Any):
    """Run SCRIPT until it crashes as ``crash`` says; then resume it in a "new process".

    A crash right after a write is taken with the calls run in order: with calls running
    side by side, another call may be between its end and its write at that instant, and
    would run again (at-least-once is all any checkpointer can promise for such a call).
    """
    world.crash_in = crash.get("tool")
    if "write" in crash:
        options.setdefault("parallel_tool_calls", False)
    crashing = CrashingSaver(storage(), world, crash_after_put=crash.get("put"),
                             crash_after_write=crash.get("write"))  # fmt: skip
    with pytest.raises(Crash):
        run(make_agent(crashing, world, SCRIPT, **options), "查天气", CONFIG)
    before = (list(world.finished), world.model_calls)
    world.revive()
    result = run(make_agent(storage(), world, SCRIPT, **options), None, CONFIG)
    return before, result


@pytest.mark.parametrize(
    "crash",
    [
        {"tool": 2},  # inside the second call of the first reply
        {"put": 2},  # right after the first reply was checkpointed (decided, nothing ran)
        {"write": 2},  # after two of the first reply's three calls finished
        {"write": 3},  # after the tools of the first reply, before the loop's checkpoint
        {"put": 3},  # right after the second reply was checkpointed
        {"tool": 4},  # inside the second reply's call
    ],
    ids=[
        "in-tool",
        "after-reply",
        "between-tools",
        "after-tools",
        "after-2nd-reply",
        "in-2nd-tool",
    ],
)
def test_a_resumed_run_repeats_no_finished_call_and_no_decided_model_call(
    run, storage, world, crash
):
    (finished_before, models_before), result = crash_then_resume(run, storage, world, crash)

    assert result.stop_reason is StopReason.FINAL and result.output == SCRIPT[-1]
    # Every call of the script ran exactly once, counting both processes.
    assert Counter(world.finished) == Counter(tool_calls_of(SCRIPT))
    # One model call per loop in all: a decided reply is never asked for again.
    assert world.model_calls == 3
    # The result carries every step, those before the crash included.
    assert result.loops == 3 and [s.step for s in result.steps] == [1, 2, 3]
    assert [o.output for o in result.steps[0].observations] == [
        "get_weather:北京:ok",
        "get_weather:上海:ok",
        "search_baidu:台风:ok",
    ]
    assert all(o.ok for step in result.steps for o in step.observations)
    assert set(finished_before) <= set(world.finished) and models_before <= 2


@pytest.mark.parametrize("parallel", [True, False], ids=["parallel", "in-order"])
def test_calls_of_a_reply_that_finished_before_the_crash_are_recalled(
    run, storage, world, parallel
):
    (finished_before, _), result = crash_then_resume(
        run, storage, world, {"tool": 2}, parallel_tool_calls=parallel
    )
    rerun = world.finished[len(finished_before) :]
    unfinished = set(SCRIPT[0]) - set(finished_before)
    # In order, the first call finished; side by side, the first and perhaps the third.
    assert 1 <= len(finished_before) <= (2 if parallel else 1)
    assert unfinished <= set(rerun)  # the killed call (and any not started) runs now
    assert not set(finished_before) & set(rerun)  # the finished ones do not
    assert result.stop_reason is StopReason.FINAL


def test_the_tool_calling_protocol_resumes_with_the_models_call_ids(run, storage, world):
    (_, _), result = crash_then_resume(run, storage, world, {"write": 1}, native=True)
    assert result.stop_reason is StopReason.FINAL
    assert Counter(world.finished) == Counter(tool_calls_of(SCRIPT))
    assert world.model_calls == 3
    ids = [o.action.call_id for o in result.steps[0].observations]
    assert ids == ["tc_0_0", "tc_0_1", "tc_0_2"]  # the model's own, kept across the restart


def test_a_run_killed_in_its_first_model_call_resumes_from_its_start(run, storage, world):
    world.crash_in_model = True
    with pytest.raises(Crash):
        run(make_agent(CrashingSaver(storage(), world), world, SCRIPT), "查天气", CONFIG)
    world.revive()
    state = make_agent(storage(), world, SCRIPT).get_state(CONFIG)
    assert state is not None and state.status == "unfinished" and state.loops == 0
    result = run(make_agent(storage(), world, SCRIPT), None, CONFIG)
    assert result.stop_reason is StopReason.FINAL and world.model_calls == 3


def test_stream_and_astream_resume_with_the_records_of_the_loops_they_run(storage, world):
    crash_then = CrashingSaver(storage(), world, crash_after_put=3)  # the 2nd reply is decided
    with pytest.raises(Crash):
        make_agent(crash_then, world, SCRIPT).invoke("查天气", CONFIG)
    world.revive()
    events = list(make_agent(storage(), world, SCRIPT).stream(None, CONFIG))
    assert [e.step for e in events[:-1]] == [2, 3]  # the loops run after the restart
    assert events[-1].stop_reason is StopReason.FINAL and len(events[-1].steps) == 3

    async def astream() -> list[Any]:
        config = {"configurable": {"thread_id": "t2"}}
        crashing = CrashingSaver(storage(), world, crash_after_put=3)
        with pytest.raises(Crash):
            await make_agent(crashing, world, SCRIPT).ainvoke("查天气", config)
        world.revive()
        return [e async for e in make_agent(storage(), world, SCRIPT).astream(None, config)]

    events = asyncio.run(astream())
    assert [e.step for e in events[:-1]] == [2, 3]
    assert events[-1].stop_reason is StopReason.FINAL and len(events[-1].steps) == 3


def test_the_answer_stream_resumes_too(storage, world):
    with pytest.raises(Crash):
        crashing = CrashingSaver(storage(), world, crash_after_put=3)
        make_agent(crashing, world, SCRIPT).invoke("查天气", CONFIG)
    world.revive()
    text = "".join(make_agent(storage(), world, SCRIPT).stream(None, CONFIG, stream_mode="answer"))
    assert text == SCRIPT[-1] and world.model_calls == 3


def test_reinvoking_the_unfinished_runs_own_input_resumes_it(run, storage, world):
    world.crash_in = 2
    with pytest.raises(Crash):
        run(make_agent(CrashingSaver(storage(), world), world, SCRIPT), "查天气", CONFIG)
    world.revive()
    result = run(make_agent(storage(), world, SCRIPT), "查天气", CONFIG)
    assert result.stop_reason is StopReason.FINAL and world.model_calls == 3
    assert Counter(world.finished) == Counter(tool_calls_of(SCRIPT))


def test_another_input_on_an_unfinished_thread_is_refused_before_any_work(run, storage, world):
    world.crash_in = 2
    with pytest.raises(Crash):
        run(make_agent(CrashingSaver(storage(), world), world, SCRIPT), "查天气", CONFIG)
    world.revive()
    calls, finished = world.model_calls, list(world.finished)
    with pytest.raises(CheckpointError, match="unfinished run of another input"):
        run(make_agent(storage(), world, SCRIPT), "别的问题", CONFIG)
    assert world.model_calls == calls and world.finished == finished


def test_a_finished_thread_is_not_resumed(run, storage, world):
    agent = make_agent(storage(), world, SCRIPT)
    assert run(agent, "查天气", CONFIG).stop_reason is StopReason.FINAL
    calls = world.model_calls
    with pytest.raises(CheckpointError, match=r"last run finished .*nothing to resume"):
        run(agent, None, CONFIG)
    assert world.model_calls == calls
    state = agent.get_state(CONFIG)
    assert state is not None and state.status == "finished"
    assert state.result is not None and state.result.output == SCRIPT[-1]


def test_a_new_input_on_a_finished_thread_continues_the_conversation(run, storage, world):
    script = ["第一个答案", "第二个答案"]
    agent = make_agent(storage(), world, script)
    run(agent, "第一个问题", CONFIG)
    second = run(make_agent(storage(), world, script), "第二个问题", CONFIG)
    # The model saw its first answer (so it answered from script[1]), and the window holds both.
    assert second.output == "第二个答案"
    texts = [str(m.content) for m in second.messages]
    assert "第一个问题" in " ".join(texts) and any("第一个答案" in t for t in texts)
    other = run(
        make_agent(storage(), world, script), "别的线程", {"configurable": {"thread_id": "t9"}}
    )
    assert other.output == "第一个答案"


def test_nothing_to_resume_on_a_new_thread(run, storage, world):
    with pytest.raises(CheckpointError, match="no run to resume"):
        run(make_agent(storage(), world, SCRIPT), None, {"configurable": {"thread_id": "new"}})
    assert world.model_calls == 0


def test_session_id_names_the_thread_with_a_checkpointer(run, storage, world):
    script = ["一", "二"]
    run(make_agent(storage(), world, script), "问题一", {"configurable": {"session_id": "s1"}})
    second = run(
        make_agent(storage(), world, script), "问题二", {"configurable": {"thread_id": "s1"}}
    )
    assert second.output == "二"


def test_a_run_without_a_thread_id_is_not_checkpointed(run, storage, world):
    saver = CrashingSaver(storage(), world)
    assert run(make_agent(saver, world, SCRIPT), "查天气").stop_reason is StopReason.FINAL
    assert saver.puts == 0 and saver.writes == 0


def test_per_run_limits_carry_over_to_the_resumed_run(run, storage, world):
    crashing = CrashingSaver(storage(), world, crash_after_put=3)
    config = {"configurable": {"thread_id": "t1", "max_loops": 2}}
    with pytest.raises(Crash):
        run(make_agent(crashing, world, SCRIPT), "查天气", config)
    world.revive()
    result = run(make_agent(storage(), world, SCRIPT), None, CONFIG)
    assert result.stop_reason is StopReason.MAX_LOOPS and result.loops == 2
