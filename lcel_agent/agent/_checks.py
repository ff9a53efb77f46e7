"""The checks ``create_agent`` makes of its arguments, each with a message saying what was wanted.

A mistake shows up as a ``TypeError`` or a
:class:`~lcel_agent.errors.ConfigurationError` (a ``ValueError``) when the agent is
built, never in the middle of a run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import SecretStr

from .._redact import MIN_SECRET_LEN
from ..errors import ConfigurationError
from ..rules.structured import ResponseFormat
from ..stages import STAGE_NAMES
from ..stages.dispatch import Approve

__all__ = [
    "check_approve",
    "check_fallbacks",
    "check_format",
    "check_limits",
    "check_secrets",
    "check_stages",
    "positive_int",
    "seconds",
]


def positive_int(name: str, value: Any, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < minimum:
        raise ConfigurationError(f"{name} must be >= {minimum}, got {value}")
    return value


def seconds(name: str, value: Any, *, optional: bool = True) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number of seconds, not {type(value).__name__}")
    if not value > 0 or math.isnan(value):
        raise ConfigurationError(f"{name} must be > 0 seconds, got {value}")
    return float(value)


def check_limits(limits: Mapping[str, int] | None, names: set[str]) -> dict[str, int]:
    checked: dict[str, int] = {}
    for name, limit in (limits or {}).items():
        if name not in names:
            raise ConfigurationError(
                f"tool_call_limits names an unknown tool {name!r}; tools are {sorted(names)}"
            )
        checked[name] = positive_int(f"tool_call_limits[{name!r}]", limit, minimum=0)
    return checked


def check_fallbacks(
    fallbacks: Mapping[str, BaseTool] | None, names: set[str]
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


def check_format(
    response_format: Any, tools: list[BaseTool], protocol: str
) -> ResponseFormat | None:
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
