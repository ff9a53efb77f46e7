"""Model API failures: transient ones retried inside one loop, fatal ones stop at once."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

from lcel_agent import ErrorClass, StopReason, create_agent
from lcel_agent.stages.llm_errors import backoff_wait, classify_model_error
from lcel_agent.testing.fake import APIStatusFault, FunctionChatModel, ScriptedChatModel

FAST = {"llm_backoff": (0.0, 0.0)}


def test_transient_errors_are_retried_and_do_not_count_as_loops(run, weather, act):
    llm = ScriptedChatModel(
        [APIStatusFault(429, retry_after=0), APIStatusFault(503), act("final", "ok")]
    )
    result = run(create_agent(llm, [weather], llm_retries=3, **FAST))
    assert result.stop_reason is StopReason.FINAL
    assert result.loops == 1 and len(llm.calls) == 3


def test_the_backoff_doubles_with_up_to_its_first_wait_of_jitter_and_stops_at_its_maximum():
    wait = backoff_wait(0.5, 8.0)
    for attempt, low in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0)]:
        seconds = [wait(SimpleNamespace(attempt_number=attempt)) for _ in range(50)]
        assert all(low <= s <= low + 0.5 for s in seconds), (attempt, seconds)
    assert wait(SimpleNamespace(attempt_number=6)) == 8.0
    assert wait(SimpleNamespace(attempt_number=5000)) == 8.0  # no overflow
    assert backoff_wait(0.0, 0.0)(SimpleNamespace(attempt_number=3)) == 0.0


def test_retry_after_is_honoured(run, weather, act):
    llm = ScriptedChatModel([APIStatusFault(429, retry_after=0.3), act("final", "ok")])
    started = time.monotonic()
    result = run(create_agent(llm, [weather], **FAST))
    assert result.stop_reason is StopReason.FINAL
    assert time.monotonic() - started >= 0.3  # the backoff alone would have waited 0 s


def test_exhausted_retries_stop_with_llm_error(run, weather):
    llm = ScriptedChatModel([APIStatusFault(500, "upstream down")] * 5)
    result = run(create_agent(llm, [weather], llm_retries=3, **FAST))
    assert result.stop_reason is StopReason.LLM_ERROR
    assert len(llm.calls) == 3 and result.loops == 1
    assert result.error.error_class is ErrorClass.LLM_TRANSIENT
    assert result.error.stage == "call_llm" and "3 attempt" in result.error.message


def test_fatal_error_stops_at_once(run, weather):
    llm = ScriptedChatModel([APIStatusFault(401, "invalid api key sk-abcdefghijklmnop")] * 3)
    result = run(create_agent(llm, [weather], **FAST))
    assert result.stop_reason is StopReason.LLM_ERROR
    assert len(llm.calls) == 1
    assert result.error.error_class is ErrorClass.LLM_FATAL and "401" in result.error.message
    assert "abcdefghijklmnop" not in result.error.message


def test_context_too_long_with_nothing_to_trim_stops_at_once(run, weather):
    seen = []

    def model(messages, tools):
        seen.append(len(messages))
        return APIStatusFault(400, "This model's maximum context length is 128 tokens")

    result = run(create_agent(FunctionChatModel(model), [weather], **FAST))
    # The window holds only the system prompt and the task: an identical retry would be wasted.
    assert result.stop_reason is StopReason.LLM_ERROR and len(seen) == 1 and result.loops == 1
    assert result.error.error_class is ErrorClass.LLM_FATAL
    assert "cannot be made smaller" in result.error.message


def test_a_hung_model_times_out_and_is_retried(run, weather, act):
    state = {"n": 0}

    def model(messages, tools):
        state["n"] += 1
        if state["n"] == 1:
            time.sleep(1.0)
        return act("final", "ok")

    result = run(create_agent(FunctionChatModel(model), [weather], llm_timeout=0.2, **FAST))
    assert result.stop_reason is StopReason.FINAL and state["n"] == 2 and result.loops == 1


def test_classification_table():
    import openai

    assert classify_model_error(TimeoutError()).transient
    assert classify_model_error(ConnectionResetError()).transient
    assert not classify_model_error(ValueError("bad")).transient
    # A response the client could not decode is a glitch on the wire, like a dropped connection,
    # even when the client hangs the 200 it came with on the exception.
    broken = json.JSONDecodeError("Expecting ',' delimiter", '{"id": "x", "ch', 14)
    assert classify_model_error(broken).transient
    broken.response = type("Response", (), {"status_code": 200, "headers": {}})()  # type: ignore[attr-defined]
    assert classify_model_error(broken).transient
    assert classify_model_error(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad")).transient
    for status, transient in (
        (408, True),
        (409, True),
        (429, True),
        (500, True),
        (503, True),
        (400, False),
        (401, False),
        (403, False),
        (404, False),
        (422, False),
    ):
        assert classify_model_error(APIStatusFault(status)).transient is transient, status
    assert classify_model_error(openai.APIConnectionError(request=_request())).transient
    assert classify_model_error(openai.APITimeoutError(request=_request())).transient


def _request():
    import httpx

    return httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
