"""What the user passed as the model and the tools, resolved to what the agent runs.

* The model: a chat model, a Runnable around one (``with_retry``,
  ``with_fallbacks``, ``bind``), or a name (``"openai:gpt-4o-mini"``, built by
  :func:`~lcel_agent.agent._models.chat_model_from_string`). A completion-only LLM is
  refused: the loop speaks in chat messages.
* The tools: langchain-core tools, or plain functions with type hints and a
  docstring (made into tools with ``langchain_core.tools.tool``). Names must be
  unique and none may be ``final``.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import Runnable, RunnableBinding
from langchain_core.tools import BaseTool, tool

from .._shared.lazy import is_completion_model
from ..errors import ConfigurationError
from ..state import FINAL_ACTION
from ._models import chat_model_from_string

__all__ = ["resolve_llm", "resolve_tools"]


def _innermost(llm: Any) -> Any:
    while isinstance(llm, RunnableBinding):
        llm = llm.bound
    return llm


def resolve_llm(llm: Any) -> Any:
    """The chat model to run (see the module docstring); TypeError when there is none."""
    if isinstance(llm, str):
        llm = chat_model_from_string(llm)
    inner = _innermost(llm)
    if is_completion_model(inner):
        raise TypeError(
            f"llm must be a chat model; {type(inner).__name__} is a completion-only LLM "
            "(use its chat counterpart, e.g. ChatOpenAI instead of OpenAI)"
        )
    if not isinstance(llm, Runnable):
        raise TypeError(
            f"llm must be a langchain-core chat model or a Runnable around one, not {type(llm).__name__}"
        )
    return llm


def _as_tool(item: Any) -> BaseTool:
    """A tool as given, or a plain typed function with a docstring made into one."""
    if isinstance(item, BaseTool):
        return item
    if not inspect.isfunction(item) or item.__name__ == "<lambda>":
        raise TypeError(
            f"{item!r} is not a langchain-core tool: decorate it with @tool "
            "(langchain_core.tools), or pass a named function with type hints and a docstring"
        )
    if not (item.__doc__ or "").strip():
        raise TypeError(
            f"function {item.__name__!r} needs a docstring to be a tool (the model reads it), "
            "or decorate it with @tool(description=...)"
        )
    untyped = [
        p.name
        for p in inspect.signature(item).parameters.values()
        if p.annotation is inspect.Parameter.empty
    ]
    if untyped:
        raise TypeError(
            f"function {item.__name__!r} needs type hints on {untyped} to be a tool "
            "(they become the schema the model fills)"
        )
    return tool(item)


def resolve_tools(tools: Any) -> list[BaseTool]:
    """The tools to run (see the module docstring)."""
    if isinstance(tools, (str, bytes, BaseTool)) or not isinstance(tools, Sequence):
        raise TypeError(
            "tools must be a list of langchain-core tools (use @tool from langchain_core.tools)"
        )
    names: set[str] = set()
    checked = [_as_tool(item) for item in tools]
    for one in checked:
        if one.name.lower() == FINAL_ACTION:
            raise ConfigurationError(
                f"a tool may not be named {FINAL_ACTION!r}: that name ends the run"
            )
        if one.name in names:
            raise ConfigurationError(f"two tools are named {one.name!r}: tool names must be unique")
        names.add(one.name)
    return checked
