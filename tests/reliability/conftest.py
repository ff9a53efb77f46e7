"""Shared pieces of the reliability tests: run twins, a counting fake model, fault tools."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from lcel_agent import AgentLoop, AgentResult


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Callable[..., AgentResult]:
    """Run an agent with invoke or ainvoke: every test using it has an async twin."""

    def runner(agent: AgentLoop, task: Any = "查询北京天气", config: Any = None) -> AgentResult:
        if request.param == "sync":
            return agent.invoke(task, config)
        return asyncio.run(agent.ainvoke(task, config))

    return runner
