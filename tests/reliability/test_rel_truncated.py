"""A cut-off reply is never believed: never dispatched, never final, re-asked, counted.

Over real HTTP: ``ChatOpenAI`` (streaming and not) against the simulated server,
whose faults cut replies the way providers and broken proxies do: a stream that
ends inside the tool-call arguments (langchain repairs the partial JSON, so the
call *looks* whole), a ``finish_reason="length"`` reply whose text happens to
parse, a JSON list of actions cut at ``max_tokens``.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_openai import ChatOpenAI
from rel_support import Probe, act, chat_model, run_over_http

from lcel_agent import ErrorClass, StopReason, create_agent
from lcel_agent.stages.llm_reply import cut_off, reports_finish, token_limit
from lcel_agent.testing.fake import FunctionChatModel
from lcel_agent.testing.faults import Fault, FaultSpec
from lcel_agent.testing.policies import Reply
from lcel_agent.testing.server import SimulatedOpenAIServer
from lcel_agent.texts import TRUNCATED_REPROMPT

KEY = "sk-test-truncated-0000"
MODES = ["sync", "async"]


def _llm(srv: SimulatedOpenAIServer, **options: Any) -> ChatOpenAI:
    return chat_model(srv.base_url, KEY, timeout=5, **options)


def _run(mode: str, script: list[Any], *, llm_options: Any = None, **agent_options: Any) -> Any:
    probe = Probe()
    with SimulatedOpenAIServer(script, require_key=KEY) as srv:
        llm = _llm(srv, **(llm_options or {}))
        agent = create_agent(llm, [probe.tool], llm_backoff=(0.0, 0.0), **agent_options)
        result = run_over_http(mode, agent, llm)
        return result, probe.cities, srv.chat_requests


def _limit(body: dict[str, Any]) -> int | None:
    value = body.get("max_completion_tokens", body.get("max_tokens"))
    return value if isinstance(value, int) else None


def _last_user_text(request: Any) -> str:
    users = [m for m in request.messages if m["role"] in ("user", "tool")]
    return str(users[-1]["content"]) if users else ""


# --- tool calls cut inside their arguments ---------------------------------------------------


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "plain"])
@pytest.mark.parametrize("mode", MODES)
def test_a_call_cut_inside_its_arguments_never_runs(mode: str, streaming: bool) -> None:
    cut = FaultSpec(Fault.STREAM_CUT, reply={"name": "probe", "arguments": {"city": "旧金山湾区"}})
    script = [cut, {"name": "probe", "arguments": {"city": "北京"}}, "北京晴"]
    result, cities, requests = _run(
        mode, script, llm_options={"streaming": streaming}, protocol="tool_calling"
    )
    assert cities == ["北京"]  # never a repaired half argument
    assert result.stop_reason is StopReason.FINAL and result.output == "北京晴"
    first = result.steps[0]
    assert first.error_class is ErrorClass.TRUNCATED and first.observations == ()
    assert "without a finish reason" in first.error.message
    assert TRUNCATED_REPROMPT in _last_user_text(requests[1])
    assert [r.status for r in requests] == [200, 200, 200] and result.loops == 3


# --- answers cut at the length limit ---------------------------------------------------------


@pytest.mark.parametrize("streaming", [True, False], ids=["streamed", "plain"])
@pytest.mark.parametrize("protocol", ["json", "tool_calling"])
@pytest.mark.parametrize("mode", MODES)
def test_a_cut_off_answer_is_never_final(mode: str, protocol: str, streaming: bool) -> None:
    # The cut text even parses as an answer: only the finish reason tells it is not whole.
    said = act("final", "巴黎晴") if protocol == "json" else "巴黎晴，气温"
    whole = act("final", "北京晴") if protocol == "json" else "北京晴"
    script = [Reply(content=said, finish_reason="length"), whole]
    result, _, requests = _run(
        mode, script, llm_options={"streaming": streaming}, protocol=protocol
    )
    assert result.stop_reason is StopReason.FINAL and result.output == "北京晴"
    assert result.steps[0].error_class is ErrorClass.TRUNCATED
    assert result.steps[0].actions == ()
    assert "finish reason 'length'" in result.steps[0].error.message
    assert TRUNCATED_REPROMPT in _last_user_text(requests[1])


@pytest.mark.parametrize("mode", MODES)
def test_the_reask_binds_twice_the_max_tokens(mode: str) -> None:
    script = [Reply(content=act("final", "巴黎"), finish_reason="length"), act("final", "北京晴")]
    result, _, requests = _run(mode, script, llm_options={"max_tokens": 40})
    assert result.stop_reason is StopReason.FINAL
    assert [_limit(r.body) for r in requests] == [40, 80]


@pytest.mark.parametrize("mode", MODES)
def test_without_a_max_tokens_the_reask_only_asks_for_shorter(mode: str) -> None:
    script = [Reply(content="北京", finish_reason="length"), act("final", "北京晴")]
    result, _, requests = _run(mode, script)
    assert result.stop_reason is StopReason.FINAL
    assert [_limit(r.body) for r in requests] == [None, None]
    assert TRUNCATED_REPROMPT in _last_user_text(requests[1])


@pytest.mark.parametrize("mode", MODES)
def test_a_parallel_list_cut_at_max_tokens_runs_nothing(mode: str) -> None:
    both = "[" + act("probe", "北京") + ", " + act("probe", "上海") + "]"
    # max_tokens cuts the list inside its second action; the re-ask has room for all of it.
    script = [both, both, act("final", "北京晴，上海晴")]
    result, cities, requests = _run(mode, script, llm_options={"max_tokens": 24})
    assert requests[0].reply.finish == "length"  # the server really cut the first list
    assert result.steps[0].error_class is ErrorClass.TRUNCATED
    assert result.steps[0].observations == ()
    assert sorted(cities) == ["上海", "北京"]  # both ran (concurrently), on the re-ask only
    assert [_limit(r.body) for r in requests] == [24, 48, 24]
    assert result.stop_reason is StopReason.FINAL


@pytest.mark.parametrize("mode", MODES)
def test_cut_off_replies_count_toward_the_breaker(mode: str) -> None:
    cut = Reply(content=act("final", "巴黎"), finish_reason="length")
    result, _, requests = _run(mode, [cut, cut, act("final", "never read")], max_errors=2)
    assert result.stop_reason is StopReason.MAX_ERRORS and result.output is None
    assert [s.error_class for s in result.steps] == [ErrorClass.TRUNCATED] * 2
    assert result.error.error_class is ErrorClass.TRUNCATED and len(requests) == 2


@pytest.mark.parametrize("mode", MODES)
def test_a_stop_policy_ends_the_run_at_the_first_cut(mode: str) -> None:
    cut = Reply(content="北京", finish_reason="length")
    result, _, requests = _run(
        mode, [cut, act("final", "x")], policies={ErrorClass.TRUNCATED: "stop"}
    )
    assert result.stop_reason is StopReason.MAX_ERRORS and len(requests) == 1


@pytest.mark.parametrize("mode", MODES)
def test_a_larger_max_tokens_the_model_refuses_is_dropped_in_the_same_loop(mode: str) -> None:
    refused = FaultSpec(Fault.BAD_REQUEST, message="max_tokens is too large: 80")
    script = [Reply(content="北京", finish_reason="length"), refused, act("final", "北京晴")]
    result, _, requests = _run(mode, script, llm_options={"max_tokens": 40})
    assert result.stop_reason is StopReason.FINAL and result.loops == 2
    assert [(r.status, _limit(r.body)) for r in requests] == [(200, 40), (400, 80), (200, 40)]


@pytest.mark.parametrize("mode", MODES)
def test_a_cut_off_answer_on_the_reserved_last_loop_is_no_answer(mode: str) -> None:
    script = [act("probe", "北京"), Reply(content=act("final", "北京晴"), finish_reason="length")]
    result, _, _ = _run(mode, script, max_loops=2, reserve_final_answer=True)
    assert result.stop_reason is StopReason.MAX_LOOPS and result.output is None
    assert "truncated" in result.error.message


# --- the rules, in process ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("meta", "expects", "cut"),
    [
        ({"finish_reason": "stop"}, True, False),
        ({"finish_reason": "tool_calls"}, True, False),
        ({"finish_reason": "length"}, False, True),
        ({"finish_reason": None}, True, True),  # a null finish reason from OpenAI
        ({}, True, True),  # a stream that ended early
        ({}, False, False),  # a model that never reports one
        ({"stop_reason": "max_tokens"}, False, True),  # Anthropic
        ({"stop_reason": "end_turn"}, True, False),
        ({"done_reason": "length"}, False, True),  # Ollama
        ({"finish_reason": "MAX_TOKENS"}, False, True),  # Gemini
        ({"status": "completed", "model_name": "gpt-4o"}, True, False),  # Responses API
        (
            {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
            True,
            True,
        ),
    ],
)
def test_cut_off_reads_every_providers_finish_reason(meta: Any, expects: bool, cut: bool) -> None:
    assert (cut_off(AIMessage(content="x", response_metadata=meta), expects) is not None) is cut


def test_which_models_report_a_finish_reason_and_their_output_limit() -> None:
    openai_model = chat_model(None, KEY, max_tokens=100)
    fake = FunctionChatModel(lambda m, t: "x")
    assert reports_finish(openai_model)
    assert reports_finish(openai_model.bind_tools([Probe().tool]).with_retry())
    assert not reports_finish(fake)
    assert not reports_finish(openai_model.with_fallbacks([fake]))  # the fake would be misread
    assert token_limit(openai_model) == ("max_tokens", 100)
    assert token_limit(openai_model.bind(max_tokens=7)) == ("max_tokens", 7)
    assert token_limit(openai_model.with_fallbacks([fake])) == ("max_tokens", 100)
    assert token_limit(fake) is None
    openai_model.root_client.close()


@pytest.mark.parametrize("reason", [{"finish_reason": "length"}, {"stop_reason": "max_tokens"}])
def test_an_in_process_model_cut_off_is_truncated_too(run: Any, reason: Any) -> None:
    replies = iter(
        [AIMessage(content=act("final", "巴黎"), response_metadata=reason), act("final", "北京晴")]
    )
    model = FunctionChatModel(lambda messages, tools: next(replies))
    result = run(create_agent(model, [Probe().tool]))
    assert result.stop_reason is StopReason.FINAL and result.output == "北京晴"
    assert result.steps[0].error_class is ErrorClass.TRUNCATED
