"""What a tool is invoked with: the model's arguments, plus what the run injects.

LangGraph's ``ToolNode`` invokes a tool with a full ``ToolCall`` and fills its
injected arguments; the dispatcher does the same through :func:`tool_payload`::

    agent.invoke("...", context=Context(user_id="u1"))   # langchain 1.x

    @tool
    def whoami(runtime: ToolRuntime) -> str:
        \"\"\"Who is asking.\"\"\"
        return runtime.context.user_id

The run's ``context`` travels in the config under :data:`CONTEXT_KEY` (a ``__``
key, which LangChain keeps out of trace metadata); an agent that runs as a
LangGraph node also reads the graph's own ``context=``. ``InjectedState``
arguments get :func:`agent_state`: ``{"messages": [...]}``, the conversation
as the model saw it on this loop, its reply last.

:func:`check_tool` refuses, when the agent is built, a tool the dispatcher could
not run faithfully: an injected argument it cannot fill, a generator function.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig, ensure_config
from langchain_core.tools import BaseTool, StructuredTool

from ..errors import ConfigurationError
from ._injected import Injected, unfillable
from ._native import session_bound

__all__ = [
    "CONTEXT_KEY",
    "agent_state",
    "check_context_support",
    "check_sync_run",
    "check_tool",
    "run_config",
    "run_context",
    "tool_payload",
    "with_context",
]

#: Where a run's ``context=`` travels in ``config["configurable"]``.
CONTEXT_KEY = "__lcel_agent_context"
#: Where LangGraph keeps a graph run's runtime (context, stream writer) in the config.
_PREGEL_RUNTIME = "__pregel_runtime"


def check_context_support() -> None:
    """Raise a clear error where the installed langchain-core has no tool runtime (0.3)."""
    from langchain_core.tools import base

    if not hasattr(base, "_DirectlyInjectedToolArg"):
        raise ConfigurationError(
            "context= needs langchain-core 1.x: tools read it from `runtime: ToolRuntime` "
            "(langchain.tools.ToolRuntime), which langchain-core 0.3 does not have; "
            "pass per-run values as InjectedToolArg arguments in config['configurable']"
        )


def with_context(config: RunnableConfig, context: Any) -> RunnableConfig:
    """``config`` carrying the run's ``context`` for its tools."""
    return {**config, "configurable": {**(config.get("configurable") or {}), CONTEXT_KEY: context}}


def run_config(config: RunnableConfig | None, options: Mapping[str, Any]) -> RunnableConfig | None:
    """The config of ``agent.invoke(input, config, context=ctx)``: ``ctx`` added, if given.

    Raises:
        ConfigurationError: ``context=`` on a stack without a tool runtime (langchain 0.3).
    """
    if options.get("context") is None:
        return config
    check_context_support()
    return with_context(ensure_config(config), options["context"])


def run_context(config: RunnableConfig) -> Any:
    """The run's context: ``context=`` given to the agent, else the enclosing graph's."""
    configurable = config.get("configurable") or {}
    if CONTEXT_KEY in configurable:
        return configurable[CONTEXT_KEY]
    return getattr(configurable.get(_PREGEL_RUNTIME), "context", None)


def _stream_writer(config: RunnableConfig) -> Callable[[Any], None]:
    writer = getattr((config.get("configurable") or {}).get(_PREGEL_RUNTIME), "stream_writer", None)
    return writer if callable(writer) else _ignore


def _ignore(_chunk: Any) -> None:
    """The stream writer outside a LangGraph graph: nobody reads custom stream data."""


def agent_state(messages: Sequence[BaseMessage]) -> dict[str, Any]:
    """The agent's state as LangChain tools expect it: ``{"messages": [...]}``."""
    return {"messages": list(messages)}


def tool_payload(
    tool: BaseTool,
    injected: Injected | None,
    args: Any,
    call_id: str,
    config: RunnableConfig,
    state: Mapping[str, Any],
    tools: Sequence[BaseTool],
) -> Any:
    """What ``tool`` is invoked with: ``args`` as they are, or a full ``ToolCall``.

    A full call is needed for injected call ids, runtimes and state, and for
    ``content_and_artifact`` tools (only a call gives back the artifact).

    Raises:
        ConfigurationError: a required ``InjectedToolArg`` is missing from the config.
    """
    whole = tool.response_format == "content_and_artifact"
    if injected is None:
        if not whole:
            return args
        return {"type": "tool_call", "name": tool.name, "args": args, "id": call_id}
    filled = {k: v for k, v in args.items() if k not in injected.names}
    configurable = config.get("configurable") or {}
    for name in injected.from_config:
        if name in configurable:
            filled[name] = configurable[name]
        elif name in injected.required:
            raise ConfigurationError(
                f"tool {tool.name!r} needs the injected argument {name!r}: "
                f"pass it in the run's config, {{'configurable': {{{name!r}: ...}}}}"
            )
    for name, key in injected.state.items():
        filled[name] = state if key is None else state[key]
    for name, runtime in injected.runtime.items():
        filled[name] = runtime(
            state=state,
            context=run_context(config),
            config=config,
            stream_writer=_stream_writer(config),
            tool_call_id=call_id,
            store=None,
            tools=list(tools),
        )
    if not (injected.needs_call or whole):
        return filled
    # A full ToolCall: the tool fills its InjectedToolCallId argument from the id.
    return {"type": "tool_call", "name": tool.name, "args": filled, "id": call_id}


def check_sync_run(stages: Mapping[str, Any]) -> None:
    """Refuse a sync run whose tools hold an MCP session (see :func:`session_bound`).

    Raised before any model call: the run could only wait on the session until each
    call's time limit, and leave the session broken behind it.
    """
    tools = getattr(stages.get("dispatch_tools"), "tools", None) or {}
    bound = sorted(name for name, tool in tools.items() if session_bound(tool))
    if bound:
        raise ConfigurationError(
            f"tools {bound} use an MCP session opened on an event loop, which a sync run "
            "cannot reach: use `await agent.ainvoke(...)` (or `astream`) inside that session, "
            "or tools from `await client.get_tools()`, which open a session per call"
        )


def check_tool(tool: BaseTool, injected: Injected | None) -> None:
    """Refuse a tool this agent cannot run as LangChain would (see the module docstring).

    Raises:
        ConfigurationError: naming the tool and what to change.
    """
    why = unfillable(tool, injected)
    if why is not None:
        raise ConfigurationError(why)
    if injected is not None and injected.runtime:
        check_context_support()
    if isinstance(tool, StructuredTool):
        for fn in (tool.func, tool.coroutine):
            if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
                raise ConfigurationError(
                    f"tool {tool.name!r} is a generator function: invoking it gives a "
                    "generator object, not a result; collect what it yields and return that"
                )
