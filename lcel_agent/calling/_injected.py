"""Arguments the model must not write: call ids, config values, the run's state and runtime.

A tool may declare arguments that the caller, not the model, supplies::

    @tool
    def lookup(query: str, user_id: Annotated[str, InjectedToolArg],
               call_id: Annotated[str, InjectedToolCallId]) -> str: ...

    @tool                                    # langchain 1.x
    def greet(runtime: ToolRuntime) -> str:  # runtime.context is the run's context=
        ...

The model is shown ``tool.tool_call_schema``, which leaves them out. The
dispatcher drops any value the model wrote for them anyway (a model must not
pick the user it acts for) and fills them (:mod:`lcel_agent.calling._runtime`):
``InjectedToolCallId`` with the call's id, ``ToolRuntime`` with the run's
context, config and state, ``InjectedState`` with the agent's state
(``{"messages": [...]}``), and every other injected argument from the run's
``config["configurable"]``, by name. LangGraph's ``InjectedStore`` has no store
here: :func:`unfillable` says so when the agent is built.

Kinds are told apart by class name, so langgraph stays the user's dependency.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, get_args, get_origin

from langchain_core.tools import BaseTool, InjectedToolArg, InjectedToolCallId

# Private in langchain-core, but the same in 0.3 and 1.x: the one reading of
# "is this argument injected" that the tool itself also uses.
from langchain_core.tools.base import _is_injected_arg_type, get_all_basemodel_annotations

__all__ = ["STATE_KEYS", "Injected", "injected_args", "model_args", "unfillable"]

#: The keys of the state an ``InjectedState`` argument may name.
STATE_KEYS = frozenset({"messages"})


@dataclass(frozen=True, slots=True)
class Injected:
    """A tool's injected arguments."""

    call_id: frozenset[str] = frozenset()
    """Filled with the tool call's id."""
    from_config: frozenset[str] = frozenset()
    """Filled from ``config["configurable"]`` by name."""
    required: frozenset[str] = frozenset()
    """Those of ``from_config`` that have no default."""
    runtime: dict[str, type] = field(default_factory=dict)
    """``ToolRuntime`` arguments, with the class to build for each."""
    state: dict[str, str | None] = field(default_factory=dict)
    """``InjectedState`` arguments: the state key each wants (None: the whole state)."""
    other: dict[str, str] = field(default_factory=dict)
    """Injected kinds this agent cannot fill (``InjectedStore`` ...), by argument."""

    @property
    def names(self) -> frozenset[str]:
        """Every injected argument."""
        return (
            self.call_id | self.from_config | set(self.runtime) | set(self.state) | set(self.other)
        )

    @property
    def needs_call(self) -> bool:
        """True when the tool must be invoked with a full ``ToolCall`` (and its id)."""
        return bool(self.call_id or self.runtime or self.state)


def _markers(annotation: Any) -> list[Any]:
    """The injection markers of an annotation: the type itself, then ``Annotated`` metadata."""
    return [get_origin(annotation) or annotation, *get_args(annotation)[1:]]


def _is(marker: Any, kind: type) -> bool:
    return isinstance(marker, kind) or (isinstance(marker, type) and issubclass(marker, kind))


def _classify(annotation: Any) -> tuple[str, Any]:
    """``(kind, detail)`` of an injected argument's annotation."""
    markers = _markers(annotation)
    for marker in markers:
        if _is(marker, InjectedToolCallId):
            return "call_id", None
        kind = (marker if isinstance(marker, type) else type(marker)).__name__
        if kind == "ToolRuntime" and isinstance(marker, type):
            return "runtime", marker
        if kind == "InjectedState":
            return "state", None if isinstance(marker, type) else getattr(marker, "field", None)
        if kind == "InjectedStore":
            return "other", "InjectedStore (this agent has no LangGraph store)"
    if any(_is(marker, InjectedToolArg) for marker in markers[1:]):
        return "config", None
    # A directly injected type of some other kind (langchain-core 1.x).
    return "other", getattr(markers[0], "__name__", str(markers[0]))


def injected_args(tool: BaseTool) -> Injected | None:
    """The tool's injected arguments, or None when it has none."""
    if tool.args_schema is None or isinstance(tool.args_schema, dict):
        return None
    schema = tool.get_input_schema()
    found: dict[str, dict[str, Any]] = {
        "call_id": {},
        "config": {},
        "runtime": {},
        "state": {},
        "other": {},
    }
    for name, annotation in get_all_basemodel_annotations(schema).items():
        if _is_injected_arg_type(annotation):
            kind, detail = _classify(annotation)
            found[kind][name] = detail
    if not any(found.values()):
        return None
    fields: dict[str, Any] = getattr(schema, "model_fields", {})
    from_config = frozenset(found["config"])
    required = {n for n in from_config if n in fields and fields[n].is_required()}
    return Injected(
        frozenset(found["call_id"]),
        from_config,
        frozenset(required),
        runtime=found["runtime"],
        state=found["state"],
        other=found["other"],
    )


def unfillable(tool: BaseTool, injected: Injected | None) -> str | None:
    """Why the agent cannot fill one of ``tool``'s injected arguments, or None when it can."""
    if injected is None:
        return None
    for name, why in sorted(injected.other.items()):
        return f"tool {tool.name!r} takes the injected argument {name!r} of kind {why}, which this agent cannot fill"
    for name, key in sorted(injected.state.items(), key=lambda item: item[0]):
        if key is not None and key not in STATE_KEYS:
            return (
                f"tool {tool.name!r} takes InjectedState({key!r}) as {name!r}, but the agent's "
                f"state has only {sorted(STATE_KEYS)}"
            )
    return None


def model_args(tool: BaseTool, injected: Injected | None) -> dict[str, Any]:
    """``tool.args`` without the injected ones: what the model writes."""
    if injected is None:
        return dict(tool.args)
    return {name: spec for name, spec in tool.args.items() if name not in injected.names}
