"""The stages of the agent's step chain, in chain order.

Each is a Runnable ``AgentState -> AgentState`` and can be replaced through
``create_agent(stages={"<name>": runnable})``::

    assemble_prompt | call_llm | clean_json | parse_action | dispatch_tools | classify_error
        | trim_memory | answer

``CleanJson``, ``DispatchTools`` and ``TrimMemory`` also work on plain values in
ordinary chains.
"""

from ._base import Stage
from .answer import Answer, WriteAnswer
from .classify import ClassifyError
from .clean import CleanJson, KeepReply, extract_json
from .dispatch import DispatchTools
from .llm import CallLLM, without_client_retries
from .parse import ParseAction, ParseToolCalls, parse_actions
from .prompt import AssemblePrompt, build_system_prompt
from .trim import TrimMemory

#: The stage names, in chain order: the keys of ``create_agent(stages=...)``.
STAGE_NAMES: tuple[str, ...] = (
    "assemble_prompt",
    "call_llm",
    "clean_json",
    "parse_action",
    "dispatch_tools",
    "classify_error",
    "trim_memory",
    "answer",
)

__all__ = [
    "STAGE_NAMES",
    "Answer",
    "AssemblePrompt",
    "CallLLM",
    "ClassifyError",
    "CleanJson",
    "DispatchTools",
    "KeepReply",
    "ParseAction",
    "ParseToolCalls",
    "Stage",
    "TrimMemory",
    "WriteAnswer",
    "build_system_prompt",
    "extract_json",
    "parse_actions",
    "without_client_retries",
]
