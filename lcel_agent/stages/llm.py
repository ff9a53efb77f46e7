"""``call_llm``: one model call per loop, with the loop's own timeout, retries and deadline.

Transient API errors (429, 5xx, timeouts, dropped connections, a response the
client could not decode) are retried with exponential backoff and jitter,
honouring ``Retry-After`` up to ``max_retry_after``: a server that asks for a
longer wait fails the call at once (``llm_error``, its wait in the message)
instead of being retried early. The retries are part of one loop and do not
count against ``max_loops``. Fatal errors stop the run.

Every wait of the call (each attempt, each backoff, each ``Retry-After``) is cut
to what is left of the run's ``time_budget`` (``state.deadline``): when the time
runs out inside the call, or a wait would outlast it, the run stops with
``budget`` at once, saying what it was waiting for.

A reply counts only when the provider says it is complete (:mod:`.llm_reply`):
a cut-off one becomes a ``truncated`` loop error, so it is never parsed,
dispatched or taken as the answer; the model is told to answer shorter, and
where the model's ``max_tokens`` can be bound the next call asks for twice as
many tokens. Replies are redacted here, once, before any other stage sees them.

A prompt too long for the model is sent once more, strictly smaller (whole turns dropped
to half the prompt's size, or, when only pinned messages are left, the longest of them
but the system prompt cut in the middle); when nothing can be made smaller the run stops
with ``llm_error`` saying why. The loop's retries are the only ones:
:func:`without_client_retries` turns off the openai client's own.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
)

from .._redact import redact
from .._shared.timeout import acall_with_timeout, call_with_timeout
from ..errors import ErrorClass, error_reason
from ..memory import shrink_text, trim_messages
from ..memory.counters import count_message, estimate_tokens
from ..state import AgentState, RunError, StopReason, Usage
from ..texts import TRUNCATED_REPROMPT
from ._base import Stage
from .llm_client import without_client_retries
from .llm_errors import backoff_wait, classify_model_error
from .llm_profile import with_output_limit
from .llm_reply import cut_off, redact_reply, reports_finish, token_limit

__all__ = ["CONTEXT_OVERFLOW", "CallLLM", "without_client_retries"]

_MAX_ERROR_CHARS = 500

#: Ends the message of a prompt too long that was not made smaller (``shrink=False``).
CONTEXT_OVERFLOW = "the prompt is longer than the model's context"


def _as_message(value: Any) -> AIMessage:
    if isinstance(value, AIMessage):
        return value
    if isinstance(value, BaseMessage):
        return AIMessage(content=value.content)
    return AIMessage(content=str(value))


def _usage(prompt: list[BaseMessage], reply: AIMessage) -> Usage:
    meta = reply.usage_metadata
    if meta:
        return Usage(int(meta.get("input_tokens", 0)), int(meta.get("output_tokens", 0)))
    # The model reported nothing (some fakes and local servers): estimate, so budgets still work.
    return Usage(
        sum(count_message(m, estimate_tokens) for m in prompt),
        count_message(reply, estimate_tokens),
        estimated=True,
    )


class _OutOfTime(Exception):
    """The run's time budget ran out inside the model call; ``doing`` says on what."""

    def __init__(self, doing: str, cause: BaseException | None = None) -> None:
        super().__init__(doing)
        self.doing, self.cause = doing, cause


@dataclass(frozen=True, slots=True)
class _Plan:
    """One round of attempts: the prompt, and the model it goes to."""

    prompt: list[BaseMessage]
    model: Runnable[Any, Any]
    enlarged: int | None = None
    """The output limit asked for after a cut-off reply, when one was bound."""
    shrunk: bool = False
    """True once the prompt was trimmed after a context overflow."""


@dataclass(slots=True)
class _Rounds:
    """One model call's rounds: the round to make, the attempts made, when it started."""

    plan: _Plan
    attempts: list[int] = field(default_factory=lambda: [0])
    started: float = field(default_factory=time.perf_counter)


class CallLLM(Stage):
    """Call the model on ``state.prompt``; set ``reply`` or a ``call_llm`` loop error.

    Args:
        llm: the chat model (or a Runnable around one) for normal loops.
        final_llm: the model for the loop reserved for a final answer (the
            tool-calling protocol passes the model without tools); default ``llm``.
        timeout: seconds per attempt, enforced here whatever the client does.
        retries: attempts for transient errors, the first included.
        backoff: ``(initial, maximum)`` seconds of the exponential backoff.
        max_retry_after: the longest ``Retry-After`` honoured, in seconds; a server
            asking for longer fails the call.
        shrink: send a prompt too long for the context once more, smaller (False: fail,
            the message ending in :data:`CONTEXT_OVERFLOW`, for prompts that must not
            lose a word); ``final_if``: errors never worth a second attempt (a schema
            refused with HTTP 500, as some servers answer).
    """

    name = "call_llm"

    def __init__(
        self,
        llm: Runnable[Any, Any],
        *,
        final_llm: Runnable[Any, Any] | None = None,
        timeout: float | None = 60.0,
        retries: int = 3,
        backoff: tuple[float, float] = (0.5, 8.0),
        max_retry_after: float = 60.0,
        shrink: bool = True,
        final_if: Callable[[BaseException], bool] | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.shrink, self.final_if = shrink, final_if
        self.llm = llm
        self.final_llm = final_llm or llm
        self.timeout = timeout
        self.retries = retries
        self._backoff = backoff_wait(*backoff)
        self.max_retry_after = max_retry_after
        # OpenAI-compatible models always send a finish reason; from them, none means cut short.
        self._expects_finish = reports_finish(self.llm) and reports_finish(self.final_llm)

    # --- shared decisions ------------------------------------------------------
    @staticmethod
    def _left(state: AgentState) -> float | None:
        return None if state.deadline is None else state.deadline - time.monotonic()

    def _attempt_timeout(self, state: AgentState) -> float | None:
        left = self._left(state)
        if left is None:
            return self.timeout
        if left <= 0:
            raise _OutOfTime("no time was left for another model call")
        return left if self.timeout is None else min(self.timeout, left)

    def _retryable(self, exc: BaseException) -> bool:
        info = classify_model_error(exc)
        too_long = info.retry_after is not None and info.retry_after > self.max_retry_after
        final = self.final_if is not None and self.final_if(exc)
        return info.transient and not too_long and not final and not isinstance(exc, _OutOfTime)

    def _wait(self, state: AgentState, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        exc = outcome.exception() if outcome is not None else None
        after = classify_model_error(exc).retry_after if exc is not None else None
        wait = after if after is not None else float(self._backoff(retry_state))
        left = self._left(state)
        if left is not None and wait >= left:
            if after is not None:
                doing = f"the server asked to retry after {after:g} s"
            elif left > 0:
                doing = f"the next attempt was a {wait:.1f} s backoff away"
            else:
                raise _OutOfTime("the time ran out during the attempt", exc)
            raise _OutOfTime(f"{doing}, with {max(left, 0.0):.1f} s of the budget left", exc)
        return wait

    def _retry_args(self, state: AgentState) -> dict[str, Any]:
        return {
            "stop": stop_after_attempt(self.retries),
            "wait": lambda retry_state: self._wait(state, retry_state),
            "retry": retry_if_exception(self._retryable),
            "reraise": True,
        }

    def _model(self, state: AgentState) -> Runnable[Any, Any]:
        return self.final_llm if state.final_only else self.llm

    def _first_plan(self, state: AgentState) -> _Plan:
        model = self._model(state)
        last = state.steps[-1] if state.steps else None
        cut = last is not None and last.error_class is ErrorClass.TRUNCATED
        limit = token_limit(model) if cut else None
        if last is None or limit is None:
            return _Plan(list(state.prompt), model)
        # Twice what the cut reply was allowed (it may itself have been asked for more).
        _, value = limit
        larger = 2 * max(value, last.usage.output_tokens)
        return _Plan(list(state.prompt), with_output_limit(model, larger), enlarged=larger)

    @staticmethod
    def _smaller(state: AgentState, prompt: list[BaseMessage]) -> list[BaseMessage] | None:
        """The prompt at about half its size, or None when it cannot be made smaller.

        Whole turns go first (the window's own rules); when only pinned messages are
        left (the system prompt, and the question with the digest of what was done),
        the longest of them but the system prompt is cut in the middle instead.
        """
        counter = state.memory.counter

        def cost(messages: list[BaseMessage]) -> int:
            return sum(count_message(m, counter) for m in messages)

        size = cost(prompt)
        target = max(1, min(size, state.memory.max_tokens) // 2)
        if any(isinstance(m, AIMessage) for m in prompt):
            trimmed = trim_messages(prompt, target, counter)
            if cost(trimmed) < size:
                return trimmed
        cuttable = [
            i
            for i, m in enumerate(prompt)
            if not isinstance(m, SystemMessage) and isinstance(m.content, str) and m.content
        ]
        if not cuttable:
            return None
        index = max(cuttable, key=lambda i: count_message(prompt[i], counter))
        text = str(prompt[index].content)
        cut = shrink_text(text, max(1, counter(text) - (size - target)), counter)
        smaller = [
            *prompt[:index],
            prompt[index].model_copy(update={"content": cut}),
            *prompt[index + 1 :],
        ]
        return smaller if cost(smaller) < size else None

    def _next_plan(
        self, state: AgentState, plan: _Plan, exc: BaseException
    ) -> tuple[_Plan | None, str]:
        """After a failed round: the next round to try, or None and why there is none."""
        info = classify_model_error(exc)
        if info.context_overflow and not self.shrink:
            return None, CONTEXT_OVERFLOW
        if info.context_overflow:
            if plan.shrunk:
                return None, "still too long at half the size; use a model with a larger context"
            smaller = self._smaller(state, plan.prompt)
            if smaller is None:
                return None, (
                    "the prompt cannot be made smaller: nothing in it but the system prompt "
                    "can be dropped or cut; shorten it, or use a model with a larger context"
                )
            return dataclasses.replace(plan, prompt=smaller, shrunk=True), ""
        if plan.enlarged is not None and info.status_code in (400, 422):
            # The larger output limit may be more than this model allows: ask as before.
            return dataclasses.replace(plan, model=self._model(state), enlarged=None), ""
        return None, ""

    def _after(self, state: AgentState, rounds: _Rounds, reply: Any) -> AgentState | None:
        """The state the call ends with after a round (``reply``: the reply, or what the round
        raised), or None with the next round planned."""
        attempts, started = rounds.attempts[0], rounds.started
        if not isinstance(reply, BaseException):
            return self._done(state, rounds.plan, reply, started)
        if isinstance(reply, _OutOfTime):
            return self._out_of_time(state, reply, attempts, started)
        following, why = self._next_plan(state, rounds.plan, reply)
        if following is None:
            return self._failed(state, reply, attempts, started, why)
        rounds.plan = following
        return None

    def _done(self, state: AgentState, plan: _Plan, reply: Any, started: float) -> AgentState:
        message = redact_reply(_as_message(reply))
        usage = _usage(plan.prompt, message)
        error = None
        why = cut_off(message, self._expects_finish)
        if why is not None:
            if plan.enlarged is not None:
                why += f", even with max_tokens={plan.enlarged}"
            stage = self.name or "call_llm"
            error = RunError(
                state.loops + 1, stage, ErrorClass.TRUNCATED, why, notice=TRUNCATED_REPROMPT
            )
        return dataclasses.replace(
            state,
            loops=state.loops + 1,
            reply=message,
            loop_error=error,
            step_usage=usage,
            usage=state.usage + usage,
            llm_ms=(time.perf_counter() - started) * 1000,
        )

    def _failed(
        self, state: AgentState, exc: BaseException, attempts: int, started: float, why: str
    ) -> AgentState:
        info = classify_model_error(exc)
        status = f" (HTTP {info.status_code})" if info.status_code else ""
        message = redact(f"{type(exc).__name__}{status}: {error_reason(exc)}")[:_MAX_ERROR_CHARS]
        if info.retry_after is not None and info.retry_after > self.max_retry_after:
            message += (
                f" — the server asked to retry after {info.retry_after:g} s, "
                f"more than max_retry_after={self.max_retry_after:g} s"
            )
        elif info.transient:
            message += f" — gave up after {attempts} attempt(s)"
        if why:
            message += f" — {why}"
        error = RunError(state.loops + 1, self.name or "call_llm", info.error_class, message)
        return dataclasses.replace(
            state,
            loops=state.loops + 1,
            loop_error=error,
            llm_ms=(time.perf_counter() - started) * 1000,
        )

    def _out_of_time(
        self, state: AgentState, out: _OutOfTime, attempts: int, started: float
    ) -> AgentState:
        loops = state.loops + (1 if attempts else 0)
        budget = (state.deadline or state.started) - state.started
        message = f"time_budget={budget:g} s spent in the model call: {out.doing}"
        if out.cause is not None:
            cause = f"{type(out.cause).__name__}: {error_reason(out.cause)}"
            message += f"; last error: {redact(cause)[:_MAX_ERROR_CHARS]}"
        error = RunError(loops, self.name or "call_llm", ErrorClass.LIMIT, message)
        return dataclasses.replace(
            state,
            loops=loops,
            stop=StopReason.BUDGET,
            error=error,
            llm_ms=(time.perf_counter() - started) * 1000,
        )

    # --- thin drivers ------------------------------------------------------------
    def _call_sync(
        self, state: AgentState, plan: _Plan, config: RunnableConfig, counter: list[int]
    ) -> Any:
        for attempt in Retrying(**self._retry_args(state)):
            with attempt:
                timeout = self._attempt_timeout(state)
                counter[0] += 1
                return call_with_timeout(
                    lambda: plan.model.invoke(plan.prompt, config), timeout, "model call"
                )
        raise AssertionError("unreachable: tenacity re-raises the last error")

    async def _call_async(
        self, state: AgentState, plan: _Plan, config: RunnableConfig, counter: list[int]
    ) -> Any:
        async for attempt in AsyncRetrying(**self._retry_args(state)):
            with attempt:
                timeout = self._attempt_timeout(state)
                counter[0] += 1
                return await acall_with_timeout(
                    lambda: plan.model.ainvoke(plan.prompt, config), timeout, "model call"
                )
        raise AssertionError("unreachable: tenacity re-raises the last error")

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if state.stop is not None:
            return state
        rounds = _Rounds(self._first_plan(state))
        while True:
            try:
                reply: Any = self._call_sync(state, rounds.plan, config, rounds.attempts)
            except Exception as exc:
                reply = exc
            if (ended := self._after(state, rounds, reply)) is not None:
                return ended

    async def arun(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if state.stop is not None:
            return state
        rounds = _Rounds(self._first_plan(state))
        while True:
            try:
                reply: Any = await self._call_async(state, rounds.plan, config, rounds.attempts)
            except Exception as exc:
                reply = exc
            if (ended := self._after(state, rounds, reply)) is not None:
                return ended
