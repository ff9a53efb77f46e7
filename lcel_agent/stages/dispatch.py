"""``dispatch_tools``: run the actions of one reply, each under its limits.

For every action the dispatcher first decides, without running anything,
whether it may run (:meth:`DispatchTools.plan`): the tool must exist (else an
``unknown_tool`` notice listing the tools, with the closest name as a hint),
the action must not drift (:mod:`lcel_agent.rules.drift`), the per-run call limit
must allow it, and the input must fit (a dict where a one-string tool wants a
string is coerced, the article's pitfall 1). Then the calls run, concurrently
when there are several and ``parallel=True`` (threads in sync code, tasks in
async code, at most ``max_concurrency`` at once), each with its time limit;
results come back in the order of the actions and one failing call loses
nothing of the others. How one call runs (its attempts, a retry, the fallback)
is :mod:`lcel_agent.stages._run_call`'s.

Before anything runs, an ``approve`` callable (sync or async) is asked about
each call, in order: ``True`` runs it; ``False`` or a string refuses it (the
string, prefixed ``ERROR:``, is what the model reads), a ``refused`` error.
Injected arguments (``InjectedToolCallId``, ``InjectedToolArg``) are never
taken from the model: see :mod:`lcel_agent.calling`. Every dispatched
action carries a call id (the model's, or one made here), which the messages
output and ``InjectedToolCallId`` arguments share.

On its own, the dispatcher runs one action::

    DispatchTools([get_weather]).invoke({"action": "get_weather", "action_input": "北京"})
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import json
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

from .. import texts
from .._shared.messages import message_text
from ..calling import (
    Fitted,
    Injected,
    agent_state,
    call_schema,
    check_tool,
    fit_input,
    injected_args,
    model_args,
    schema_line,
)
from ..errors import ErrorClass, Policy
from ..rules.drift import REFUSED, TIMED_OUT, detect_drift, done_calls
from ..rules.policies import DEFAULT_POLICIES
from ..state import Action, AgentState, Observation
from ..tools import coerce_single_arg
from ._base import Stage
from ._calls import (
    Approve,
    Batch,
    Budget,
    Call,
    aapproved,
    ajournaled,
    approved,
    journaled,
    refused,
    state_messages,
    with_call_id,
)
from ._run_call import CallRunner, is_idempotent, tool_timeout

__all__ = ["Approve", "DispatchTools", "is_idempotent", "tool_timeout"]

_EXCERPT = 48


def _with_call_ids(actions: tuple[Action, ...], results: list[Observation]) -> tuple[Action, ...]:
    """The loop's actions with the call ids dispatch gave them (a JSON action has none
    until then), so a step's actions and its observations name the same calls."""
    tools = [a for a in actions if not a.is_final]
    if len(tools) != len(results):
        return actions
    given = iter(obs.action for obs in results)
    return tuple(a if a.is_final else next(given) for a in actions)


def _shortened(task: str, limit: int = 300) -> str:
    """The task as a nudge repeats it: a long one keeps its head."""
    task = " ".join(str(task).split())
    return task if len(task) <= limit else task[:limit] + "…"


def _excerpt(obs: Observation) -> str:
    """What drift detection remembers of a dispatched call."""
    if obs.ok:
        return obs.output[:_EXCERPT]
    if obs.attempts == 0:
        return REFUSED
    return TIMED_OUT if obs.error_class is ErrorClass.TOOL_TIMEOUT else ""


class DispatchTools(Stage):
    """Run the tool actions of ``state.actions`` and set ``state.observations``.

    Args:
        tools: the tools, by their unique names.
        timeout: the default time limit per call, in seconds (a tool's
            ``metadata["timeout"]`` overrides it; None for no limit).
        tool_call_limits: calls allowed per tool per run, ``{"search_baidu": 3}``.
        fallback_tools: a backup per tool, run with the same input when the tool
            fails or times out; its calls count toward the original's limit.
        policies: the policy per error class (``retry``, ``fallback``, ``stop`` ...).
        parallel: run the actions of one reply concurrently.
        max_concurrency: the most calls running at once.
        max_observation_chars: the longest result shown to the model; longer ones
            keep their head and tail around a marker.
        approve: asked about each action before it runs (see the module docstring).
    """

    name = "dispatch_tools"

    def __init__(
        self,
        tools: Sequence[BaseTool],
        *,
        timeout: float | None = 30.0,
        tool_call_limits: Mapping[str, int] | None = None,
        fallback_tools: Mapping[str, BaseTool] | None = None,
        policies: Mapping[ErrorClass, Policy] | None = None,
        parallel: bool = True,
        max_concurrency: int = 8,
        max_observation_chars: int = 4000,
        approve: Approve | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.tools = {tool.name: tool for tool in tools}
        self.timeout = timeout
        self.limits = dict(tool_call_limits or {})
        self.fallbacks = dict(fallback_tools or {})
        self.policies = {**DEFAULT_POLICIES, **(policies or {})}
        self.parallel = parallel
        self.max_concurrency = max(1, max_concurrency)
        self.max_observation_chars = max_observation_chars
        self.approve = approve
        every = [*tools, *self.fallbacks.values()]
        self._injected: dict[str, Injected] = {
            t.name: found for t in every if (found := injected_args(t)) is not None
        }
        self._model_args = {t.name: model_args(t, self._injected.get(t.name)) for t in every}
        # The schema each tool's input is checked against: the one the model was shown.
        self._schemas = {t.name: call_schema(t) for t in every}
        for t in every:  # refused now, not after a model call was paid for
            check_tool(t, self._injected.get(t.name))
        self._runner = CallRunner(
            self.tools,
            self._injected,
            timeout=timeout,
            limits=self.limits,
            fallbacks=self.fallbacks,
            policies=self.policies,
            max_observation_chars=max_observation_chars,
        )

    # --- decisions (pure, shared by the sync and async drivers) ---------------
    def _unknown(self, action: Action) -> Observation:
        if not self.tools:
            return refused(action, ErrorClass.UNKNOWN_TOOL, texts.NO_TOOLS.format(name=action.tool))
        close = difflib.get_close_matches(action.tool, list(self.tools), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        text = texts.UNKNOWN_TOOL.format(name=action.tool, tools=", ".join(self.tools), hint=hint)
        return refused(action, ErrorClass.UNKNOWN_TOOL, text)

    def _prepare_input(self, tool: BaseTool, value: Any) -> Any:
        args = self._model_args[tool.name]
        fields = list(args)
        if value in (None, "", {}, []) and not self._schemas[tool.name].get("required"):
            return {}  # nothing given to a tool that needs nothing (ls(), list(status?))
        if len(fields) == 1 and args[fields[0]].get("type", "string") == "string":
            return {fields[0]: coerce_single_arg(value, fields[0])}
        if isinstance(value, str) and value.strip().startswith("{"):
            value = json.loads(value)
        if not isinstance(value, dict):
            raise ValueError(f"expected an object with {fields}")
        return value

    def plan(self, state: AgentState | None, actions: Sequence[Action]) -> list[Observation | Call]:
        """Decide, per action, what to run (a call) or what to answer at once."""
        window = [message_text(m) for m in state.memory.messages] if state else []
        history = state.history if state else ()
        seen = agent_state(state_messages(state))
        planned: list[Observation | Call] = []
        for index, action in enumerate(actions):
            tool = self.tools.get(action.tool)
            if tool is None:
                planned.append(self._unknown(action))
                continue
            why = (
                detect_drift(
                    action, history, window, actions[:index], may_retry=is_idempotent(tool)
                )
                if state
                else None
            )
            if why is not None and state is not None:
                text = texts.DRIFT_NUDGE.format(
                    name=action.tool,
                    why=why,
                    question=_shortened(state.task),
                    done=", ".join(done_calls(history)) or "nothing yet",
                )
                planned.append(refused(action, ErrorClass.DRIFT, text))
                continue
            schema = self._schemas[tool.name]
            try:
                fitted = fit_input(self._prepare_input(tool, action.tool_input), schema)
            except ValueError:
                fitted = Fitted(action.tool_input, ["it must be an object of named arguments"])
            if fitted.problems:
                text = texts.TOOL_BAD_ARGUMENTS.format(
                    name=tool.name, problems="; ".join(fitted.problems), schema=schema_line(schema)
                )
                planned.append(refused(action, ErrorClass.BAD_ARGUMENTS, text))
                continue
            planned.append(Call(action, tool, fitted.value, seen))
        return planned

    # --- running a call (lcel_agent.stages._run_call) ----------------------------------
    def _execute(self, call: Call, budget: Budget, config: RunnableConfig) -> Observation:
        return self._runner.execute(call, budget, config)

    async def _aexecute(self, call: Call, budget: Budget, config: RunnableConfig) -> Observation:
        return await self._runner.aexecute(call, budget, config)

    # --- the stage --------------------------------------------------------------------
    def _tool_actions(self, state: AgentState) -> tuple[Action, ...]:
        if state.stop is not None or state.loop_error is not None or state.final_only:
            return ()
        return tuple(with_call_id(a) for a in state.actions if not a.is_final)

    def _finish(
        self, state: AgentState, results: list[Observation], budget: Budget, started: float
    ) -> AgentState:
        counts = dict(state.tool_counts)
        for name, taken in budget.taken.items():
            counts[name] = counts.get(name, 0) + taken
        history = list(state.history)
        # Refused repeats are recorded too: after its one nudge, a model that asks again, or
        # keeps alternating between two calls, is caught on its very next try.
        history += [(obs.action.signature(), obs.ok, _excerpt(obs)) for obs in results]
        return dataclasses.replace(
            state,
            actions=_with_call_ids(state.actions, results),
            observations=tuple(results),
            tool_counts=tuple(sorted(counts.items())),
            history=tuple(history),
            tools_ms=(time.perf_counter() - started) * 1000,
        )

    def _begin(self, state: AgentState) -> Batch | None:
        actions = self._tool_actions(state)
        if not actions:
            return None
        planned = self.plan(state, actions)
        calls = [p for p in planned if isinstance(p, Call)]
        return Batch(
            planned, calls, Budget(self.limits, dict(state.tool_counts)), time.perf_counter()
        )

    def _end(self, state: AgentState, batch: Batch, done: list[Observation]) -> AgentState:
        results = iter(done)
        merged = [p if isinstance(p, Observation) else next(results) for p in batch.planned]
        return self._finish(state, merged, batch.budget, batch.started)

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if (batch := self._begin(state)) is None:
            return state
        batch = approved(self.approve, batch, config)
        calls, budget, execute = batch.calls, batch.budget, journaled(config, self._execute)
        if self.parallel and len(calls) > 1:
            workers = min(len(calls), self.max_concurrency)
            with ThreadPoolExecutor(workers, "lcel-agent-tool") as pool:
                done = list(pool.map(lambda c: execute(c, budget, config), calls))
        else:
            done = [execute(c, budget, config) for c in calls]
        return self._end(state, batch, done)

    async def arun(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if (batch := self._begin(state)) is None:
            return state
        batch = await aapproved(self.approve, batch, config)
        calls, budget, execute = batch.calls, batch.budget, ajournaled(config, self._aexecute)
        if self.parallel and len(calls) > 1:
            gate = asyncio.Semaphore(self.max_concurrency)

            async def limited(call: Call) -> Observation:
                async with gate:
                    return await execute(call, budget, config)

            done = list(await asyncio.gather(*(limited(c) for c in calls)))
        else:
            done = [await execute(c, budget, config) for c in calls]
        return self._end(state, batch, done)

    # --- standalone: one action in, one observation out --------------------------------
    @staticmethod
    def _as_action(value: Any) -> Action:
        if isinstance(value, Action):
            action = value
        elif isinstance(value, dict) and "action" in value:
            action = Action(str(value["action"]), value.get("action_input"))
        elif isinstance(value, dict) and "name" in value:
            action = Action(str(value["name"]), value.get("args", {}), value.get("id"))
        else:
            raise TypeError(
                "dispatch_tools takes an AgentState, an Action, or {'action', 'action_input'}"
            )
        return with_call_id(action)

    def _standalone(self, value: Any) -> Batch:
        planned = self.plan(None, [self._as_action(value)])
        calls = [p for p in planned if isinstance(p, Call)]
        return Batch(planned, calls, Budget(self.limits, {}), time.perf_counter())

    def run_standalone(self, value: Any, config: RunnableConfig) -> Observation:
        batch = approved(self.approve, self._standalone(value))
        (planned,) = batch.planned
        if isinstance(planned, Observation):
            return planned
        return self._execute(planned, batch.budget, config)

    async def arun_standalone(self, value: Any, config: RunnableConfig) -> Observation:
        batch = await aapproved(self.approve, self._standalone(value))
        (planned,) = batch.planned
        if isinstance(planned, Observation):
            return planned
        return await self._aexecute(planned, batch.budget, config)
