"""``agent.get_state(config)``: a thread's latest checkpoint, as a person reads it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from langchain_core.messages import BaseMessage

from ..rules.limits import Limits
from ..state import Action, AgentResult, AgentState, StepRecord, StopReason
from ._record import Phase, Snapshot
from ._saver import Thread, Tip

__all__ = ["ThreadState", "ThreadStatus", "failed", "status_of", "thread_state"]

#: ``unfinished``: the run stopped before its end (a crash, or it is running now);
#: ``paused``: calls wait for a person; ``failed``: the model API failed for good
#: (``llm_error``), and ``invoke(None, config)`` asks the failed call again;
#: ``finished``: the run ended.
ThreadStatus = Literal["unfinished", "paused", "failed", "finished"]


@dataclass(frozen=True, slots=True)
class ThreadState:
    """A thread's latest checkpoint: ``agent.get_state({"configurable": {"thread_id": ...}})``."""

    thread_id: str
    checkpoint_id: str
    """The checkpoint read (LangGraph's id: ``saver.get_tuple`` finds it)."""
    status: ThreadStatus
    """Where the thread's latest run stands."""
    task: str
    """The latest run's task."""
    loops: int
    """Model calls the latest run made."""
    steps: tuple[StepRecord, ...]
    """The records of its finished loops."""
    pending: tuple[Action, ...]
    """``paused``: the calls waiting for a decision; ``unfinished``: decided calls that have
    not finished yet (a resume runs them without asking the model)."""
    messages: tuple[BaseMessage, ...]
    """The memory window the next loop (or the next run) starts from."""
    result: AgentResult | None
    """``finished`` or ``failed``: the run's result (as ``invoke`` returned it, in the task
    form)."""
    limits: Limits = field(default_factory=Limits)
    """The run's limits, as its checkpoint keeps them (a resume's config may change them)."""


def failed(found: Snapshot) -> bool:
    """Whether the checkpoint is the end of a run whose model failed (resumable)."""
    return found.phase is Phase.FINISHED and found.state.stop is StopReason.LLM_ERROR


def status_of(found: Snapshot) -> ThreadStatus:
    """The status a person reads for a checkpoint."""
    if found.phase is Phase.FINISHED:
        return "failed" if failed(found) else "finished"
    return "paused" if found.phase is Phase.PAUSED else "unfinished"


def thread_state(
    thread: Thread,
    tip: Tip,
    found: Snapshot,
    result_of: Callable[[AgentState], AgentResult],
) -> ThreadState:
    """The :class:`ThreadState` of a thread's latest checkpoint."""
    state = found.state
    if found.phase is Phase.PAUSED:
        waiting = set(found.pending) - set(found.decisions)
        pending = tuple(a for a in state.actions if a.call_id in waiting)
    elif found.phase is Phase.DECIDED:
        pending = tuple(
            a for a in state.actions if not a.is_final and a.call_id not in found.finished_calls
        )
    else:
        pending = ()
    return ThreadState(
        thread_id=thread.thread_id,
        checkpoint_id=tip.checkpoint_id,
        status=status_of(found),
        task=found.run.task,
        loops=state.loops,
        steps=state.steps,
        pending=pending,
        messages=tuple(state.memory.messages),
        result=result_of(state) if found.phase is Phase.FINISHED else None,
        limits=found.limits,
    )
