"""An answer given while a tool has only failed is sent back once, with the failed calls.

On the 1.5B model, told by get_weather to write the city in Chinese, the model went on
to its search and then answered that the weather could not be found. Every test runs
through ``invoke`` and ``ainvoke`` (the ``run`` fixture).
"""

from __future__ import annotations

from langchain_core.tools import tool

from lcel_agent import ErrorClass, Policy, StopReason, create_agent
from lcel_agent.stages import ClassifyError
from lcel_agent.testing.fake import ScriptedChatModel
from lcel_agent.texts import GAVE_UP_NUDGE

ANSWER = "北京：晴，25℃"


@tool
def get_weather(city: str) -> str:
    """查询城市实时天气，城市名称必须是中文"""
    if city.isascii():
        return f"ERROR: {city!r} is not a Chinese city name: write it in Chinese, e.g. 北京"
    return f"{city}市天气：晴，温度25℃"


def test_the_answer_is_sent_back_once_with_the_failed_calls(run, act):
    llm = ScriptedChatModel(
        [
            act("get_weather", "beijing"),
            act("final", "北京的天气查不到"),
            act("get_weather", "北京"),
            act("final", ANSWER),
        ]
    )
    result = run(create_agent(llm, [get_weather]))
    assert result.stop_reason is StopReason.FINAL and result.output == ANSWER
    assert [s.error_class for s in result.steps] == [
        ErrorClass.TOOL_FAILURE,
        ErrorClass.TOOL_FAILURE,
        None,
        None,
    ]
    third = llm.calls[2]
    assert third[-2].content == act("final", "北京的天气查不到")  # its answer, whole
    assert third[-1].content == GAVE_UP_NUDGE.format(calls="get_weather(beijing)")


def test_a_second_answer_is_taken(run, act):
    llm = ScriptedChatModel([act("get_weather", "beijing"), *[act("final", "查不到")] * 3])
    result = run(create_agent(llm, [get_weather]))
    assert result.output == "查不到" and result.loops == 3


def test_a_tool_that_succeeded_once_is_not_asked_about(run, act):
    llm = ScriptedChatModel(
        [act("get_weather", "beijing"), act("get_weather", "北京"), act("final", ANSWER)]
    )
    result = run(create_agent(llm, [get_weather]))
    assert result.output == ANSWER and result.loops == 3


def test_a_refused_call_is_not_asked_about(run, act):
    llm = ScriptedChatModel([act("get_weather", "北京"), act("final", "没有查")])
    result = run(create_agent(llm, [get_weather], approve=lambda action: False))
    assert result.output == "没有查" and result.loops == 2


def test_not_on_the_last_loop(run, act):
    # Sent back there, the answer would be lost to max_loops.
    llm = ScriptedChatModel([act("get_weather", "beijing"), act("final", "查不到")])
    result = run(create_agent(llm, [get_weather], max_loops=2))
    assert result.stop_reason is StopReason.FINAL and result.output == "查不到"
    reserved = ScriptedChatModel([act("get_weather", "beijing"), act("final", "查不到")])
    agent = create_agent(reserved, [get_weather], max_loops=2, reserve_final_answer=True)
    assert run(agent).output == "查不到"


def test_not_when_tool_failures_do_not_reprompt(run, act):
    llm = ScriptedChatModel([act("get_weather", "beijing"), act("final", "查不到")])
    policies = {ErrorClass.TOOL_FAILURE: Policy.RETRY}
    result = run(create_agent(llm, [get_weather], policies=policies))
    assert result.output == "查不到" and result.loops == 2


def test_a_classify_stage_without_tools_never_sends_an_answer_back(run, act):
    llm = ScriptedChatModel([act("get_weather", "beijing"), act("final", "查不到")])
    result = run(create_agent(llm, [get_weather], stages={"classify_error": ClassifyError()}))
    assert result.output == "查不到" and result.loops == 2


def test_under_tool_calling_the_answer_is_shown_back_whole(run):
    from langchain_core.messages import AIMessage

    long_answer = "查不到。" * 60
    call = AIMessage(
        "", tool_calls=[{"name": "get_weather", "args": {"city": "beijing"}, "id": "c1"}]
    )
    llm = ScriptedChatModel([call, AIMessage(long_answer), AIMessage(ANSWER)])
    result = run(create_agent(llm, [get_weather], protocol="tool_calling"))
    assert result.output == ANSWER
    assert llm.calls[2][-2].content == long_answer
