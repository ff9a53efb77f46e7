"""lcel_agent: LLM agents built from LCEL Runnables, every failure path under your control.

::

    from lcel_agent import create_agent, SlidingWindowMemory
    agent = create_agent(llm, tools, max_loops=10, max_errors=2,
                         memory=SlidingWindowMemory(max_tokens=800))
    result = agent.invoke("查询北京天气")
    result.output, result.stop_reason, result.loops, result.usage, result.error

The names below are imported on first use (PEP 562), so ``import lcel_agent.cli``
and ``lcel-agent --help`` do not pay for importing LangChain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._redact import install_client_log_redaction
from ._shared.lazy import lazy_exports

if TYPE_CHECKING:
    from ._redact import redact_logging
    from .agent import create_agent, run_agent
    from .errors import (
        ActionParseError,
        AgentRunError,
        CheckpointError,
        ConfigurationError,
        ErrorClass,
        FatalModelError,
        LcelAgentError,
        ModelCallError,
        Policy,
        TransientModelError,
    )
    from .loop import AgentEvent, AgentLoop, Limits
    from .memory import SlidingWindowMemory, trim_messages
    from .memory.counters import TiktokenCounter, estimate_tokens
    from .rules.policies import DEFAULT_POLICIES
    from .state import (
        Action,
        AgentResult,
        AgentState,
        Observation,
        RunError,
        StepRecord,
        StopReason,
        Usage,
    )

__version__ = "0.1.0"

# Cheap (no LangChain, no pydantic): the HTTP clients' DEBUG records are masked from the start.
install_client_log_redaction()

#: Where each public name lives (module relative to this package).
_EXPORTS: dict[str, str] = {
    "DEFAULT_POLICIES": "policies",
    "Action": "state",
    "ActionParseError": "errors",
    "AgentEvent": "loop",
    "AgentLoop": "loop",
    "AgentResult": "state",
    "AgentRunError": "errors",
    "AgentState": "state",
    "CheckpointError": "errors",
    "ConfigurationError": "errors",
    "ErrorClass": "errors",
    "FatalModelError": "errors",
    "LcelAgentError": "errors",
    "Limits": "loop",
    "ModelCallError": "errors",
    "Observation": "state",
    "Policy": "errors",
    "RunError": "state",
    "SlidingWindowMemory": "memory",
    "StepRecord": "state",
    "StopReason": "state",
    "TiktokenCounter": "memory.counters",
    "TransientModelError": "errors",
    "Usage": "state",
    "create_agent": "agent",
    "estimate_tokens": "memory.counters",
    "redact_logging": "_redact",
    "run_agent": "agent",
    "trim_messages": "memory",
}

__all__ = [
    "DEFAULT_POLICIES",
    "Action",
    "ActionParseError",
    "AgentEvent",
    "AgentLoop",
    "AgentResult",
    "AgentRunError",
    "AgentState",
    "CheckpointError",
    "ConfigurationError",
    "ErrorClass",
    "FatalModelError",
    "LcelAgentError",
    "Limits",
    "ModelCallError",
    "Observation",
    "Policy",
    "RunError",
    "SlidingWindowMemory",
    "StepRecord",
    "StopReason",
    "TiktokenCounter",
    "TransientModelError",
    "Usage",
    "create_agent",
    "estimate_tokens",
    "redact_logging",
    "run_agent",
    "trim_messages",
]


if not TYPE_CHECKING:  # a module __getattr__ would make every misspelt name Any to mypy
    __getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS, __all__)
