"""Shape a run's result into the form it was asked in (see the package docstring)."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from ..state import AgentResult, StepRecord
from .inputs import InputForm, RunInput

__all__ = [
    "answer_text",
    "call_args",
    "final_message",
    "output_for",
    "run_messages",
    "tool_input_of",
]

#: LangChain's key for a tool input that was a single string rather than an object.
_SINGLE = "__arg1"


def call_args(value: Any) -> dict[str, Any]:
    """A tool input as a tool call's args: an object; a lone string goes under ``__arg1``."""
    return value if isinstance(value, dict) else {_SINGLE: value}


def tool_input_of(args: dict[str, Any]) -> Any:
    """The inverse of :func:`call_args`: a lone ``__arg1`` is unwrapped."""
    return args[_SINGLE] if set(args) == {_SINGLE} else args


def _loop_messages(step: StepRecord) -> list[BaseMessage]:
    calls = [o for o in step.observations if o.action.call_id]
    if not calls:
        return []
    ai = AIMessage(
        content="",
        tool_calls=[
            {"name": o.action.tool, "args": call_args(o.action.tool_input), "id": o.action.call_id}
            for o in calls
        ],
    )
    results: list[BaseMessage] = [
        ToolMessage(
            content=o.output,
            tool_call_id=o.action.call_id or "",
            name=o.action.tool,
            status="success" if o.ok else "error",
        )
        for o in calls
    ]
    return [ai, *results]


def answer_text(output: Any) -> str:
    """The answer as message text: the text itself, or JSON for a structured answer."""
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    dump = getattr(output, "model_dump", None)
    value = dump(mode="json") if callable(dump) else output
    return json.dumps(value, ensure_ascii=False, default=str)


def final_message(result: AgentResult) -> AIMessage:
    """The run's last message: the answer (empty when there is none), the stop in metadata.

    ``response_metadata`` holds ``stop_reason``, ``loops``, ``forced`` and
    ``error`` (the text of ``result.error``, or None); ``usage_metadata`` the
    tokens of the whole run.
    """
    usage = result.usage
    return AIMessage(
        content=answer_text(result.output),
        response_metadata={
            "stop_reason": result.stop_reason.value,
            "loops": result.loops,
            "forced": result.forced,
            "error": str(result.error) if result.error is not None else None,
        },
        usage_metadata={
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens,
        },
    )


def run_messages(result: AgentResult) -> list[BaseMessage]:
    """The run's new messages: each loop's tool calls and their results, then the answer.

    Loops that called no tool (a reply that could not be read, say) leave no
    message here; they are in ``result.steps``.
    """
    out: list[BaseMessage] = []
    for step in result.steps:
        out += _loop_messages(step)
    out.append(final_message(result))
    return out


def output_for(run: RunInput, result: AgentResult, *, structured: bool = False) -> Any:
    """The run's output in the form of its input."""
    if run.form is InputForm.TASK:
        return result
    if run.form is InputForm.MESSAGE_LIST:
        return final_message(result)
    out: dict[str, Any] = {"messages": [*run.messages, *run_messages(result)]}
    if structured:
        out["structured_response"] = result.output
    return out
