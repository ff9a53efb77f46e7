"""Secrets stay secret: OPENAI_API_KEY and AMAP_KEY over real HTTP, in every output.

The agent runs over loopback sockets: a ``ChatOpenAI`` against the simulated OpenAI
server and the real ``get_weather`` tool against the fake Amap server, which is
made to fail in the ways that leak keys (a dropped connection whose exception
quotes the URL with ``?key=``, a wrong-key answer, a 500). Then every place a key
could surface is searched: the result's JSON, the step records, DEBUG logs of
every logger (urllib3, openai, httpx included), callback traces, the messages of
exceptions, and every request body the model server received.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from rel_support import act, chat_model, run_over_http

from lcel_agent import AgentResult, StopReason, create_agent
from lcel_agent.testing.server import SimulatedOpenAIServer
from lcel_agent.testing.services import FakeAmapServer, use_services
from lcel_agent.tools import get_weather

OPENAI_KEY = "sk-reliability-openai-4f1c9a7e2b"
AMAP_KEY = "amap0reliability0secret0d81"
SECRETS = (OPENAI_KEY, AMAP_KEY)


class Recorder(BaseCallbackHandler):
    """Keeps ``repr`` of every argument of every callback: the whole trace as text."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def _keep(self, name: str, *args: Any, **kwargs: Any) -> None:
        self.events.append(f"{name} {args!r} {kwargs!r}")

    def on_chain_start(self, *a: Any, **k: Any) -> None:
        self._keep("chain_start", *a, **k)

    def on_chain_end(self, *a: Any, **k: Any) -> None:
        self._keep("chain_end", *a, **k)

    def on_chain_error(self, *a: Any, **k: Any) -> None:
        self._keep("chain_error", *a, **k)

    def on_chat_model_start(self, *a: Any, **k: Any) -> None:
        self._keep("chat_model_start", *a, **k)

    def on_llm_end(self, *a: Any, **k: Any) -> None:
        self._keep("llm_end", *a, **k)

    def on_llm_error(self, *a: Any, **k: Any) -> None:
        self._keep("llm_error", *a, **k)

    def on_tool_start(self, *a: Any, **k: Any) -> None:
        self._keep("tool_start", *a, **k)

    def on_tool_end(self, *a: Any, **k: Any) -> None:
        self._keep("tool_end", *a, **k)

    def on_tool_error(self, *a: Any, **k: Any) -> None:
        self._keep("tool_error", *a, **k)

    def on_retry(self, *a: Any, **k: Any) -> None:
        self._keep("retry", *a, **k)

    def on_text(self, *a: Any, run_id: UUID | None = None, **k: Any) -> None:
        self._keep("text", *a, **k)


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAmapServer]:
    """Set both keys in the environment; yield the fake Amap server (which knows AMAP_KEY)."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    with FakeAmapServer(key=AMAP_KEY) as amap, use_services(amap=amap):
        yield amap


def _leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def _script() -> list[str]:
    return [
        act("get_weather", "北京"),  # the connection drops: requests quotes the URL, key included
        act("get_weather", "上海"),  # the key is refused
        act("get_weather", "广州"),  # HTTP 500
        act("get_weather", "深圳"),  # works
        act("final", "深圳阵雨"),
    ]


def _check_everywhere(
    result: AgentResult, recorder: Recorder, caplog: pytest.LogCaptureFixture, srv: Any
) -> None:
    assert _leaks(json.dumps(result.to_dict(), ensure_ascii=False)) == []
    assert _leaks(repr(result.steps)) == []
    assert _leaks(str(result.error)) == []
    logs = "\n".join(f"{r.name} {r.getMessage()} {r.exc_text or ''}" for r in caplog.records)
    assert _leaks(logs) == []
    assert _leaks("\n".join(recorder.events)) == []
    bodies = [json.dumps(r.body, ensure_ascii=False) for r in srv.requests if r.body is not None]
    assert _leaks("\n".join(bodies)) == []


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_keys_never_leak_through_tool_failures(
    mode: str, keys: FakeAmapServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("urllib3", "openai", "httpx", "httpcore", "lcel_agent"):
        caplog.set_level(logging.DEBUG, logger=name)
    with SimulatedOpenAIServer(_script(), require_key=OPENAI_KEY) as srv:
        llm = chat_model(srv.base_url, None, timeout=5)
        agent = create_agent(llm, [get_weather], max_errors=5, llm_backoff=(0.0, 0.0))
        recorder = Recorder()
        _queue_amap_faults(keys)
        result = run_over_http(mode, agent, llm, "查询天气", {"callbacks": [recorder]})
    assert result.stop_reason is StopReason.FINAL, result.error
    failures = [o for s in result.steps for o in s.observations if not o.ok]
    assert failures  # the faults reached the model as failed observations
    assert len(keys.requests) >= 4  # and every queued fault was served
    assert caplog.records  # DEBUG logging was really on
    assert any(AMAP_KEY in str(r.query) for r in keys.requests)  # the key was really sent
    _check_everywhere(result, recorder, caplog, srv)


def _queue_amap_faults(amap: FakeAmapServer) -> None:
    amap.fail_next(1, "drop")
    amap.fail_next(1, "invalid_key")
    amap.fail_next(1, "error500")


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_refused_model_key_does_not_leak(
    mode: str, keys: FakeAmapServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with SimulatedOpenAIServer(_script(), require_key="sk-some-other-key-000000") as srv:
        llm = chat_model(srv.base_url, None, timeout=5)
        recorder = Recorder()
        result = run_over_http(
            mode, create_agent(llm, [get_weather]), llm, "查询天气", {"callbacks": [recorder]}
        )
    assert result.stop_reason is StopReason.LLM_ERROR
    assert result.error is not None and result.error.stage == "call_llm"
    _check_everywhere(result, recorder, caplog, srv)
