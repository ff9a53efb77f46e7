"""One checkpointed run: the checkpoints it writes, and the dispatcher's journal.

:class:`DurableRun` writes a checkpoint when the model's actions are decided
(:meth:`~DurableRun.save_decision`, called by the ``checkpoint`` stage), one after
a loop that had nothing to run (:meth:`~DurableRun.save_loop`) and one when the
run ends; between a
decision and the loop's end it is the call journal (``lcel_agent.stages.journal_of``)
that writes each finished call and each approval decision as it happens, and
recalls those of a run that was interrupted. A paused run
(:class:`~lcel_agent.approval.ApprovalPending`) is checkpointed as ``paused`` with
what it knows; :func:`pick` reads a person's decisions from a resume value.

A loop whose reply was checkpointed as decided writes no checkpoint at its end:
the decision and the writes of its finished calls determine the loop's end (the
stages after the dispatcher are pure), so a restart rebuilds it from them
without running or asking anything again. That is one write per loop fewer than
a checkpoint after every step; loops with no call to run (an answer, a reply
that could not be read) are checkpointed at their end.

The decisions (what to write, when) are pure functions of the state; the sync
and async methods differ only in ``await``.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from .. import texts
from .._redact import redact
from ..conversation import RunInput
from ..errors import ConfigurationError, ErrorClass
from ..rules.limits import Limits
from ..stages import with_call_id
from ..state import Action, AgentState, Observation, StopReason
from ._codec import dump
from ._record import (
    CALL_WRITE,
    DECISION_WRITE,
    REQUEST_WRITE,
    Dumps,
    Identity,
    Phase,
    Snapshot,
    snapshot_value,
)
from ._saver import Saver, Thread, Tip

__all__ = ["DurableRun", "approval_request", "pick"]

_DECISIONS_HELP = (
    "resume with True (run them), False or a reason string (refuse them), "
    "{call_id: decision}, or a list of decisions in the order of result.pending"
)


def pick(decisions: Any, action: Action, index: int) -> bool | str | None:
    """The decision about ``action`` (the ``index``-th waiting call) in a resume value."""
    if isinstance(decisions, bool | str):
        return decisions
    if isinstance(decisions, Mapping):
        found = decisions.get(action.call_id or "")
    elif isinstance(decisions, Sequence):
        found = decisions[index] if index < len(decisions) else None
    else:
        raise ConfigurationError(f"cannot read the decisions {decisions!r}: {_DECISIONS_HELP}")
    if found is not None and not isinstance(found, bool | str):
        raise ConfigurationError(f"a decision must be True, False or a string, not {found!r}")
    return found


def approval_request(thread: Thread, actions: Sequence[Action]) -> dict[str, Any]:
    """What a paused run shows a person (LangGraph's ``interrupt()`` value): the calls."""
    calls = [{"id": a.call_id, "tool": a.tool, "input": a.tool_input} for a in actions]
    shown = json.loads(redact(json.dumps(calls, ensure_ascii=False, default=str)))
    return {"lcel_agent": "approval", "thread_id": thread.thread_id, "calls": shown}


def _refusal(action: Action, answer: bool | str) -> Observation:
    """What the model reads for a call a person refused (as the dispatcher words it)."""
    if answer is False:
        text = texts.NOT_APPROVED.format(name=action.tool)
    else:
        text = str(answer)
        text = text if text.lstrip().startswith("ERROR:") else f"ERROR: {text}"
    return Observation(
        action, redact(text), False, ErrorClass.REFUSED, tool=action.tool, attempts=0
    )


def _decided(state: AgentState) -> AgentState | None:
    """The state to checkpoint as decided (every tool call with its id), or None when the
    dispatcher will run nothing (the same conditions it checks itself)."""
    if state.stop is not None or state.loop_error is not None or state.final_only:
        return None
    if all(action.is_final for action in state.actions):
        return None
    actions = tuple(a if a.is_final else with_call_id(a) for a in state.actions)
    return dataclasses.replace(state, actions=actions)


def _with_recalled_counts(state: AgentState, finished: Mapping[str, Observation]) -> AgentState:
    """The state the dispatcher starts from: calls that finished before the restart count
    toward ``tool_call_limits`` (each attempt took one, as it did then)."""
    if not finished:
        return state
    counts = dict(state.tool_counts)
    for seen in finished.values():
        counts[seen.action.tool] = counts.get(seen.action.tool, 0) + seen.attempts
    return dataclasses.replace(state, tool_counts=tuple(sorted(counts.items())))


class DurableRun:
    """One checkpointed run (see the module docstring); the dispatcher's CallJournal."""

    def __init__(
        self,
        saver: Saver,
        thread: Thread,
        identity: Identity,
        run: RunInput,
        limits: Limits,
        tip: Tip | None,
    ) -> None:
        self.saver, self.thread, self.identity = saver, thread, identity
        self.run, self.limits = run, limits
        self.parent = tip.checkpoint_id if tip is not None else None
        self.version = tip.version if tip is not None else None
        self.phase: Phase | None = None
        """The phase of the last checkpoint this run wrote (or found, when it resumed one)."""
        self.decided_state: AgentState | None = None
        """The state as decided (before any call ran), for a pause and for the checkpoints."""
        self.finished_calls: dict[str, Observation] = {}
        self.decisions: dict[str, bool | str] = {}
        self.pending: tuple[Action, ...] = ()
        """The calls waiting for a person, once this run paused."""
        self._waiting: frozenset[str] = frozenset()  # the call ids the last paused checkpoint names
        self._decided_loop = False  # this loop's reply is checkpointed (module docstring)
        self._dumps: Dumps | None = None  # made at the first checkpoint

    # --- resuming ----------------------------------------------------------------------
    def resume(self, found: Snapshot) -> AgentState:
        """Take over a decided or paused snapshot; the state the dispatcher starts from."""
        self.phase = found.phase
        self.decided_state = found.state
        self.finished_calls = dict(found.finished_calls)
        self.decisions = dict(found.decisions)
        if found.phase is Phase.PAUSED:
            self._waiting = frozenset(found.pending)
        self._decided_loop = True
        return _with_recalled_counts(found.state, self.finished_calls)

    def waiting(self, found: Snapshot) -> tuple[Action, ...]:
        """The calls of a paused snapshot that still wait for a decision."""
        ids = set(found.pending) - set(self.decisions)
        return tuple(a for a in found.state.actions if a.call_id in ids)

    @staticmethod
    def decisions_for(decisions: Any, actions: Sequence[Action]) -> list[tuple[Action, bool | str]]:
        """The decisions a resume value gives for ``actions`` (those it leaves out still wait)."""
        picked = [(a, pick(decisions, a, i)) for i, a in enumerate(actions)]
        return [(a, answer) for a, answer in picked if answer is not None]

    # --- the journal (CallJournal) ----------------------------------------------------
    def recalled(self, action: Action) -> Observation | None:
        """A finished call's observation, or a refused call's refusal: the dispatcher
        recalls both whether or not the agent has an approver (an agent resumed without
        one asks its journal nothing else), so a decision once made holds."""
        found = self.finished_calls.get(action.call_id or "")
        answer = self.decisions.get(action.call_id or "")
        if found is None and answer is not None and answer is not True:
            return _refusal(action, answer)
        return found

    def decision(self, action: Action) -> bool | str | None:
        return self.decisions.get(action.call_id or "")

    def _decision_write(self, action: Action, answer: bool | str) -> tuple[str, dict[str, Any]]:
        call_id = action.call_id or ""
        self.decisions[call_id] = answer
        return f"decision:{call_id}", {"id": call_id, "answer": answer}

    def decided(self, action: Action, answer: bool | str) -> None:
        task, value = self._decision_write(action, answer)
        if self.parent is not None:
            self.saver.write(self.thread, self.parent, task, DECISION_WRITE, value)

    async def adecided(self, action: Action, answer: bool | str) -> None:
        task, value = self._decision_write(action, answer)
        if self.parent is not None:
            await self.saver.awrite(self.thread, self.parent, task, DECISION_WRITE, value)

    def _request(self, loop: int) -> tuple[str, dict[str, Any]] | None:
        if self.parent is None:
            return None
        # A task id of its own: a second request of the same loop (after a second
        # interruption) is a second write, not the first one replaced.
        return f"request:{uuid.uuid4().hex}", {"loop": loop}

    def requested(self, loop: int) -> None:
        """Loop ``loop``'s model request goes out now (see ``REQUEST_WRITE``)."""
        if (write := self._request(loop)) is not None:
            assert self.parent is not None
            self.saver.write(self.thread, self.parent, write[0], REQUEST_WRITE, write[1])

    async def arequested(self, loop: int) -> None:
        """Async twin of :meth:`requested`."""
        if (write := self._request(loop)) is not None:
            assert self.parent is not None
            await self.saver.awrite(self.thread, self.parent, write[0], REQUEST_WRITE, write[1])

    def finished(self, observation: Observation) -> None:
        if self.parent is not None and observation.action.call_id:
            task = observation.action.call_id
            self.saver.write(self.thread, self.parent, task, CALL_WRITE, dump(observation))

    async def afinished(self, observation: Observation) -> None:
        if self.parent is not None and observation.action.call_id:
            task = observation.action.call_id
            await self.saver.awrite(self.thread, self.parent, task, CALL_WRITE, dump(observation))

    # --- checkpoints -----------------------------------------------------------------------
    def _value(self, phase: Phase, state: AgentState) -> dict[str, Any]:
        paused = phase is Phase.PAUSED
        if self._dumps is None:
            self._dumps = Dumps(self.identity, self.run, self.limits)
        value = snapshot_value(
            self._dumps,
            phase,
            state,
            pending=[a.call_id or "" for a in self.pending] if paused else (),
            decisions=self.decisions if paused else None,
        )
        if paused:  # a new checkpoint: what finished after the decision must come along
            value["finished"] = {k: dump(v) for k, v in self.finished_calls.items()}
        return value

    def _begin_reply(self, state: AgentState) -> None:
        self.decided_state, self.finished_calls, self.decisions = state, {}, {}
        self._decided_loop = True

    def _loop_phase(self, state: AgentState) -> Phase | None:
        """The checkpoint a loop's end needs: none after a decided reply (module docstring)."""
        decided, self._decided_loop = self._decided_loop, False
        if state.stop is not None:
            return Phase.FINISHED
        return None if decided else Phase.LOOP

    def _put(self, phase: Phase, state: AgentState) -> None:
        put = self.saver.put(
            self.thread, self.parent, self.version, self._value(phase, state), phase, state.loops
        )
        self.parent, self.version = put
        self.phase = phase

    async def _aput(self, phase: Phase, state: AgentState) -> None:
        put = await self.saver.aput(
            self.thread, self.parent, self.version, self._value(phase, state), phase, state.loops
        )
        self.parent, self.version = put
        self.phase = phase

    def save_decision(self, state: AgentState) -> AgentState:
        """After ``parse_action``: checkpoint the decided calls (each given its call id)."""
        decided = _decided(state)
        if decided is None:
            return state
        self._begin_reply(decided)
        self._put(Phase.DECIDED, decided)
        return decided

    async def asave_decision(self, state: AgentState) -> AgentState:
        """Async twin of :meth:`save_decision`."""
        decided = _decided(state)
        if decided is None:
            return state
        self._begin_reply(decided)
        await self._aput(Phase.DECIDED, decided)
        return decided

    def save_loop(self, state: AgentState) -> None:
        """After a loop: checkpoint the state the next loop starts from (or the end)."""
        if (phase := self._loop_phase(state)) is not None:
            self._put(phase, state)

    async def asave_loop(self, state: AgentState) -> None:
        """Async twin of :meth:`save_loop`."""
        if (phase := self._loop_phase(state)) is not None:
            await self._aput(phase, state)

    def _pause_state(self, actions: tuple[Action, ...]) -> tuple[AgentState, bool]:
        if self.decided_state is None:  # a swapped stage asked for approval outside a reply
            raise ConfigurationError("approve paused a run whose reply was not checkpointed")
        ids = frozenset(a.call_id or "" for a in actions)
        again = self.phase is Phase.PAUSED and ids == self._waiting
        self.pending, self._waiting = actions, ids
        return self.decided_state, not again

    def pause(self, actions: tuple[Action, ...]) -> AgentState:
        """Checkpoint the run as paused (once per set of waiting calls); the state it stops in."""
        state, new = self._pause_state(actions)
        if new:
            self._put(Phase.PAUSED, state)
        return dataclasses.replace(state, stop=StopReason.PAUSED)

    async def apause(self, actions: tuple[Action, ...]) -> AgentState:
        """Async twin of :meth:`pause`."""
        state, new = self._pause_state(actions)
        if new:
            await self._aput(Phase.PAUSED, state)
        return dataclasses.replace(state, stop=StopReason.PAUSED)

    def redo(self) -> AgentState:
        """The decided state to run the dispatcher on again (after decisions came in)."""
        assert self.decided_state is not None
        self.pending = ()
        return _with_recalled_counts(self.decided_state, self.finished_calls)

    def save_end(self, state: AgentState) -> None:
        """When the run ends: checkpoint it as finished, unless it paused or already did."""
        if not self.pending and self.phase is not Phase.FINISHED:
            self._put(Phase.FINISHED, state)

    async def asave_end(self, state: AgentState) -> None:
        """Async twin of :meth:`save_end`."""
        if not self.pending and self.phase is not Phase.FINISHED:
            await self._aput(Phase.FINISHED, state)
