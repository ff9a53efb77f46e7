"""Which of a tool's two paths is its own, and which LangChain would fake.

``BaseTool`` runs a sync-only tool's ``ainvoke`` in the event loop's executor,
and refuses ``invoke`` on an async-only ``StructuredTool``. Callers that enforce
time limits need the native path: a coroutine can be cancelled at its limit, a
blocking call only abandoned. The dispatcher and :class:`~lcel_agent.tools.SafeTool`
both ask here.
"""

from __future__ import annotations

from langchain_core.tools import BaseTool, StructuredTool

__all__ = ["runs_async", "runs_sync", "session_bound"]


def runs_sync(tool: BaseTool) -> bool:
    """True unless the tool is an async-only ``StructuredTool`` (``func`` is None)."""
    return not isinstance(tool, StructuredTool) or tool.func is not None


def runs_async(tool: BaseTool) -> bool:
    """True when the tool has a coroutine of its own, not BaseTool's executor fallback."""
    if isinstance(tool, StructuredTool):
        return tool.coroutine is not None
    return type(tool)._arun is not BaseTool._arun


def session_bound(tool: BaseTool) -> bool:
    """True for an async-only tool that holds an open MCP client session.

    ``load_mcp_tools(session)`` gives such tools (``client.get_tools()`` does not: its
    tools open a session per call). The session lives on the event loop that opened it,
    so only an async run on that loop can use it: a sync run, which runs coroutines on a
    loop of its own, would wait on it until the tool's time limit.
    """
    if not isinstance(tool, StructuredTool) or tool.func is not None or tool.coroutine is None:
        return False
    for cell in getattr(tool.coroutine, "__closure__", None) or ():
        try:
            kind = type(cell.cell_contents)
        except ValueError:  # a cell not yet filled
            continue
        if kind.__name__ == "ClientSession" and kind.__module__.startswith("mcp"):
            return True
    return False
