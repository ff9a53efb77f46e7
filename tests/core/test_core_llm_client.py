"""Which model clients an owner may close: its own, never langchain-openai's shared one."""

from __future__ import annotations

from typing import Any

import openai
from langchain_openai import ChatOpenAI

from lcel_agent.stages.llm_client import is_own_client

# Nothing listens here and nothing is sent: building a model opens no connection.
ENDPOINT = "http://127.0.0.1:9/v1"


def _model(**options: Any) -> ChatOpenAI:
    return ChatOpenAI(base_url=ENDPOINT, api_key="sk-test", model="gpt-4o-mini", **options)


def test_a_client_the_model_was_given_is_its_own() -> None:
    model = _model(http_client=openai.DefaultHttpxClient())
    try:
        assert is_own_client(model.root_client)
    finally:
        model.root_client.close()


def test_the_default_client_is_own_exactly_when_no_other_model_shares_it() -> None:
    # langchain-openai 1.x hands both models one cached client (closing it would break the
    # other); 0.2 lets each openai client open its own. The answer must follow the stack.
    first, second = _model(timeout=7.0), _model(timeout=7.0)
    shared = first.root_client._client is second.root_client._client
    assert is_own_client(first.root_client) is not shared
    assert is_own_client(second.root_client) is not shared


def test_no_client_is_nothing_to_close() -> None:
    assert not is_own_client(None)
