"""Arguments the model must not write: ``InjectedToolCallId`` and ``InjectedToolArg``.

A tool may declare arguments that the caller, not the model, supplies::

    @tool
    def lookup(query: str, user_id: Annotated[str, InjectedToolArg],
               call_id: Annotated[str, InjectedToolCallId]) -> str: ...

The model is shown ``tool.tool_call_schema``, which leaves them out. The
dispatcher drops any value the model wrote for them anyway (a model must not
pick the user it acts for), fills ``InjectedToolCallId`` arguments with the
call's id by invoking the tool with a full ``ToolCall``, and fills every other
injected argument from the run's ``config["configurable"]``, by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.tools import BaseTool, InjectedToolCallId

# Private in langchain-core, but the same in 0.3 and 1.x: the one reading of
# "is this argument injected" that the tool itself also uses.
from langchain_core.tools.base import _is_injected_arg_type, get_all_basemodel_annotations

__all__ = ["Injected", "injected_args", "model_args"]


@dataclass(frozen=True, slots=True)
class Injected:
    """A tool's injected arguments."""

    call_id: frozenset[str] = frozenset()
    """Filled with the tool call's id."""
    from_config: frozenset[str] = frozenset()
    """Filled from ``config["configurable"]`` by name."""
    required: frozenset[str] = frozenset()
    """Those of ``from_config`` that have no default."""

    @property
    def names(self) -> frozenset[str]:
        """Every injected argument."""
        return self.call_id | self.from_config


def injected_args(tool: BaseTool) -> Injected | None:
    """The tool's injected arguments, or None when it has none."""
    if tool.args_schema is None or isinstance(tool.args_schema, dict):
        return None
    schema = tool.get_input_schema()
    call_id: set[str] = set()
    from_config: set[str] = set()
    for name, annotation in get_all_basemodel_annotations(schema).items():
        if _is_injected_arg_type(annotation, injected_type=InjectedToolCallId):
            call_id.add(name)
        elif _is_injected_arg_type(annotation):
            from_config.add(name)
    if not call_id and not from_config:
        return None
    fields: dict[str, Any] = getattr(schema, "model_fields", {})
    required = {n for n in from_config if n in fields and fields[n].is_required()}
    return Injected(frozenset(call_id), frozenset(from_config), frozenset(required))


def model_args(tool: BaseTool, injected: Injected | None) -> dict[str, Any]:
    """``tool.args`` without the injected ones: what the model writes."""
    if injected is None:
        return dict(tool.args)
    return {name: spec for name, spec in tool.args.items() if name not in injected.names}
