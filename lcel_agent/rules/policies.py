"""Which :class:`~lcel_agent.errors.Policy` answers which :class:`~lcel_agent.errors.ErrorClass`.

The defaults follow the design table; ``create_agent(policies={...})`` overrides
any of them, and :func:`resolve_policies` rejects combinations that make no
sense (re-prompting the model about a 401, say) with a clear message::

    create_agent(llm, tools, policies={ErrorClass.TOOL_FAILURE: Policy.STOP})
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import ConfigurationError, ErrorClass, Policy

__all__ = ["DEFAULT_POLICIES", "resolve_policies"]

DEFAULT_POLICIES: Mapping[ErrorClass, Policy] = {
    ErrorClass.FORMAT: Policy.REPROMPT,
    ErrorClass.TRUNCATED: Policy.REPROMPT,  # with a larger max_tokens where it can be bound
    ErrorClass.UNKNOWN_TOOL: Policy.REPROMPT,
    ErrorClass.BAD_ARGUMENTS: Policy.REPROMPT,
    ErrorClass.PLAN: Policy.REPROMPT,
    ErrorClass.TOOL_FAILURE: Policy.REPROMPT,
    # Timeouts and transient failures (TransientError) of idempotent tools are retried once
    # without asking the model: a tool call is far cheaper than a model call.
    ErrorClass.TOOL_TIMEOUT: Policy.RETRY,
    ErrorClass.TOOL_LIMIT: Policy.REPROMPT,
    ErrorClass.REFUSED: Policy.REPROMPT,
    ErrorClass.DRIFT: Policy.REPROMPT,  # one nudge, then a drift stop
    ErrorClass.LLM_TRANSIENT: Policy.RETRY,
    ErrorClass.LLM_FATAL: Policy.STOP,
}

_ALLOWED: Mapping[ErrorClass, frozenset[Policy]] = {
    ErrorClass.FORMAT: frozenset({Policy.REPROMPT, Policy.STOP}),
    ErrorClass.TRUNCATED: frozenset({Policy.REPROMPT, Policy.STOP}),
    ErrorClass.UNKNOWN_TOOL: frozenset({Policy.REPROMPT, Policy.STOP}),
    ErrorClass.BAD_ARGUMENTS: frozenset({Policy.REPROMPT, Policy.STOP}),
    ErrorClass.PLAN: frozenset({Policy.REPROMPT, Policy.STOP}),
    ErrorClass.TOOL_FAILURE: frozenset(Policy),
    ErrorClass.TOOL_TIMEOUT: frozenset(Policy),
    ErrorClass.TOOL_LIMIT: frozenset({Policy.REPROMPT, Policy.STOP}),
    ErrorClass.REFUSED: frozenset({Policy.REPROMPT, Policy.STOP}),
    ErrorClass.DRIFT: frozenset({Policy.REPROMPT, Policy.STOP}),
    ErrorClass.LLM_TRANSIENT: frozenset({Policy.RETRY, Policy.STOP}),
    ErrorClass.LLM_FATAL: frozenset({Policy.STOP}),
}


def resolve_policies(
    overrides: Mapping[ErrorClass | str, Policy | str] | None,
) -> dict[ErrorClass, Policy]:
    """The defaults with ``overrides`` applied; strings are accepted for both sides."""
    policies = dict(DEFAULT_POLICIES)
    for raw_class, raw_policy in (overrides or {}).items():
        try:
            error_class, policy = ErrorClass(raw_class), Policy(raw_policy)
        except ValueError as exc:
            raise ConfigurationError(
                f"policies: {exc}; error classes are {[c.value for c in ErrorClass]}, "
                f"policies are {[p.value for p in Policy]}"
            ) from None
        if error_class not in _ALLOWED:
            raise ConfigurationError(f"policies: {error_class.value!r} is not handled by a policy")
        if policy not in _ALLOWED[error_class]:
            allowed = sorted(p.value for p in _ALLOWED[error_class])
            raise ConfigurationError(
                f"policies: {policy.value!r} cannot handle {error_class.value!r}; use one of {allowed}"
            )
        policies[error_class] = policy
    return policies
