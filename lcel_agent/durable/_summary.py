"""A thread's latest run in a few fields, read from any saver without building an agent.

::

    from lcel_agent.durable import summarize_thread

    summary = summarize_thread(saver, "t1")     # None: no lcel_agent run on that thread
    summary.status, summary.stop_reason, summary.loops, summary.updated_at
    state = read_thread(saver, "t1")            # a ThreadState: pending calls, the result

``lcel-agent threads`` lists a store with it. Unlike ``agent.get_state``, it needs no
agent: the checkpoint is checked against the tools and protocol it says it was written
with, so a run of any lcel_agent agent reads. A damaged checkpoint is a
:class:`~lcel_agent.errors.CheckpointError`, as everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..memory import SlidingWindowMemory
from ..rules.limits import finish
from ..state import StopReason
from ._record import CHANNEL, Identity, Phase, Snapshot, read_snapshot
from ._saver import Saver, Thread, Tip
from ._view import ThreadState, ThreadStatus, status_of, thread_state

__all__ = ["ThreadSummary", "read_thread", "summarize_thread"]


@dataclass(frozen=True, slots=True)
class ThreadSummary:
    """A thread's latest run, as :func:`summarize_thread` reads it."""

    thread_id: str
    status: ThreadStatus
    """``unfinished`` (running now, or its process died), ``paused``, ``failed`` (the model
    API failed for good: resumable) or ``finished``."""
    task: str
    """The run's task."""
    loops: int
    """Model calls the run made so far."""
    stop_reason: StopReason | None
    """``finished`` or ``failed``: why it stopped; ``paused``: :attr:`StopReason.PAUSED`;
    else None."""
    updated_at: str
    """When its latest checkpoint was written (ISO 8601, UTC)."""


def _identity(value: Mapping[str, Any]) -> Identity:
    """The tools and protocol the checkpoint says it was written with."""
    tools = value.get("tools")
    names = tuple(str(t) for t in tools) if isinstance(tools, list | tuple) else ()
    return Identity(names, str(value.get("protocol")))


def _latest(checkpointer: Any, thread: Thread) -> tuple[Tip, Snapshot] | None:
    """The thread's latest checkpoint, read as the tools and protocol it names."""
    tip = Saver(checkpointer).latest(thread)
    value = None if tip is None else tip.values.get(CHANNEL)
    if tip is None or not isinstance(value, Mapping):
        return None
    found = read_snapshot(
        thread.thread_id, tip.values, tip.writes, _identity(value), SlidingWindowMemory()
    )
    return tip, found


def read_thread(checkpointer: Any, thread_id: str, checkpoint_ns: str = "") -> ThreadState | None:
    """``agent.get_state`` without an agent: the thread's latest run as a :class:`ThreadState`.

    What waits, what finished, and a finished run's result, read from any saver with no
    model to build (``lcel-agent resume`` prints a finished run's result with it). The
    result is the plain one (``response_format`` is the agent's to apply). None and the
    errors as :func:`summarize_thread`.
    """
    thread = Thread(thread_id, checkpoint_ns)
    latest = _latest(checkpointer, thread)
    return None if latest is None else thread_state(thread, *latest, finish)


def summarize_thread(
    checkpointer: Any, thread_id: str, checkpoint_ns: str = ""
) -> ThreadSummary | None:
    """The latest run of ``thread_id`` in ``checkpointer`` (any LangGraph saver).

    None when the thread has no checkpoint, or only checkpoints that are not an
    lcel_agent run's (a LangGraph graph's own). Raises CheckpointError when the
    run's checkpoint cannot be read, and the storage's own error when the storage fails.
    """
    latest = _latest(checkpointer, Thread(thread_id, checkpoint_ns))
    if latest is None:
        return None
    tip, found = latest
    if found.phase is Phase.FINISHED:
        stop = found.state.stop
    else:
        stop = StopReason.PAUSED if found.phase is Phase.PAUSED else None
    return ThreadSummary(
        thread_id=thread_id,
        status=status_of(found),
        task=found.run.task,
        loops=found.state.loops,
        stop_reason=stop,
        updated_at=tip.updated,
    )
