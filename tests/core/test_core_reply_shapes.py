"""Replies as real models write them: read where the meaning is unambiguous, never completed.

Each shape here was written by a small open model (Qwen2.5-Coder 1.5B / 0.5B behind a
llama.cpp server) in the real-model benchmark. Every test runs through ``invoke`` and
``ainvoke`` (the ``run`` fixture).
"""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage

from lcel_agent import ErrorClass, SlidingWindowMemory, StopReason, create_agent
from lcel_agent.testing.fake import ScriptedChatModel
from lcel_agent.texts import FORMAT_REPROMPT, JSON_PLAN_NOTICE, PROSE_REPROMPT

FINAL = '{"action": "final", "action_input": "北京晴"}'


@pytest.mark.parametrize(
    ("reply", "city"),
    [
        # Python quotes.
        ("{'action': 'get_weather', 'action_input': '北京'}", "北京"),
        # A trailing comma.
        ('{"action": "get_weather", "action_input": "北京",}', "北京"),
        # A comment after the object.
        ('{"action": "get_weather", "action_input": "北京"} // 先查北京', "北京"),
        # The tool with its signature, as a prompt may list it.
        ('{"action": "get_weather(city)", "action_input": "北京"}', "北京"),
        # The input written inside the signature.
        ('{"action": "get_weather(\\"上海\\")"}', "上海"),
        # The chat APIs' shape, arguments as JSON text.
        ('{"name": "get_weather", "arguments": "{\\"city\\": \\"北京\\"}"}', "北京"),
        # The values written into the tool's schema, as shown to the model.
        (
            '{"name": "get_weather", "arguments": {"properties": {"city": "南京"}, '
            '"required": ["city"], "type": "object"}}',
            "南京",
        ),
        # The chat APIs' shape, arguments as an object, inside "function".
        (
            '{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "杭州"}}}',
            "杭州",
        ),
        # The name under "function", the arguments under "parameters".
        ('{"function": "get_weather", "parameters": {"city": "西安"}}', "西安"),
        # Arguments as an object, and inline beside the name.
        ('{"action": "get_weather", "action_input": {"city": "北京"}}', "北京"),
        ('{"action": "get_weather", "city": "南京"}', "南京"),
        # The outer brace forgotten, the reply ending on the inner one.
        ('```json\n{"action": "get_weather", "action_input": {"city": "成都"}\n```', "成都"),
        # Fenced, with prose around it.
        (
            '好的：\n```json\n{"action": "get_weather", "action_input": "北京"}\n```\n请执行。',
            "北京",
        ),
    ],
)
def test_a_call_written_the_way_models_write_it_runs(run, weather, calls, reply, city):
    llm = ScriptedChatModel([reply, FINAL])
    result = run(create_agent(llm, [weather]))
    assert result.stop_reason is StopReason.FINAL and result.output == "北京晴"
    assert calls.items == [("get_weather", city)]
    assert result.steps[0].error_class is None


@pytest.mark.parametrize(
    "reply",
    [
        # The closing quote after the brace instead of before it (finish_reason "stop").
        '{"action": "final", "action_input": "北京：晴\n上海：多云}"',
        # A line break inside the answer's string, as models write summaries.
        '{"action": "final", "action_input": "北京：晴\n上海：多云"}',
        '{"action": "final", "action_input": "北京：晴\n上海：多云",}',
        # The answer as the object's only key, and as final_answer.
        '{"final": "北京：晴\n上海：多云"}',
        '{"action": "Final Answer", "action_input": "北京：晴\n上海：多云"}',
    ],
)
def test_a_multi_line_answer_is_the_answer(run, weather, reply):
    result = run(create_agent(ScriptedChatModel([reply]), [weather]))
    assert result.stop_reason is StopReason.FINAL
    assert result.output.removesuffix("}") == "北京：晴\n上海：多云"


@pytest.mark.parametrize(
    "reply",
    [
        # Cut off inside the answer: never completed into one.
        '{"action": "final", "action_input": "北京：晴\n上海：',
        # Cut off before the closing brace.
        '{"action": "final", "action_input": "北京晴"',
        # Cut off inside a call's input.
        "{'action': 'get_weather', 'action_input': '北",
    ],
)
def test_a_reply_cut_off_is_never_acted_on(run, weather, calls, reply):
    result = run(create_agent(ScriptedChatModel([reply, reply]), [weather]))
    assert result.stop_reason is StopReason.MAX_ERRORS and result.output is None
    assert calls.items == []
    assert {s.error_class for s in result.steps} == {ErrorClass.FORMAT}


def test_two_different_names_are_not_guessed_between(run, weather, calls):
    reply = '{"action": "get_weather", "name": "search_baidu", "action_input": "北京"}'
    result = run(create_agent(ScriptedChatModel([reply, FINAL]), [weather]))
    assert calls.items == [] and result.steps[0].error_class is ErrorClass.FORMAT
    assert result.output == "北京晴"


def test_a_misspelt_tool_is_still_unknown(run, weather, calls):
    # A signature is taken off a name; a name is never corrected.
    reply = '{"action": "get_wether(city)", "action_input": "北京"}'
    result = run(create_agent(ScriptedChatModel([reply, FINAL]), [weather]))
    assert calls.items == [] and result.steps[0].error_class is ErrorClass.UNKNOWN_TOOL


# --- tool calls written as text under protocol="tool_calling" -------------------------------

CALL = {"name": "get_weather", "arguments": {"city": "北京"}}


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(CALL, ensure_ascii=False),
        "```json\n" + json.dumps(CALL, ensure_ascii=False) + "\n```",
        "<tool_call>\n" + json.dumps(CALL, ensure_ascii=False) + "\n</tool_call>",
        '我来查一下。<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"北京\\"}"}</tool_call>',
    ],
    ids=["plain", "fenced", "tagged", "tagged-json-text"],
)
def test_a_tool_call_written_as_text_is_a_call(run, weather, calls, text):
    llm = ScriptedChatModel([AIMessage(text), AIMessage("北京晴")])
    result = run(create_agent(llm, [weather], protocol="tool_calling"))
    assert calls.items == [("get_weather", "北京")]
    assert result.stop_reason is StopReason.FINAL and result.output == "北京晴"
    # The next prompt carries the call natively, answered by its ToolMessage.
    second = llm.calls[1]
    call_message = next(m for m in second if isinstance(m, AIMessage) and m.tool_calls)
    (call,) = call_message.tool_calls
    assert call["name"] == "get_weather" and call["args"] == {"city": "北京"}
    # The text stays as the model wrote it: a server that does not parse calls may refuse
    # an assistant message without content (llama-cpp-python's does).
    assert call_message.content == text
    answer = second[second.index(call_message) + 1]
    assert answer.type == "tool" and answer.tool_call_id == call["id"]
    assert "北京市天气" in answer.content


def test_text_naming_no_tool_is_the_answer(run, weather, calls):
    text = '{"name": "张三", "arguments": {"age": 3}}'
    result = run(
        create_agent(ScriptedChatModel([AIMessage(text)]), [weather], protocol="tool_calling")
    )
    assert calls.items == [] and result.output == text


# --- plain text in the JSON protocol -------------------------------------------------------

SUMMARY = "总结：北京今天晴，温度25℃；台风正在向东移动。"


def test_plain_text_after_a_successful_call_is_the_answer(run, weather, calls, act):
    # A small model answers in prose once it has its results; re-prompted, the 1.5B model
    # copied the re-prompt instead. The prose is the answer, in one model call.
    llm = ScriptedChatModel([act("get_weather", "北京"), SUMMARY + "\n"])
    result = run(create_agent(llm, [weather]))
    assert result.stop_reason is StopReason.FINAL and result.output == SUMMARY
    assert result.loops == 2 and [s.error_class for s in result.steps] == [None, None]


def test_plain_text_before_any_result_is_asked_again(run, weather, calls, act):
    # Nothing has been looked up yet: prose may be an answer in the wrong form, or thinking
    # aloud. It is sent back once with a notice (not an error: the breaker does not count it).
    llm = ScriptedChatModel([SUMMARY, act("get_weather", "北京"), act("final", SUMMARY)])
    result = run(create_agent(llm, [weather]))
    assert result.stop_reason is StopReason.FINAL and result.output == SUMMARY
    assert result.steps[0].error_class is None and result.steps[0].notice == PROSE_REPROMPT
    second = llm.calls[1]
    assert second[-2].content == SUMMARY  # the model sees what it wrote
    assert second[-1].content == PROSE_REPROMPT


def test_plain_text_after_only_failed_calls_is_asked_again(run, weather, calls, act):
    llm = ScriptedChatModel([act("get_weather", "火星"), SUMMARY, act("final", SUMMARY)])
    result = run(create_agent(llm, [weather]))
    assert result.loops == 3 and result.steps[1].notice == PROSE_REPROMPT
    assert llm.calls[2][-1].content == PROSE_REPROMPT


@pytest.mark.parametrize(
    "text", ["I will call get_weather(上海) next.", "get_weather: 上海", "下一步：search_baidu"]
)
def test_plain_text_naming_a_tool_is_never_the_answer(run, weather, search, act, text):
    # A plan: sent back once with the plan notice, and the model goes on.
    llm = ScriptedChatModel([act("get_weather", "北京"), text, act("final", SUMMARY)])
    result = run(create_agent(llm, [weather, search]))
    assert result.output == SUMMARY and result.steps[1].notice == JSON_PLAN_NOTICE
    assert result.steps[1].error_class is None


def test_prose_answers_can_be_turned_off(run, weather, act):
    from lcel_agent.stages import CleanJson

    llm = ScriptedChatModel([act("get_weather", "北京"), SUMMARY, act("final", SUMMARY)])
    strict = CleanJson(tools=["get_weather"], prose_answers=False)
    result = run(create_agent(llm, [weather], stages={"clean_json": strict}))
    assert result.loops == 3 and result.steps[1].error_class is ErrorClass.FORMAT


@pytest.mark.parametrize(
    "reply",
    [
        # The prose re-prompt, sent back whole: its form, placeholder and all.
        PROSE_REPROMPT,
        '{"action": "final", "action_input": "<your answer>"}',
        '{"action": "<tool name>", "action_input": "<its input>"}',
        '{"action": "get_weather", "action_input": "<its input>"}',
    ],
)
def test_a_placeholder_copied_from_the_prompt_is_never_acted_on(run, weather, calls, act, reply):
    llm = ScriptedChatModel([act("get_weather", "北京"), reply, act("final", SUMMARY)])
    result = run(create_agent(llm, [weather]))
    assert result.output == SUMMARY and calls.items == [("get_weather", "北京")]
    assert result.steps[1].error_class is ErrorClass.FORMAT


def test_a_broken_json_attempt_gets_the_format_reprompt(run, weather, act):
    llm = ScriptedChatModel(['{"action": "final", "action_input": "北京晴', FINAL])
    run(create_agent(llm, [weather]))
    assert llm.calls[1][-1].content == FORMAT_REPROMPT


def test_a_long_unreadable_reply_is_shown_back_by_its_start(run, weather, act):
    # A long unreadable reply is the newest turn, never cut by the window: shown whole, it
    # pushed the turns holding the facts out of the window. (One that copies the results
    # back ends the acting instead: the answer stage writes the answer, issue 34.)
    copied = '{"action": "search_baidu", "action_input": "' + "台风路径，最新消息，" * 40
    llm = ScriptedChatModel([act("get_weather", "北京"), copied, act("final", SUMMARY)])
    # A window that keeps turns word for word (the agent's own folds short results at once).
    window = SlidingWindowMemory(max_tokens=800)
    result = run(create_agent(llm, [weather], memory=window))
    assert result.output == SUMMARY and result.steps[1].error_class is ErrorClass.FORMAT
    shown = llm.calls[2][-2].content
    assert copied.startswith(shown[:-1]) and shown.endswith("…") and len(shown) == 161
    # The turns before it stay word for word.
    assert any("北京市天气：晴" in str(m.content) and m.type == "human" for m in llm.calls[2][2:-2])


@pytest.mark.parametrize(
    "arguments",
    [
        # The schema itself, no value in it: not a call with an input.
        {"properties": {"city": {"type": "string"}}, "required": ["city"], "type": "object"},
        # A key the tool does not take.
        {"properties": {"town": "北京"}, "type": "object"},
    ],
)
def test_a_schema_without_values_for_the_tool_is_not_read_as_them(run, weather, calls, arguments):
    text = json.dumps({"name": "get_weather", "arguments": arguments}, ensure_ascii=False)
    llm = ScriptedChatModel([text, FINAL])
    result = run(create_agent(llm, [weather]))
    assert calls.items == [] and result.steps[0].error_class is ErrorClass.BAD_ARGUMENTS


def test_a_schema_beside_other_keys_is_not_unwrapped(run, weather, calls):
    # Not only the schema's keys: the object is the arguments as written (the tool's own
    # "city" is its input), never the values inside "properties".
    text = '{"name": "get_weather", "arguments": {"properties": {"city": "北京"}, "city": "上海"}}'
    run(create_agent(ScriptedChatModel([text, FINAL]), [weather]))
    assert calls.items == [("get_weather", "上海")]
