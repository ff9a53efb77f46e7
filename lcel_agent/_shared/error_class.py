"""What went wrong in one loop: :class:`ErrorClass`, published by :mod:`lcel_agent.errors`.

The enum sits on the bottom floor, on its own, because the run's records
(:mod:`lcel_agent.result`) name it and :mod:`lcel_agent.errors` carries a whole result
(``AgentRunError.result``): both see it from above.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ErrorClass"]


class ErrorClass(StrEnum):
    """What went wrong in one loop. The value is what results and traces show."""

    FORMAT = "format"
    """The reply was not a readable action: not JSON, missing keys, wrong shape."""
    TRUNCATED = "truncated"
    """The provider cut the reply off (finish reason ``length``, or a stream that ended
    without one): never parsed, dispatched or taken as the answer; the model is asked again."""
    UNKNOWN_TOOL = "unknown_tool"
    """The action names a tool the agent does not have."""
    BAD_ARGUMENTS = "bad_arguments"
    """The input does not fit the tool's schema and could not be coerced."""
    PLAN = "plan"
    """The model answered with a plan, what it would do, after it was told once, with no
    result in hand: no answer, and no progress."""
    TOOL_FAILURE = "tool_failure"
    """The tool raised, or returned a string starting with ``ERROR:``."""
    TOOL_TIMEOUT = "tool_timeout"
    """The tool ran past its time limit."""
    TOOL_LIMIT = "tool_limit"
    """The call was refused by ``tool_call_limits``."""
    REFUSED = "refused"
    """The call was refused by the ``approve=`` callable (a person said no)."""
    LLM_TRANSIENT = "llm_transient"
    """429, 5xx, timeouts, connection resets: retried, then a stop if exhausted."""
    LLM_FATAL = "llm_fatal"
    """401, 400, 403, 404, 422, context too long: a stop at once."""
    DRIFT = "drift"
    """The model repeats itself or oscillates between two actions."""
    LIMIT = "limit"
    """A loop, error, token or time limit was reached."""
