"""Property: wherever a run is killed, finished-before plus run-after equals one whole run.

Hypothesis draws a script (one to three replies of one to three calls, then an
answer), a crash point and the way calls run (side by side or in order, sync or
async). The crash points are every checkpoint (right after the model's reply is
decided, after each loop), every finished-call write (after each tool, after the
reply's tools) and every tool call (killed inside it). The run is killed there
(see durable_support), then resumed by a new agent on the same SQLite file. Then
the tool calls that finished in the first process plus those of the second equal
an uninterrupted run's, one for one; no model call is made twice; and the result
is the uninterrupted run's.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from durable_support import Crash, CrashingSaver, World, make_agent, sqlite_saver
from hypothesis import given, settings
from hypothesis import strategies as st

from lcel_agent import StopReason

CONFIG = {"configurable": {"thread_id": "p"}}


@st.composite
def scripts(draw: st.DrawFn) -> list[Any]:
    replies = draw(st.integers(1, 3))
    script: list[Any] = []
    for turn in range(replies):
        width = draw(st.integers(1, 3))
        tools = draw(st.lists(st.sampled_from(["get_weather", "search_baidu"]), min_size=width,
                              max_size=width))  # fmt: skip
        script.append([(name, f"城市{turn}{i}") for i, name in enumerate(tools)])
    return [*script, "答案"]


def _run(agent: Any, task: Any, asynchronous: bool) -> Any:
    if asynchronous:
        return asyncio.run(agent.ainvoke(task, CONFIG))
    return agent.invoke(task, CONFIG)


def _outline(result: Any) -> Any:
    return (
        result.stop_reason,
        result.output,
        result.loops,
        [[(o.action.tool, o.action.tool_input, o.output, o.ok) for o in s.observations]
         for s in result.steps],
    )  # fmt: skip


@settings(max_examples=40)
@given(
    script=scripts(),
    kind=st.sampled_from(["put", "write", "tool"]),
    where=st.floats(0, 1, exclude_max=True),
    parallel=st.booleans(),
    asynchronous=st.booleans(),
)
def test_killed_anywhere_then_resumed_equals_one_whole_run(
    script: list[Any], kind: str, where: float, parallel: bool, asynchronous: bool
) -> None:
    if kind == "write":
        parallel = False  # see test_durable_resume.crash_then_resume: no call in the gap
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder)
        whole = World()
        counting = CrashingSaver(sqlite_saver(path / "whole.db"), whole)
        reference = _run(make_agent(counting, whole, script, parallel_tool_calls=parallel),
                         "任务", asynchronous)  # fmt: skip
        assert reference.stop_reason is StopReason.FINAL
        # Crash points: every checkpoint but the last (after it there is nothing to resume),
        # every finished call's write, every tool call.
        count = {"put": counting.puts - 1, "write": counting.writes, "tool": whole.started}[kind]
        point = 1 + int(where * count)

        world = World()
        world.crash_in = point if kind == "tool" else None
        crashing = CrashingSaver(
            sqlite_saver(path / "run.db"),
            world,
            crash_after_put=point if kind == "put" else None,
            crash_after_write=point if kind == "write" else None,
        )
        try:
            _run(make_agent(crashing, world, script, parallel_tool_calls=parallel), "任务",
                 asynchronous)  # fmt: skip
        except Crash:
            pass
        else:
            raise AssertionError(f"the run was not killed at {kind} {point}")
        world.revive()
        resumed = _run(
            make_agent(sqlite_saver(path / "run.db"), world, script, parallel_tool_calls=parallel),
            None,
            asynchronous,
        )

    assert Counter(world.finished) == Counter(whole.finished)
    # Every crash point lies after a reply was checkpointed or before the model was asked:
    # no reply is asked for twice (the issue allows one; none is needed).
    assert world.model_calls == whole.model_calls
    assert _outline(resumed) == _outline(reference)
