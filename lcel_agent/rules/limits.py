"""The run's limits and the two pure decisions around the loop: ``gate`` and ``finish``.

Before every loop the driver asks :func:`gate` whether another model call is
allowed (loops, token budget, time budget, the loop reserved for a final
answer); after the last, :func:`finish` turns the state into the
:class:`~lcel_agent.state.AgentResult`. Both are pure, so the sync and async
drivers share them.

Per-run limits come from the run's config and replace the agent's for that run::

    agent.invoke(task, {"configurable": {"max_loops": 3, "time_budget": 20}})

:func:`run_limits` reads and checks them once, when the run starts (a bad value
is a :class:`~lcel_agent.errors.ConfigurationError`); :func:`limit_specs`
declares them as the agent's ``config_specs``.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import ConfigurableFieldSpec

from ..errors import ConfigurationError, ErrorClass
from ..state import AgentResult, AgentState, RunError, StopReason

__all__ = ["RUN_LIMIT_KEYS", "Limits", "finish", "gate", "limit_specs", "run_limits"]

#: The ``config["configurable"]`` keys that override a limit for one run.
RUN_LIMIT_KEYS = ("max_loops", "max_errors", "token_budget", "time_budget")


@dataclass(frozen=True, slots=True)
class Limits:
    """The run's limits, checked by :func:`gate` before every model call."""

    max_loops: int = 10
    """Model calls per run, exactly."""
    token_budget: int | None = None
    """Tokens per run (prompt plus completion); None for no budget."""
    time_budget: float | None = None
    """Seconds of wall time per run; None for no budget."""
    reserve_final_answer: bool = False
    """The last allowed loop asks for a tool-free answer."""
    max_errors: int = 2
    """Consecutive failed loops that stop the run (counted by ``classify_error``)."""


def _count(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigurationError(f"configurable {key!r} must be an int, got {value!r}")
    if value < 1:
        raise ConfigurationError(f"configurable {key!r} must be >= 1, got {value}")
    return value


def _seconds(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ConfigurationError(f"configurable {key!r} must be a number of seconds, got {value!r}")
    if value <= 0:
        raise ConfigurationError(f"configurable {key!r} must be > 0 seconds, got {value}")
    return float(value)


def run_limits(limits: Limits, configurable: Mapping[str, Any] | None) -> Limits:
    """``limits`` with this run's overrides from ``config["configurable"]`` applied. Pure.

    A value replaces the agent's limit for this run, looser or tighter, as any
    LangChain configurable does; a key given as None keeps the agent's own
    (so a config may be filled from optional settings).
    """
    if not configurable:
        return limits
    changes: dict[str, Any] = {}
    for key in RUN_LIMIT_KEYS:
        value = configurable.get(key)
        if value is None:
            continue
        changes[key] = _seconds(key, value) if key == "time_budget" else _count(key, value)
    return dataclasses.replace(limits, **changes) if changes else limits


def limit_specs(limits: Limits) -> list[ConfigurableFieldSpec]:
    """The per-run limits as ``config_specs``, with the agent's values as defaults."""
    described = {
        "max_loops": (int, "Model calls allowed in this run."),
        "max_errors": (int, "Consecutive failed loops that stop this run."),
        "token_budget": (int | None, "Tokens this run may spend (prompt plus completion)."),
        "time_budget": (float | None, "Seconds of wall time this run may take."),
    }
    return [
        ConfigurableFieldSpec(
            id=key,
            annotation=annotation,
            name=key,
            description=description,
            default=getattr(limits, key),
        )
        for key, (annotation, description) in described.items()
    ]


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
    # An answer on the reserved loop; results delivered for want of one are no answer.
    delivered = state.answer is not None and state.answer.source == "results"
    forced = state.final_only and state.output is not None and not delivered
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
        answer=state.answer,
    )
