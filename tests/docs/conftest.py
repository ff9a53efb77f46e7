"""Fixtures for the docs tests: the documented code runs against loopback fakes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lcel_agent.testing import (
    ArticleTaskModel,
    FakeAmapServer,
    FakeBaiduServer,
    SimulatedOpenAIServer,
    use_services,
)


@pytest.fixture
def offline_provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[SimulatedOpenAIServer]:
    """OPENAI_* pointed at a simulated model; the weather and search tools at fakes."""
    with (
        SimulatedOpenAIServer(ArticleTaskModel()) as server,
        FakeAmapServer() as amap,
        FakeBaiduServer() as baidu,
        use_services(amap, baidu),
    ):
        monkeypatch.setenv("OPENAI_API_KEY", "sk-readme")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("AMAP_KEY", amap.key)
        yield server
