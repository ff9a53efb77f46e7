"""Fixtures for the core loop tests: sync/async twins and small tools."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.tools import BaseTool, tool


class Calls:
    """Thread-safe record of tool calls."""

    def __init__(self) -> None:
        self.items: list[tuple[str, Any]] = []
        self._lock = threading.Lock()

    def add(self, name: str, value: Any) -> None:
        with self._lock:
            self.items.append((name, value))


@pytest.fixture
def calls() -> Calls:
    return Calls()


@pytest.fixture
def weather(calls: Calls) -> BaseTool:
    @tool
    def get_weather(city: str) -> str:
        """查询城市实时天气，城市名称必须是中文，例如'北京'"""
        calls.add("get_weather", city)
        if city == "火星":
            return "ERROR: 高德API返回错误 - 城市不存在"
        if city == "爆炸":
            raise RuntimeError("boom")
        return f"{city}市天气：晴，温度25℃，湿度40%"

    return get_weather


@pytest.fixture
def search(calls: Calls) -> BaseTool:
    @tool
    def search_baidu(query: str) -> str:
        """百度搜索，返回前3条结果的标题和链接"""
        calls.add("search_baidu", query)
        return json.dumps(
            [{"title": f"{query} 结果", "link": "http://127.0.0.1/x"}], ensure_ascii=False
        )

    return search_baidu


def _act(action: str, value: Any) -> str:
    return json.dumps({"action": action, "action_input": value}, ensure_ascii=False)


@pytest.fixture
def act() -> Callable[[str, Any], str]:
    """Write a JSON-protocol reply: ``act("get_weather", "北京")``."""
    return _act
