"""``time_budget`` holds inside a model call, and ``Retry-After`` is never cut short.

Over real HTTP against the simulated server: a 429 asking for more time than the
budget has left, a server that never answers, a backoff longer than the budget,
a ``Retry-After`` past ``max_retry_after``. Runs that run out of time stop with
``budget`` within a generous bound of the budget (the bound is a property of the
mechanism, not a speed target: the measured overshoot is in docs/reliability.md).
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from langchain_core.tools import tool
from rel_support import act, chat_model, run_over_http

from lcel_agent import ErrorClass, StopReason, create_agent
from lcel_agent.cli import EXIT_CODES, main
from lcel_agent.testing.faults import Fault, FaultSpec
from lcel_agent.testing.server import SimulatedOpenAIServer

# Async attempts cancelled mid-request leave their sockets to the garbage collector on
# the pinned stack: collect them here, not in whichever test runs next.
pytestmark = pytest.mark.usefixtures("closes_async_clients")

KEY = "sk-test-deadline-0000"
MODES = ["sync", "async"]
#: How far past its budget a run may end: the issue's bound, far above what it takes.
SLACK = 1.5


@tool
def probe(city: str) -> str:
    """查询城市实时天气，城市名称必须是中文，例如'北京'"""
    return f"{city}市天气：晴"


def _run(mode: str, script: list[Any], *, hang: float = 10.0, **options: Any) -> Any:
    with SimulatedOpenAIServer(script, require_key=KEY, hang_seconds=hang) as srv:
        llm = chat_model(srv.base_url, KEY)
        agent = create_agent(llm, [probe], **options)
        started = time.monotonic()
        result = run_over_http(mode, agent, llm)
        return result, time.monotonic() - started, srv.chat_requests


def _stopped_for_budget(result: Any) -> None:
    assert result.stop_reason is StopReason.BUDGET
    # With a result in hand it is delivered, marked incomplete (issue 41); else no output.
    if any(o.ok for s in result.steps for o in s.observations):
        assert result.answer.source == "results" and result.answer.complete is False
        assert result.output.startswith("probe(")
    else:
        assert result.output is None
    assert result.error.stage == "call_llm" and result.error.error_class is ErrorClass.LIMIT
    assert result.error.message.startswith("time_budget=")


@pytest.mark.parametrize("mode", MODES)
def test_a_retry_after_longer_than_the_budget_left_stops_at_once(mode: str) -> None:
    script = [act("probe", "北京"), FaultSpec(Fault.RATE_LIMIT, retry_after=6), "never"]
    result, elapsed, requests = _run(mode, script, time_budget=2.0)
    _stopped_for_budget(result)
    assert "the server asked to retry after 6 s" in result.error.message
    assert "RateLimitError" in result.error.message
    assert len(requests) == 2 and result.loops == 2
    assert elapsed < 2.0 + SLACK  # before: 6 s of waiting, then an llm_error


@pytest.mark.parametrize("mode", MODES)
def test_a_server_that_never_answers_is_cut_at_the_budget(mode: str) -> None:
    result, elapsed, requests = _run(mode, [Fault.HANG, "never"], time_budget=1.0, llm_timeout=5.0)
    _stopped_for_budget(result)
    assert "did not finish within" in result.error.message
    assert 1.0 <= elapsed < 1.0 + SLACK  # the attempt's 5 s were cut to the budget
    assert len(requests) == 1 and result.loops == 1 and result.error.step == 1


@pytest.mark.parametrize("mode", MODES)
def test_a_backoff_longer_than_the_budget_left_stops_at_once(mode: str) -> None:
    result, elapsed, requests = _run(
        mode, [Fault.SERVER_ERROR, "never"], time_budget=1.0, llm_backoff=(5.0, 5.0)
    )
    _stopped_for_budget(result)
    assert "backoff" in result.error.message and len(requests) == 1
    assert elapsed < 1.0 + SLACK


@pytest.mark.parametrize("mode", MODES)
def test_retries_stop_at_the_budget(mode: str) -> None:
    script = [Fault.UNAVAILABLE] * 30
    result, elapsed, requests = _run(
        mode, script, time_budget=1.0, llm_retries=30, llm_backoff=(0.2, 0.2)
    )
    _stopped_for_budget(result)
    assert 2 <= len(requests) < 30
    assert elapsed < 1.0 + SLACK


@pytest.mark.parametrize("mode", MODES)
def test_a_retry_after_past_the_cap_fails_with_the_servers_wait(mode: str) -> None:
    script = [FaultSpec(Fault.RATE_LIMIT, retry_after=75), act("final", "too early")]
    result, elapsed, requests = _run(mode, script)
    assert result.stop_reason is StopReason.LLM_ERROR and result.output is None
    assert "retry after 75 s, more than max_retry_after=60 s" in result.error.message
    assert len(requests) == 1  # not retried early
    assert elapsed < 5.0


@pytest.mark.parametrize("mode", MODES)
def test_max_retry_after_is_an_option(mode: str) -> None:
    script = [FaultSpec(Fault.RATE_LIMIT, retry_after=0.4), act("final", "北京晴")]
    refused, _, _ = _run(mode, list(script), max_retry_after=0.2)
    assert refused.stop_reason is StopReason.LLM_ERROR
    assert "retry after 0.4 s, more than max_retry_after=0.2 s" in refused.error.message
    honoured, elapsed, requests = _run(mode, list(script), max_retry_after=1.0)
    assert honoured.stop_reason is StopReason.FINAL and len(requests) == 2
    assert elapsed >= 0.4  # the server's wait, not the backoff's


@pytest.mark.parametrize("value", [0, -1, float("nan")])
def test_max_retry_after_must_be_positive(value: float) -> None:
    from lcel_agent import ConfigurationError
    from lcel_agent.testing.fake import FunctionChatModel

    with pytest.raises(ConfigurationError, match="max_retry_after"):
        create_agent(FunctionChatModel(lambda m, t: "x"), [probe], max_retry_after=value)


def test_the_cli_keeps_to_its_time_budget(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    with SimulatedOpenAIServer([Fault.HANG, "never"], hang_seconds=20) as srv:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        started = time.monotonic()
        status = main(["run", "--time-budget", "2", "--timeout", "5", "--json", "查询北京天气"])
        elapsed = time.monotonic() - started
    assert status == EXIT_CODES[StopReason.BUDGET]
    assert '"stop_reason": "budget"' in capsys.readouterr().out
    assert elapsed < 2.0 + SLACK  # before: 17 s (three attempts of 5 s, and backoff)
