"""langchain-tests' standard tool tests, for both tools, on whichever stack runs them."""

from __future__ import annotations

import pytest
from langchain_tests.integration_tests import ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

from lcel_agent.tools import BaiduSearchTool, WeatherTool, get_weather, search_baidu


class TestWeatherToolUnit(ToolsUnitTests):
    @property
    def tool_constructor(self):
        return WeatherTool

    @property
    def tool_constructor_params(self):
        return {"request_timeout": 2.0}

    @property
    def tool_invoke_params_example(self):
        return {"city": "北京"}


class TestBaiduToolUnit(ToolsUnitTests):
    @property
    def tool_constructor(self):
        return search_baidu

    @property
    def tool_invoke_params_example(self):
        return {"query": "台风最新路径"}


class _AgainstFakes:
    @pytest.fixture(autouse=True)
    def _fakes(self, services):
        yield


class TestWeatherToolIntegration(_AgainstFakes, ToolsIntegrationTests):
    @property
    def tool_constructor(self):
        return get_weather

    @property
    def tool_invoke_params_example(self):
        return {"city": "北京"}


class TestBaiduToolIntegration(_AgainstFakes, ToolsIntegrationTests):
    @property
    def tool_constructor(self):
        return BaiduSearchTool

    @property
    def tool_invoke_params_example(self):
        return {"query": "台风最新路径"}
