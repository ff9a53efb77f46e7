"""``assemble_prompt``: start a loop and build the messages the model will see.

The prompt is the memory window as it stands (system prompt and first question
pinned, the newest turns after them). On the loop reserved for a forced final
answer, :data:`~lcel_agent.texts.FINAL_INSTRUCTION` is added as the newest user
message (merged into the last user message, so roles keep alternating).

:func:`build_system_prompt` writes the system prompt of the JSON protocol from
the tools' names, descriptions and schemas.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from .. import texts
from ..state import AgentState, Usage
from ._base import Stage

__all__ = ["AssemblePrompt", "build_system_prompt", "tool_arguments", "tool_signature"]


def tool_arguments(tool: BaseTool) -> dict[str, Any]:
    """The arguments the model fills in, name -> JSON schema (injected ones are not shown)."""
    return dict(_parameters(tool).get("properties") or {})


def _parameters(tool: BaseTool) -> dict[str, Any]:
    # The same schema bind_tools sends: built from tool_call_schema, on every stack.
    return dict(convert_to_openai_tool(tool)["function"].get("parameters") or {})


#: An ``enum`` longer than this is shown by its type alone (the line is paid on every call).
_ENUM_SHOWN = 8


def _is_single_string(arguments: dict[str, Any]) -> bool:
    return len(arguments) == 1 and next(iter(arguments.values())).get("type", "string") == "string"


def _input(arguments: dict[str, Any], required: Collection[str]) -> str:
    """How a tool's input reads in its line: one string's name and meaning, else the object,
    each argument with its type or its allowed values, and ``optional`` where it may be left
    out (measured on BFCL's even entries: a model shown only types fills every argument,
    inventing values for the optional ones)."""
    if _is_single_string(arguments):
        ((field, spec),) = arguments.items()
        described = " ".join(str(spec.get("description") or "").split())
        return f"{field} ({described})" if described else field
    inside = ", ".join(
        f'"{name}": <{_kind(spec)}{"" if name in required else ", optional"}>'
        for name, spec in arguments.items()
    )
    return "{" + inside + "}"


def _kind(spec: dict[str, Any]) -> str:
    """An argument's allowed values (a short ``enum``), else its type."""
    allowed = spec.get("enum")
    if isinstance(allowed, list) and 0 < len(allowed) <= _ENUM_SHOWN:
        return " | ".join(json.dumps(value, ensure_ascii=False) for value in allowed)
    return str(spec.get("type", "any"))


def tool_signature(tool: BaseTool) -> str:
    """A tool as one line of the JSON protocol's prompt: name, what it does, its input."""
    description = " ".join((tool.description or "").split())
    if description and description[-1] not in ".。!！?？":
        description += "."
    parameters = _parameters(tool)
    arguments = dict(parameters.get("properties") or {})
    required = set(parameters.get("required") or ())
    return texts.JSON_TOOL.format(
        name=tool.name, description=description, input=_input(arguments, required)
    )


def build_system_prompt(
    tools: Sequence[BaseTool],
    *,
    protocol: str = "json",
    persona: str | None = None,
    parallel: bool = True,
) -> str:
    """The system prompt: the persona, then (JSON protocol) the tools and the reply forms.

    Every line is paid for on every model call, so it says each thing once; and it says
    plainly how to call a tool and how to answer (measured on small open models:
    docs/benchmarks.md, "Real models").
    """
    if protocol != "json":  # the tools travel with the request, described by the API
        return persona or (texts.TOOL_CALLING_PERSONA if tools else texts.NO_TOOLS_PERSONA)
    if not tools:  # no tool to offer: the one form is the answer
        head = persona or texts.NO_TOOLS_PERSONA
        lines = [head, texts.JSON_FORMAT_ANSWER, texts.JSON_ANSWER_ONLY]
    else:
        head = persona or texts.DEFAULT_PERSONA
        lines = [head, *(tool_signature(tool) for tool in tools), texts.JSON_FORMAT]
        lines.append(texts.JSON_CALL + (texts.JSON_PARALLEL if parallel else ""))
        lines.append(texts.JSON_FINAL)
        lines.append(texts.DATA_NOT_INSTRUCTIONS)
    return "\n".join(lines)


def _with_final_instruction(messages: list[BaseMessage]) -> list[BaseMessage]:
    instruction = texts.FINAL_INSTRUCTION
    last = messages[-1] if messages else None
    if isinstance(last, HumanMessage) and isinstance(last.content, str):
        merged = HumanMessage(content=f"{last.content}\n\n{instruction}")
        return [*messages[:-1], merged]
    return [*messages, HumanMessage(content=instruction)]


class AssemblePrompt(Stage):
    """Reset the per-loop fields and set ``state.prompt`` from the memory window."""

    name = "assemble_prompt"

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if state.stop is not None:
            return state
        messages = list(state.memory.messages)
        if state.final_only:
            messages = _with_final_instruction(messages)
        return dataclasses.replace(
            state,
            prompt=tuple(messages),
            reply=None,
            parsed=None,
            actions=(),
            observations=(),
            loop_error=None,
            notice=None,
            pending=(),
            pending_facts=(),
            pending_failed=False,
            llm_ms=0.0,
            tools_ms=0.0,
            step_usage=Usage(),
        )
