"""Fixtures for the LangChain-native tests: a weather tool that records its calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import lc_support
import pytest
from langchain_core.tools import BaseTool, tool


@pytest.fixture
def calls() -> list[tuple[str, Any]]:
    return []


@pytest.fixture
def weather(calls: list[tuple[str, Any]]) -> BaseTool:
    @tool
    def get_weather(city: str) -> str:
        """查询城市实时天气，城市名称必须是中文，例如'北京'"""
        calls.append(("get_weather", city))
        return f"{city}市天气：晴，温度25℃"

    return get_weather


@pytest.fixture
def act() -> Callable[[str, Any], str]:
    """Write a JSON-protocol reply: ``act("get_weather", "北京")``."""
    return lc_support.act
