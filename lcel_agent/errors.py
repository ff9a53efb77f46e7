"""Error classes of a run, the policies that handle them, and the exceptions.

A run never raises for something the model or a tool did: such failures are
*classified* into an :class:`ErrorClass`, handled by a :class:`Policy`, and
reported in the result::

    the reply        format, truncated, plan
    the tools        unknown_tool, bad_arguments, tool_failure, tool_timeout, tool_limit, refused
    the model API    llm_transient, llm_fatal
    the loop         drift, limit

Exceptions are for the programmer's mistakes and for signals between the
library's own parts::

    LcelAgentError
    ├── ConfigurationError (also ValueError)    bad arguments to create_agent & co.
    ├── ActionParseError (also OutputParserException)
    │                                           the cleaner/parser could not read a reply
    ├── ModelCallError                          a model call failed after its retries
    │   ├── TransientModelError                   429, 5xx, timeouts, dropped connections
    │   └── FatalModelError                       401, 400, context too long, ...
    ├── CheckpointError                         a thread's checkpoint cannot be used: unreadable,
    │                                           written by an agent with other tools, or
    │                                           nothing (or something else) to resume
    └── AgentRunError                           a run ended without an answer and the agent
                                                was built with raise_on_failure=True (.result)

``ConfigurationError`` subclasses ``ValueError`` so ``except ValueError`` works
as users expect; type mistakes raise a plain ``TypeError``.

:class:`ErrorClass` is published here and defined one floor down
(:mod:`lcel_agent._shared.error_class`), where the run's records
(:mod:`lcel_agent.result`) can name it: this module imports them for
``AgentRunError.result``, so it must not be imported by them.
"""

from __future__ import annotations

from enum import StrEnum

from langchain_core.exceptions import OutputParserException

from ._shared.error_class import ErrorClass
from .result import AgentResult

__all__ = [
    "ActionParseError",
    "AgentRunError",
    "CheckpointError",
    "ConfigurationError",
    "ErrorClass",
    "FatalModelError",
    "LcelAgentError",
    "ModelCallError",
    "Policy",
    "TransientModelError",
    "error_reason",
]


class Policy(StrEnum):
    """How the loop answers an error class (see ``create_agent(policies=...)``)."""

    REPROMPT = "reprompt"
    """Tell the model what went wrong (a short fixed text) and let it try again."""
    RETRY = "retry"
    """Run the same call again once, without asking the model (idempotent tools only)."""
    FALLBACK = "fallback"
    """Run the tool's fallback tool with the same input, then re-prompt if it fails too."""
    STOP = "stop"
    """End the run now with ``stop_reason="max_errors"`` and the error recorded."""


class LcelAgentError(Exception):
    """Base of every exception this library raises."""


class ConfigurationError(LcelAgentError, ValueError):
    """An argument to ``create_agent`` or a component is invalid; the message says which."""


class ActionParseError(LcelAgentError, OutputParserException):
    """A reply could not be read as an action.

    ``observation`` holds the short, fixed text that may be shown to the model;
    the parser's own message is kept out of it on purpose (raw parser errors in
    the history make models drift further).
    """

    def __init__(self, message: str, *, llm_output: str = "", observation: str = "") -> None:
        # langchain-core insists on both texts when send_to_llm is set; an empty reply is a reply.
        OutputParserException.__init__(
            self,
            message,
            observation=observation or None,
            llm_output=llm_output if observation else (llm_output or None),
            send_to_llm=bool(observation),
        )


def error_reason(exc: BaseException) -> str:
    """An exception's own message, without the help link langchain-core 1.x appends to str()."""
    text = str(exc.args[0]) if exc.args else str(exc)
    return text.split("For troubleshooting, visit:", 1)[0].strip()


class ModelCallError(LcelAgentError):
    """A model call failed for good. ``error_class`` says whether retries were spent."""

    error_class: ErrorClass = ErrorClass.LLM_FATAL

    def __init__(self, message: str, *, status_code: int | None = None, attempts: int = 1) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.attempts = attempts


class TransientModelError(ModelCallError):
    """The model API kept failing with a transient error until the retries ran out."""

    error_class = ErrorClass.LLM_TRANSIENT


class FatalModelError(ModelCallError):
    """The model API refused the request in a way retrying cannot fix."""

    error_class = ErrorClass.LLM_FATAL


class CheckpointError(LcelAgentError):
    """A durable run cannot start from its thread's checkpoint; nothing was run or written.

    Raised before any model call: the checkpoint is unreadable or not an lcel_agent
    one, it was written by an agent with other tools or another protocol, the
    thread has nothing to resume, or it holds an unfinished run of another input.
    """

    def __init__(self, thread_id: str, reason: str) -> None:
        super().__init__(f"thread {thread_id!r}: {reason}")
        self.thread_id = thread_id


class AgentRunError(LcelAgentError):
    """A run ended with a stop other than ``final``; raised only with ``raise_on_failure=True``.

    ``result`` is the run's whole :class:`~lcel_agent.state.AgentResult` (steps,
    usage, the error), so nothing is lost by raising::

        agent = create_agent(llm, tools, raise_on_failure=True)
        sturdy = agent.with_retry(retry_if_exception_type=(AgentRunError,), stop_after_attempt=2)
    """

    def __init__(self, result: AgentResult) -> None:
        detail = f": {result.error}" if result.error is not None else ""
        super().__init__(f"the run stopped with {result.stop_reason.value!r}{detail}")
        self.result = result

    def __reduce__(self) -> tuple[type[AgentRunError], tuple[AgentResult]]:
        # Rebuilt from the result, so the error survives pickling (process pools, Ray).
        return (type(self), (self.result,))
