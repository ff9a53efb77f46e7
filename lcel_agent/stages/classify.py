"""``classify_error``: judge the loop, update the circuit breaker, decide whether to stop.

Pure: it reads what the earlier stages left in the state and writes

* the loop's :class:`~lcel_agent.state.StepRecord`;
* the consecutive-error count (any successful tool call resets it; a format
  error, an unknown tool, bad arguments, a failed, timed-out or refused call
  and a drift nudge each count one loop);
* the stop decision: ``final`` on an answer, ``llm_error`` when the model API
  failed, ``drift`` when the model repeats itself after its one nudge,
  ``max_errors`` when the breaker trips or a policy says ``stop``, and
  ``max_loops`` when the loop reserved for a final answer brought none;
* the messages ``trim_memory`` will add to the window (never a raw parser error).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from langchain_core.runnables import RunnableConfig

from .._redact import redact
from ..errors import ErrorClass, Policy
from ..policies import DEFAULT_POLICIES
from ..protocols import JsonTranscript, Transcript
from ..state import AgentState, RunError, StepRecord, StopReason
from ..texts import FORMAT_REPROMPT
from ._base import Stage
from .clean import message_text
from .parse import final_text

__all__ = ["ClassifyError"]

# When several calls of one reply fail, the loop is reported under the most telling class.
_PRIORITY = (
    ErrorClass.DRIFT,
    ErrorClass.UNKNOWN_TOOL,
    ErrorClass.BAD_ARGUMENTS,
    ErrorClass.TOOL_LIMIT,
    ErrorClass.TOOL_TIMEOUT,
    ErrorClass.TOOL_FAILURE,
)


#: Model API failures stop the run; a cut-off reply (``truncated``) is re-asked instead.
_MODEL_API = frozenset({ErrorClass.LLM_TRANSIENT, ErrorClass.LLM_FATAL})


class ClassifyError(Stage):
    """Decide the outcome of the loop. See the module docstring for the rules.

    Args:
        max_errors: consecutive failed loops that stop the run.
        policies: the policy per error class (``stop`` ends the run at once).
        transcript: how the loop is written into memory (per protocol).
    """

    name = "classify_error"

    def __init__(
        self,
        *,
        max_errors: int = 2,
        policies: Mapping[ErrorClass, Policy] | None = None,
        transcript: Transcript | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.max_errors = max_errors
        self.policies = {**DEFAULT_POLICIES, **(policies or {})}
        self.transcript: Transcript = transcript or JsonTranscript()

    def _record(self, state: AgentState, error: RunError | None) -> StepRecord:
        raw = redact(message_text(state.reply)) if state.reply is not None else ""
        return StepRecord(
            step=state.loops,
            raw=raw,
            actions=state.actions,
            observations=state.observations,
            error=error,
            usage=state.step_usage,
            llm_ms=state.llm_ms,
            tools_ms=state.tools_ms,
            forced=state.final_only,
            # The window is still the one the prompt was built from: trim_memory runs after this.
            window_tokens=state.memory.token_count,
            window_budget=state.memory.max_tokens,
        )

    def _loop_error(self, state: AgentState) -> RunError | None:
        if state.loop_error is not None:
            return state.loop_error
        failed = [o for o in state.observations if not o.ok]
        if not state.observations or len(failed) < len(state.observations):
            return None
        worst = min(
            failed,
            key=lambda o: (
                _PRIORITY.index(o.error_class) if o.error_class in _PRIORITY else len(_PRIORITY)
            ),
        )
        error_class = worst.error_class or ErrorClass.TOOL_FAILURE
        return RunError(state.loops, "dispatch_tools", error_class, worst.output)

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if state.stop is not None:
            return state
        error = self._loop_error(state)
        record = self._record(state, error)
        steps = (*state.steps, record)

        if error is not None and error.error_class in _MODEL_API:
            return dataclasses.replace(state, steps=steps, stop=StopReason.LLM_ERROR, error=error)

        final = next((a for a in state.actions if a.is_final), None)
        if final is not None and error is None:
            return dataclasses.replace(
                state,
                steps=steps,
                consecutive_errors=0,
                stop=StopReason.FINAL,
                output=final_text(final.tool_input),
                pending=tuple(self.transcript.messages(state, None)),
            )

        if state.final_only:
            message = "the model did not give a final answer on the loop reserved for it"
            if error is not None:
                message += f" ({error.error_class.value}: {error.message})"
            stop_error = RunError(
                state.loops, self.name or "classify_error", ErrorClass.LIMIT, message
            )
            return dataclasses.replace(
                state, steps=steps, stop=StopReason.MAX_LOOPS, error=stop_error
            )

        notice = error.notice if error is not None else None
        if notice is None and error is not None and error.error_class is ErrorClass.FORMAT:
            notice = FORMAT_REPROMPT
        pending = tuple(self.transcript.messages(state, notice))
        if error is None:
            return dataclasses.replace(state, steps=steps, consecutive_errors=0, pending=pending)

        errors = state.consecutive_errors + 1
        changes: dict[str, object] = {
            "steps": steps,
            "consecutive_errors": errors,
            "pending": pending,
            "error": error,
        }
        if error.error_class is ErrorClass.DRIFT:
            if state.drift_nudged:
                changes["stop"] = StopReason.DRIFT
            changes["drift_nudged"] = True
        if "stop" not in changes and (
            self.policies.get(error.error_class) is Policy.STOP or errors >= self.max_errors
        ):
            changes["stop"] = StopReason.MAX_ERRORS
        return dataclasses.replace(state, **changes)  # type: ignore[arg-type]
