"""What one checkpoint of an lcel_agent run holds, and how it is read back.

A checkpoint is LangGraph's :class:`~langgraph.checkpoint.base.Checkpoint` with one
channel, ``"lcel_agent"``, whose value is a :class:`Snapshot` as plain data::

    {"format": 1, "tools": [...], "protocol": "json", "phase": "decided",
     "input": {...}, "limits": {...}, "state": {...}, "memory": {...},
     "elapsed": 3.2, "pending": [...], "decisions": {...}, "finished": {...}}

The **phase** says where the run stood: ``loop`` (between two loops: the next one
asks the model), ``decided`` (the model's reply is parsed; its tool calls run
next), ``paused`` (decided, and calls wait for a person), ``finished`` (the run
ended; a new input on the thread continues the conversation). Each tool call that
finishes after a ``decided`` or ``paused`` checkpoint is a *write* on it (LangGraph's
``put_writes``, task id = the call id), and so is each approval decision: a
restarted run recalls them instead of running or asking again. Each loop's model
request is a write too, made before it is sent: one on the latest checkpoint is a
request the run lost to an interruption, which its usage counts.

Reading checks everything before anything runs: the format, the agent's tool
names and protocol, every field's type. A checkpoint that fails any check is a
:class:`~lcel_agent.errors.CheckpointError`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .._redact import redact
from ..conversation import RunInput
from ..errors import CheckpointError
from ..memory import SlidingWindowMemory
from ..rules.limits import Limits
from ..state import AgentState, Observation, StepRecord
from ._codec import dump, load, load_fields

__all__ = [
    "CALL_WRITE",
    "CHANNEL",
    "DECISION_WRITE",
    "FORMAT",
    "REQUEST_WRITE",
    "Dumps",
    "Identity",
    "Phase",
    "Snapshot",
    "read_snapshot",
    "snapshot_value",
]

#: The one channel an lcel_agent checkpoint has.
CHANNEL = "lcel_agent"
#: The channel of a finished tool call's write (its value: the Observation).
CALL_WRITE = "lcel_agent:call"
#: The channel of an approval decision's write (its value: ``{"id", "answer"}``).
DECISION_WRITE = "lcel_agent:decision"
#: The channel of a model request's write, made as the request goes out (its value:
#: ``{"loop": n}``). One left on a thread's latest checkpoint is a request whose reply
#: was never checkpointed: the provider saw it, the run lost it.
REQUEST_WRITE = "lcel_agent:request"
#: The snapshot format this version writes and reads.
FORMAT = 1

# Rebuilt when read (the window, the clock) or per loop and rebuilt by the stages that own
# them (the prompt, the turn being built): not stored.
_NOT_STORED = frozenset({"memory", "started", "deadline", "prompt", "pending", "pending_facts"})


class Phase(StrEnum):
    """Where a checkpointed run stood (see the module docstring)."""

    LOOP = "loop"
    DECIDED = "decided"
    PAUSED = "paused"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Identity:
    """What a checkpoint must have been written by: an agent with these tools and protocol."""

    tools: tuple[str, ...]
    protocol: str


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One checkpoint, read."""

    phase: Phase
    run: RunInput
    """The run's input (the task, the conversation it came with, the output's form)."""
    limits: Limits
    """The run's limits (per-run overrides included)."""
    state: AgentState
    """The run's state; its clock is rebased so that ``elapsed`` seconds have passed."""
    elapsed: float
    """Seconds the run had spent when the checkpoint was written."""
    pending: tuple[str, ...] = ()
    """``paused``: the call ids waiting for a decision."""
    decisions: dict[str, bool | str] = field(default_factory=dict)
    """Decisions made so far about the decided calls (stored and written)."""
    finished_calls: dict[str, Observation] = field(default_factory=dict)
    """Calls of the decided reply that finished (from the writes), by call id."""


class Dumps:
    """One run's plain data that does not change between its checkpoints, dumped once: its
    input, its limits and every finished step (a step record never changes)."""

    def __init__(self, identity: Identity, run: RunInput, limits: Limits) -> None:
        self.fixed = {
            "format": FORMAT,
            "tools": list(identity.tools),
            "protocol": identity.protocol,
            "input": dump(run),
            "limits": dump(limits),
        }
        self._steps: dict[int, tuple[StepRecord, Any]] = {}

    def steps(self, steps: Iterable[StepRecord]) -> list[Any]:
        out = []
        for step in steps:
            seen = self._steps.get(id(step))
            if seen is None or seen[0] is not step:
                seen = self._steps[id(step)] = (step, dump(step))
            out.append(seen[1])
        return out


def snapshot_value(
    dumps: Dumps,
    phase: Phase,
    state: AgentState,
    *,
    pending: Iterable[str] = (),
    decisions: Mapping[str, bool | str] | None = None,
) -> dict[str, Any]:
    """The channel value of a checkpoint (plain data)."""
    data = dump(state, skip=_NOT_STORED | {"steps"})
    data["steps"] = dumps.steps(state.steps)
    return {
        **dumps.fixed,
        "phase": phase.value,
        "state": data,
        "memory": state.memory.to_dict(),
        "elapsed": time.monotonic() - state.started,
        "pending": list(pending),
        "decisions": dict(decisions or {}),
    }


def _check_identity(thread: str, value: Mapping[str, Any], identity: Identity) -> None:
    if value.get("format") != FORMAT:
        raise CheckpointError(
            thread,
            f"its checkpoint has format {value.get('format')!r}; this version reads {FORMAT}",
        )
    tools = tuple(value.get("tools") or ())
    if tools != identity.tools:
        raise CheckpointError(
            thread,
            f"its checkpoint was written by an agent with the tools {list(tools)}, "
            f"this agent has {list(identity.tools)}; use the same tools or another thread_id",
        )
    if value.get("protocol") != identity.protocol:
        raise CheckpointError(
            thread,
            f"its checkpoint was written with protocol={value.get('protocol')!r}, "
            f"this agent uses {identity.protocol!r}",
        )


def _writes(
    pending_writes: Iterable[tuple[str, str, Any]],
) -> tuple[dict[str, Observation], dict[str, bool | str]]:
    finished: dict[str, Observation] = {}
    decisions: dict[str, bool | str] = {}
    for _task, channel, value in pending_writes:
        if channel == CALL_WRITE:
            observation = load(Observation, value)
            if observation.action.call_id:
                finished[observation.action.call_id] = observation
        elif channel == DECISION_WRITE:
            decisions[str(value["id"])] = load(bool | str, value["answer"])
    return finished, decisions


def read_snapshot(
    thread: str,
    values: Mapping[str, Any],
    pending_writes: Iterable[tuple[str, str, Any]],
    identity: Identity,
    template: SlidingWindowMemory,
) -> Snapshot:
    """Read a checkpoint's channel values and writes, or raise CheckpointError saying why."""
    value = values.get(CHANNEL)
    if not isinstance(value, Mapping):
        raise CheckpointError(
            thread,
            "its latest checkpoint was not written by an lcel_agent agent "
            f"(channels {sorted(map(str, values))})",
        )
    _check_identity(thread, value, identity)
    try:
        elapsed = load(float, value["elapsed"])
        fields = load_fields(AgentState, value["state"])
        memory = SlidingWindowMemory.from_dict(
            value["memory"],
            template.counter,
            max_tokens=template.max_tokens,
            compactor=template.compactor,
        )
        state = AgentState(memory=memory, started=time.monotonic() - elapsed, **fields)
        limits = load(Limits, value["limits"])
        if limits.time_budget is not None:
            state = dataclasses.replace(state, deadline=state.started + limits.time_budget)
        finished, written = _writes(pending_writes)
        # A paused checkpoint carries what finished after the decision it pauses.
        stored = load(dict[str, Observation], value.get("finished") or {})
        return Snapshot(
            phase=Phase(value["phase"]),
            run=load(RunInput, value["input"]),
            limits=limits,
            state=state,
            elapsed=elapsed,
            pending=load(tuple[str, ...], value.get("pending") or []),
            decisions={**load(dict[str, bool | str], value.get("decisions") or {}), **written},
            finished_calls={**stored, **finished},
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        detail = redact(f"{type(exc).__name__}: {exc}")[:300]
        raise CheckpointError(
            thread, f"its checkpoint is damaged and cannot be used ({detail})"
        ) from None
