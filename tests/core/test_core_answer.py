"""The answer stage: when the model's own answer stands, when the stage writes it, and how.

Every test runs sync and async (the ``run`` fixture). The acting model is scripted; the
model the answer stage asks is recognised by its system prompt (``ANSWER_SYSTEM``) and
answers from the numbered results it is given, one line each, as a careful model would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool, tool

from lcel_agent import StopReason, create_agent
from lcel_agent.stages.answer import Answer
from lcel_agent.testing.fake import FunctionChatModel
from lcel_agent.texts import ANSWER_SYSTEM, JSON_PLAN_NOTICE, PLAN_NOTICE

WEATHER = {
    "北京": ("扬沙", 39),
    "上海": ("少云", 14),
    "广州": ("雷阵雨", 31),
}


def line(city: str) -> str:
    word, temp = WEATHER.get(city, ("晴", 20))
    return f"{city}市天气：{word}，温度{temp}℃，湿度41%"


@pytest.fixture
def weather() -> BaseTool:
    @tool
    def get_weather(city: str) -> str:
        """查询城市实时天气"""
        return line(city)

    return get_weather


def act(name: str, value: Any) -> str:
    return json.dumps({"action": name, "action_input": value}, ensure_ascii=False)


def calls(*cities: str) -> str:
    return json.dumps(
        [{"action": "get_weather", "action_input": c} for c in cities], ensure_ascii=False
    )


def is_answer_request(messages: list[BaseMessage]) -> bool:
    return bool(messages) and messages[0].content == ANSWER_SYSTEM


def written(messages: list[BaseMessage]) -> str:
    """What a careful model writes when the stage asks: each numbered result's text."""
    request = str(messages[-1].content)
    lines = [m.group(1) for m in re.finditer(r"^\d+\. \w+\(.*?\): (.*)$", request, re.M)]
    return "\n".join([*lines, "总结：以上是今天的天气。"])


class Model:
    """The acting script, then the answer stage's requests answered from their results."""

    def __init__(self, script: list[str | AIMessage], answer: Callable[..., Any] = written):
        self.script, self.answer = list(script), answer
        self.acting = 0
        self.answering: list[list[BaseMessage]] = []
        self.llm = FunctionChatModel(self._reply)

    def _reply(self, messages: list[BaseMessage], tools: Any) -> str | AIMessage:
        if is_answer_request(messages):
            self.answering.append(messages)
            return self.answer(messages)  # type: ignore[no-any-return]
        reply = self.script[min(self.acting, len(self.script) - 1)]
        self.acting += 1
        return reply


TASK = "查询北京和上海今天的天气"


def test_a_final_that_uses_every_result_stays_and_costs_nothing(run, weather):
    answer = "北京扬沙，39℃；上海少云，14℃"
    model = Model([calls("北京", "上海"), act("final", answer)])
    result = run(create_agent(model.llm, [weather]), TASK)
    assert result.output == answer and result.loops == 2 and not model.answering
    assert result.answer is not None and result.answer.source == "model"
    assert result.answer.unused == () and result.answer.calls == 0
    assert [s.kind for s in result.steps] == ["act", "act"]


@pytest.mark.parametrize(
    "draft",
    [
        "北京和上海都是扬沙，39℃和14℃",  # a merged weather word
        "北京扬沙，39℃；上海少云",  # a dropped temperature
    ],
    ids=["merged-word", "dropped-temperature"],
)
def test_a_final_that_leaves_a_result_out_is_written_from_every_result(run, weather, draft):
    model = Model([calls("北京", "上海"), act("final", draft)])
    result = run(create_agent(model.llm, [weather]), TASK)
    assert result.stop_reason is StopReason.FINAL and result.error is None
    assert line("北京") in result.output and line("上海") in result.output
    assert result.answer.source == "composed" and result.answer.draft == draft
    assert "get_weather(上海)" in result.answer.unused
    assert result.loops == 3 and [s.kind for s in result.steps] == ["act", "act", "answer"]
    # A fresh, short context: the question and the results, not the conversation.
    (asked,) = model.answering
    assert len(asked) == 2 and TASK in asked[1].content and line("上海") in asked[1].content


def test_an_answer_that_drops_every_temperature_stands(run, weather):
    # Each city's weather, no temperature: nothing proves a fact the question asks for is
    # missing ("the weather" is given), so the model's own answer stands (issue 34: the
    # round-4 rule "numbers are facts" rewrote such answers, and "Yes, Paris is warmer").
    draft = "北京扬沙，上海少云"
    model = Model([calls("北京", "上海"), act("final", draft)])
    result = run(create_agent(model.llm, [weather]), TASK)
    assert result.output == draft and not model.answering and result.answer.repair == ""


def test_a_prose_answer_after_a_success_is_an_answer(run, weather):
    prose = "北京今天扬沙，39℃；上海少云，14℃。"
    model = Model([calls("北京", "上海"), prose])
    result = run(create_agent(model.llm, [weather]), TASK)
    assert result.output == prose and result.loops == 2 and result.answer.source == "model"


@pytest.mark.parametrize(
    "plan", ["我想一想……这个任务需要先查天气。", "I need to check the weather first."]
)
def test_a_planning_line_is_not_an_answer(run, weather, plan):
    answer = "北京扬沙，39℃"
    model = Model([act("get_weather", "北京"), plan, act("final", answer)])
    result = run(create_agent(model.llm, [weather]), "查询北京今天的天气")
    assert result.output == answer and result.loops == 3
    # Sent back once with the plan notice (not an error: the breaker does not count it).
    assert result.steps[1].notice == JSON_PLAN_NOTICE and result.steps[1].error_class is None
    assert model.llm.calls[2][-1].content.endswith(JSON_PLAN_NOTICE)


def test_a_planning_line_under_tool_calling_is_re_prompted(run, weather):
    call = AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "北京"}, "id": "c1"}])
    model = Model([call, "Let me think about what to do next.", "北京扬沙，39℃"])
    result = run(create_agent(model.llm, [weather], protocol="tool_calling"), "查询北京天气")
    assert result.output == "北京扬沙，39℃" and result.loops == 3
    assert model.llm.calls[2][-1].content == PLAN_NOTICE


def test_two_unrelated_slips_between_progress_never_stop_a_run(run, weather):
    script = [
        act("get_weather", "北京"), "I will look at the results now.", "{broken",
        act("get_weather", "上海"), act("final", "北京扬沙，39℃；上海少云，14℃"),
    ]  # fmt: skip
    result = run(create_agent(Model(script).llm, [weather], max_errors=2), TASK)
    assert result.stop_reason is StopReason.FINAL and result.loops == 5


def test_an_echo_of_the_results_ends_the_acting(run, weather):
    echo = "get_weather返回：\n" + line("北京") + "\n" + line("上海") + "\n{"
    model = Model([calls("北京", "上海"), echo])
    result = run(create_agent(model.llm, [weather]), TASK)
    assert result.stop_reason is StopReason.FINAL and result.answer.trigger == "echo"
    assert result.answer.source == "composed" and result.loops == 3
    assert line("上海") in result.output and result.answer.draft is None


def test_a_final_made_of_a_records_own_words_is_written_from_the_results(run, weather):
    # Seen on a 1.5B model: the record's head copied word for word, then a made-up fact.
    record = "北京市（北京，adcode 110000）实时天气：雷阵雨，温度23℃"

    @tool
    def get_weather(city: str) -> str:
        """查询城市实时天气"""
        return record if city == "北京" else "上海市（上海，adcode 310000）实时天气：小雨，温度7℃"

    draft = (
        "北京市（北京，adcode 110000）实时天气：晴转多云；上海市（上海，adcode 310000）实时天气：阴"
    )
    model = Model([calls("北京", "上海"), act("final", draft)])
    result = run(create_agent(model.llm, [get_weather]), TASK)
    # The model answered (trigger final); its answer was the records copied (repair echo).
    assert result.stop_reason is StopReason.FINAL and result.answer.trigger == "final"
    assert result.answer.repair == "echo"
    assert result.answer.source == "composed" and result.answer.draft == draft
    assert record in result.output and "晴转多云" not in result.output


def test_an_answer_of_its_own_that_quotes_a_title_is_the_models_answer(run, weather):
    # Seen on a 1.5B model, 6 of 8 seeds: every fact in its own words, one hit's title quoted.
    title = "2026年第28号台风“海葵”最新路径：距广东沿海约320公里"

    @tool
    def search_baidu(query: str) -> str:
        """百度搜索"""
        return f"title: {title}; link: http://www.baidu.com/link?url=t1; title: 台风实时路径图"

    answer = f"北京扬沙，温度39℃，湿度41%。上海少云，温度14℃，湿度41%。搜索结果为：{title}"
    script = [
        json.dumps(
            [{"action": "get_weather", "action_input": "北京"},
             {"action": "get_weather", "action_input": "上海"},
             {"action": "search_baidu", "action_input": "台风最新路径"}],
            ensure_ascii=False,
        ),
        act("final", answer),
    ]  # fmt: skip
    model = Model(script)
    result = run(create_agent(model.llm, [weather, search_baidu]), TASK + "，再搜台风最新路径")
    assert result.output == answer and result.answer.source == "model"
    assert not model.answering


def test_a_short_result_quoted_whole_is_the_models_answer(run, weather):
    answer = f"{line('北京')}；{line('上海')}"  # 20 characters each: quoted, not echoed
    model = Model([calls("北京", "上海"), act("final", answer)])
    result = run(create_agent(model.llm, [weather]), TASK)
    assert result.output == answer and not model.answering


def test_a_model_that_only_repeats_its_calls_gets_its_answer_written(run, weather):
    model = Model([calls("北京", "上海"), *[act("get_weather", "北京")] * 6])
    result = run(create_agent(model.llm, [weather]), TASK)
    assert result.stop_reason is StopReason.FINAL and result.error is None
    assert result.answer.trigger == "drift" and result.answer.source == "composed"
    assert line("北京") in result.output and line("上海") in result.output
    assert any(s.error_class is not None and s.error_class.value == "drift" for s in result.steps)


def test_a_drift_the_stage_cannot_rescue_stays_a_drift(run, weather):
    model = Model(
        [calls("北京", "上海"), *[act("get_weather", "北京")] * 6],
        answer=lambda messages: act("get_weather", "北京"),
    )
    result = run(create_agent(model.llm, [weather]), TASK)
    assert result.stop_reason is StopReason.DRIFT and result.output is None
    assert result.error is not None and result.error.error_class.value == "drift"
    # Asked twice (a call is no answer: asked once more), answered with calls twice.
    assert [s.kind for s in result.steps[-2:]] == ["answer", "answer"]
    assert not result.answer.complete and "not answers in words" in result.answer.note


def test_a_final_cut_by_max_tokens_is_written_whole_by_the_stage(run, weather):
    cut = AIMessage(
        content='{"action": "final", "action_input": "北京扬沙，39℃；上',
        response_metadata={"finish_reason": "length"},
    )
    model = Model([calls("北京", "上海"), cut])
    result = run(create_agent(model.llm, [weather]), TASK)
    assert result.stop_reason is StopReason.FINAL and result.answer.trigger == "cut"
    assert line("北京") in result.output and line("上海") in result.output
    assert result.steps[1].error_class.value == "truncated"


def test_a_cut_reply_of_the_stage_is_asked_again_in_halves_never_passed_off(run, weather):
    cities = ["北京", "上海", "广州", "深圳"]

    def answer(messages: list[BaseMessage]) -> AIMessage:
        text = written(messages)
        if text.count("市天气") > 2:  # more than two results at once: cut at the limit
            return AIMessage(text[:30], response_metadata={"finish_reason": "length"})
        return AIMessage(text, response_metadata={"finish_reason": "stop"})

    model = Model([calls(*cities), act("final", "都晴")], answer=answer)
    result = run(create_agent(model.llm, [weather]), "查询" + "、".join(cities) + "的天气")
    assert all(line(c) in result.output for c in cities) and result.answer.complete
    assert [len(re.findall("^\\d+\\.", str(m[-1].content), re.M)) for m in model.answering] == [
        4, 2, 2,
    ]  # fmt: skip


def test_a_single_result_cut_twice_is_no_whole_answer(run, weather):
    def answer(messages: list[BaseMessage]) -> AIMessage:
        return AIMessage("北京市天气：扬", response_metadata={"finish_reason": "length"})

    model = Model(
        [
            calls("北京"),
            AIMessage(
                '{"action": "final", "action_input": "北',
                response_metadata={"finish_reason": "length"},
            ),
        ],
        answer=answer,
    )
    result = run(create_agent(model.llm, [weather]), "查询北京天气")
    assert result.output is None and result.stop_reason is StopReason.MAX_ERRORS
    assert "cut off" in result.error.message and len(model.answering) == 2


def test_tool_calling_shares_the_stage(run, weather):
    call = AIMessage(
        "",
        tool_calls=[
            {"name": "get_weather", "args": {"city": c}, "id": f"c{i}"}
            for i, c in enumerate(["北京", "上海"])
        ],
    )
    model = Model([call, "北京和上海都是扬沙，39℃和14℃"])
    result = run(create_agent(model.llm, [weather], protocol="tool_calling"), TASK)
    assert result.answer.source == "composed" and line("上海") in result.output


@pytest.mark.parametrize("mode", ["model", "compose"])
def test_the_modes(run, weather, mode):
    complete = "北京扬沙，39℃；上海少云，14℃"
    merged = "北京和上海都是扬沙"
    for draft in (complete, merged):
        model = Model([calls("北京", "上海"), act("final", draft)])
        result = run(create_agent(model.llm, [weather], answer=mode), TASK)
        if mode == "model":  # the model's own words, always, at no extra call
            assert result.output == draft and result.loops == 2 and not model.answering
            assert result.answer.source == "model" and result.answer.repair == ""
        else:  # always written from every result
            assert result.answer.source == "composed" and line("上海") in result.output


def test_no_loop_left_keeps_the_models_answer_and_says_what_it_lacks(run, weather):
    model = Model([calls("北京", "上海"), act("final", "北京扬沙")])
    result = run(create_agent(model.llm, [weather], max_loops=2), TASK)
    assert result.output == "北京扬沙" and result.loops == 2 and not model.answering
    assert result.answer.source == "model" and not result.answer.complete
    assert "max_loops=2" in result.answer.note and "get_weather(上海)" in result.answer.unused


def test_a_run_without_results_is_left_alone(run, weather):
    model = Model([act("final", "你好")])
    result = run(create_agent(model.llm, [weather]), "你好")
    assert result.output == "你好" and result.answer is None and result.loops == 1


def test_a_structured_answer_is_written_to_the_response_format(run, weather):
    schema = {
        "type": "object",
        "properties": {"beijing": {"type": "string"}, "shanghai": {"type": "string"}},
        "required": ["beijing", "shanghai"],
    }

    def answer(messages: list[BaseMessage]) -> str:
        assert "JSON schema" in messages[-1].content
        return json.dumps({"beijing": line("北京"), "shanghai": line("上海")}, ensure_ascii=False)

    draft = json.dumps({"beijing": "扬沙", "shanghai": "扬沙"}, ensure_ascii=False)
    model = Model([calls("北京", "上海"), act("final", draft)], answer=answer)
    result = run(create_agent(model.llm, [weather], response_format=schema), TASK)
    assert result.output == {"beijing": line("北京"), "shanghai": line("上海")}
    assert result.answer.source == "composed"


def test_the_answer_stream_sends_the_written_answer_not_the_draft(weather):
    model = Model([calls("北京", "上海"), act("final", "北京和上海都是扬沙")])
    agent = create_agent(model.llm, [weather])
    pieces = list(agent.stream(TASK, stream_mode="answer"))
    text = "".join(pieces)
    assert line("上海") in text and "都是扬沙" not in text
    assert len(pieces) > 1  # the stage's own text streams as it is written


def test_the_answer_stage_is_a_traced_stage_of_its_loop(weather):
    from langchain_core.tracers.base import BaseTracer

    class Tree(BaseTracer):
        def __init__(self) -> None:
            super().__init__()
            self.roots: list[Any] = []

        def _persist_run(self, run: Any) -> None:
            self.roots.append(run)

    tracer = Tree()
    model = Model([calls("北京", "上海"), act("final", "北京和上海都是扬沙")])
    create_agent(model.llm, [weather]).invoke(TASK, {"callbacks": [tracer]})
    (root,) = tracer.roots
    last_loop = sorted(root.child_runs, key=lambda r: r.dotted_order)[-1]
    answer = next(r for r in last_loop.child_runs if r.name == "answer")
    assert [c.name for c in answer.child_runs] == ["FunctionChatModel"]


def test_bad_answer_options_are_refused_when_the_agent_is_built(weather):
    from lcel_agent.errors import ConfigurationError

    llm = Model([]).llm
    with pytest.raises(ConfigurationError, match="answer mode"):
        create_agent(llm, [weather], answer="sometimes")
    with pytest.raises(ConfigurationError, match="max_tokens"):
        create_agent(llm, [weather], answer=Answer(max_tokens=0))
    with pytest.raises(TypeError, match="answer must be"):
        create_agent(llm, [weather], answer=3)  # type: ignore[arg-type]


def test_a_json_result_is_shown_to_the_stage_as_plain_lines(run, weather):
    @tool
    def search_baidu(query: str) -> str:
        """百度搜索"""
        hits = [{"title": "台风“康妮”最新路径", "link": "http://t/1"}, {"title": "台风预警"}]
        return json.dumps(hits, ensure_ascii=False)

    model = Model([act("search_baidu", "台风"), act("final", "有台风")])
    result = run(create_agent(model.llm, [search_baidu], answer="compose"), "台风最新路径")
    (asked,) = model.answering
    request = str(asked[-1].content)
    assert (
        "1. search_baidu(台风): title: 台风“康妮”最新路径; link: http://t/1; title: 台风预警"
        in (request)
    )
    assert '"title"' not in request and result.answer.source == "composed"
