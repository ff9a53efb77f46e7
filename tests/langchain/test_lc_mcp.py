"""MCP tools through langchain-mcp-adapters, against a real FastMCP server (issue 23, item 4).

The server (``mcp_weather.py``) runs over stdio and over streamable HTTP on 127.0.0.1.
Its tools are plain LangChain tools: the model reads their text (never the JSON of
content blocks), their ``structured_content`` stays in the result as the artifact, and a
tool bound to an open session is refused by a sync run at once, leaving the session whole.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import BaseTool
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools
from lc_support import act

from lcel_agent import create_agent
from lcel_agent.errors import ConfigurationError
from lcel_agent.testing.fake import ScriptedChatModel

ADAPTERS = tuple(int(p) for p in version("langchain-mcp-adapters").split(".")[:2])
SERVER = str(Path(__file__).with_name("mcp_weather.py"))
STDIO = {"command": sys.executable, "args": [SERVER, "stdio"], "transport": "stdio"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def http_server():
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, SERVER, "streamable-http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the MCP server did not listen within 20 s")
        yield {"url": f"http://127.0.0.1:{port}/mcp", "transport": "streamable_http"}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def tools_of(connection):
    return asyncio.run(MultiServerMCPClient({"weather": connection}).get_tools())


@asynccontextmanager
async def session_tools(connection: dict[str, Any]) -> AsyncIterator[list[BaseTool]]:
    """The server's tools bound to one open session: ``async with session_tools(c) as tools:``."""
    client = MultiServerMCPClient({"weather": connection})
    async with client.session("weather") as session:
        yield await load_mcp_tools(session)


def shanghai_model() -> ScriptedChatModel:
    """Asks for Shanghai's weather, then answers 晴."""
    return ScriptedChatModel([act("get_weather", {"city": "上海"}), act("final", "晴")])


def check_run(run, tools):
    llm = ScriptedChatModel([act("forecast", {"city": "北京"}), act("final", "多云")])
    out = run(create_agent(llm, tools), {"messages": [HumanMessage("明天北京天气")]})
    (result,) = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    # The model read the server's text, not a list of content blocks.
    seen = "\n".join(str(m.content) for m in llm.calls[1])
    assert '"temp_c": 21' in seen and '"type": "text"' not in seen and "lc_" not in seen
    assert json.loads(result.content) == {"city": "北京", "sky": "cloudy", "temp_c": 21}
    assert out["messages"][-1].content == "多云"
    return result


def test_mcp_tools_over_stdio(run):
    check_run(run, tools_of(STDIO))


def test_mcp_tools_over_streamable_http(run, http_server):
    check_run(run, tools_of(http_server))


@pytest.mark.skipif(
    ADAPTERS < (0, 2),
    reason="langchain-mcp-adapters 0.1 (the release beside langchain-core 0.3) returns no "
    "structured_content artifact",
)
def test_structured_content_stays_as_the_artifact(run, http_server):
    result = check_run(run, tools_of(http_server))
    assert result.artifact["structured_content"] == {"city": "北京", "sky": "cloudy", "temp_c": 21}


def test_a_session_bound_tool_under_ainvoke(http_server):
    async def main():
        async with session_tools(http_server) as tools:
            llm = shanghai_model()
            result = await create_agent(llm, tools).ainvoke("上海天气")
        return result, llm

    result, llm = asyncio.run(main())
    obs = result.steps[0].observations[0]
    assert obs.ok and obs.output == "上海: sunny, 25C"
    assert result.output == "晴" and len(llm.calls) == 2


def test_a_session_bound_tool_under_sync_invoke_is_refused_at_once(http_server):
    async def main():
        async with session_tools(http_server) as tools:
            llm = shanghai_model()
            agent = create_agent(llm, tools, tool_timeout=30)
            started = time.monotonic()
            with pytest.raises(ConfigurationError, match="ainvoke"):
                agent.invoke("上海天气")
            waited = time.monotonic() - started
            # The session still works: the same agent, awaited, inside it.
            result = await agent.ainvoke("上海天气")
        return waited, llm, result

    waited, llm, result = asyncio.run(main())  # leaves the session without BrokenResourceError
    assert waited < 5  # refused before the tool's time limit, before any model call
    assert result.steps[0].observations[0].output == "上海: sunny, 25C"
    assert len(llm.calls) == 2
