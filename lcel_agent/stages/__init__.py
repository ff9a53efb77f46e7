"""The stages of the agent's step chain, in chain order.

Each is a Runnable ``AgentState -> AgentState`` and can be replaced through
``create_agent(stages={"<name>": runnable})``::

    assemble_prompt | call_llm | clean_json | parse_action | dispatch_tools | classify_error
        | trim_memory | answer

``CleanJson``, ``DispatchTools`` and ``TrimMemory`` also work on plain values in
ordinary chains. For the loop and durable runs the package also gives
:func:`runs_directly` (a stage the quiet loop may call without tracing), the call journal
(:data:`JOURNAL_KEY`, :func:`journal_of`: finished calls a resumed run recalls) and
:func:`with_call_id`.
"""

from ._base import Stage, runs_directly
from ._calls import JOURNAL_KEY, journal_of, with_call_id
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
    "JOURNAL_KEY",
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
    "journal_of",
    "parse_actions",
    "runs_directly",
    "with_call_id",
    "without_client_retries",
]
