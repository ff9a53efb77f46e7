"""Tools for agents: Amap weather, Baidu search, and helpers for writing safe tools.

Every tool here answers with a string; a failure is a string starting with
``ERROR:`` (the article's convention), never an exception::

    from lcel_agent.tools import get_weather, safe_tool, search_baidu

    get_weather.invoke("北京")                # needs AMAP_KEY
    search_baidu.invoke({"query": "台风最新路径"})

    @safe_tool(timeout=5, idempotent=True)
    def my_tool(text: str) -> str:
        \"\"\"What the model should know about my_tool.\"\"\"
        ...

``tool.metadata`` carries ``{"idempotent": bool, "timeout": float | None}``,
which the dispatcher uses to decide retries and time limits. A failure that may
clear on its own (a timeout, a dropped connection, a 5xx) is returned as a
:class:`TransientError`: the dispatcher retries an idempotent tool once after it.

The names are imported on first use: the loop needs the argument helpers, not
the HTTP tools (their clients, HTML parsing) that a run may never call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lcel_agent._shared.lazy import lazy_exports

if TYPE_CHECKING:
    from lcel_agent.calling import (
        TransientError,
        is_error_result,
        stringify_output,
        truncate_output,
    )
    from lcel_agent.tools._args import SingleArgInput, SingleArgTool, coerce_single_arg
    from lcel_agent.tools.baidu import BaiduSearchTool, SearchInput, search_baidu
    from lcel_agent.tools.safe import SafeTool, safe_tool
    from lcel_agent.tools.weather import WeatherInput, WeatherTool, get_weather

_EXPORTS = {
    "BaiduSearchTool": "baidu",
    "SafeTool": "safe",
    "SearchInput": "baidu",
    "SingleArgInput": "_args",
    "SingleArgTool": "_args",
    "TransientError": "lcel_agent.calling",
    "WeatherInput": "weather",
    "WeatherTool": "weather",
    "coerce_single_arg": "_args",
    "get_weather": "weather",
    "is_error_result": "lcel_agent.calling",
    "safe_tool": "safe",
    "search_baidu": "baidu",
    "stringify_output": "lcel_agent.calling",
    "truncate_output": "lcel_agent.calling",
}

__all__ = [
    "BaiduSearchTool",
    "SafeTool",
    "SearchInput",
    "SingleArgInput",
    "SingleArgTool",
    "TransientError",
    "WeatherInput",
    "WeatherTool",
    "coerce_single_arg",
    "get_weather",
    "is_error_result",
    "safe_tool",
    "search_baidu",
    "stringify_output",
    "truncate_output",
]

if not TYPE_CHECKING:  # a module __getattr__ would make every misspelt name Any to mypy
    __getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS, __all__)
