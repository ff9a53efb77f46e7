"""Where a run's state comes from and where it goes: a thread, or nowhere.

:class:`Threads` is the agent's side (built once by ``create_agent``);
:meth:`Threads.journey` reads one run's input and config, and the journey's
:meth:`~Journey.open` (or :meth:`~Journey.aopen`) finds the run's starting point:

* no checkpointer, or no thread: a fresh window from the template;
* a checkpointer and a ``thread_id`` (or ``session_id``, which names the thread
  too): the thread's latest checkpoint decides
  (see :meth:`Journey._plan`): a new thread starts a run; a finished run's thread
  continues its conversation with a new input; an unfinished run resumes (input
  ``None``, ``Command(resume=...)``, or its own input again); a run that *failed* (it
  stopped with ``llm_error``: the model API failed after its retries) resumes with input
  ``None`` from the checkpoint before the failure, so the failed model call is asked
  again and nothing else is; a run that stopped at its ``max_loops`` goes on with input
  ``None`` and a higher ``max_loops`` in the config; anything else is a
  :class:`~lcel_agent.errors.CheckpointError` raised before any model call.

It yields the :class:`~lcel_agent.durable.Trip` the loop's drivers use.
Deciding is pure (:meth:`Journey._plan`); ``open`` and ``aopen`` differ only in
``await``.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from langchain_core.runnables import ConfigurableFieldSpec, RunnableConfig

from ..conversation import RunInput, read_input
from ..errors import CheckpointError, ConfigurationError
from ..memory import SlidingWindowMemory
from ..rules.limits import Limits, run_limits
from ..state import Action, StopReason, Usage
from ._codec import dump
from ._record import REQUEST_WRITE, Identity, Phase, Snapshot, read_snapshot
from ._run import DurableRun
from ._saver import Saver, Thread, Tip
from ._trip import NO_INPUT, ResultFn, StartFn, Trip, resume_value
from ._view import ThreadState, failed, thread_state

__all__ = ["Journey", "Threads"]

_log = logging.getLogger("lcel_agent.loop")

_THREAD_SPEC = ConfigurableFieldSpec(
    id="thread_id",
    annotation=str,
    name="Thread ID",
    description="The thread whose checkpoints this run continues (durable runs).",
    default="",
    is_shared=True,
)


def _unfinished(thread: Thread, found: Snapshot, value: Any, run: RunInput | None) -> None:
    """Refuse what cannot continue an unfinished run (pure)."""
    if run is not None and dump(run) != dump(found.run):
        raise CheckpointError(
            thread.thread_id,
            "it holds an unfinished run of another input; resume that run first "
            "(agent.invoke(None, config)) or use a new thread_id",
        )
    if resume_value(value) is not NO_INPUT and found.phase is not Phase.PAUSED:
        raise CheckpointError(
            thread.thread_id,
            "nothing in it waits for a decision; resume it with agent.invoke(None, config)",
        )


def _lost(tip: Tip | None, *, failed: bool, window: SlidingWindowMemory) -> Usage:
    """The model requests the run lost to interruptions: those written down on the
    checkpoint it resumes from (``REQUEST_WRITE``), whose replies never made a checkpoint.
    Their prompts were about the window's size; a failed run's own failed request is not
    one of them."""
    sent = 0 if tip is None else sum(1 for _task, ch, _v in tip.writes if ch == REQUEST_WRITE)
    lost = max(0, sent - 1) if failed else sent
    if not lost:
        return Usage()
    return Usage(input_tokens=lost * window.token_count, estimated=True, interrupted=lost)


def _nothing_to_resume(thread: Thread, found: Snapshot | None) -> CheckpointError:
    if found is None:
        return CheckpointError(thread.thread_id, "it has no run to resume")
    stop = found.state.stop.value if found.state.stop is not None else "none"
    more = (
        " (or a higher max_loops in the config: the run goes on)"
        if found.state.stop is StopReason.MAX_LOOPS
        else ""
    )
    return CheckpointError(
        thread.thread_id,
        f"its last run finished (stop_reason {stop!r}), so there is nothing to resume; "
        f"give a new input to continue the conversation{more}",
    )


class Journey:
    """One run before it starts: its input and config, read but not yet looked up."""

    def __init__(
        self, threads: Threads, value: Any, config: RunnableConfig, limits: Limits
    ) -> None:
        self.threads, self.value, self.config, self.base_limits = threads, value, config, limits
        self.thread = threads.thread_of(config)
        resuming = value is None or resume_value(value) is not NO_INPUT
        if resuming and self.thread is None:
            # The input's type is what is wrong for this run: a TypeError, as for any other.
            raise TypeError(
                "the agent's input must be a task string, {'input': ...}, {'messages': [...]}, "
                "a list of messages, a message or a prompt value; input None (or "
                "Command(resume=...)) resumes a thread's run, which needs "
                "create_agent(..., checkpointer=saver) and config "
                "{'configurable': {'thread_id': ...}}"
            )
        self.run: RunInput | None = None if resuming else read_input(value)
        """The run's input: read now, or (resuming) from the checkpoint when opened."""
        self._asked = self.run

    @property
    def input(self) -> RunInput:
        """The run's input (a resumed run's is known once the journey is opened)."""
        assert self.run is not None, "the journey has not been opened"
        return self.run

    def _limits(self, limits: Limits) -> Limits:
        return run_limits(limits, self.config.get("configurable"))

    def _new(self, start: StartFn, memory: SlidingWindowMemory, **durable: Any) -> Trip:
        assert self.run is not None
        limits = self._limits(self.base_limits)
        state = start(self.run, memory, limits)
        return Trip(self.run, limits, state, self.config, **durable)

    def _failed_parent(self, tip: Tip | None) -> str | None:
        """The checkpoint to resume a failed run from: the one its failure was written after
        (None: the thread's latest checkpoint is not a failed run's, or a new input came)."""
        if tip is None or self._asked is not None or self.thread is None:
            return None
        if not failed(self.threads.snapshot(self.thread, tip)):
            return None
        if tip.parent is None:
            raise CheckpointError(
                self.thread.thread_id, "its run failed before its first checkpoint"
            )
        return tip.parent

    def _plan(
        self, start: StartFn, tip: Tip | None, latest: Tip | None = None
    ) -> tuple[Trip, list[tuple[Action, bool | str]]]:
        """The trip a thread's checkpoint leads to, and the decisions to write (pure).

        ``tip`` is the thread's latest checkpoint, or (resuming a failed run) the one
        before the failure, and then ``latest`` is the failure's own.
        """
        threads, thread = self.threads, self.thread
        assert thread is not None and threads.saver is not None
        found = None if tip is None else threads.snapshot(thread, tip)
        asked, identity = self._asked, threads.identity
        going_on = None if found is None or asked is not None else self._going_on(found)
        found = going_on or found
        if found is None or found.phase is Phase.FINISHED:
            if asked is None:
                raise _nothing_to_resume(thread, found)
            memory = threads.memory.fresh() if found is None else found.state.memory
            limits = self._limits(self.base_limits)
            durable = DurableRun(threads.saver, thread, identity, asked, limits, tip)
            return self._new(start, memory, durable=durable), []
        _unfinished(thread, found, self.value, asked)
        self.run = found.run
        limits = self._limits(found.limits)
        durable = DurableRun(threads.saver, thread, identity, found.run, limits, tip)
        if latest is not None:  # the next checkpoint's version comes after the failure's
            durable.version = latest.version
        # A run that goes on past its bound starts with a checkpoint, as a new run does.
        durable.phase = None if going_on else found.phase
        state, first = found.state, 0
        if found.phase is not Phase.LOOP:
            state, first = durable.resume(found), threads.resume_at
        deadline = None if limits.time_budget is None else state.started + limits.time_budget
        usage = state.usage + _lost(tip, failed=latest is not None, window=state.memory)
        state = dataclasses.replace(state, deadline=deadline, usage=usage)
        trip = Trip(found.run, limits, state, self.config, durable=durable, first=first,
                    resume_at=threads.resume_at)  # fmt: skip
        decisions = resume_value(self.value)
        if found.phase is not Phase.PAUSED or decisions is NO_INPUT:
            return trip, []
        return trip, durable.decisions_for(decisions, durable.waiting(found))

    def _going_on(self, found: Snapshot) -> Snapshot | None:
        """A run that stopped at its ``max_loops`` and is resumed with a higher one: the
        snapshot it goes on from (between two loops, as if the bound had not stopped it),
        else None."""
        if found.phase is not Phase.FINISHED or found.state.stop is not StopReason.MAX_LOOPS:
            return None
        if self._limits(found.limits).max_loops <= found.state.loops:
            return None
        state = dataclasses.replace(found.state, stop=None, error=None, final_only=False)
        return dataclasses.replace(found, phase=Phase.LOOP, state=state)

    @contextmanager
    def open(self, start: StartFn) -> Iterator[Trip]:
        """Find the run's starting point (see the module docstring); sync."""
        threads = self.threads
        if self.thread is None or threads.saver is None:
            yield self._new(start, threads.memory.fresh())
            return
        tip = threads.saver.latest(self.thread)
        parent = self._failed_parent(tip)
        if parent is not None:
            before = threads.saver.latest(self.thread, parent)
            trip, decisions = self._plan(start, before, latest=tip)
        else:
            trip, decisions = self._plan(start, tip)
        durable = trip.durable
        assert durable is not None
        if durable.phase is None:  # a new run: its start is a checkpoint (None resumes it)
            durable.save_loop(trip.state)
        for action, answer in decisions:
            durable.decided(action, answer)
        yield trip

    @asynccontextmanager
    async def aopen(self, start: StartFn) -> AsyncIterator[Trip]:
        """Async twin of :meth:`open`."""
        threads = self.threads
        if self.thread is None or threads.saver is None:
            yield self._new(start, threads.memory.fresh())
            return
        tip = await threads.saver.alatest(self.thread)
        parent = self._failed_parent(tip)
        if parent is not None:
            before = await threads.saver.alatest(self.thread, parent)
            trip, decisions = self._plan(start, before, latest=tip)
        else:
            trip, decisions = self._plan(start, tip)
        durable = trip.durable
        assert durable is not None
        if durable.phase is None:  # a new run: its start is a checkpoint (None resumes it)
            await durable.asave_loop(trip.state)
        for action, answer in decisions:
            await durable.adecided(action, answer)
        yield trip


class Threads:
    """An agent's state that outlives a run: a checkpointer's threads. See the module
    docstring."""

    def __init__(
        self,
        memory: SlidingWindowMemory,
        *,
        checkpointer: Any = None,
        identity: Identity | None = None,
        resume_at: int = 0,
    ) -> None:
        self.memory = memory
        self.checkpointer = checkpointer
        self.saver = Saver(checkpointer) if checkpointer is not None else None
        self.identity = identity or Identity((), "json")
        self.resume_at = resume_at

    def specs(self) -> list[ConfigurableFieldSpec]:
        """``thread_id`` with a checkpointer."""
        return [_THREAD_SPEC] if self.saver is not None else []

    def thread_of(self, config: RunnableConfig) -> Thread | None:
        """The run's thread: ``thread_id`` (or ``session_id``) and ``checkpoint_ns``."""
        configurable = config.get("configurable") or {}
        # session_id names the thread too, so configs written for the retired SessionStore
        # (and RunnableWithMessageHistory's) keep their conversation on a checkpointer.
        thread_id = configurable.get("thread_id") or configurable.get("session_id")
        if self.saver is None:
            if configurable.get("session_id"):
                # Other components (RunnableWithMessageHistory, ...) set it for their own use.
                _log.debug(
                    "session_id %r ignored: this agent has no checkpointer",
                    configurable["session_id"],
                )
            return None
        if not thread_id:
            return None
        return Thread(str(thread_id), str(configurable.get("checkpoint_ns") or ""))

    def snapshot(self, thread: Thread, tip: Tip) -> Snapshot:
        """A thread's latest checkpoint, read and checked (CheckpointError if unusable)."""
        return read_snapshot(thread.thread_id, tip.values, tip.writes, self.identity, self.memory)

    def journey(self, value: Any, config: RunnableConfig, limits: Limits) -> Journey:
        """One run's journey (input errors are raised here, before anything runs)."""
        return Journey(self, value, config, limits)

    def _thread(self, config: RunnableConfig) -> tuple[Saver, Thread]:
        thread = self.thread_of(config)
        if thread is None or self.saver is None:
            raise ConfigurationError(
                "get_state needs create_agent(..., checkpointer=saver) and "
                "config {'configurable': {'thread_id': ...}}"
            )
        return self.saver, thread

    def state(self, config: RunnableConfig, result_of: ResultFn) -> ThreadState | None:
        """The thread's latest checkpoint as a :class:`ThreadState` (None: no run yet)."""
        saver, thread = self._thread(config)
        tip = saver.latest(thread)
        return (
            None
            if tip is None
            else thread_state(thread, tip, self.snapshot(thread, tip), result_of)
        )

    async def astate(self, config: RunnableConfig, result_of: ResultFn) -> ThreadState | None:
        """Async twin of :meth:`state`."""
        saver, thread = self._thread(config)
        tip = await saver.alatest(thread)
        return (
            None
            if tip is None
            else thread_state(thread, tip, self.snapshot(thread, tip), result_of)
        )
