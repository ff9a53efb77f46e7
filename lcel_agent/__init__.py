"""lcel_agent: LLM agents built from LCEL Runnables, every failure path under your control.

::

    from lcel_agent import create_agent, SlidingWindowMemory
    agent = create_agent(llm, tools, max_loops=10, max_errors=2,
                         memory=SlidingWindowMemory(max_tokens=800))
    result = agent.invoke("查询北京天气")
    result.output, result.stop_reason, result.loops, result.usage, result.error
"""

from ._logging import install_client_log_redaction, redact_logging
from .agent import create_agent, run_agent
from .errors import (
    ActionParseError,
    ConfigurationError,
    ErrorClass,
    FatalModelError,
    LcelAgentError,
    ModelCallError,
    Policy,
    SessionBusyError,
    TransientModelError,
)
from .loop import AgentEvent, AgentLoop, Limits
from .memory import SlidingWindowMemory, trim_messages
from .policies import DEFAULT_POLICIES
from .sessions import SessionStore
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
from .tokens import TiktokenCounter, estimate_tokens

__version__ = "0.1.0"

install_client_log_redaction()

__all__ = [
    "DEFAULT_POLICIES",
    "Action",
    "ActionParseError",
    "AgentEvent",
    "AgentLoop",
    "AgentResult",
    "AgentState",
    "ConfigurationError",
    "ErrorClass",
    "FatalModelError",
    "LcelAgentError",
    "Limits",
    "ModelCallError",
    "Observation",
    "Policy",
    "RunError",
    "SessionBusyError",
    "SessionStore",
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
