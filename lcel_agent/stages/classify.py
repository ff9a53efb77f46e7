"""``classify_error``: judge the loop, advance the circuit breaker, decide whether to stop.

Pure: it reads what the earlier stages left in the state and writes

* the loop's :class:`~lcel_agent.state.StepRecord`;
* the circuit breaker (:mod:`lcel_agent.rules.breaker`): a loop whose calls returned
  a result the run had not seen is *progress* and resets it; a failed loop (a
  format error, an unknown tool, bad arguments, a failed, timed-out or refused
  call, a drift nudge) is fingerprinted, so the breaker can tell the same
  failure repeated from a mix of different slips;
* the stop decision: ``final`` on an answer, ``llm_error`` when the model API
  failed, ``max_errors`` (or ``drift`` when the last failure was a repeat the
  model was warned about) when the breaker trips or a policy says ``stop``,
  and ``max_loops`` when the loop reserved for a final answer brought none;
* the turn ``trim_memory`` will add to the window: its messages (never a raw
  parser error), the facts it established, and whether it failed;
* what ended the acting (``finished_by``), for the answer stage: an answer
  (``final``, ``forced`` on the reserved loop), an empty reply (``empty``) or a plan
  given as the answer (``plan``: a plan sent back once, then another plan, with results
  in hand), or, once calls have succeeded, a reply that copies their results out instead
  of a call (``echo``), an answer cut off at the length limit (``cut``), or a drift stop
  (``drift``): the model has stopped acting, and the answer stage decides the answer;
* the answer checks that send back (``answer_checks``: ``plan`` and a user's own,
  :mod:`lcel_agent.stages.answer`): an answer that fails one goes back once with a
  notice (``state.notice``), which the breaker does not count; failed again, the answer
  stage writes the answer (``state.failed_check``), except a plan with no result in hand,
  which is no answer and no progress: a failed step (``plan``) for the breaker, so a model
  that only ever says what it will do stops within ``2 * max_errors + 1`` calls.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig

from .._redact import redact
from .._shared.messages import message_text
from .._shared.protocol import ProtocolName
from ..errors import ErrorClass, Policy
from ..memory import Fact
from ..memory.compaction import ANSWER_CALL
from ..rules.breaker import StopWhy, advance, fingerprint, progress_of, stop_error
from ..rules.gathered import gathered
from ..rules.policies import DEFAULT_POLICIES
from ..rules.protocols import JsonTranscript, Transcript
from ..state import (
    FINAL_ACTION,
    Action,
    AgentState,
    BreakerState,
    Observation,
    RunError,
    StepRecord,
    StopReason,
)
from ..texts import FORMAT_REPROMPT
from ._base import Stage
from .answer import DEFAULT_CHECKS, AnswerCheck, Judged, echoes, judge_answer
from .parse import final_text

__all__ = ["ClassifyError", "facts_of"]

# When several calls of one reply fail, the loop is reported under the most telling class.
_PRIORITY = (
    ErrorClass.DRIFT,
    ErrorClass.UNKNOWN_TOOL,
    ErrorClass.BAD_ARGUMENTS,
    ErrorClass.TOOL_LIMIT,
    ErrorClass.TOOL_TIMEOUT,
    ErrorClass.TOOL_FAILURE,
)
# Calls that ran and failed: what they say about the world is worth remembering.
_RAN_AND_FAILED = (ErrorClass.TOOL_FAILURE, ErrorClass.TOOL_TIMEOUT)


def _fact(obs: Observation) -> Fact:
    subject = obs.action.input_text
    return Fact(
        f"{obs.action.tool}({subject})",
        obs.output,
        ok=obs.ok,
        subject=subject,
        key=obs.action.signature(),
    )


def facts_of(observations: tuple[Observation, ...]) -> tuple[Fact, ...]:
    """What a loop's calls established: each success, and each call that ran and failed."""
    return tuple(_fact(o) for o in observations if o.ok or o.error_class in _RAN_AND_FAILED)


#: Model API failures stop the run; a cut-off reply (``truncated``) is re-asked instead.
_MODEL_API = frozenset({ErrorClass.LLM_TRANSIENT, ErrorClass.LLM_FATAL})
#: How a final answer starts in the JSON protocol (a cut one is still the start of an answer).
_FINAL_START = re.compile(r'"action"\s*:\s*"final"', re.IGNORECASE)


class ClassifyError(Stage):
    """Decide the outcome of the loop. See the module docstring for the rules.

    Args:
        max_errors: the breaker's limit (see :mod:`lcel_agent.rules.breaker`).
        policies: the policy per error class (``stop`` ends the run at once).
        transcript: how the loop is written into memory (per protocol).
        return_direct: names of tools whose successful result ends the run as
            its answer (``tool.return_direct``), with no further model call.
        checks: the answer checks (``answer_checks``); those that send back run here.
        tools: the agent's tool names (a plan names them; with none, words only answer).
        protocol: the agent's protocol: how a notice tells the model to answer (JSON's
            ``final`` action, or words).
    """

    name = "classify_error"

    def __init__(
        self,
        *,
        max_errors: int = 2,
        policies: Mapping[ErrorClass, Policy] | None = None,
        transcript: Transcript | None = None,
        return_direct: Collection[str] = (),
        checks: Sequence[AnswerCheck] = DEFAULT_CHECKS,
        tools: Collection[str] = (),
        protocol: ProtocolName = "json",
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.return_direct = frozenset(return_direct)
        self.checks = tuple(checks)
        self.tools = frozenset(tools)
        self.protocol: ProtocolName = protocol
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
            reply=state.reply,
            notice=state.notice if error is None else None,
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

    def _answered(
        self, state: AgentState, final: Action, steps: tuple[StepRecord, ...], by: str
    ) -> AgentState | RunError:
        """The run's answer, or the answer sent back for a check, or the error of a plan
        given again with nothing done (which the breaker then counts)."""
        answer = final_text(final.tool_input)
        judged = Judged()
        if by != "direct" and answer.strip():
            judged = judge_answer(
                state, answer, self.checks, self.tools,
                json_protocol=self.protocol == "json", stage=self.name or "classify_error",
            )  # fmt: skip
        if judged.notice is not None:
            back = dataclasses.replace(state, notice=judged.notice)
            return self._sent_back(back, (*state.steps, self._record(back, None)))
        if judged.error is not None:
            return judged.error
        if by != "direct" and not answer.strip():
            by = "empty"
        return dataclasses.replace(
            state,
            steps=steps,
            stop=StopReason.FINAL,
            output=answer,
            finished_by=judged.finished_by or by,
            failed_check=judged.failed_check,
            pending=tuple(self.transcript.messages(state, None)),
            pending_facts=(Fact(ANSWER_CALL, answer),),
        )

    def _done_acting(self, state: AgentState, error: RunError | None) -> str | None:
        """``echo`` or ``cut`` when a failed reply shows the model has stopped acting."""
        if error is None or state.reply is None:
            return None
        if error.error_class not in (ErrorClass.FORMAT, ErrorClass.TRUNCATED):
            return None
        results = [r.text for r in gathered(state)]
        if not results:
            return None
        text = message_text(state.reply)
        if echoes(text, results):
            return "cut" if error.error_class is ErrorClass.TRUNCATED else "echo"
        if error.error_class is ErrorClass.TRUNCATED and _FINAL_START.search(text):
            return "cut"
        return None

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if state.stop is not None:
            return state
        error = self._loop_error(state)
        steps = (*state.steps, self._record(state, error))
        if error is not None and error.error_class in _MODEL_API:
            return dataclasses.replace(state, steps=steps, stop=StopReason.LLM_ERROR, error=error)
        answered = self._answer(state, steps) if error is None else None
        if isinstance(answered, AgentState):
            return answered
        if answered is not None:  # a plan with nothing done: a failed step, as any other
            error, steps = answered, (*state.steps, self._record(state, answered))
        ended = self._acting_ended(state, steps, error)
        if ended is not None:
            return ended
        if error is None and state.notice is not None:
            return self._sent_back(state, steps)
        return self._counted(state, steps, error, config)

    def _answer(
        self, state: AgentState, steps: tuple[StepRecord, ...]
    ) -> AgentState | RunError | None:
        """A loop without error: the answer a ``return_direct`` tool or a final action
        gave (or sent back for a check), the error of a plan given again with nothing
        done, or None when the loop gave no answer."""
        direct = _direct_answer(state, self.return_direct)
        if direct is not None:  # a return_direct tool answered: no further model call
            return self._done(self._answered(state, Action(FINAL_ACTION, direct), steps, "direct"))
        final = next((a for a in state.actions if a.is_final), None)
        if final is None:
            return None
        return self._answered(state, final, steps, "forced" if state.final_only else "final")

    def _acting_ended(
        self, state: AgentState, steps: tuple[StepRecord, ...], error: RunError | None
    ) -> AgentState | None:
        """The stop when a loop without an answer still ends the acting: the model stopped
        acting (the answer stage writes the answer from the results), or the loop reserved
        for a final answer brought none (``max_loops``); else None."""
        done = self._done_acting(dataclasses.replace(state, steps=steps), error)
        if done is not None:  # the answer stage writes the answer from the results
            return dataclasses.replace(
                state,
                steps=steps,
                stop=StopReason.FINAL,
                finished_by=done,
                error=error,
                pending=tuple(self.transcript.messages(state, None)),
            )
        if not state.final_only:
            return None
        message = "the model did not give a final answer on the loop reserved for it"
        if error is not None:
            message += f" ({error.error_class.value}: {error.message})"
        stop_error = RunError(state.loops, self.name or "classify_error", ErrorClass.LIMIT, message)
        return dataclasses.replace(state, steps=steps, stop=StopReason.MAX_LOOPS, error=stop_error)

    def _counted(
        self,
        state: AgentState,
        steps: tuple[StepRecord, ...],
        error: RunError | None,
        config: RunnableConfig,
    ) -> AgentState:
        """A loop that goes on acting: the circuit breaker counts it, the turn it leaves
        is pending for ``trim_memory``, and the breaker or a policy may stop the run."""
        notice = error.notice if error is not None else None
        if notice is None and error is not None and error.error_class is ErrorClass.FORMAT:
            notice = FORMAT_REPROMPT
        breaker, why = advance(
            state.breaker,
            failure=fingerprint(error, state) if error is not None else None,
            results=progress_of(state),
            # A run's config may set its own max_errors (checked when the run started).
            max_errors=(config.get("configurable") or {}).get("max_errors") or self.max_errors,
            drift=error is not None and error.error_class is ErrorClass.DRIFT,
        )
        changes: dict[str, Any] = {
            "steps": steps,
            "breaker": breaker,
            # A success opens the way for one more notice (see state.noticed).
            "noticed": state.noticed and not any(o.ok for o in state.observations),
            "pending": tuple(self.transcript.messages(state, notice)),
            "pending_facts": facts_of(state.observations),
            # A reply with one failed call among successes is shown whole until the next
            # success too: the model must read what went wrong to put it right.
            "pending_failed": error is not None or any(not o.ok for o in state.observations),
        }
        stop = self._breaker_stop(state, error, breaker, why)
        return dataclasses.replace(state, **changes, **stop)

    def _breaker_stop(
        self, state: AgentState, error: RunError | None, breaker: BreakerState, why: StopWhy | None
    ) -> dict[str, Any]:
        """What the breaker's verdict (``why``) or a ``stop`` policy changes: the stop, its
        error and what ended the acting. A loop without error only stops for calls that
        keep returning what the run already has (``drift``)."""
        if error is None:
            if why is None:
                return {}
            return {
                "stop": StopReason.DRIFT,
                "finished_by": self._drifted(state),
                "error": RunError(
                    state.loops,
                    self.name or "classify_error",
                    ErrorClass.DRIFT,
                    f"{breaker.stalled} loops in a row without a new result",
                ),
            }
        if self.policies.get(error.error_class) is Policy.STOP:
            return {"error": error, "stop": StopReason.MAX_ERRORS}
        if why is None:
            return {"error": error}
        drift = why == "drifted" or error.error_class is ErrorClass.DRIFT
        changes: dict[str, Any] = {
            "stop": StopReason.DRIFT if drift else StopReason.MAX_ERRORS,
            "error": stop_error(error, why, breaker),
        }
        if drift:
            changes["finished_by"] = self._drifted(state)
        return changes

    @staticmethod
    def _done(answered: AgentState | RunError) -> AgentState:
        assert isinstance(answered, AgentState), "a direct answer is never checked"
        return answered

    def _sent_back(self, state: AgentState, steps: tuple[StepRecord, ...]) -> AgentState:
        """A reply in words goes back once with its notice; the breaker does not count it."""
        return dataclasses.replace(
            state,
            steps=steps,
            noticed=True,
            pending=tuple(self.transcript.messages(state, state.notice)),
            pending_failed=True,  # like a failed turn: it leaves the window at the next success
        )

    def _drifted(self, state: AgentState) -> str | None:
        """``drift`` when a model that keeps repeating itself already holds results.

        Measured on a 1.5B model: with every result in, it asks again for what it has
        until drift stops it. The answer stage then decides the answer from the results.
        """
        return "drift" if gathered(state) else None


def _direct_answer(state: AgentState, names: frozenset[str]) -> str | None:
    """The results of this loop's successful ``return_direct`` calls, in order, or None."""
    if not names:
        return None
    found = [o.output for o in state.observations if o.ok and o.action.tool in names]
    return "\n\n".join(found) if found else None
