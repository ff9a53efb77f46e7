"""One loop of the agent: every stage once, in chain order, each timed into the loop's record.

Two ways to run it, chosen per run by :class:`~lcel_agent.loop.AgentLoop`'s drivers
(:func:`takes_quiet_loop`):

* **traced** (:meth:`OneLoop.run`, :meth:`OneLoop.arun`): one run named ``loop:N``
  (tagged ``loop:N``) with every stage as a named child run, for whoever listens: callbacks,
  tracers, ``astream_events``, LangSmith;
* **quiet** (:func:`quiet_loop`): when nobody listens (:func:`has_listeners` is
  False) and no answer streams, built-in stages are called through their pure
  ``run``/``arun`` and no run is recorded, because a child run nobody hears changes
  nothing but the time spent. Swapped-in Runnables are still invoked.

Both keep the stage timings (``StepRecord.stage_ms``, through a :class:`_StageClock`).
The async twins differ only in ``await``. :class:`RunLoops` is a run's loops as the
drivers go through them (gated, counted, the answer stream readied, their records), and
:func:`step_chain` the same stages as one ``RunnableSequence``, ``agent.step``, for
whoever drives them by hand.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.callbacks import AsyncCallbackManager, BaseCallbackManager, CallbackManager
from langchain_core.callbacks.manager import BaseRunManager
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import (
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
    patch_config,
)

from ..durable import Trip as OpenRun
from ..errors import ConfigurationError
from ..stages import Stage, runs_directly
from ..state import AgentState, StepRecord
from ._answer_stage import may_hold_answer
from ._tracing import mask_traces
from .streaming import AnswerListener

__all__ = [
    "OneLoop",
    "QuietStage",
    "RunLoops",
    "aquiet_loop",
    "has_listeners",
    "quiet_loop",
    "quiet_stages",
    "step_chain",
    "takes_quiet_loop",
]

#: A stage by name: the Stage the quiet loop may call directly (or None), and the stage.
QuietStage = tuple[str, Stage | None, Runnable[Any, Any]]
Stages = Sequence[tuple[str, Runnable[Any, Any]]]
_Manager = TypeVar("_Manager", CallbackManager, AsyncCallbackManager)


def quiet_stages(stages: Stages) -> tuple[QuietStage, ...]:
    """Each stage with what the quiet loop calls: the Stage itself when it runs directly."""
    return tuple(
        (name, stage if isinstance(stage, Stage) and runs_directly(stage) else None, stage)
        for name, stage in stages
    )


def has_listeners(manager: BaseRunManager) -> bool:
    """Whether any callback handler hears this run.

    langchain-core's ``configure`` puts every listener on the run's manager: the
    config's callbacks (``astream_events`` and ``astream_log`` add theirs there),
    the LangSmith tracer that ``LANGSMITH_TRACING``/``LANGCHAIN_TRACING_V2`` or
    ``tracing_v2_enabled`` switch on, ``collect_runs``' collector, any other
    configure hook, and the debug/verbose handlers.
    """
    return bool(manager.handlers or manager.inheritable_handlers)


def takes_quiet_loop(manager: BaseRunManager, listener: AnswerListener | None) -> bool:
    """Whether a run takes the quiet loop: no answer stream, and no handler listening.

    Every LangSmith tracer that does listen masks what it sends, from here on. The
    children's tracers come from the inheritable list, which langchain-core 1.x may fill
    with copies of its own.
    """
    mask_traces([*manager.handlers, *manager.inheritable_handlers])
    return listener is None and not has_listeners(manager)


def step_chain(stages: Iterable[Runnable[Any, Any]]) -> Runnable[Any, Any]:
    """The stages as one ``RunnableSequence`` (``agent.step``), for those who compose it."""
    chain: Runnable[Any, Any] | None = None
    for stage in stages:
        chain = stage if chain is None else chain | stage
    if chain is None:
        raise ConfigurationError("the agent needs at least one stage")
    return chain


class _StageClock:
    """Times each stage of one loop, then writes the timings into the record the loop
    added (if it added one): the loop's own, the first; the answer stage's calls come
    after it."""

    def __init__(self, state: AgentState) -> None:
        self._before = len(state.steps)
        self._timings: list[tuple[str, float]] = []

    @contextmanager
    def timing(self, name: str) -> Iterator[None]:
        """Time the stage ``name`` (a stage that raises is not timed: the loop fails)."""
        started = time.perf_counter()
        yield
        self._timings.append((name, (time.perf_counter() - started) * 1000))

    def timed(self, state: AgentState) -> AgentState:
        """``state`` with the loop's record carrying the stage timings."""
        before = self._before
        if len(state.steps) <= before:
            return state
        record = dataclasses.replace(state.steps[before], stage_ms=tuple(self._timings))
        return dataclasses.replace(
            state, steps=(*state.steps[:before], record, *state.steps[before + 1 :])
        )


def quiet_loop(
    stages: Sequence[QuietStage], state: AgentState, config: RunnableConfig
) -> AgentState:
    """One loop when nobody listens: no ``loop:N`` run, no run per stage, same stages."""
    clock = _StageClock(state)
    for name, direct, stage in stages:
        with clock.timing(name):
            state = direct.run(state, config) if direct is not None else stage.invoke(state, config)
    return clock.timed(state)


async def aquiet_loop(
    stages: Sequence[QuietStage], state: AgentState, config: RunnableConfig
) -> AgentState:
    """Async twin of :func:`quiet_loop`."""
    clock = _StageClock(state)
    for name, direct, stage in stages:
        with clock.timing(name):
            if direct is not None:
                state = await direct.arun(state, config)
            else:
                state = await stage.ainvoke(state, config)
    return clock.timed(state)


@dataclass(frozen=True)
class OneLoop:
    """Loop ``n`` of a run as its open run steps it, from the stage at index ``first``
    (0, or the rest of a resumed loop): quiet when ``quiet``, else traced.

    :meth:`run` and :meth:`arun` are the sync and async drivers' ``RunLoop``; the traced
    loop is one run named ``loop:N`` (tagged ``loop:N``) with every stage a named child
    run.
    """

    stages: Stages
    quiet_stages: Sequence[QuietStage]
    quiet: bool
    n: int
    config: RunnableConfig
    listener: AnswerListener | None

    def run(self, state: AgentState, first: int) -> AgentState:
        if self.quiet:
            return quiet_loop(self.quiet_stages[first:], state, self.config)
        loop_run = self._callbacks(get_callback_manager_for_config).on_chain_start(
            None, state, name=f"loop:{self.n}"
        )
        clock = _StageClock(state)
        try:
            for name, stage, config in self._traced(loop_run, first):
                with clock.timing(name):
                    state = stage.invoke(state, config)
        except BaseException as exc:
            loop_run.on_chain_error(exc)
            raise
        state = clock.timed(state)
        loop_run.on_chain_end(state)
        return state

    async def arun(self, state: AgentState, first: int) -> AgentState:
        """Async twin of :meth:`run`."""
        if self.quiet:
            return await aquiet_loop(self.quiet_stages[first:], state, self.config)
        callbacks = self._callbacks(get_async_callback_manager_for_config)
        loop_run = await callbacks.on_chain_start(None, state, name=f"loop:{self.n}")
        clock = _StageClock(state)
        try:
            for name, stage, config in self._traced(loop_run, first):
                with clock.timing(name):
                    state = await stage.ainvoke(state, config)
        except BaseException as exc:
            await loop_run.on_chain_error(exc)
            raise
        state = clock.timed(state)
        await loop_run.on_chain_end(state)
        return state

    def _callbacks(self, manager_for: Callable[[RunnableConfig], _Manager]) -> _Manager:
        """The loop run's callback manager: configured like any run (not the agent run's
        ``get_child()``), so the handlers of configure hooks that do not inherit
        (``collect_runs``) see the loop too. The ``loop:N`` tag is the loop run's own
        (filters such as include_tags find it)."""
        callbacks = manager_for(self.config)
        callbacks.add_tags([f"loop:{self.n}"], inherit=False)
        return callbacks

    def _traced(
        self, loop_run: Any, first: int
    ) -> Iterator[tuple[str, Runnable[Any, Any], RunnableConfig]]:
        """Each stage from ``first`` with its config, a child of the loop run: for
        ``call_llm`` and ``answer`` when the answer streams, with the listener on their
        models only (the answer stage's through its writing twin, which formats a
        schema-held reply's lines as the stage does: ``stage.stream_line``)."""
        child = patch_config(self.config, callbacks=loop_run.get_child())
        for name, stage in self.stages[first:]:
            listener = self.listener
            if listener is None or name not in ("call_llm", "answer"):
                yield name, stage, child
                continue
            callbacks: BaseCallbackManager = loop_run.get_child()
            stream_line = getattr(stage, "stream_line", None)
            handler = listener if name == "call_llm" else listener.writing(stream_line)
            callbacks.add_handler(handler, inherit=True)
            yield name, stage, patch_config(self.config, callbacks=callbacks)


class RunLoops:
    """A run's loops as a driver goes through them: each gated, counted and made a
    :class:`OneLoop`, the answer stream readied for it, and the records it added.

    The drivers only step each loop (``open_run.step`` or ``await open_run.astep``)::

        loops = RunLoops(open_run, ...)
        while (one_loop := loops.next()) is not None:
            yield from loops.records(open_run.step(loops.state, one_loop.run))
    """

    def __init__(
        self,
        open_run: OpenRun,
        stages: Stages,
        quiet_stages: Sequence[QuietStage],
        answer_stage: Any,
        *,
        quiet: bool,
        listener: AnswerListener | None,
    ) -> None:
        self._open_run, self._answer_stage = open_run, answer_stage
        self._stages, self._quiet_stages = stages, quiet_stages
        self._quiet, self._listener = quiet, listener
        self.state: AgentState = open_run.state
        """The run's state: the last loop's, once gated (its stop set when the run ends)."""
        self._n = open_run.iterations
        self._before = len(self.state.steps)

    def next(self) -> OneLoop | None:
        """The next loop, or None: the gate stopped the run, or the answer stream's reader
        has left (see :meth:`_ready`)."""
        run = self._open_run
        self.state = run.gate(self.state, run.limits, self._n)
        if self.state.stop is not None or not self._ready():
            return None
        self._n += 1
        self._before = len(self.state.steps)
        return OneLoop(self._stages, self._quiet_stages, self._quiet, self._n, run.config,
                       self._listener)  # fmt: skip

    def records(self, state: AgentState) -> tuple[StepRecord, ...]:
        """Take the state a loop left; the records it added: the loop's own, and the answer
        stage's."""
        self.state = state
        return state.steps[self._before :]

    def _ready(self) -> bool:
        """Ready the answer stream for the next loop; False when its reader has left.

        Only the sync run's reader sets ``closed``: the run works on a thread, which cannot
        be cancelled, so it polls the flag here. An async reader that stops early cancels
        the run's task instead (``streaming.apump``): the run ends at its next await.
        """
        listener = self._listener
        if listener is None:
            return True
        if listener.closed:
            return False
        listener.begin_loop(hold=may_hold_answer(self._answer_stage, self.state))
        return True
