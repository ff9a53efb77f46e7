"""Suite-wide settings and fixtures.

Property tests are derandomized so every run checks the same examples, and the
``run`` fixture gives every agent test its async twin.
"""

from __future__ import annotations

import asyncio
import gc
import signal
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import settings
from postgres_support import NOT_INSTALLED, pg_bin, postgres_server

from lcel_agent import AgentLoop, AgentResult

settings.register_profile("lcel_agent", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("lcel_agent")

# A shell's background job (`cmd &`, nohup) starts with SIGINT ignored, and every child
# would inherit that: the Ctrl-C tests would send a signal nobody hears. Restore the
# default here; the children the tests start then get SIGINT as a terminal gives it.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Callable[..., AgentResult]:
    """Run an agent with invoke or ainvoke: every test using it has an async twin."""

    def runner(agent: AgentLoop, task: Any = "查询北京天气", config: Any = None) -> AgentResult:
        if request.param == "sync":
            return agent.invoke(task, config)
        return asyncio.run(agent.ainvoke(task, config))

    return runner


@pytest.fixture
def closes_async_clients() -> Iterator[None]:
    """Collect, after the test, the async HTTP clients its ``asyncio.run`` left behind.

    A model client used under ``asyncio.run`` keeps its sockets after the loop closes
    (the loop can no longer close them); on the pinned stack each ``ChatOpenAI`` owns
    such a client. Collected here they close quietly, instead of surfacing as a
    ResourceWarning in whatever test the garbage collector happens to run in next.
    """
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server of its own on loopback, for the whole session (skips, saying
    why, where PostgreSQL is not installed): the durable runs' and the CLI's tests."""
    bindir = pg_bin()
    if bindir is None:
        pytest.skip(NOT_INSTALLED)
    with postgres_server(bindir) as url:
        yield url
