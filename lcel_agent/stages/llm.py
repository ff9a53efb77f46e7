"""``call_llm``: one model call per loop, with the loop's own timeout and retries.

Transient API errors (429, 5xx, timeouts, dropped connections) are retried
with exponential backoff and jitter, honouring ``Retry-After``; the retries are
part of one loop and do not count against ``max_loops``. Fatal errors stop the
run. A prompt that is too long for the model is trimmed to half the window and
tried once more. This stage is the only place the loop talks to the model, and
its retries are the only ones: :func:`without_client_retries` turns off the
openai client's own retries so the two do not multiply.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)

from .._redact import redact
from .._timeout import acall_with_timeout, call_with_timeout
from ..memory import trim_messages
from ..state import AgentState, RunError, Usage
from ..tokens import count_message, estimate_tokens
from ._base import Stage
from .llm_errors import classify_model_error

__all__ = ["CallLLM", "without_client_retries"]

_MAX_ERROR_CHARS = 500


def without_client_retries(llm: Runnable[Any, Any], timeout: float | None) -> Runnable[Any, Any]:
    """Return ``llm`` with the openai client's own retries off and its HTTP timeout set.

    ``ChatOpenAI`` retries twice by itself and sets no HTTP timeout; stacked under
    the loop's retries that is up to nine HTTP attempts per loop, and a hung
    provider hangs the agent. The copy shares nothing mutable with ``llm``.
    Other models, and wrappers other than ``bind``/``bind_tools``, are returned
    as they are.
    """
    if isinstance(llm, RunnableBinding):
        inner = without_client_retries(llm.bound, timeout)
        if inner is llm.bound:
            return llm
        return llm.__class__(
            bound=inner,
            kwargs=llm.kwargs,
            config=llm.config,
            config_factories=llm.config_factories,
            custom_input_type=llm.custom_input_type,
            custom_output_type=llm.custom_output_type,
        )
    root = getattr(llm, "root_client", None)
    root_async = getattr(llm, "root_async_client", None)
    if root is None or root_async is None or not isinstance(llm, BaseChatModel):
        return llm
    options: dict[str, Any] = {"max_retries": 0}
    if timeout is not None:
        options["timeout"] = timeout
    copy = llm.model_copy()
    fields: dict[str, Any] = {
        "root_client": root.with_options(**options),
        "root_async_client": root_async.with_options(**options),
    }
    fields["client"] = fields["root_client"].chat.completions
    fields["async_client"] = fields["root_async_client"].chat.completions
    for name, value in fields.items():
        object.__setattr__(copy, name, value)
    if hasattr(copy, "max_retries"):
        object.__setattr__(copy, "max_retries", 0)
    return copy


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
    )


class CallLLM(Stage):
    """Call the model on ``state.prompt``; set ``reply`` or a ``call_llm`` loop error.

    Args:
        llm: the chat model (or a Runnable around one) for normal loops.
        final_llm: the model for the loop reserved for a final answer (the
            tool-calling protocol passes the model without tools); default ``llm``.
        timeout: seconds per attempt, enforced here whatever the client does.
        retries: attempts for transient errors, the first included.
        backoff: ``(initial, maximum)`` seconds of the exponential backoff.
        max_retry_after: the longest ``Retry-After`` honoured, in seconds.
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
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.llm = llm
        self.final_llm = final_llm or llm
        self.timeout = timeout
        self.retries = retries
        self._backoff = wait_exponential_jitter(
            initial=backoff[0], max=backoff[1], jitter=backoff[0]
        )
        self.max_retry_after = max_retry_after

    # --- shared decisions ------------------------------------------------------
    def _wait(self, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        exc = outcome.exception() if outcome is not None else None
        if exc is not None:
            after = classify_model_error(exc).retry_after
            if after is not None:
                return min(after, self.max_retry_after)
        return float(self._backoff(retry_state))

    def _retry_args(self) -> dict[str, Any]:
        return {
            "stop": stop_after_attempt(self.retries),
            "wait": self._wait,
            "retry": retry_if_exception(lambda e: classify_model_error(e).transient),
            "reraise": True,
        }

    def _model(self, state: AgentState) -> Runnable[Any, Any]:
        return self.final_llm if state.final_only else self.llm

    @staticmethod
    def _shrunk(state: AgentState) -> list[BaseMessage]:
        memory = state.memory
        return trim_messages(list(state.prompt), max(1, memory.max_tokens // 2), memory.counter)

    def _done(
        self, state: AgentState, prompt: list[BaseMessage], reply: Any, started: float
    ) -> AgentState:
        message = _as_message(reply)
        usage = _usage(prompt, message)
        return dataclasses.replace(
            state,
            loops=state.loops + 1,
            reply=message,
            step_usage=usage,
            usage=state.usage + usage,
            llm_ms=(time.perf_counter() - started) * 1000,
        )

    def _failed(
        self, state: AgentState, exc: BaseException, attempts: int, started: float
    ) -> AgentState:
        info = classify_model_error(exc)
        status = f" (HTTP {info.status_code})" if info.status_code else ""
        message = redact(f"{type(exc).__name__}{status}: {exc}")[:_MAX_ERROR_CHARS]
        if info.transient:
            message += f" — gave up after {attempts} attempt(s)"
        error = RunError(state.loops + 1, self.name or "call_llm", info.error_class, message)
        return dataclasses.replace(
            state,
            loops=state.loops + 1,
            loop_error=error,
            llm_ms=(time.perf_counter() - started) * 1000,
        )

    # --- thin drivers ------------------------------------------------------------
    def _call_sync(
        self,
        model: Runnable[Any, Any],
        prompt: list[BaseMessage],
        config: RunnableConfig,
        counter: list[int],
    ) -> Any:
        for attempt in Retrying(**self._retry_args()):
            with attempt:
                counter[0] += 1
                return call_with_timeout(
                    lambda: model.invoke(prompt, config), self.timeout, "model call"
                )
        raise AssertionError("unreachable: tenacity re-raises the last error")

    async def _call_async(
        self,
        model: Runnable[Any, Any],
        prompt: list[BaseMessage],
        config: RunnableConfig,
        counter: list[int],
    ) -> Any:
        async for attempt in AsyncRetrying(**self._retry_args()):
            with attempt:
                counter[0] += 1
                return await acall_with_timeout(
                    lambda: model.ainvoke(prompt, config), self.timeout, "model call"
                )
        raise AssertionError("unreachable: tenacity re-raises the last error")

    def _prompts(self, state: AgentState) -> Iterator[list[BaseMessage]]:
        """The prompt, then (asked for only after a context overflow) the half-size one."""
        yield list(state.prompt)
        yield self._shrunk(state)

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if state.stop is not None:
            return state
        started, attempts, model = time.perf_counter(), [0], self._model(state)
        for prompt in self._prompts(state):
            try:
                reply = self._call_sync(model, prompt, config, attempts)
                return self._done(state, prompt, reply, started)
            except Exception as exc:
                error = exc
                if not classify_model_error(exc).context_overflow:
                    break
        return self._failed(state, error, attempts[0], started)

    async def arun(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if state.stop is not None:
            return state
        started, attempts, model = time.perf_counter(), [0], self._model(state)
        for prompt in self._prompts(state):
            try:
                reply = await self._call_async(model, prompt, config, attempts)
                return self._done(state, prompt, reply, started)
            except Exception as exc:
                error = exc
                if not classify_model_error(exc).context_overflow:
                    break
        return self._failed(state, error, attempts[0], started)
