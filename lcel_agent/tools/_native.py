"""Which of a tool's two paths is its own, and which LangChain would fake.

``BaseTool`` runs a sync-only tool's ``ainvoke`` in the event loop's executor,
and refuses ``invoke`` on an async-only ``StructuredTool``. Callers that enforce
time limits need the native path: a coroutine can be cancelled at its limit, a
blocking call only abandoned. The dispatcher and :class:`~lcel_agent.tools.SafeTool`
both ask here.
"""

from __future__ import annotations

from langchain_core.tools import BaseTool, StructuredTool

__all__ = ["runs_async", "runs_sync"]


def runs_sync(tool: BaseTool) -> bool:
    """True unless the tool is an async-only ``StructuredTool`` (``func`` is None)."""
    return not isinstance(tool, StructuredTool) or tool.func is not None


def runs_async(tool: BaseTool) -> bool:
    """True when the tool has a coroutine of its own, not BaseTool's executor fallback."""
    if isinstance(tool, StructuredTool):
        return tool.coroutine is not None
    return type(tool)._arun is not BaseTool._arun
