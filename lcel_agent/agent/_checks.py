"""The checks ``create_agent`` makes of its arguments, each with a message saying what was wanted.

:func:`check_arguments` is the one place: it takes every argument of ``create_agent`` by
name and returns them checked, as an :class:`Arguments`, in the forms the builders use
(:mod:`._parts`). A mistake shows up as a ``TypeError`` or a
:class:`~lcel_agent.errors.ConfigurationError` (a ``ValueError``) when the agent is
built, never in the middle of a run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import SecretStr

from .._redact import MIN_SECRET_LEN
from .._shared.protocol import PROTOCOLS, ProtocolName
from ..durable import check_checkpointer
from ..errors import ConfigurationError, ErrorClass, Policy
from ..memory import SlidingWindowMemory
from ..rules.limits import Limits
from ..rules.numbers import positive_int, positive_number
from ..rules.policies import resolve_policies
from ..rules.structured import ResponseFormat
from ..stages import STAGE_NAMES
from ..stages.answer import Answer, AnswerCheck, checks_of
from ..stages.dispatch import Approve
from ._resolve import resolve_llm, resolve_tools

__all__ = [
    "Arguments",
    "CallSettings",
    "DispatchSettings",
    "check_approve",
    "check_arguments",
    "check_fallbacks",
    "check_format",
    "check_secrets",
    "check_stages",
    "check_tool_limits",
    "positive_int",
    "seconds",
]


class CallSettings(TypedDict):
    """How a stage asks the model: ``call_llm``'s and the answer stage's four settings."""

    timeout: float | None
    """Seconds one model call may take (``llm_timeout``)."""
    retries: int
    """Attempts per call (``llm_retries``; 1 when transient errors' policy is ``stop``)."""
    backoff: tuple[float, float]
    """The first and the longest wait between attempts, in seconds (``llm_backoff``)."""
    max_retry_after: float
    """The longest ``Retry-After`` a call waits for."""


class DispatchSettings(TypedDict):
    """How ``dispatch_tools`` runs the model's calls: its settings but the tools and the
    policies (which ``classify_error`` reads too)."""

    timeout: float | None
    """Seconds one tool call may take (``tool_timeout``)."""
    tool_call_limits: dict[str, int]
    """Calls allowed per tool."""
    fallback_tools: dict[str, BaseTool]
    """The tool to call when a tool fails, by the failing tool's name."""
    parallel: bool
    """Several calls of one reply run at once (``parallel_tool_calls``)."""
    max_concurrency: int
    max_observation_chars: int
    approve: Approve | None


@dataclass(frozen=True)
class Arguments:
    """``create_agent``'s arguments, every one checked, in the forms the builders use."""

    llm: Runnable[Any, Any]
    """The chat model (a name resolved to one)."""
    tools: list[BaseTool]
    """The tools (plain functions made into tools)."""
    tool_names: frozenset[str]
    protocol: ProtocolName
    system_prompt: str | None
    """The user's own instructions (the persona), if any."""
    memory: SlidingWindowMemory | None
    """The window the user gave, if any (else the builder chooses one)."""
    run_limits: Limits
    """The run's limits: ``max_loops``, the budgets, the reserved loop, ``max_errors``."""
    calls: CallSettings
    dispatch: DispatchSettings
    policies: dict[ErrorClass, Policy]
    stages: dict[str, Runnable[Any, Any]]
    """The user's own stages by slot, each named for its slot."""
    response_format: ResponseFormat | None
    answer: Answer
    answer_checks: tuple[AnswerCheck, ...]
    secrets: list[str]
    """The user's own secrets (``secrets=``), as strings."""
    raise_on_failure: bool
    checkpointer: Any


def check_arguments(given: Mapping[str, Any]) -> Arguments:
    """Every argument of ``create_agent`` (``given``: by name), checked in one place.

    Raises:
        TypeError: an argument has the wrong type.
        ConfigurationError: an argument has a bad value.
    """
    llm = resolve_llm(given["llm"])
    tools = resolve_tools(given["tools"])
    names = frozenset(t.name for t in tools)
    policies = resolve_policies(given["policies"])
    protocol = check_protocol(given["protocol"])
    return Arguments(
        llm=llm,
        tools=tools,
        tool_names=names,
        protocol=protocol,
        system_prompt=_check_system_prompt(given["system_prompt"]),
        memory=_check_memory(given["memory"]),
        run_limits=Limits(
            max_loops=positive_int("max_loops", given["max_loops"]),
            token_budget=_optional_count("token_budget", given["token_budget"]),
            time_budget=seconds("time_budget", given["time_budget"]),
            reserve_final_answer=given["reserve_final_answer"],
            max_errors=positive_int("max_errors", given["max_errors"]),
        ),
        calls=_call_settings(given, policies),
        dispatch=_dispatch_settings(given, names),
        policies=policies,
        stages=check_stages(given["stages"]),
        response_format=check_format(given["response_format"], tools),
        answer=Answer.of(given["answer"]),
        answer_checks=checks_of(given["answer_checks"]),
        secrets=check_secrets(given["secrets"]),
        raise_on_failure=bool(given["raise_on_failure"]),
        checkpointer=check_checkpointer(given["checkpointer"]),
    )


def _call_settings(given: Mapping[str, Any], policies: Mapping[ErrorClass, Policy]) -> CallSettings:
    retries = positive_int("llm_retries", given["llm_retries"])
    max_retry_after = seconds("max_retry_after", given["max_retry_after"], optional=False)
    return CallSettings(
        timeout=seconds("llm_timeout", given["llm_timeout"]),
        # Policy STOP for transient model errors means: no retries at all.
        retries=1 if policies[ErrorClass.LLM_TRANSIENT] is Policy.STOP else retries,
        backoff=_check_backoff(given["llm_backoff"]),
        max_retry_after=max_retry_after or 0.0,
    )


def _dispatch_settings(given: Mapping[str, Any], names: frozenset[str]) -> DispatchSettings:
    return DispatchSettings(
        timeout=seconds("tool_timeout", given["tool_timeout"]),
        tool_call_limits=check_tool_limits(given["tool_call_limits"], names),
        fallback_tools=check_fallbacks(given["fallback_tools"], names),
        parallel=given["parallel_tool_calls"],
        max_concurrency=positive_int("max_concurrency", given["max_concurrency"]),
        max_observation_chars=positive_int(
            "max_observation_chars", given["max_observation_chars"], minimum=100
        ),
        approve=check_approve(given["approve"]),
    )


def check_protocol(protocol: Any) -> ProtocolName:
    if protocol not in PROTOCOLS:
        raise ConfigurationError(f"protocol must be 'json' or 'tool_calling', got {protocol!r}")
    return protocol  # type: ignore[no-any-return]


def _check_system_prompt(system_prompt: Any) -> str | None:
    if system_prompt is not None and not isinstance(system_prompt, str):
        raise TypeError("system_prompt must be a string")
    return system_prompt


def _check_memory(memory: Any) -> SlidingWindowMemory | None:
    if memory is not None and not isinstance(memory, SlidingWindowMemory):
        raise TypeError(f"memory must be a SlidingWindowMemory, not {type(memory).__name__}")
    return memory


def _check_backoff(backoff: Any) -> tuple[float, float]:
    if not (isinstance(backoff, tuple) and len(backoff) == 2 and 0 <= backoff[0] <= backoff[1]):
        raise ConfigurationError(f"llm_backoff must be (initial, maximum) seconds, got {backoff!r}")
    return backoff


def _optional_count(name: str, value: Any) -> int | None:
    return None if value is None else positive_int(name, value)


def seconds(name: str, value: Any, *, optional: bool = True) -> float | None:
    if value is None and optional:
        return None
    return positive_number(name, value, "a number of seconds", "seconds")


def check_tool_limits(limits: Mapping[str, int] | None, names: frozenset[str]) -> dict[str, int]:
    checked: dict[str, int] = {}
    for name, limit in (limits or {}).items():
        if name not in names:
            raise ConfigurationError(
                f"tool_call_limits names an unknown tool {name!r}; tools are {sorted(names)}"
            )
        checked[name] = positive_int(f"tool_call_limits[{name!r}]", limit, minimum=0)
    return checked


def check_fallbacks(
    fallbacks: Mapping[str, BaseTool] | None, names: frozenset[str]
) -> dict[str, BaseTool]:
    checked: dict[str, BaseTool] = {}
    for name, backup in (fallbacks or {}).items():
        if name not in names:
            raise ConfigurationError(
                f"fallback_tools names an unknown tool {name!r}; tools are {sorted(names)}"
            )
        if not isinstance(backup, BaseTool):
            raise TypeError(f"fallback_tools[{name!r}] must be a langchain-core tool")
        checked[name] = backup
    return checked


def check_format(response_format: Any, tools: list[BaseTool]) -> ResponseFormat | None:
    if response_format is None:
        return None
    fmt = ResponseFormat(response_format)
    direct = [t.name for t in tools if t.return_direct]
    if direct:
        raise ConfigurationError(
            f"tools {direct} are return_direct, so their output would end the run unchecked; "
            "response_format needs every answer to come from the model"
        )
    return fmt


def check_approve(approve: Any) -> Approve | None:
    if approve is not None and not callable(approve):
        raise TypeError(f"approve must be a callable (sync or async), not {type(approve).__name__}")
    return approve  # type: ignore[no-any-return]


def check_secrets(secrets: Sequence[str | SecretStr] | None) -> list[str]:
    if secrets is None:
        return []
    if isinstance(secrets, str | SecretStr) or not isinstance(secrets, Sequence):
        raise TypeError("secrets must be a list of strings, e.g. secrets=[my_token]")
    values: list[str] = []
    for index, secret in enumerate(secrets):
        value = secret.get_secret_value() if isinstance(secret, SecretStr) else secret
        if not isinstance(value, str):
            raise TypeError(f"secrets[{index}] must be a string, not {type(value).__name__}")
        if len(value.strip()) < MIN_SECRET_LEN:
            raise ConfigurationError(
                f"secrets[{index}] is shorter than {MIN_SECRET_LEN} characters: "
                "too short to mask without mangling ordinary text"
            )
        values.append(value)
    return values


def check_stages(stages: Mapping[str, Runnable[Any, Any]] | None) -> dict[str, Runnable[Any, Any]]:
    checked: dict[str, Runnable[Any, Any]] = {}
    for name, stage in (stages or {}).items():
        if name not in STAGE_NAMES:
            raise ConfigurationError(
                f"stages: unknown stage {name!r}; the stages are {list(STAGE_NAMES)}"
            )
        if not isinstance(stage, Runnable):
            raise TypeError(
                f"stages[{name!r}] must be a Runnable (wrap a function in RunnableLambda)"
            )
        # The slot's name in traces, so a swapped stage still shows up where users look for it.
        checked[name] = stage if stage.get_name() == name else stage.with_config(run_name=name)
    return checked
