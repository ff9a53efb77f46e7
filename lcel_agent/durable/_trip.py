"""One run on its way: the trip a :class:`~lcel_agent.durable.Journey` opens.

The loop's drivers see a run through its :class:`Trip`: the starting state, the
limits, the config the stages get (with the run's journal in it), and three
thin hooks: ``gate`` (the rest of a resumed loop is not gated again), ``step``
(the model request written down as it goes out, one loop, then its checkpoint; an
approval that pauses) and ``finish`` (the last checkpoint). Sync and async differ
only in ``await``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.runnables import RunnableConfig

from ..approval import ApprovalPending
from ..conversation import RunInput
from ..errors import ConfigurationError
from ..memory import SlidingWindowMemory
from ..rules.limits import Limits, gate
from ..stages import JOURNAL_KEY
from ..state import Action, AgentResult, AgentState
from ._run import DurableRun, approval_request

__all__ = ["NO_INPUT", "ARunLoop", "ResultFn", "RunLoop", "StartFn", "Trip", "resume_value"]

#: Builds a run's first state from its input, its window and its limits (the loop's own).
StartFn = Callable[[RunInput, SlidingWindowMemory, Limits], AgentState]
#: Runs one loop from the stage at index ``first`` (0: the whole loop).
RunLoop = Callable[[AgentState, int], AgentState]
ARunLoop = Callable[[AgentState, int], Awaitable[AgentState]]
ResultFn = Callable[[AgentState], AgentResult]

# LangGraph's own key in the config of a graph's task: interrupt() works there.
_LANGGRAPH_TASK = "__pregel_scratchpad"
#: :func:`resume_value` of an input that is not ``Command(resume=...)``.
NO_INPUT = object()


def resume_value(value: Any) -> Any:
    """The decisions of a ``Command(resume=...)`` input, else ``NO_INPUT``."""
    if value is None or isinstance(value, str | dict | list | tuple):
        return NO_INPUT
    resume = getattr(value, "resume", NO_INPUT)
    return resume if type(value).__name__ == "Command" else NO_INPUT


class Trip:
    """One run on its way (see the module docstring); built by :meth:`Journey.open`."""

    def __init__(
        self,
        run: RunInput,
        limits: Limits,
        state: AgentState,
        config: RunnableConfig,
        *,
        durable: DurableRun | None = None,
        first: int = 0,
        resume_at: int = 0,
    ) -> None:
        self.run, self.limits, self.state = run, limits, state
        self.durable, self._first, self._resume_at = durable, first, resume_at
        self.iterations = state.loops - (1 if first else 0)
        """Passes already made: a resumed loop's model call is counted in its state."""
        self.in_graph = _LANGGRAPH_TASK in (config.get("configurable") or {})
        if durable is not None:
            configurable = {**(config.get("configurable") or {}), JOURNAL_KEY: durable}
            config = {**config, "configurable": configurable}
        self.config = config

    def gate(self, state: AgentState, limits: Limits, iterations: int) -> AgentState:
        """:func:`~lcel_agent.rules.limits.gate`, except before the rest of a resumed loop."""
        return state if self._first else gate(state, limits, iterations)

    def _durable(self) -> DurableRun:
        if self.durable is None:
            raise ConfigurationError(
                "approve paused the run, which needs a checkpointer and a thread: "
                "create_agent(..., checkpointer=saver) and config "
                "{'configurable': {'thread_id': ...}}"
            )
        return self.durable

    def _decisions(self, actions: tuple[Action, ...]) -> list[tuple[Action, bool | str]]:
        # Inside a LangGraph graph the pause is LangGraph's: the first time interrupt() raises
        # GraphInterrupt (the graph pauses); when the graph resumes, it returns the decisions.
        from langgraph.types import interrupt

        durable = self._durable()
        return durable.decisions_for(interrupt(approval_request(durable.thread, actions)), actions)

    def step(self, state: AgentState, run_loop: RunLoop) -> AgentState:
        """One loop (the rest of a resumed one first), then its checkpoint."""
        first, self._first = self._first, 0
        if self.durable is not None and not first:  # the loop starts with its model call
            self.durable.requested(state.loops + 1)
        try:
            state = run_loop(state, first)
        except ApprovalPending as waiting:
            paused = self._durable().pause(waiting.actions)
            if not self.in_graph:
                return paused
            for action, answer in self._decisions(waiting.actions):
                self._durable().decided(action, answer)
            self._first = self._resume_at
            return self.step(self._durable().redo(), run_loop)
        if self.durable is not None:
            self.durable.save_loop(state)
        return state

    async def astep(self, state: AgentState, run_loop: ARunLoop) -> AgentState:
        """Async twin of :meth:`step`."""
        first, self._first = self._first, 0
        if self.durable is not None and not first:
            await self.durable.arequested(state.loops + 1)
        try:
            state = await run_loop(state, first)
        except ApprovalPending as waiting:
            paused = await self._durable().apause(waiting.actions)
            if not self.in_graph:
                return paused
            for action, answer in self._decisions(waiting.actions):
                await self._durable().adecided(action, answer)
            self._first = self._resume_at
            return await self.astep(self._durable().redo(), run_loop)
        if self.durable is not None:
            await self.durable.asave_loop(state)
        return state

    def _shaped(self, result: AgentResult) -> AgentResult:
        if self.durable is None or not self.durable.pending:
            return result
        # A pause is not an end: no error, and the calls that wait.
        return dataclasses.replace(result, error=None, pending=self.durable.pending)

    def finish(self, state: AgentState, result: AgentResult) -> AgentResult:
        """The last checkpoint; the result as the caller sees it."""
        if self.durable is not None:
            self.durable.save_end(state)
        return self._shaped(result)

    async def afinish(self, state: AgentState, result: AgentResult) -> AgentResult:
        """Async twin of :meth:`finish`."""
        if self.durable is not None:
            await self.durable.asave_end(state)
        return self._shaped(result)
