"""``safe_tool``: give any tool the built-in tools' manners.

A safe tool never raises and never hangs the agent: an exception or a timeout
becomes an ``ERROR:`` string (secrets redacted), a non-string result becomes
JSON, and long output is cut to ``max_output_chars`` keeping head and tail::

    @safe_tool(timeout=5, idempotent=True)
    def lookup(code: str) -> dict:
        \"\"\"Look a stock code up.\"\"\"
        ...

    safe_search = safe_tool(some_existing_tool, timeout=20)
    safe_search.metadata    # {"idempotent": False, "timeout": 20}

The dispatcher reads ``metadata["idempotent"]`` (may it retry?) and
``metadata["timeout"]`` (the per-call limit) from every tool.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, overload

from langchain_core.callbacks import (
    AsyncCallbackManagerForToolRun,
    CallbackManagerForToolRun,
)
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import ValidationError

from lcel_agent._redact import redact
from lcel_agent.tools._args import validation_error_text
from lcel_agent.tools._output import stringify_output, truncate_output

__all__ = ["SafeTool", "safe_tool"]

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_OUTPUT_CHARS = 20_000
# How long a sync caller waits past the timeout for an async tool to finish cancelling.
_CANCEL_GRACE = 1.0


@dataclass(frozen=True)
class _Outcome:
    """What one call of the inner tool came to: a value, an exception, or a timeout."""

    value: Any = None
    error: Exception | None = None
    timed_out: bool = False


def _native_sync(tool: BaseTool) -> bool:
    return not isinstance(tool, StructuredTool) or tool.func is not None


def _native_async(tool: BaseTool) -> bool:
    if isinstance(tool, StructuredTool):
        return tool.coroutine is not None
    return type(tool)._arun is not BaseTool._arun


class SafeTool(BaseTool):
    """A wrapper around ``inner`` that turns every failure into an ``ERROR:`` result.

    Build it with :func:`safe_tool`. Input goes to ``inner`` unchanged, so its
    own schema and parsing apply; the name, description and args schema shown to
    the model are the inner tool's unless overridden.
    """

    inner: BaseTool
    """The wrapped tool."""
    timeout: float | None = DEFAULT_TIMEOUT
    """Seconds one call may run; ``None`` for no limit."""
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS
    """Longer output keeps its head and tail around a truncation marker."""

    def _to_args_and_kwargs(
        self, tool_input: str | dict[str, Any], tool_call_id: str | None
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        # The inner tool parses and validates, so its errors become results too.
        return (tool_input,), {}

    # --- one decision logic for both drivers ---

    def _finish(self, outcome: _Outcome) -> str:
        if outcome.timed_out:
            text = f"ERROR: tool '{self.name}' timed out after {self.timeout:g} s"
        elif isinstance(outcome.error, ValidationError):
            text = validation_error_text(outcome.error)
        elif outcome.error is not None:
            error = outcome.error
            detail = str(error) or "no message"
            text = f"ERROR: tool '{self.name}' failed: {type(error).__name__}: {detail}"
        else:
            text = stringify_output(outcome.value)
        return truncate_output(redact(text), self.max_output_chars)

    def _config(self, callbacks: Any) -> RunnableConfig:
        return {"callbacks": callbacks}

    # --- sync driver ---

    def _run(
        self, tool_input: str | dict[str, Any], run_manager: CallbackManagerForToolRun | None = None
    ) -> str:
        config = self._config(run_manager.get_child() if run_manager else None)
        if not _native_sync(self.inner):
            # An async-only tool runs on its own loop on a helper thread (the caller may
            # be inside a loop already), where the timeout cancels it properly.
            def run_loop() -> _Outcome:
                return asyncio.run(self._native_async_call(tool_input, config))

            grace = None if self.timeout is None else self.timeout + _CANCEL_GRACE
            outcome = _in_daemon_thread(run_loop, grace, self.name)
            if isinstance(outcome.value, _Outcome):  # the loop ran: its own verdict
                outcome = outcome.value
            return self._finish(outcome)

        def call() -> Any:
            return self.inner.invoke(tool_input, config)

        return self._finish(_in_daemon_thread(call, self.timeout, self.name))

    # --- async driver ---

    async def _arun(
        self,
        tool_input: str | dict[str, Any],
        run_manager: AsyncCallbackManagerForToolRun | None = None,
    ) -> str:
        if _native_async(self.inner):
            config = self._config(run_manager.get_child() if run_manager else None)
            return self._finish(await self._native_async_call(tool_input, config))
        sync_config = self._config(run_manager.get_sync().get_child() if run_manager else None)
        return self._finish(
            await _await_daemon_thread(
                lambda: self.inner.invoke(tool_input, sync_config), self.timeout, self.name
            )
        )

    async def _native_async_call(
        self, tool_input: str | dict[str, Any], config: RunnableConfig
    ) -> _Outcome:
        async def guarded() -> _Outcome:
            try:
                return _Outcome(value=await self.inner.ainvoke(tool_input, config))
            except Exception as exc:
                return _Outcome(error=exc)

        try:
            # guarded() never raises, so a TimeoutError here is always ours.
            return await asyncio.wait_for(guarded(), self.timeout)
        except TimeoutError:
            return _Outcome(timed_out=True)


def _guarded(call: Callable[[], Any]) -> _Outcome:
    try:
        return _Outcome(value=call())
    except Exception as exc:
        return _Outcome(error=exc)


def _start_daemon(call: Callable[[], Any], name: str, report: Callable[[_Outcome], None]) -> None:
    # A sync call cannot be killed; on a daemon thread an overrun is abandoned and
    # never keeps the process alive. The caller's context (tracing) goes along.
    context = contextvars.copy_context()
    threading.Thread(
        target=lambda: report(context.run(_guarded, call)), name=f"safe_tool:{name}", daemon=True
    ).start()


def _in_daemon_thread(call: Callable[[], Any], timeout: float | None, name: str) -> _Outcome:
    if timeout is None:
        return _guarded(call)
    box: list[_Outcome] = []
    done = threading.Event()

    def report(outcome: _Outcome) -> None:
        box.append(outcome)
        done.set()

    _start_daemon(call, name, report)
    return box[0] if done.wait(timeout) else _Outcome(timed_out=True)


async def _await_daemon_thread(
    call: Callable[[], Any], timeout: float | None, name: str
) -> _Outcome:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_Outcome] = loop.create_future()

    def settle(outcome: _Outcome) -> None:
        if not future.done():
            future.set_result(outcome)

    def report(outcome: _Outcome) -> None:
        # The loop may have closed while an abandoned call ran on.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, outcome)

    _start_daemon(call, name, report)
    try:
        return await asyncio.wait_for(future, timeout)
    except TimeoutError:
        return _Outcome(timed_out=True)


@overload
def safe_tool(
    tool_or_function: BaseTool | Callable[..., Any],
    *,
    timeout: float | None = ...,
    max_output_chars: int = ...,
    idempotent: bool = ...,
    name: str | None = ...,
    description: str | None = ...,
) -> SafeTool: ...


@overload
def safe_tool(
    tool_or_function: None = None,
    *,
    timeout: float | None = ...,
    max_output_chars: int = ...,
    idempotent: bool = ...,
    name: str | None = ...,
    description: str | None = ...,
) -> Callable[[BaseTool | Callable[..., Any]], SafeTool]: ...


def safe_tool(
    tool_or_function: BaseTool | Callable[..., Any] | None = None,
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS,
    idempotent: bool = False,
    name: str | None = None,
    description: str | None = None,
) -> SafeTool | Callable[[BaseTool | Callable[..., Any]], SafeTool]:
    """Wrap a tool or a function (sync or async) so it fails with ``ERROR:`` strings.

    Use it as ``@safe_tool``, ``@safe_tool(timeout=5)`` or
    ``safe_tool(existing_tool, idempotent=True)``. A function becomes a tool
    the way ``@tool`` makes one (its docstring is the description unless
    ``description`` is given). ``idempotent`` and ``timeout`` are published in
    ``tool.metadata`` for the dispatcher. Raises ``ValueError`` for a bad
    ``timeout`` or ``max_output_chars`` (a programmer's mistake, found at once).
    """
    if timeout is not None and timeout <= 0:
        raise ValueError(f"timeout must be positive or None, got {timeout}")
    if max_output_chars < 1:
        raise ValueError(f"max_output_chars must be at least 1, got {max_output_chars}")

    def wrap(target: BaseTool | Callable[..., Any]) -> SafeTool:
        inner = target.inner if isinstance(target, SafeTool) else target
        if not isinstance(inner, BaseTool):
            if not callable(inner):
                raise TypeError(f"safe_tool needs a BaseTool or a function, got {inner!r}")
            is_async = inspect.iscoroutinefunction(inner)
            inner = StructuredTool.from_function(
                func=None if is_async else inner,
                coroutine=inner if is_async else None,
                name=name,
                description=description,
            )
        return SafeTool(
            inner=inner,
            name=name or inner.name,
            description=description or inner.description,
            args_schema=inner.args_schema
            if inner.args_schema is not None
            else inner.get_input_schema(),
            return_direct=inner.return_direct,
            tags=inner.tags,
            timeout=timeout,
            max_output_chars=max_output_chars,
            metadata={**(inner.metadata or {}), "idempotent": idempotent, "timeout": timeout},
        )

    return wrap if tool_or_function is None else wrap(tool_or_function)
