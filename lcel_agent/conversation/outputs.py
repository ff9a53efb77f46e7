"""Shape a run's result into the form it was asked in (see the package docstring)."""

from __future__ import annotations

import json
from typing import Any, cast

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.messages.ai import UsageMetadata

from ..state import AgentResult, Observation, StepRecord, StopReason
from .inputs import InputForm, RunInput

__all__ = [
    "answer_text",
    "call_args",
    "final_message",
    "loop_messages",
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


def _usage_of(step: StepRecord) -> UsageMetadata:
    """The call's usage as the provider reported it (details kept), else the estimate, marked."""
    if step.reply is not None and step.reply.usage_metadata:
        return step.reply.usage_metadata
    usage = step.usage
    estimate: dict[str, Any] = {**usage.to_dict(), "estimated": True}
    return cast("UsageMetadata", estimate)


def _as_said(step: StepRecord, content: Any, **fields: Any) -> AIMessage:
    """An AIMessage for ``step``'s reply: its id, metadata and usage as the model sent them."""
    reply = step.reply
    if reply is None:
        return AIMessage(content=content, **fields)
    return AIMessage(
        content=content,
        id=reply.id,
        name=reply.name,
        response_metadata={**reply.response_metadata, **fields.pop("response_metadata", {})},
        usage_metadata=_usage_of(step),
        **fields,
    )


def _tool_message(obs: Observation) -> ToolMessage:
    content: Any = obs.output
    if obs.blocks:
        content = [{"type": "text", "text": obs.output}, *obs.blocks]
    return ToolMessage(
        content=content,
        tool_call_id=obs.action.call_id or "",
        name=obs.action.tool,
        status="success" if obs.ok else "error",
        artifact=obs.artifact,
    )


def loop_messages(step: StepRecord) -> list[BaseMessage]:
    """One loop's messages: the model's tool calls and their results (none without calls)."""
    calls = [o for o in step.observations if o.action.call_id]
    if not calls:
        return []
    # Native tool calls come with the model's words beside them ("Let me check."); under
    # the JSON protocol the reply's text is the action itself, which tool_calls now say.
    native = step.reply is not None and bool(step.reply.tool_calls)
    words = step.reply.content if native and step.reply is not None else ""
    ai = _as_said(
        step,
        words,
        tool_calls=[
            {"name": o.action.tool, "args": call_args(o.action.tool_input), "id": o.action.call_id}
            for o in calls
        ],
    )
    return [ai, *(_tool_message(o) for o in calls)]


def answer_text(output: Any) -> str:
    """The answer as message text: the text itself, or JSON for a structured answer."""
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    dump = getattr(output, "model_dump", None)
    value = dump(mode="json") if callable(dump) else output
    return json.dumps(value, ensure_ascii=False, default=str)


def _answering_step(result: AgentResult) -> StepRecord | None:
    """The call whose reply gave the answer (None when a tool's result or nothing did):
    the acting loop's final, or the answer stage's last call when it wrote the answer
    in one reply."""
    if result.output is None or not result.steps:
        return None
    last = result.steps[-1]
    if last.kind == "answer":
        written = result.answer is not None and result.answer.calls == 1
        return last if written and last.error is None else None
    if result.stop_reason is not StopReason.FINAL:
        return None
    return last if any(a.is_final for a in last.actions) else None


def final_message(result: AgentResult) -> AIMessage:
    """The run's last message: the answer (empty when there is none), the stop in metadata.

    When the model's reply gave the answer, the message keeps that reply's id,
    ``response_metadata`` (model name, finish reason ...) and ``usage_metadata``
    (with its details; ``"estimated": True`` when the model reported none).
    ``response_metadata`` also holds ``stop_reason``, ``loops``, ``forced``,
    ``error`` (the text of ``result.error``, or None) and ``run_usage``: the
    tokens of the whole run.
    """
    run = {
        "stop_reason": result.stop_reason.value,
        "loops": result.loops,
        "forced": result.forced,
        "error": str(result.error) if result.error is not None else None,
        "run_usage": result.usage.to_dict(),
    }
    step = _answering_step(result)
    if step is not None:
        return _as_said(step, answer_text(result.output), response_metadata=run)
    return AIMessage(content=answer_text(result.output), response_metadata=run)


def run_messages(result: AgentResult) -> list[BaseMessage]:
    """The run's new messages: each loop's tool calls and their results, then the answer.

    Loops that called no tool (a reply that could not be read, say) leave no
    message here; they are in ``result.steps``.
    """
    out: list[BaseMessage] = []
    for step in result.steps:
        out += loop_messages(step)
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
