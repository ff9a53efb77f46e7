"""Load: 500 runs through one shared agent, batched 50 at a time; nothing crosses or leaks.

The model is the in-process ``FunctionChatModel`` (the simulated HTTP server is
too slow for 500 runs on two cores within the test budget); it echoes the task
it sees, so a result that belongs to another input shows at once.
"""

from __future__ import annotations

import os
import re
import threading
import time
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from rel_support import act

from lcel_agent import AgentResult, StopReason, create_agent
from lcel_agent.testing.fake import FunctionChatModel

RUNS = 500
CONCURRENCY = 50


@tool
def echo(task: str) -> str:
    """原样返回任务编号"""
    return f"seen:{task}"


def _reply(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> str:
    task = next(m.content for m in messages if isinstance(m, HumanMessage))
    assert isinstance(task, str)
    seen = [m for m in messages if not isinstance(m, ToolMessage) and "seen:" in str(m.content)]
    if not seen:
        return act("echo", task)
    match = re.search(r"seen:(task-\d+)", str(seen[-1].content))
    return act("final", f"answer:{match.group(1) if match else '?'}")


def _agent() -> Any:
    return create_agent(FunctionChatModel(_reply), [echo], max_loops=4)


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _settled(baseline: int) -> int:
    """Thread count after a short grace for pool threads to wind down."""
    deadline = time.monotonic() + 5
    while threading.active_count() > baseline and time.monotonic() < deadline:
        time.sleep(0.05)
    return threading.active_count()


def _check(tasks: list[str], results: list[Any]) -> None:
    assert len(results) == RUNS
    wrong = [
        (task, r)
        for task, r in zip(tasks, results, strict=True)
        if not isinstance(r, AgentResult)
        or r.input != task
        or r.output != f"answer:{task}"
        or r.stop_reason is not StopReason.FINAL
        or r.loops != 2
    ]
    assert wrong == []


def test_batch_of_500_runs_keeps_every_result_with_its_input() -> None:
    agent, tasks = _agent(), [f"task-{i}" for i in range(RUNS)]
    agent.batch(tasks[:CONCURRENCY], {"max_concurrency": CONCURRENCY})  # warm the pools
    threads, fds = threading.active_count(), _open_fds()
    results = agent.batch(tasks, {"max_concurrency": CONCURRENCY})
    _check(tasks, results)
    assert _settled(threads) <= threads
    assert _open_fds() <= fds


async def test_abatch_of_500_runs_keeps_every_result_with_its_input() -> None:
    agent, tasks = _agent(), [f"task-{i}" for i in range(RUNS)]
    # The event loop's default executor keeps its worker threads until the loop closes:
    # warm it, so the check is that 500 runs leave no more behind than 50 did.
    await agent.abatch(tasks[:CONCURRENCY], {"max_concurrency": CONCURRENCY})
    threads, fds = threading.active_count(), _open_fds()
    results = await agent.abatch(tasks, {"max_concurrency": CONCURRENCY})
    _check(tasks, results)
    assert _settled(threads) <= threads
    assert _open_fds() <= fds
