"""Clients for the kit's tests, closed after each test (filterwarnings=error sees leaks)."""

from __future__ import annotations

import openai
import pytest


@pytest.fixture
def oai():
    """``oai(srv, key="sk-test", timeout=10)`` -> an ``openai.OpenAI`` without retries."""
    made: list[openai.OpenAI] = []

    def make(srv, key: str = "sk-test", timeout: float = 10.0, max_retries: int = 0):
        made.append(
            openai.OpenAI(
                base_url=srv.base_url, api_key=key, max_retries=max_retries, timeout=timeout
            )
        )
        return made[-1]

    yield make
    for c in made:
        c.close()


@pytest.fixture
async def aoai():
    """The async twin of :func:`oai`."""
    made: list[openai.AsyncOpenAI] = []

    def make(srv, key: str = "sk-test", timeout: float = 10.0, max_retries: int = 0):
        made.append(
            openai.AsyncOpenAI(
                base_url=srv.base_url, api_key=key, max_retries=max_retries, timeout=timeout
            )
        )
        return made[-1]

    yield make
    for c in made:
        await c.close()


@pytest.fixture
def chat():
    """``chat(srv, **options)`` -> a ``ChatOpenAI`` on the server (no retries, 5 s timeout).

    Its OpenAI clients (its own) are closed after the test: langchain-openai 0.2 makes new
    ones per model and never closes them, which ``filterwarnings=error`` reports as a leak.
    """
    from langchain_openai import ChatOpenAI

    made: list[ChatOpenAI] = []

    def make(srv, **options) -> ChatOpenAI:
        options = {"max_retries": 0, "timeout": 5, "model": "gpt-4o-mini", **options}
        # Clients of its own: langchain-openai 1.x shares a cached one per base URL and
        # timeout, which closing would break for a later test whose server reuses the port.
        options.setdefault("http_client", openai.DefaultHttpxClient())
        options.setdefault("http_async_client", openai.DefaultAsyncHttpxClient())
        made.append(ChatOpenAI(base_url=srv.base_url, api_key="sk-test", **options))
        return made[-1]

    yield make
    for model in made:
        model.root_client.close()


@pytest.fixture
async def achat(chat):
    """The async twin of :func:`chat`: also closes the async clients."""
    made = []

    def make(srv, **options):
        made.append(chat(srv, **options))
        return made[-1]

    yield make
    for model in made:
        await model.root_async_client.close()
