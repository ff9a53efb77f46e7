"""``dispatch_tools``: run the actions of one reply, each under its limits.

For every action the dispatcher first decides, without running anything,
whether it may run (:meth:`DispatchTools.plan`): the tool must exist (else an
``unknown_tool`` notice listing the tools, with the closest name as a hint),
the action must not drift (:mod:`lcel_agent.drift`), the per-run call limit
must allow it, and the input must fit (a dict where a one-string tool wants a
string is coerced, the article's pitfall 1). Then the calls run, concurrently
when there are several and ``parallel=True`` (threads in sync code, tasks in
async code, at most ``max_concurrency`` at once), each with its time limit;
results come back in the order of the actions and one failing call loses
nothing of the others. A timed-out call, or one whose failure may clear on its
own (a :class:`~lcel_agent.tools.TransientError` result, a raised ``TimeoutError``
or ``ConnectionError``), is retried once when ``tool_timeout``'s policy says
``retry`` and the tool is idempotent; any other failure only when its own policy
says so. Then the fallback tool runs, if there is one.

On its own, the dispatcher runs one action::

    DispatchTools([get_weather]).invoke({"action": "get_weather", "action_input": "北京"})
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import json
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from pydantic import ValidationError

from .. import texts
from .._redact import redact
from .._timeout import (
    CallTimeout,
    acall_with_timeout,
    arun_sync_with_timeout,
    call_async_with_timeout,
    call_with_timeout,
)
from ..drift import REFUSED, TIMED_OUT, detect_drift
from ..errors import ErrorClass, Policy
from ..policies import DEFAULT_POLICIES
from ..state import Action, AgentState, Observation
from ..tools._args import coerce_single_arg
from ..tools._native import runs_async, runs_sync
from ..tools._output import TransientError, is_error_result, stringify_output, truncate_output
from ._base import Stage
from .clean import message_text

__all__ = ["DispatchTools", "is_idempotent", "tool_timeout"]

_EXCERPT = 48


def tool_timeout(tool: BaseTool, default: float | None) -> float | None:
    """The tool's own time limit (``tool.metadata["timeout"]``) or ``default``."""
    value = (tool.metadata or {}).get("timeout", default)
    return None if value is None else float(value)


def is_idempotent(tool: BaseTool) -> bool:
    """True when ``tool.metadata["idempotent"]`` says the tool may run twice safely."""
    return bool((tool.metadata or {}).get("idempotent", False))


def _excerpt(obs: Observation) -> str:
    """What drift detection remembers of a dispatched call."""
    if obs.ok:
        return obs.output[:_EXCERPT]
    if obs.attempts == 0:
        return REFUSED
    return TIMED_OUT if obs.error_class is ErrorClass.TOOL_TIMEOUT else ""


@dataclass(frozen=True, slots=True)
class _Call:
    action: Action
    tool: BaseTool
    tool_input: Any


@dataclass(frozen=True, slots=True)
class _Outcome:
    ok: bool
    text: str
    error_class: ErrorClass | None = None
    transient: bool = False
    """A failure that may clear on a second try: retried like a timeout."""


@dataclass(frozen=True, slots=True)
class _Batch:
    """One reply's dispatch: what was planned, what must run, under which budget."""

    planned: list[Observation | _Call]
    calls: list[_Call]
    budget: _Budget
    started: float


class _Budget:
    """Calls left per tool in this run; shared by the concurrent calls of one batch."""

    def __init__(self, limits: Mapping[str, int], used: Mapping[str, int]) -> None:
        self._left = {name: limit - used.get(name, 0) for name, limit in limits.items()}
        self.taken: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, name: str) -> bool:
        with self._lock:
            if name in self._left:
                if self._left[name] <= 0:
                    return False
                self._left[name] -= 1
            self.taken[name] = self.taken.get(name, 0) + 1
            return True


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

    # --- decisions (pure, shared by the sync and async drivers) ---------------
    def _refused(self, action: Action, error_class: ErrorClass, text: str) -> Observation:
        return Observation(action, redact(text), False, error_class, tool=action.tool, attempts=0)

    def _unknown(self, action: Action) -> Observation:
        close = difflib.get_close_matches(action.tool, list(self.tools), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        text = texts.UNKNOWN_TOOL.format(name=action.tool, tools=", ".join(self.tools), hint=hint)
        return self._refused(action, ErrorClass.UNKNOWN_TOOL, text)

    def _prepare_input(self, tool: BaseTool, value: Any) -> Any:
        fields = list(tool.args)
        if len(fields) == 1 and tool.args[fields[0]].get("type", "string") == "string":
            return {fields[0]: coerce_single_arg(value, fields[0])}
        if isinstance(value, str) and value.strip().startswith("{"):
            value = json.loads(value)
        if not isinstance(value, dict):
            raise ValueError(f"expected an object with {fields}")
        return value

    def plan(
        self, state: AgentState | None, actions: Sequence[Action]
    ) -> list[Observation | _Call]:
        """Decide, per action, what to run (a call) or what to answer at once."""
        window = [message_text(m) for m in state.memory.messages] if state else []
        history = state.history if state else ()
        planned: list[Observation | _Call] = []
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
            if why is not None:
                text = texts.DRIFT_NUDGE.format(name=action.tool, why=why)
                planned.append(self._refused(action, ErrorClass.DRIFT, text))
                continue
            try:
                tool_input = self._prepare_input(tool, action.tool_input)
            except ValueError:
                schema = ", ".join(f"{k}: {v.get('type', 'any')}" for k, v in tool.args.items())
                text = texts.TOOL_BAD_ARGUMENTS.format(name=tool.name, schema="{" + schema + "}")
                planned.append(self._refused(action, ErrorClass.BAD_ARGUMENTS, text))
                continue
            planned.append(_Call(action, tool, tool_input))
        return planned

    def _judge(self, value: Any) -> _Outcome:
        text = truncate_output(redact(stringify_output(value)), self.max_observation_chars)
        if is_error_result(text):
            transient = isinstance(value, TransientError)
            return _Outcome(False, text, ErrorClass.TOOL_FAILURE, transient=transient)
        return _Outcome(True, text)

    def _failure(self, tool: BaseTool, exc: BaseException, timeout: float | None) -> _Outcome:
        if isinstance(exc, CallTimeout):
            return _Outcome(
                False,
                f"ERROR: tool {tool.name!r} timed out after {timeout:g} s",
                ErrorClass.TOOL_TIMEOUT,
                transient=True,
            )
        if isinstance(exc, ValidationError):
            return _Outcome(
                False,
                f"ERROR: invalid input for {tool.name!r}: {exc.error_count()} error(s)",
                ErrorClass.BAD_ARGUMENTS,
            )
        detail = redact(f"ERROR: {type(exc).__name__}: {exc}")
        transient = isinstance(exc, TimeoutError | ConnectionError)
        return _Outcome(
            False, truncate_output(detail, 500), ErrorClass.TOOL_FAILURE, transient=transient
        )

    def _next(
        self, call: _Call, outcome: _Outcome, tool: BaseTool, attempts: int
    ) -> BaseTool | None:
        """The tool to run next for ``call`` (a retry or the fallback), or None to stop."""
        if outcome.ok or outcome.error_class not in (
            ErrorClass.TOOL_FAILURE,
            ErrorClass.TOOL_TIMEOUT,
        ):
            return None
        policy = self.policies[outcome.error_class]
        if policy is Policy.STOP:
            return None
        # A transient failure (a timeout, a dropped connection, a 5xx) is retried as a
        # timeout would be; a plain ERROR result only when its own policy says retry.
        if outcome.transient:
            policy = self.policies[ErrorClass.TOOL_TIMEOUT]
        if policy is Policy.RETRY and attempts == 1 and tool is call.tool and is_idempotent(tool):
            return tool
        fallback = self.fallbacks.get(call.tool.name)
        if fallback is not None and tool is not fallback:
            return fallback
        return None

    def _observe(
        self, call: _Call, outcome: _Outcome, tool: BaseTool, attempts: int, started: float
    ) -> Observation:
        text = outcome.text
        if not outcome.ok and outcome.error_class is not ErrorClass.BAD_ARGUMENTS:
            text = texts.TOOL_FAILED.format(name=tool.name, detail=text)
        return Observation(
            call.action,
            text,
            outcome.ok,
            outcome.error_class,
            tool=tool.name,
            attempts=attempts,
            latency_ms=(time.perf_counter() - started) * 1000,
        )

    def _limit_notice(self, call: _Call) -> Observation:
        text = texts.TOOL_LIMIT.format(name=call.tool.name, limit=self.limits[call.tool.name])
        return self._refused(call.action, ErrorClass.TOOL_LIMIT, text)

    # --- thin drivers --------------------------------------------------------------
    def _attempt(self, tool: BaseTool, tool_input: Any, config: RunnableConfig) -> _Outcome:
        timeout = tool_timeout(tool, self.timeout)
        what = f"tool {tool.name}"
        try:
            if not runs_sync(tool):
                # An async-only tool: on a loop of its own, where an overrun is cancelled.
                value = call_async_with_timeout(
                    lambda: tool.ainvoke(tool_input, config), timeout, what
                )
            else:
                value = call_with_timeout(lambda: tool.invoke(tool_input, config), timeout, what)
            return self._judge(value)
        except Exception as exc:
            return self._failure(tool, exc, timeout)

    async def _aattempt(self, tool: BaseTool, tool_input: Any, config: RunnableConfig) -> _Outcome:
        timeout = tool_timeout(tool, self.timeout)
        what = f"tool {tool.name}"
        try:
            if runs_async(tool):
                value = await acall_with_timeout(
                    lambda: tool.ainvoke(tool_input, config), timeout, what
                )
            else:
                # A blocking tool on a thread of its own: one that overruns is abandoned.
                value = await arun_sync_with_timeout(
                    lambda: tool.invoke(tool_input, config), timeout, what
                )
            return self._judge(value)
        except Exception as exc:
            return self._failure(tool, exc, timeout)

    def _execute(self, call: _Call, budget: _Budget, config: RunnableConfig) -> Observation:
        started, tool, attempts = time.perf_counter(), call.tool, 0
        if not budget.take(call.tool.name):
            return self._limit_notice(call)
        while True:
            attempts += 1
            outcome = self._attempt(tool, call.tool_input, config)
            following = self._next(call, outcome, tool, attempts)
            if following is None or not budget.take(call.tool.name):
                return self._observe(call, outcome, tool, attempts, started)
            tool = following

    async def _aexecute(self, call: _Call, budget: _Budget, config: RunnableConfig) -> Observation:
        started, tool, attempts = time.perf_counter(), call.tool, 0
        if not budget.take(call.tool.name):
            return self._limit_notice(call)
        while True:
            attempts += 1
            outcome = await self._aattempt(tool, call.tool_input, config)
            following = self._next(call, outcome, tool, attempts)
            if following is None or not budget.take(call.tool.name):
                return self._observe(call, outcome, tool, attempts, started)
            tool = following

    # --- the stage --------------------------------------------------------------------
    def _tool_actions(self, state: AgentState) -> tuple[Action, ...]:
        if state.stop is not None or state.loop_error is not None or state.final_only:
            return ()
        return tuple(a for a in state.actions if not a.is_final)

    def _finish(
        self, state: AgentState, results: list[Observation], budget: _Budget, started: float
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
            observations=tuple(results),
            tool_counts=tuple(sorted(counts.items())),
            history=tuple(history),
            tools_ms=(time.perf_counter() - started) * 1000,
        )

    def _begin(self, state: AgentState) -> _Batch | None:
        actions = self._tool_actions(state)
        if not actions:
            return None
        planned = self.plan(state, actions)
        calls = [p for p in planned if isinstance(p, _Call)]
        return _Batch(
            planned, calls, _Budget(self.limits, dict(state.tool_counts)), time.perf_counter()
        )

    def _end(self, state: AgentState, batch: _Batch, done: list[Observation]) -> AgentState:
        results = iter(done)
        merged = [p if isinstance(p, Observation) else next(results) for p in batch.planned]
        return self._finish(state, merged, batch.budget, batch.started)

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        batch = self._begin(state)
        if batch is None:
            return state
        calls, budget = batch.calls, batch.budget
        if self.parallel and len(calls) > 1:
            workers = min(len(calls), self.max_concurrency)
            with ThreadPoolExecutor(workers, "lcel-agent-tool") as pool:
                done = list(pool.map(lambda c: self._execute(c, budget, config), calls))
        else:
            done = [self._execute(c, budget, config) for c in calls]
        return self._end(state, batch, done)

    async def arun(self, state: AgentState, config: RunnableConfig) -> AgentState:
        batch = self._begin(state)
        if batch is None:
            return state
        calls, budget = batch.calls, batch.budget
        if self.parallel and len(calls) > 1:
            gate = asyncio.Semaphore(self.max_concurrency)

            async def limited(call: _Call) -> Observation:
                async with gate:
                    return await self._aexecute(call, budget, config)

            done = list(await asyncio.gather(*(limited(c) for c in calls)))
        else:
            done = [await self._aexecute(c, budget, config) for c in calls]
        return self._end(state, batch, done)

    # --- standalone: one action in, one observation out --------------------------------
    @staticmethod
    def _as_action(value: Any) -> Action:
        if isinstance(value, Action):
            return value
        if isinstance(value, dict) and "action" in value:
            return Action(str(value["action"]), value.get("action_input"))
        if isinstance(value, dict) and "name" in value:
            return Action(str(value["name"]), value.get("args", {}), value.get("id"))
        raise TypeError(
            "dispatch_tools takes an AgentState, an Action, or {'action', 'action_input'}"
        )

    def run_standalone(self, value: Any, config: RunnableConfig) -> Observation:
        (planned,) = self.plan(None, [self._as_action(value)])
        if isinstance(planned, Observation):
            return planned
        return self._execute(planned, _Budget(self.limits, {}), config)

    async def arun_standalone(self, value: Any, config: RunnableConfig) -> Observation:
        (planned,) = self.plan(None, [self._as_action(value)])
        if isinstance(planned, Observation):
            return planned
        return await self._aexecute(planned, _Budget(self.limits, {}), config)
