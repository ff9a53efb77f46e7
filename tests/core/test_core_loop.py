"""The loop's contract: answers, exact loop bound, breaker, drift, re-prompts, budgets."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage

from lcel_agent import (
    ErrorClass,
    Policy,
    SlidingWindowMemory,
    StopReason,
    create_agent,
    run_agent,
)
from lcel_agent.testing.fake import FunctionChatModel, ScriptedChatModel
from lcel_agent.texts import FORMAT_REPROMPT


def test_answer_after_a_tool_call(run, weather, calls, act):
    llm = ScriptedChatModel([act("get_weather", "北京"), act("final", "北京晴，25℃")])
    result = run(create_agent(llm, [weather]))
    assert result.stop_reason is StopReason.FINAL
    assert result.output == "北京晴，25℃"
    assert result.loops == 2 and len(result.steps) == 2
    assert calls.items == [("get_weather", "北京")]
    assert result.steps[0].observations[0].output.startswith("北京市天气")
    assert result.usage.total_tokens == sum(s.usage.total_tokens for s in result.steps) > 0
    assert result.error is None and result.input == "查询北京天气"


def test_input_forms(run, weather, act):
    for task in ("查询北京天气", {"input": "查询北京天气"}, HumanMessage(content="查询北京天气")):
        llm = ScriptedChatModel([act("final", "ok")])
        assert run(create_agent(llm, [weather]), task).input == "查询北京天气"


def test_max_loops_is_exact_when_the_model_never_answers(run, weather, act):
    cities = iter(f"城{i}" for i in range(100))
    llm = FunctionChatModel(lambda messages, tools: act("get_weather", next(cities)))
    result = run(create_agent(llm, [weather], max_loops=4))
    assert result.stop_reason is StopReason.MAX_LOOPS
    assert result.loops == 4 and len(llm.calls) == 4
    assert result.error is not None and result.error.error_class is ErrorClass.LIMIT
    assert "max_loops=4" in result.error.message


def test_max_loops_is_exact_on_every_error_path(run, weather, act):
    replies = [
        '{"not json',  # an unreadable attempt (a reply in words would be the answer)
        act("nope", "x"),
        act("get_weather", "火星"),
        act("get_weather", "爆炸"),
    ] * 5
    llm = ScriptedChatModel(replies)
    result = run(create_agent(llm, [weather], max_loops=7, max_errors=100))
    assert result.loops == 7 and len(llm.calls) == 7
    assert result.stop_reason is StopReason.MAX_LOOPS


def test_the_same_failure_max_errors_times_stops_the_run(run, weather, act):
    # An unreadable attempt at JSON (a reply in words would be the answer: issue 34).
    llm = ScriptedChatModel(['{"garbage', '{"garbage', act("final", "never reached")])
    result = run(create_agent(llm, [weather], max_errors=2))
    assert result.stop_reason is StopReason.MAX_ERRORS
    assert result.loops == 2 and result.output is None
    assert result.error is not None and "the same failure 2 times" in result.error.message
    assert (result.error.step, result.error.stage, result.error.error_class) == (
        2,
        "clean_json",
        ErrorClass.FORMAT,
    )


def test_unrelated_slips_in_a_row_do_not_stop_a_run(run, weather, act):
    llm = ScriptedChatModel(['{"garbage', act("get_wether", "北京"), act("final", "晴")])
    result = run(create_agent(llm, [weather], max_errors=2))
    assert result.stop_reason is StopReason.FINAL and result.loops == 3
    assert [s.error_class for s in result.steps] == [
        ErrorClass.FORMAT,
        ErrorClass.UNKNOWN_TOOL,
        None,
    ]


def test_a_run_without_progress_stops_after_twice_max_errors_loops(run, weather, act):
    slips = iter(['{"garbage', act("nope", "x"), '{"more garbage', act("nope", "y")] * 3)
    llm = FunctionChatModel(lambda messages, tools: next(slips))
    result = run(create_agent(llm, [weather], max_errors=2, max_loops=20))
    assert result.stop_reason is StopReason.MAX_ERRORS
    assert result.loops == 4
    assert "4 loops in a row without progress" in result.error.message


def test_after_progress_the_same_failure_gets_one_more_try(run, weather, act):
    recovers = ScriptedChatModel(
        [act("get_weather", "北京"), "{garbage", "{garbage", act("final", "北京晴")]
    )
    assert run(create_agent(recovers, [weather])).stop_reason is StopReason.FINAL
    stuck = ScriptedChatModel([act("get_weather", "北京"), *["{garbage"] * 5])
    result = run(create_agent(stuck, [weather]))
    assert result.stop_reason is StopReason.MAX_ERRORS and result.loops == 4
    assert (result.error.step, result.error.stage, result.error.error_class) == (
        4,
        "clean_json",
        ErrorClass.FORMAT,
    )


def test_a_success_resets_the_breaker(run, weather, act):
    replies = []
    for i in range(4):
        replies += ["{garbage", act("get_weather", f"城{i}")]
    llm = ScriptedChatModel([*replies, act("final", "done")])
    result = run(create_agent(llm, [weather], max_errors=2, max_loops=20))
    assert result.stop_reason is StopReason.FINAL and result.loops == 9


def test_format_error_reprompts_without_the_parser_message(run, weather, act):
    llm = ScriptedChatModel(['{"action": "get_weather", "action_input": ', act("final", "ok")])
    result = run(create_agent(llm, [weather]))
    assert result.stop_reason is StopReason.FINAL
    second_prompt = llm.calls[1]
    assert second_prompt[-1].content == FORMAT_REPROMPT
    text = "\n".join(str(m.content) for m in second_prompt)
    assert "Expecting" not in text and "no JSON" not in text
    assert result.steps[0].error_class is ErrorClass.FORMAT


def test_unknown_tool_lists_tools_and_suggests(run, weather, search, act):
    llm = ScriptedChatModel([act("get_wether", "北京"), act("final", "ok")])
    result = run(create_agent(llm, [weather, search]))
    notice = result.steps[0].observations[0]
    assert notice.error_class is ErrorClass.UNKNOWN_TOOL
    assert "did you mean 'get_weather'" in notice.output.lower()
    assert "get_weather, search_baidu" in notice.output
    assert result.stop_reason is StopReason.FINAL


def test_dict_input_is_coerced_for_a_string_tool(run, weather, calls, act):
    llm = ScriptedChatModel([act("get_weather", {"action_input": "上海"}), act("final", "ok")])
    result = run(create_agent(llm, [weather]))
    assert calls.items == [("get_weather", "上海")]
    assert result.steps[0].observations[0].ok


def test_tool_errors_are_classified_not_fatal(run, weather, act):
    llm = ScriptedChatModel(
        [act("get_weather", "火星"), act("get_weather", "爆炸"), act("final", "sorry")]
    )
    result = run(create_agent(llm, [weather], max_errors=3))
    assert [s.error_class for s in result.steps] == [
        ErrorClass.TOOL_FAILURE,
        ErrorClass.TOOL_FAILURE,
        None,
    ]
    assert "boom" in result.steps[1].observations[0].output
    assert "try another way" in result.steps[0].observations[0].output.lower()
    assert result.stop_reason is StopReason.FINAL


def test_drift_after_failure_nudges_once_then_stops(run, weather, calls, act):
    llm = ScriptedChatModel([act("get_weather", "火星")] * 5)
    result = run(create_agent(llm, [weather], max_errors=10))
    assert result.stop_reason is StopReason.DRIFT
    assert result.loops == 3
    assert calls.items == [("get_weather", "火星")]  # the repeats were never run
    assert result.steps[1].error_class is ErrorClass.DRIFT
    assert "already made the call get_weather" in llm.calls[2][-1].content
    assert result.error is not None and result.error.error_class is ErrorClass.DRIFT


def test_repeating_a_success_whose_result_is_in_memory_is_drift(run, weather, calls, act):
    llm = ScriptedChatModel(
        [act("get_weather", "北京"), act("get_weather", "北京"), act("final", "北京晴")]
    )
    result = run(create_agent(llm, [weather], max_errors=3))
    assert calls.items == [("get_weather", "北京")]
    assert result.steps[1].error_class is ErrorClass.DRIFT
    assert result.stop_reason is StopReason.FINAL


def test_oscillation_is_drift(run, weather, search, act):
    llm = ScriptedChatModel([act("get_weather", "北京"), act("search_baidu", "台风")] * 4)
    result = run(create_agent(llm, [weather, search], max_errors=10, max_loops=10))
    assert result.stop_reason is StopReason.DRIFT
    # Loop 3 runs 北京 again (the search succeeded since: the world may have changed); loop 4
    # completes A, B, A, B and is nudged, loop 5 drifts again. Loops 6 and 7: the answer
    # stage asked twice for the answer from the two results (the script only acts), so the
    # drift stands, with no output: the note says why.
    assert [s.error_class for s in result.steps[:5]] == [
        None,
        None,
        None,
        ErrorClass.DRIFT,
        ErrorClass.DRIFT,
    ]
    assert result.loops == 7 and [s.kind for s in result.steps[5:]] == ["answer", "answer"]
    assert result.output is None and "not answers in words" in result.answer.note


def test_token_budget_stops_with_budget(run, weather, act):
    cities = iter(f"城{i}" for i in range(100))
    llm = FunctionChatModel(lambda messages, tools: act("get_weather", next(cities)))
    result = run(create_agent(llm, [weather], token_budget=600, max_loops=50))
    assert result.stop_reason is StopReason.BUDGET
    assert result.usage.total_tokens >= 600
    assert result.usage.total_tokens - result.steps[-1].usage.total_tokens < 600
    assert "token_budget" in result.error.message


def test_time_budget_stops_with_budget(run, weather, act):
    import time

    def slow(messages, tools):
        time.sleep(0.05)
        return act("get_weather", f"城{len(messages)}")

    result = run(create_agent(FunctionChatModel(slow), [weather], time_budget=0.12, max_loops=50))
    assert result.stop_reason is StopReason.BUDGET and 1 <= result.loops < 50
    assert result.elapsed_s >= 0.12 and "time_budget" in result.error.message


def test_run_agent_returns_the_articles_strings(weather, act):
    assert run_agent("q", ScriptedChatModel([act("final", "答案")]), [weather]) == "答案"
    looping = FunctionChatModel(lambda m, t: act("get_weather", f"城{len(m)}"))
    assert (
        run_agent("q", looping, [weather], max_loops=2) == "ERROR: 达到最大循环次数2次，未完成任务"
    )
    failing = run_agent("q", ScriptedChatModel(['{"x', '{"x']), [weather])
    assert failing.startswith("ERROR: 连续2次错误")


def test_memory_template_is_not_shared_between_runs(weather, act):
    from lcel_agent import SlidingWindowMemory

    template = SlidingWindowMemory(max_tokens=800)
    agent = create_agent(
        FunctionChatModel(lambda m, t: act("final", m[1].content)), [weather], memory=template
    )
    first, second = agent.invoke("任务一"), agent.invoke("任务二")
    assert (first.output, second.output) == ("任务一", "任务二")
    assert template.messages == [] and len(second.messages) == 3


def test_final_answer_object_becomes_json_text(run, weather, act):
    result = run(create_agent(ScriptedChatModel([act("final", {"北京": "晴"})]), [weather]))
    assert json.loads(result.output) == {"北京": "晴"}


def test_one_repeat_of_a_timed_out_call_is_a_retry_not_drift(run, act):
    import time as _time

    from langchain_core.tools import tool

    state = {"n": 0}

    @tool
    def get_weather(city: str) -> str:
        """Slow the first time."""
        state["n"] += 1
        if state["n"] == 1:
            _time.sleep(0.5)
        return f"{city}市天气：晴"

    llm = ScriptedChatModel(
        [act("get_weather", "北京"), act("get_weather", "北京"), act("final", "晴")]
    )
    result = run(create_agent(llm, [get_weather], tool_timeout=0.1, max_errors=2))
    assert [s.error_class for s in result.steps] == [ErrorClass.TOOL_TIMEOUT, None, None]
    assert result.stop_reason is StopReason.FINAL


def test_format_error_messages_are_redacted(run, weather, act, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value-123456")
    llm = ScriptedChatModel(['{"action": "my key is sk-secret-value-123456'] * 2)
    result = run(create_agent(llm, [weather]))
    assert result.stop_reason is StopReason.MAX_ERRORS
    assert "sk-secret-value-123456" not in str(result.to_dict())
    assert "troubleshooting" not in result.error.message.lower()


def test_transient_stop_policy_means_no_retries(run, weather):
    from lcel_agent.testing.fake import APIStatusFault

    llm = ScriptedChatModel([APIStatusFault(503)] * 3)
    result = run(create_agent(llm, [weather], policies={ErrorClass.LLM_TRANSIENT: Policy.STOP}))
    assert result.stop_reason is StopReason.LLM_ERROR and len(llm.calls) == 1


def test_one_repeat_of_a_failed_idempotent_call_is_a_retry(run, act):
    from langchain_core.tools import tool

    state = {"n": 0}

    @tool
    def get_weather(city: str) -> str:
        """Fails the first time, as a flaky service does."""
        state["n"] += 1
        return "ERROR: upstream busy" if state["n"] == 1 else f"{city}市天气：晴"

    get_weather.metadata = {"idempotent": True}
    llm = ScriptedChatModel([act("get_weather", "北京")] * 2 + [act("final", "晴")])
    result = run(create_agent(llm, [get_weather], max_errors=2))
    assert [s.error_class for s in result.steps] == [ErrorClass.TOOL_FAILURE, None, None]
    assert result.stop_reason is StopReason.FINAL and state["n"] == 2


def test_a_transient_failure_is_retried_once_without_a_model_call(run, act):
    from langchain_core.tools import tool

    from lcel_agent.tools import TransientError

    state = {"n": 0, "failure": TransientError("ERROR: upstream timed out")}

    @tool
    def get_weather(city: str) -> str:
        """Fails the first time."""
        state["n"] += 1
        return state["failure"] if state["n"] == 1 else f"{city}市天气：晴"

    def run_once(idempotent: bool):
        state["n"] = 0
        get_weather.metadata = {"idempotent": idempotent}
        llm = ScriptedChatModel([act("get_weather", "北京"), act("final", "晴")])
        return run(create_agent(llm, [get_weather]))

    result = run_once(idempotent=True)
    (observation,) = result.steps[0].observations
    assert observation.ok and observation.attempts == 2 and state["n"] == 2
    assert result.stop_reason is StopReason.FINAL and result.loops == 2
    # Not idempotent: never run twice unasked; the model hears of the failure.
    result = run_once(idempotent=False)
    assert result.steps[0].error_class is ErrorClass.TOOL_FAILURE and state["n"] == 1
    # A permanent failure ("no such city") is not retried either: it would fail again.
    state["failure"] = "ERROR: no such city"
    result = run_once(idempotent=True)
    assert result.steps[0].error_class is ErrorClass.TOOL_FAILURE and state["n"] == 1


def test_each_step_records_the_window_it_was_prompted_from(run, weather, act):
    llm = ScriptedChatModel([act("get_weather", "北京"), act("final", "晴")])
    result = run(create_agent(llm, [weather], memory=SlidingWindowMemory(max_tokens=600)))
    first, second = result.steps
    assert first.window_budget == second.window_budget == 600
    # The second prompt holds the first loop's turn too, so its window is larger.
    assert 0 < first.window_tokens < second.window_tokens <= 600


def test_a_stage_can_word_the_reprompt_with_a_notice(run, weather, act):
    from dataclasses import replace

    from langchain_core.runnables import RunnableLambda

    from lcel_agent.stages import ParseAction

    parse = ParseAction()

    def strict(state):
        state = parse.invoke(state)
        if state.actions and state.actions[0].is_final and state.loop_error is None:
            from lcel_agent import RunError

            error = RunError(state.loops, "parse_action", ErrorClass.FORMAT, "too long", "Shorter.")
            return replace(state, actions=(), loop_error=error)
        return state

    llm = ScriptedChatModel([act("final", "x" * 50), act("final", "x" * 50)])
    agent = create_agent(llm, [weather], stages={"parse_action": RunnableLambda(strict)})
    result = run(agent)
    assert result.stop_reason is StopReason.MAX_ERRORS
    second_prompt = llm.calls[1]
    assert "Shorter." in second_prompt[-1].content
    assert FORMAT_REPROMPT not in second_prompt[-1].content


def test_a_failed_call_beside_a_successful_one_is_shown_until_put_right(run, weather, act):
    both = json.dumps(
        [
            {"action": "get_weather", "action_input": "北京"},
            {"action": "get_wether", "action_input": "上海"},
        ],
        ensure_ascii=False,
    )
    llm = ScriptedChatModel([both, act("get_weather", "上海"), act("final", "晴")])
    result = run(create_agent(llm, [weather]))
    assert result.stop_reason is StopReason.FINAL
    second, third = llm.calls[1], llm.calls[2]
    assert "no tool named 'get_wether'" in str([m.content for m in second])
    # Once put right, the error is gone; the failed turn's fact stays as a digest line,
    # and the call that put it right is the newest turn, word for word.
    assert "get_wether" not in str([m.content for m in third])
    assert "北京市天气" in third[1].content and "上海市天气" in third[-1].content


@pytest.mark.parametrize("answer", ["model", "auto"])
def test_the_nudge_says_why_a_repeat_was_refused(run, weather, act, calls, answer):
    # One rule in every answer mode: the result is in view, and nothing ran since.
    why = "its result is already in the conversation"
    llm = ScriptedChatModel([act("get_weather", "北京")] * 3)
    result = run(create_agent(llm, [weather], max_errors=5, answer=answer))
    nudges = [s.observations[0].output for s in result.steps[1:] if s.kind == "act"]
    # The call succeeded: every nudge says its result is already there, never "it failed".
    assert nudges and all(why in n for n in nudges), nudges
    assert not any("already failed" in n for n in nudges)
    assert result.stop_reason is StopReason.DRIFT and calls.items == [("get_weather", "北京")]
    # A model that repeats itself has lost track: the nudge says the question again and
    # what is done, so it can see what is missing.
    assert "The question: 查询北京天气\nDone so far: get_weather(北京)." in nudges[0]
