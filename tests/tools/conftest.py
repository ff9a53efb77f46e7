"""Fixtures for the tool tests: loopback fakes of Amap and Baidu, and a sync/async caller."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer, use_services

AMAP_KEY = "test-amap-key-5c1e9d"


# One server of each per test session, reset before every test: starting and
# stopping servers per test would cost more than the tests themselves.
@pytest.fixture(scope="session")
def _amap_server() -> Iterator[FakeAmapServer]:
    with FakeAmapServer(key=AMAP_KEY, slow_seconds=3.0) as server:
        yield server


@pytest.fixture(scope="session")
def _baidu_server() -> Iterator[FakeBaiduServer]:
    with FakeBaiduServer(slow_seconds=3.0) as server:
        yield server


@pytest.fixture
def amap(_amap_server: FakeAmapServer) -> FakeAmapServer:
    _amap_server.reset()
    _amap_server.slow_seconds = 3.0
    return _amap_server


@pytest.fixture
def baidu(_baidu_server: FakeBaiduServer) -> FakeBaiduServer:
    _baidu_server.reset()
    _baidu_server.slow_seconds = 3.0
    return _baidu_server


@pytest.fixture
def services(amap: FakeAmapServer, baidu: FakeBaiduServer) -> Iterator[None]:
    with use_services(amap, baidu):
        yield


@pytest.fixture(params=["sync", "async"])
def call(request: pytest.FixtureRequest) -> Callable[[Any, Any], Any]:
    """``call(tool, input)``: ``tool.invoke(input)``, and its async twin ``ainvoke``."""
    if request.param == "sync":
        return lambda tool, value: tool.invoke(value)
    return lambda tool, value: asyncio.run(tool.ainvoke(value))


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL where nothing listens: connecting is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
