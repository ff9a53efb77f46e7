"""How one tool call runs: its attempts, each under its time limit, then a retry or the fallback.

The dispatcher (:mod:`lcel_agent.stages.dispatch`) decides which calls may run;
a :class:`CallRunner` runs one of them and says what came of it, as an
:class:`~lcel_agent.state.Observation`. A timed-out call, or one whose failure may
clear on its own (a :class:`~lcel_agent.tools.TransientError` result, a raised
``TimeoutError`` or ``ConnectionError``), is retried once when ``tool_timeout``'s
policy says ``retry`` and the tool is idempotent; any other failure only when its
own policy says so. Then the fallback tool runs, if there is one. Every attempt
and fallback counts toward the tool's per-run limit (the ``Budget``). The
decisions are pure and shared; the sync and async drivers differ only in ``await``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from pydantic import ValidationError

from .. import texts
from .._redact import redact
from .._shared.timeout import (
    CallTimeout,
    acall_with_timeout,
    arun_sync_with_timeout,
    call_async_with_timeout,
    call_with_timeout,
)
from ..calling import (
    Injected,
    TransientError,
    call_schema,
    is_error_result,
    read_result,
    runs_async,
    runs_sync,
    schema_line,
    tool_payload,
    truncate_output,
)
from ..errors import ErrorClass, Policy
from ..state import Observation
from ._calls import Budget, Call, Outcome, refused

__all__ = ["CallRunner", "is_idempotent", "tool_timeout"]


def tool_timeout(tool: BaseTool, default: float | None) -> float | None:
    """The tool's own time limit (``tool.metadata["timeout"]``) or ``default``."""
    value = (tool.metadata or {}).get("timeout", default)
    return None if value is None else float(value)


def is_idempotent(tool: BaseTool) -> bool:
    """True when ``tool.metadata["idempotent"]`` says the tool may run twice safely."""
    return bool((tool.metadata or {}).get("idempotent", False))


class CallRunner:
    """Runs one planned call of a dispatcher's tools (see the module docstring).

    Args:
        tools: the agent's tools by name (what an injected agent state may list).
        injected: the injected arguments of each tool that has any.
        timeout: the default time limit per attempt (a tool's ``metadata["timeout"]``
            overrides it; None for none).
        limits: calls allowed per tool per run.
        fallbacks: a backup per tool, run with the same input.
        policies: the policy per error class.
        max_observation_chars: the longest result shown to the model.
    """

    def __init__(
        self,
        tools: Mapping[str, BaseTool],
        injected: Mapping[str, Injected],
        *,
        timeout: float | None,
        limits: Mapping[str, int],
        fallbacks: Mapping[str, BaseTool],
        policies: Mapping[ErrorClass, Policy],
        max_observation_chars: int,
    ) -> None:
        self.tools = tools
        self.injected = injected
        self.timeout = timeout
        self.limits = limits
        self.fallbacks = fallbacks
        self.policies = policies
        self.max_observation_chars = max_observation_chars

    # --- decisions (pure, shared by the sync and async drivers) ---------------
    def _payload(self, tool: BaseTool, call: Call, config: RunnableConfig) -> Any:
        """What the tool is invoked with: the model's input, injected arguments filled."""
        every = list(self.tools.values())
        injected = self.injected.get(tool.name)
        state, call_id = call.state, call.action.call_id or ""
        return tool_payload(tool, injected, call.tool_input, call_id, config, state, every)

    def _judge(self, value: Any, tool: BaseTool, call: Call) -> Outcome:
        read = read_result(value, tool=tool.name, call_id=call.action.call_id)
        text = truncate_output(redact(read.text), self.max_observation_chars)
        if is_error_result(text):
            transient = isinstance(read.value, TransientError)
            return Outcome(False, text, ErrorClass.TOOL_FAILURE, transient=transient)
        return Outcome(True, text, blocks=read.blocks, artifact=read.artifact)

    def _failure(self, tool: BaseTool, exc: BaseException, timeout: float | None) -> Outcome:
        if isinstance(exc, CallTimeout):
            return Outcome(
                False,
                f"ERROR: tool {tool.name!r} timed out after {timeout:g} s",
                ErrorClass.TOOL_TIMEOUT,
                transient=True,
            )
        if isinstance(exc, ValidationError):
            # The tool's own validator saw what the schema check could not (a validator
            # of its own): said as the schema check says it, without the input itself.
            problems = [
                f"'{'.'.join(map(str, e['loc']))}': {e['msg']}" if e["loc"] else str(e["msg"])
                for e in exc.errors()[:4]
            ]
            text = texts.TOOL_BAD_ARGUMENTS.format(
                name=tool.name,
                problems=redact("; ".join(problems)),
                schema=schema_line(call_schema(tool)),
            )
            return Outcome(False, truncate_output(text, 500), ErrorClass.BAD_ARGUMENTS)
        detail = redact(f"ERROR: {type(exc).__name__}: {exc}")
        transient = isinstance(exc, TimeoutError | ConnectionError)
        return Outcome(
            False, truncate_output(detail, 500), ErrorClass.TOOL_FAILURE, transient=transient
        )

    def _next(self, call: Call, outcome: Outcome, tool: BaseTool, attempts: int) -> BaseTool | None:
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
        self, call: Call, outcome: Outcome, tool: BaseTool, attempts: int, started: float
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
            blocks=outcome.blocks,
            artifact=outcome.artifact,
        )

    def _limit_notice(self, call: Call) -> Observation:
        text = texts.TOOL_LIMIT.format(name=call.tool.name, limit=self.limits[call.tool.name])
        return refused(call.action, ErrorClass.TOOL_LIMIT, text)

    # --- thin drivers --------------------------------------------------------------
    def _attempt(self, tool: BaseTool, call: Call, config: RunnableConfig) -> Outcome:
        tool_input = self._payload(tool, call, config)
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
            return self._judge(value, tool, call)
        except Exception as exc:
            return self._failure(tool, exc, timeout)

    async def _aattempt(self, tool: BaseTool, call: Call, config: RunnableConfig) -> Outcome:
        tool_input = self._payload(tool, call, config)
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
            return self._judge(value, tool, call)
        except Exception as exc:
            return self._failure(tool, exc, timeout)

    def execute(self, call: Call, budget: Budget, config: RunnableConfig) -> Observation:
        """Run ``call``: its attempts, a retry or the fallback, within ``budget``."""
        started, tool, attempts = time.perf_counter(), call.tool, 0
        if not budget.take(call.tool.name):
            return self._limit_notice(call)
        while True:
            attempts += 1
            outcome = self._attempt(tool, call, config)
            following = self._next(call, outcome, tool, attempts)
            if following is None or not budget.take(call.tool.name):
                return self._observe(call, outcome, tool, attempts, started)
            tool = following

    async def aexecute(self, call: Call, budget: Budget, config: RunnableConfig) -> Observation:
        """Async twin of :meth:`execute`."""
        started, tool, attempts = time.perf_counter(), call.tool, 0
        if not budget.take(call.tool.name):
            return self._limit_notice(call)
        while True:
            attempts += 1
            outcome = await self._aattempt(tool, call, config)
            following = self._next(call, outcome, tool, attempts)
            if following is None or not budget.take(call.tool.name):
                return self._observe(call, outcome, tool, attempts, started)
            tool = following
