"""One loop of the agent: every stage once, in chain order, each timed into the loop's record.

Two ways to run it, chosen per run by :class:`~lcel_agent.loop.AgentLoop`'s drivers:

* **traced** (:func:`traced_loop`): one run named ``loop:N`` (tagged ``loop:N``)
  with every stage as a named child run, for whoever listens: callbacks,
  tracers, ``astream_events``, LangSmith;
* **quiet** (:func:`quiet_loop`): when nobody listens (:func:`listened` is
  False), built-in stages are called through their pure ``run``/``arun`` and
  no run is recorded, because a child run nobody hears changes nothing but the
  time spent. Swapped-in Runnables are still invoked.

Both keep the stage timings (``StepRecord.stage_ms``). The async twins differ
only in ``await``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.callbacks.manager import BaseRunManager
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import (
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
    patch_config,
)

from ..stages import Stage, runs_directly
from ..state import AgentState
from .streaming import AnswerTap

__all__ = [
    "DirectStage",
    "aquiet_loop",
    "atraced_loop",
    "direct_stages",
    "listened",
    "quiet_loop",
    "traced_loop",
]

#: A stage by name: the Stage the quiet loop may call directly (or None), and the stage.
DirectStage = tuple[str, Stage | None, Runnable[Any, Any]]
Stages = Sequence[tuple[str, Runnable[Any, Any]]]


def direct_stages(stages: Stages) -> tuple[DirectStage, ...]:
    """Each stage with what the quiet loop calls: the Stage itself when it runs directly."""
    return tuple(
        (name, stage if isinstance(stage, Stage) and runs_directly(stage) else None, stage)
        for name, stage in stages
    )


def listened(manager: BaseRunManager) -> bool:
    """Whether any callback handler hears this run.

    langchain-core's ``configure`` puts every listener on the run's manager: the
    config's callbacks (``astream_events`` and ``astream_log`` add theirs there),
    the LangSmith tracer that ``LANGSMITH_TRACING``/``LANGCHAIN_TRACING_V2`` or
    ``tracing_v2_enabled`` switch on, ``collect_runs``' collector, any other
    configure hook, and the debug/verbose handlers.
    """
    return bool(manager.handlers or manager.inheritable_handlers)


def _timed(state: AgentState, before: int, timings: list[tuple[str, float]]) -> AgentState:
    """Write the loop's stage timings into the record it added (if it added one): the
    loop's own, the first; the answer stage's calls come after it."""
    if len(state.steps) <= before:
        return state
    record = dataclasses.replace(state.steps[before], stage_ms=tuple(timings))
    return dataclasses.replace(
        state, steps=(*state.steps[:before], record, *state.steps[before + 1 :])
    )


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _stage_config(
    config: RunnableConfig, loop_run: Any, name: str, stage: Any, tap: AnswerTap | None
) -> RunnableConfig | None:
    """The config for ``call_llm`` and ``answer`` when the answer streams: the tap sees
    their models only (the answer stage's through its writing twin, which formats a
    schema-held reply's lines as the stage does: ``stage.stream_line``)."""
    if tap is None or name not in ("call_llm", "answer"):
        return None
    callbacks: BaseCallbackManager = loop_run.get_child()
    handler = tap if name == "call_llm" else tap.writing(getattr(stage, "stream_line", None))
    callbacks.add_handler(handler, inherit=True)
    return patch_config(config, callbacks=callbacks)


def quiet_loop(
    stages: Sequence[DirectStage], state: AgentState, config: RunnableConfig
) -> AgentState:
    """One loop when nobody listens: no ``loop:N`` run, no run per stage, same stages."""
    timings: list[tuple[str, float]] = []
    before = len(state.steps)
    for name, direct, stage in stages:
        started = time.perf_counter()
        state = direct.run(state, config) if direct is not None else stage.invoke(state, config)
        timings.append((name, _ms_since(started)))
    return _timed(state, before, timings)


async def aquiet_loop(
    stages: Sequence[DirectStage], state: AgentState, config: RunnableConfig
) -> AgentState:
    """Async twin of :func:`quiet_loop`."""
    timings: list[tuple[str, float]] = []
    before = len(state.steps)
    for name, direct, stage in stages:
        started = time.perf_counter()
        if direct is not None:
            state = await direct.arun(state, config)
        else:
            state = await stage.ainvoke(state, config)
        timings.append((name, _ms_since(started)))
    return _timed(state, before, timings)


def traced_loop(
    stages: Stages, state: AgentState, n: int, config: RunnableConfig, tap: AnswerTap | None
) -> AgentState:
    """Loop ``n`` as a run named ``loop:N`` with every stage a named child run."""
    # Configured like any run (not the agent run's ``get_child()``): then the handlers
    # of configure hooks that do not inherit (``collect_runs``) see the loop too. The
    # ``loop:N`` tag is the loop run's own (filters such as include_tags find it).
    callbacks = get_callback_manager_for_config(config)
    callbacks.add_tags([f"loop:{n}"], inherit=False)
    loop_run = callbacks.on_chain_start(None, state, name=f"loop:{n}")
    child = patch_config(config, callbacks=loop_run.get_child())
    timings: list[tuple[str, float]] = []
    before = len(state.steps)
    try:
        for name, stage in stages:
            stage_config = _stage_config(config, loop_run, name, stage, tap) or child
            started = time.perf_counter()
            state = stage.invoke(state, stage_config)
            timings.append((name, _ms_since(started)))
    except BaseException as exc:
        loop_run.on_chain_error(exc)
        raise
    state = _timed(state, before, timings)
    loop_run.on_chain_end(state)
    return state


async def atraced_loop(
    stages: Stages, state: AgentState, n: int, config: RunnableConfig, tap: AnswerTap | None
) -> AgentState:
    """Async twin of :func:`traced_loop`."""
    callbacks = get_async_callback_manager_for_config(config)
    callbacks.add_tags([f"loop:{n}"], inherit=False)
    loop_run = await callbacks.on_chain_start(None, state, name=f"loop:{n}")
    child = patch_config(config, callbacks=loop_run.get_child())
    timings: list[tuple[str, float]] = []
    before = len(state.steps)
    try:
        for name, stage in stages:
            stage_config = _stage_config(config, loop_run, name, stage, tap) or child
            started = time.perf_counter()
            state = await stage.ainvoke(state, stage_config)
            timings.append((name, _ms_since(started)))
    except BaseException as exc:
        await loop_run.on_chain_error(exc)
        raise
    state = _timed(state, before, timings)
    await loop_run.on_chain_end(state)
    return state
