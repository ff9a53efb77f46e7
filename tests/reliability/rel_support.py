"""Helpers shared by the reliability tests (imported as ``rel_support``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
from langchain_core.tools import BaseTool, tool
from langchain_openai import ChatOpenAI
from pydantic import SecretStr


def act(action: str, value: Any) -> str:
    """A JSON-protocol reply: ``act("probe", "北京")``."""
    return json.dumps({"action": action, "action_input": value}, ensure_ascii=False)


def chat_model(base_url: str | None, key: str | None, **options: Any) -> ChatOpenAI:
    """A ``ChatOpenAI`` (no client retries) with HTTP clients of its own, safe to close.

    langchain-openai 1.x shares one cached HTTP client per base URL and timeout: once
    closed, it would be handed to a later test whose server got the same port again.
    ``key=None`` leaves the key to ``OPENAI_API_KEY``.
    """
    if key is not None:
        options["api_key"] = SecretStr(key)
    return ChatOpenAI(
        base_url=base_url,
        model="gpt-4o-mini",
        max_retries=0,
        http_client=openai.DefaultHttpxClient(),
        http_async_client=openai.DefaultAsyncHttpxClient(),
        **options,
    )


def run_over_http(
    mode: str, agent: Any, llm: Any, task: Any = "查询北京天气", config: Any = None
) -> Any:
    """Run ``agent`` once with ``invoke`` or ``ainvoke``, then close ``llm``'s HTTP clients.

    The async client is closed on the loop that used it (``filterwarnings=error`` would
    report a client left open), so each async run gets an ``asyncio.run`` of its own.
    """

    async def arun() -> Any:
        try:
            return await agent.ainvoke(task, config)
        finally:
            await llm.root_async_client.close()

    try:
        if mode == "sync":
            return agent.invoke(task, config)
        return asyncio.run(arun())
    finally:
        llm.root_client.close()


class Probe:
    """A weather tool (``probe.tool``) that remembers every city it was called with.

    ``padding`` is added to each result, to make observations as long as a test needs.
    """

    def __init__(self, padding: str = "") -> None:
        self.cities: list[str] = []

        @tool
        def probe(city: str) -> str:
            """查询城市实时天气，城市名称必须是中文，例如'北京'"""
            self.cities.append(city)
            return f"{city}市天气：晴。{padding}"

        self.tool: BaseTool = probe
