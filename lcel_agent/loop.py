"""The driving Runnable: runs the step chain until a stop, under exact limits.

``AgentLoop`` is what :func:`~lcel_agent.create_agent` returns. Each iteration
is one pass of the step chain (``assemble_prompt | call_llm | ... |
trim_memory``), traced as a child run named ``loop:N``. Before each pass the
pure :func:`gate` decides whether another model call is allowed (loops, token
budget, time budget, the loop reserved for a final answer); after the last,
:func:`finish` builds the :class:`~lcel_agent.state.AgentResult`. The sync and
async drivers only differ in ``invoke`` versus ``await ainvoke``.

Input: a task string, ``{"input": task}``, a message or a prompt value.
Output: an ``AgentResult``; ``stream``/``astream`` yield each loop's
``StepRecord`` as it finishes, then the ``AgentResult``. A session id in the
config (``{"configurable": {"session_id": "..."}}``) carries the memory window
across runs, when the agent has a session store (without one it is ignored,
with a DEBUG log). Async runs wait for a busy session with ``asyncio.sleep``.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.messages import BaseMessage
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import patch_config

from .errors import ConfigurationError, ErrorClass
from .memory import SlidingWindowMemory
from .sessions import SessionStore
from .stages.clean import message_text
from .state import AgentResult, AgentState, RunError, StepRecord, StopReason

__all__ = ["AgentEvent", "AgentLoop", "Limits", "finish", "gate", "task_of"]

_log = logging.getLogger(__name__)

#: What ``stream`` yields: a record per loop, then the result.
AgentEvent = StepRecord | AgentResult


@dataclass(frozen=True, slots=True)
class Limits:
    """The run's limits, checked by :func:`gate` before every model call."""

    max_loops: int = 10
    token_budget: int | None = None
    time_budget: float | None = None
    reserve_final_answer: bool = False


def task_of(value: Any) -> str:
    """The task text of an agent input (str, ``{"input": ...}``, message, prompt value)."""
    if isinstance(value, Mapping):
        key = next((k for k in ("input", "task", "question") if k in value), None)
        if key is None:
            raise ValueError(
                f"the agent's input dict needs an 'input' key, got keys {sorted(value)}"
            )
        value = value[key]
    if isinstance(value, PromptValue):
        value = value.to_string()
    elif isinstance(value, BaseMessage):
        value = message_text(value)
    if not isinstance(value, str):
        raise TypeError(f"the agent's input must be a task string, not {type(value).__name__}")
    if not value.strip():
        raise ValueError("the agent's task is empty")
    return value


def _limit_error(state: AgentState, message: str) -> RunError:
    last = state.steps[-1].error if state.steps else None
    if last is not None:
        message += f"; last error: {last.error_class.value}: {last.message}"
    return RunError(state.loops, "loop", ErrorClass.LIMIT, message)


def gate(state: AgentState, limits: Limits, iterations: int) -> AgentState:
    """Decide, before a loop, whether it may run. Pure.

    ``iterations`` is the driver's own count of passes, so a swapped-in
    ``call_llm`` that forgets to count cannot break the ``max_loops`` bound.
    """
    if state.stop is not None:
        return state
    stop: StopReason | None = None
    message = ""
    if limits.time_budget is not None and time.monotonic() - state.started >= limits.time_budget:
        stop, message = StopReason.BUDGET, f"time_budget={limits.time_budget:g} s spent"
    elif limits.token_budget is not None and state.usage.total_tokens >= limits.token_budget:
        stop = StopReason.BUDGET
        message = f"token_budget={limits.token_budget} spent ({state.usage.total_tokens} tokens)"
    elif max(state.loops, iterations) >= limits.max_loops:
        stop = StopReason.MAX_LOOPS
        message = f"max_loops={limits.max_loops} reached without a final answer"
    if stop is not None:
        return dataclasses.replace(state, stop=stop, error=_limit_error(state, message))
    if limits.reserve_final_answer and limits.max_loops > 1 and state.loops == limits.max_loops - 1:
        return dataclasses.replace(state, final_only=True)
    return state


def finish(state: AgentState) -> AgentResult:
    """Build the run's result from its last state. Pure."""
    stop = state.stop or StopReason.MAX_LOOPS
    error = None if stop is StopReason.FINAL else state.error
    forced = state.final_only and state.output is not None
    if forced:
        # The answer came from the loop reserved for it: the run did hit its loop limit.
        stop = StopReason.MAX_LOOPS
        error = RunError(
            state.loops,
            "loop",
            ErrorClass.LIMIT,
            "max_loops reached; the answer was forced on the last loop",
        )
    if stop is not StopReason.FINAL and error is None:
        error = _limit_error(state, f"stopped: {stop.value}")
    return AgentResult(
        input=state.task,
        output=state.output,
        stop_reason=stop,
        loops=state.loops,
        steps=state.steps,
        usage=state.usage,
        error=error,
        forced=forced,
        elapsed_s=time.monotonic() - state.started,
        messages=tuple(state.memory.messages),
        compaction_usage=state.compaction_usage,
        compaction_calls=state.compaction_calls,
    )


def _joined(chunks: Iterator[Any]) -> Any:
    """One input from a stream of chunks: added up where they add (text), else the last."""
    joined: Any = None
    for chunk in chunks:
        try:
            joined = chunk if joined is None else joined + chunk
        except TypeError:
            joined = chunk
    return joined


class AgentLoop(Runnable[Any, Any]):
    """The agent: a Runnable that drives the step chain. Build it with ``create_agent``.

    Attributes:
        step: the step chain (a ``RunnableSequence`` of the stages).
        stages: the stages by name, in chain order.
        memory: the window template; each run works on ``memory.fresh()``.
        limits: the loop's limits.
        sessions: the session store, if sessions are enabled.
    """

    name = "lcel_agent"

    @property
    def OutputType(self) -> type[AgentResult]:
        """``invoke`` returns an :class:`AgentResult`; ``stream`` ends with one."""
        return AgentResult

    def __init__(
        self,
        stages: Mapping[str, Runnable[Any, Any]],
        *,
        system_prompt: str,
        memory: SlidingWindowMemory,
        limits: Limits,
        sessions: SessionStore | None = None,
    ) -> None:
        self.stages = dict(stages)
        chain: Runnable[Any, Any] | None = None
        for stage in self.stages.values():
            chain = stage if chain is None else chain | stage
        if chain is None:
            raise ConfigurationError("the agent needs at least one stage")
        self.step = chain
        self.system_prompt = system_prompt
        self.memory = memory
        self.limits = limits
        self.sessions = sessions

    # --- shared helpers --------------------------------------------------------
    def _session_id(self, config: RunnableConfig) -> str | None:
        session_id = (config.get("configurable") or {}).get("session_id")
        if session_id is not None and self.sessions is None:
            # Other components (RunnableWithMessageHistory, ...) set it for their own use.
            _log.debug("session_id %r ignored: this agent has no session store", session_id)
            return None
        return None if session_id is None else str(session_id)

    @contextmanager
    def _window(
        self, config: RunnableConfig
    ) -> Iterator[tuple[SlidingWindowMemory, Callable[[SlidingWindowMemory], None]]]:
        session_id = self._session_id(config)
        if session_id is None or self.sessions is None:
            yield self.memory.fresh(), lambda _memory: None
            return
        with self.sessions.session(session_id, self.memory) as handle:
            yield handle.memory, handle.save

    @asynccontextmanager
    async def _awindow(
        self, config: RunnableConfig
    ) -> AsyncIterator[tuple[SlidingWindowMemory, Callable[[SlidingWindowMemory], None]]]:
        """The async twin of :meth:`_window`: waits for a busy session without blocking the loop."""
        session_id = self._session_id(config)
        if session_id is None or self.sessions is None:
            yield self.memory.fresh(), lambda _memory: None
            return
        async with self.sessions.asession(session_id, self.memory) as handle:
            yield handle.memory, handle.save

    def _start(self, task: str, memory: SlidingWindowMemory) -> AgentState:
        window = memory.copy()
        window.add_system(self.system_prompt)
        window.add_user(task)
        started = time.monotonic()
        deadline = None if self.limits.time_budget is None else started + self.limits.time_budget
        return AgentState(task=task, memory=window, started=started, deadline=deadline)

    @staticmethod
    def _child(
        config: RunnableConfig,
        manager: CallbackManagerForChainRun | AsyncCallbackManagerForChainRun,
        n: int,
    ) -> RunnableConfig:
        return patch_config(config, callbacks=manager.get_child(f"loop:{n}"))

    # --- drivers -------------------------------------------------------------------
    def _drive(
        self, value: Any, manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Iterator[AgentEvent]:
        task = task_of(value)
        with self._window(config) as (memory, save):
            state, iterations = self._start(task, memory), 0
            while (state := gate(state, self.limits, iterations)).stop is None:
                iterations += 1
                before = len(state.steps)
                state = self.step.invoke(state, self._child(config, manager, iterations))
                if len(state.steps) > before:
                    yield state.steps[-1]
            save(state.memory)
        yield finish(state)

    async def _adrive(
        self, value: Any, manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> AsyncIterator[AgentEvent]:
        task = task_of(value)
        async with self._awindow(config) as (memory, save):
            state, iterations = self._start(task, memory), 0
            while (state := gate(state, self.limits, iterations)).stop is None:
                iterations += 1
                before = len(state.steps)
                state = await self.step.ainvoke(state, self._child(config, manager, iterations))
                if len(state.steps) > before:
                    yield state.steps[-1]
            save(state.memory)
        yield finish(state)

    # --- Runnable interface ------------------------------------------------------------
    def _invoke(
        self, value: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> AgentResult:
        *_, result = self._drive(value, run_manager, config)
        assert isinstance(result, AgentResult)
        return result

    async def _ainvoke(
        self, value: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> AgentResult:
        last: AgentEvent | None = None
        async for event in self._adrive(value, run_manager, config):
            last = event
        assert isinstance(last, AgentResult)
        return last

    def invoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AgentResult:
        result: AgentResult = self._call_with_config(self._invoke, input, config, run_type="chain")
        return result

    async def ainvoke(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AgentResult:
        result: AgentResult = await self._acall_with_config(
            self._ainvoke, input, config, run_type="chain"
        )
        return result

    def _transform(
        self, inputs: Iterator[Any], run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Iterator[AgentEvent]:
        yield from self._drive(_joined(inputs), run_manager, config)

    async def _atransform(
        self,
        inputs: AsyncIterator[Any],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
    ) -> AsyncIterator[AgentEvent]:
        chunks = [value async for value in inputs]
        async for event in self._adrive(_joined(iter(chunks)), run_manager, config):
            yield event

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[AgentEvent]:
        """Yield each loop's :class:`StepRecord` as it ends, then the :class:`AgentResult`."""
        yield from self._transform_stream_with_config(
            iter([input]), self._transform, config, run_type="chain"
        )

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[AgentEvent]:
        """Async twin of :meth:`stream`."""

        async def one() -> AsyncIterator[Any]:
            yield input

        async for event in self._atransform_stream_with_config(
            one(), self._atransform, config, run_type="chain"
        ):
            yield event

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[AgentEvent]:
        yield from self._transform_stream_with_config(
            input, self._transform, config, run_type="chain"
        )

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[AgentEvent]:
        async for event in self._atransform_stream_with_config(
            input, self._atransform, config, run_type="chain"
        ):
            yield event
