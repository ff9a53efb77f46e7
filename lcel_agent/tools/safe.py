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

import inspect
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
from lcel_agent._shared.timeout import (
    CallTimeout,
    acall_with_timeout,
    arun_sync_with_timeout,
    call_async_with_timeout,
    call_with_timeout,
)
from lcel_agent.calling import runs_async, runs_sync, stringify_output, truncate_output
from lcel_agent.tools._args import validation_error_text

__all__ = ["SafeTool", "safe_tool"]

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_OUTPUT_CHARS = 20_000


@dataclass(frozen=True)
class _Outcome:
    """What one call of the inner tool came to: a value, an exception, or a timeout."""

    value: Any = None
    error: Exception | None = None
    timed_out: bool = False


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

    # --- thin drivers: the time limits are lcel_agent._shared.timeout's ---

    def _run(
        self, tool_input: str | dict[str, Any], run_manager: CallbackManagerForToolRun | None = None
    ) -> str:
        config = self._config(run_manager.get_child() if run_manager else None)
        inner, what = self.inner, f"tool {self.name}"
        if runs_sync(inner):
            return self._finish(
                _guarded(
                    lambda: call_with_timeout(
                        lambda: inner.invoke(tool_input, config), self.timeout, what
                    )
                )
            )
        # An async-only tool runs on a loop of its own (the caller may be inside a
        # loop already), where the timeout cancels it properly.
        return self._finish(
            _guarded(
                lambda: call_async_with_timeout(
                    lambda: inner.ainvoke(tool_input, config), self.timeout, what
                )
            )
        )

    async def _arun(
        self,
        tool_input: str | dict[str, Any],
        run_manager: AsyncCallbackManagerForToolRun | None = None,
    ) -> str:
        inner, what = self.inner, f"tool {self.name}"
        try:
            if runs_async(inner):
                config = self._config(run_manager.get_child() if run_manager else None)
                value = await acall_with_timeout(
                    lambda: inner.ainvoke(tool_input, config), self.timeout, what
                )
            else:
                sync = self._config(run_manager.get_sync().get_child() if run_manager else None)
                value = await arun_sync_with_timeout(
                    lambda: inner.invoke(tool_input, sync), self.timeout, what
                )
        except CallTimeout:
            return self._finish(_Outcome(timed_out=True))
        except Exception as exc:
            return self._finish(_Outcome(error=exc))
        return self._finish(_Outcome(value=value))


def _guarded(call: Callable[[], Any]) -> _Outcome:
    """The outcome of ``call()``: its value, its own exception, or our timeout."""
    try:
        return _Outcome(value=call())
    except CallTimeout:
        return _Outcome(timed_out=True)
    except Exception as exc:
        return _Outcome(error=exc)


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
