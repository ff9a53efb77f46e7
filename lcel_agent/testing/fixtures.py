"""pytest fixtures for the simulated OpenAI server.

Enable them in your ``conftest.py`` (or a test module)::

    pytest_plugins = ["lcel_agent.testing.fixtures"]

then ask for a server in a test; it is closed when the test ends::

    def test_my_agent(simulated_openai):
        srv = simulated_openai(ScriptedPolicy(["你好"]), require_key="sk-test")
        llm = ChatOpenAI(base_url=srv.base_url, api_key="sk-test", max_retries=0, timeout=5)
        assert llm.invoke("hi").content == "你好"

``article_server`` is a ready server playing :class:`ArticleTaskModel` on the article's task.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from lcel_agent.testing.article import ArticleTaskModel
from lcel_agent.testing.policies import Policy, ReplyLike
from lcel_agent.testing.server import SimulatedOpenAIServer

__all__ = ["article_server", "simulated_openai"]

ServerFactory = Callable[..., SimulatedOpenAIServer]


@pytest.fixture
def simulated_openai() -> Iterator[ServerFactory]:
    """A factory ``(policy, **options) -> SimulatedOpenAIServer`` (started); every server it
    made is closed after the test. Options are those of ``SimulatedOpenAIServer``."""
    servers: list[SimulatedOpenAIServer] = []

    def start(policy: Policy | Iterable[ReplyLike], **options: Any) -> SimulatedOpenAIServer:
        server = SimulatedOpenAIServer(policy, **options).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def article_server(simulated_openai: ServerFactory) -> SimulatedOpenAIServer:
    """A started server answered by a noise-free ``ArticleTaskModel`` (``srv.policy``)."""
    return simulated_openai(ArticleTaskModel())
