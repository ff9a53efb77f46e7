"""Suite-wide settings and fixtures.

Property tests are derandomized so every run checks the same examples, and the
``run`` fixture gives every agent test its async twin.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import settings

from lcel_agent import AgentLoop, AgentResult

settings.register_profile("lcel_agent", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("lcel_agent")


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Callable[..., AgentResult]:
    """Run an agent with invoke or ainvoke: every test using it has an async twin."""

    def runner(agent: AgentLoop, task: Any = "查询北京天气", config: Any = None) -> AgentResult:
        if request.param == "sync":
            return agent.invoke(task, config)
        return asyncio.run(agent.ainvoke(task, config))

    return runner
