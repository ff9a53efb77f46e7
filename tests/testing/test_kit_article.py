"""ArticleTaskModel: the article's task in every protocol, its error habits, and its noise."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool

from lcel_agent.testing.article import (
    ADCODES,
    ARTICLE_TASK,
    LONG_TASK,
    STRESS_TASK,
    ArticleTaskModel,
    NoiseProfile,
    WeatherSearchTask,
)

pytest_plugins = ["lcel_agent.testing.fixtures"]

CITY_OF = {code: city for city, code in ADCODES.items()}
TITLE = "台风“海燕”最新路径：预计明日登陆"
SEARCH = json.dumps(
    [
        {"title": TITLE, "link": "https://example.com/1"},
        {"title": "台风预警", "link": "https://e.com/2"},
    ],
    ensure_ascii=False,
)
REACT_PROMPT = (
    "Answer the following questions as best you can. You have access to the following tools:\n\n"
    "get_weather: 查询城市实时天气\nsearch_baidu: 百度搜索\n\nUse the following format:\n\n"
    "Question: the input question you must answer\nThought: you should always think about what to do\n"
    "Action: the action to take, should be one of [get_weather, search_baidu]\n"
    "Action Input: the input to the action\nObservation: the result of the action\n"
    "... (this Thought/Action/Action Input/Observation can repeat N times)\n"
    "Thought: I now know the final answer\nFinal Answer: the final answer to the original input question\n\n"
    "Begin!\n\nQuestion: {question}\nThought:{scratchpad}"
)
TOOLS = [
    {"type": "function", "function": {"name": name, "description": "", "parameters": {
        "type": "object", "properties": {arg: {"type": "string"}}, "required": [arg]}}}
    for name, arg in (("get_weather", "city"), ("search_baidu", "query"))
]  # fmt: skip


def weather(city: str) -> str:
    return f"{CITY_OF.get(city, city)}市天气：晴，温度25℃，湿度40%"


def honest_tools(name: str, arg: str, calls: list[tuple[str, str]]) -> str:
    if name == "get_weather":
        return weather(arg)
    if name == "search_baidu":
        return SEARCH
    return f"ERROR: 工具 '{name}' 不存在"


def drive(model, protocol: str, task=ARTICLE_TASK, tools=honest_tools, turns: int = 30):
    """Play the agent by hand: run every call the model makes, return (answer, calls, replies)."""
    calls: list[tuple[str, str]] = []
    messages = [
        {"role": "system", "content": "你是一个智能助手。"},
        {"role": "user", "content": task.prompt},
    ]
    scratchpad = ""
    for replies in range(1, turns + 1):
        if protocol == "react":
            prompt = REACT_PROMPT.format(question=task.prompt, scratchpad=scratchpad)
            reply = model([{"role": "user", "content": prompt}], None)
            text = reply.content
            if "Final Answer:" in text:
                return text.split("Final Answer:", 1)[1].strip(), calls, replies
            # LangChain's ReActSingleInputOutputParser regex
            found = re.search(
                r"Action\s*\d*\s*:[\s]*(.*?)[\s]*Action\s*\d*\s*Input\s*\d*\s*:[\s]*(.*)",
                text,
                re.S,
            )
            assert found is not None, text
            action = (found.group(1).strip(), found.group(2).strip(" \"'"))
            calls.append(action)
            scratchpad += f" {text}\nObservation: {tools(*action, calls[:-1])}\nThought:"
        elif protocol == "native":
            reply = model(messages, TOOLS)
            if not reply.tool_calls:
                return reply.content, calls, replies
            wire = [
                {"id": f"c{replies}_{i}", "type": "function", "function": {
                    "name": c["name"], "arguments": json.dumps(c["arguments"], ensure_ascii=False)}}
                for i, c in enumerate(reply.tool_calls)
            ]  # fmt: skip
            messages.append({"role": "assistant", "content": None, "tool_calls": wire})
            for w, c in zip(wire, reply.tool_calls, strict=True):
                calls.append((c["name"], next(iter(c["arguments"].values()))))
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": w["id"],
                        "content": tools(*calls[-1], calls[:-1]),
                    }
                )
        else:
            reply = model(messages, None)
            parsed = json.loads(reply.content)
            actions = parsed if isinstance(parsed, list) else [parsed]
            if actions[0]["action"] == "final":
                return actions[0]["action_input"], calls, replies
            messages.append({"role": "assistant", "content": reply.content})
            for a in actions:
                calls.append((a["action"], a["action_input"]))
                messages.append(
                    {
                        "role": "user",
                        "content": f"工具{a['action']}返回：{tools(*calls[-1], calls[:-1])}",
                    }
                )
    raise AssertionError("the model never answered")


def assert_complete(answer: str, task: WeatherSearchTask) -> None:
    for city in task.cities:
        assert weather(city) in answer
    assert TITLE in answer
    assert "未能获取" not in answer


PROTOCOLS = ["json", "react", "native"]


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("task", [ARTICLE_TASK, LONG_TASK], ids=["article", "long"])
def test_completes_the_task_one_call_at_a_time(protocol, task):
    answer, calls, replies = drive(ArticleTaskModel(task), protocol, task)
    assert_complete(answer, task)
    expected = [("get_weather", c) for c in task.cities] + [("search_baidu", "台风最新路径")]
    assert calls == expected
    assert replies == len(task.cities) + 2


@pytest.mark.parametrize("protocol", ["json", "native"])
def test_parallel_asks_for_everything_at_once(protocol):
    answer, calls, replies = drive(ArticleTaskModel(LONG_TASK, parallel=True), protocol, LONG_TASK)
    assert_complete(answer, LONG_TASK)
    assert (len(calls), replies) == (9, 2)


def test_parallel_react_stays_one_action_per_reply():
    _, calls, replies = drive(ArticleTaskModel(parallel=True), "react")
    assert (len(calls), replies) == (3, 4)


def test_the_task_prompts():
    assert (
        ARTICLE_TASK.prompt
        == "查询北京和上海今天的天气，然后百度搜索“台风最新路径”，最后总结这两条信息"
    )
    assert LONG_TASK.prompt.startswith(
        "查询北京、上海、广州、深圳、杭州、南京、成都、武汉今天的天气"
    )


def test_auto_picks_the_protocol_from_the_request():
    model = ArticleTaskModel()
    user = [{"role": "user", "content": ARTICLE_TASK.prompt}]
    assert model(user, TOOLS).tool_calls[0]["arguments"] == {"city": "北京"}
    react = [{"role": "user", "content": REACT_PROMPT.format(question="q", scratchpad="")}]
    assert model(react, None).content.endswith("Action: get_weather\nAction Input: 北京")
    assert json.loads(model(user, None).content) == {
        "action": "get_weather",
        "action_input": "北京",
    }


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_retries_a_failed_call_once_then_moves_on(protocol):
    def flaky(name, arg, calls):
        return (
            "ERROR: 高德API返回错误 - 超时"
            if (name, arg) == ("get_weather", "北京") and not calls
            else honest_tools(name, arg, calls)
        )

    answer, calls, _ = drive(ArticleTaskModel(), protocol, tools=flaky)
    assert calls[:3] == [("get_weather", "北京"), ("get_weather", "北京"), ("get_weather", "上海")]
    assert_complete(answer, ARTICLE_TASK)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_told_it_is_repeating_it_switches_to_the_adcode(protocol):
    def no_names_for_beijing(name, arg, calls):
        if (name, arg) == ("get_weather", "北京"):
            if calls.count((name, arg)) >= 2:
                return "ERROR: 你在重复同一个失败的调用，请换一种方式"
            return "ERROR: 高德API返回错误 - INVALID_PARAMS"
        return honest_tools(name, arg, calls)

    answer, calls, _ = drive(ArticleTaskModel(), protocol, tools=no_names_for_beijing)
    assert calls == [("get_weather", "北京"), ("get_weather", "北京"), ("get_weather", "上海"),
                     ("search_baidu", "台风最新路径"), ("get_weather", "北京"), ("get_weather", "110000")]  # fmt: skip
    assert_complete(answer, ARTICLE_TASK)


def test_with_nothing_left_to_try_it_answers_with_what_it_has():
    def search_down(name, arg, calls):
        if name == "search_baidu":
            return "ERROR: 百度搜索超时" + (" (repeat)" if calls.count((name, arg)) >= 2 else "")
        return honest_tools(name, arg, calls)

    answer, calls, _ = drive(ArticleTaskModel(), "json", tools=search_down)
    assert calls.count(("search_baidu", "台风最新路径")) == 3
    assert weather("北京") in answer
    assert "未能获取：“台风最新路径”的搜索结果" in answer


def test_search_results_count_only_with_links_and_the_keyword():
    model = ArticleTaskModel()
    fake = [
        {
            "role": "user",
            "content": ARTICLE_TASK.prompt + json.dumps([{"title": "台风"}], ensure_ascii=False),
        }
    ]
    fake.append({"role": "user", "content": weather("北京") + weather("上海")})
    assert json.loads(model(fake, None).content)["action"] == "search_baidu"
    other = json.dumps([{"title": "无关新闻", "link": "x"}], ensure_ascii=False)
    assert (
        json.loads(model([*fake, {"role": "tool", "content": other}], None).content)["action"]
        == "search_baidu"
    )
    done = [*fake, {"role": "user", "content": "Observation: " + SEARCH}]
    assert json.loads(model(done, None).content)["action"] == "final"


def first_reply(noise: str, protocol: str, after_success: bool = False):
    model = ArticleTaskModel(noise=NoiseProfile(**{noise: 1.0}), protocol=protocol)  # type: ignore[arg-type]
    messages = [{"role": "user", "content": REACT_PROMPT.format(question="q", scratchpad="")}]
    if protocol != "react":
        messages = [{"role": "user", "content": ARTICLE_TASK.prompt}]
    if after_success:
        messages.append({"role": "user", "content": weather("北京")})
    reply = model(messages, TOOLS if protocol == "native" else None)
    assert model.noise_counts == Counter({noise: 1})
    return reply


def test_json_noise_shapes():
    assert first_reply("fenced_json", "json").content.startswith("```json\n{")
    prose = first_reply("prose_json", "json").content
    assert not prose.startswith("{")
    assert json.loads(prose[prose.index("{") : prose.rindex("}") + 1])["action"] == "get_weather"
    assert json.loads(first_reply("dict_input", "json").content)["action_input"] == {"city": "北京"}
    assert json.loads(first_reply("misspelt_tool", "json").content)["action"] == "get_wether"
    with pytest.raises(json.JSONDecodeError):
        json.loads(first_reply("invalid_json", "json").content)


def test_native_and_react_noise_shapes():
    assert first_reply("misspelt_tool", "native").tool_calls[0]["name"] == "get_wether"
    assert first_reply("dict_input", "native").tool_calls[0]["arguments"] == {
        "city": {"city": "北京"}
    }
    broken = first_reply("invalid_json", "native").tool_calls[0]["arguments"]
    with pytest.raises(json.JSONDecodeError):
        json.loads(broken)
    assert "Action Input:" not in first_reply("invalid_json", "react").content
    assert first_reply("dict_input", "react").content.endswith('Action Input: {"city": "北京"}')


def test_repeats_a_successful_call(monkeypatch):
    # With 北京's weather in hand and repeat_success certain, it asks for 北京 again.
    json_reply = ArticleTaskModel(noise=NoiseProfile(repeat_success=1.0))
    messages = [{"role": "user", "content": ARTICLE_TASK.prompt}]
    messages += [
        {"role": "assistant", "content": '{"action": "get_weather", "action_input": "北京"}'}
    ]
    messages += [{"role": "user", "content": weather("北京")}]
    assert json.loads(json_reply(messages, None).content)["action_input"] == "北京"
    assert json_reply.noise_counts == Counter({"repeat_success": 1})
    messages[-1] = {"role": "user", "content": "ERROR: 失败"}
    assert json.loads(ArticleTaskModel()(messages, None).content)["action_input"] == "北京"


NOISE = NoiseProfile(
    repeat_success=0.1,
    misspelt_tool=0.05,
    dict_input=0.2,
    fenced_json=0.3,
    prose_json=0.15,
    invalid_json=0.05,
)


def noisy_run(seed: int, n: int = 3000) -> tuple[Counter[str], list[str]]:
    model = ArticleTaskModel(noise=NOISE, seed=seed)
    messages = [
        {"role": "user", "content": ARTICLE_TASK.prompt},
        {"role": "assistant", "content": '{"action": "get_weather", "action_input": "北京"}'},
        {"role": "user", "content": weather("北京")},
    ]
    replies = [model(messages, None).content or "" for _ in range(n)]
    return model.noise_counts, replies


def test_noise_rates_match_the_profile_and_the_seed_fixes_them():
    counts, replies = noisy_run(seed=7)
    n = 3000
    for name, rate in vars(NOISE).items():
        sigma = (n * rate * (1 - rate)) ** 0.5
        assert abs(counts[name] - n * rate) < 4 * sigma, (name, counts[name])
    assert noisy_run(seed=7) == (counts, replies)
    assert noisy_run(seed=8)[0] != counts


def test_noise_profile_rejects_bad_rates():
    with pytest.raises(ValueError):
        NoiseProfile(fenced_json=1.2)


@tool
def get_weather(city: str) -> str:
    """查询城市实时天气，城市名称必须是中文，例如'北京'"""
    return weather(city)


@tool
def search_baidu(query: str) -> str:
    """百度搜索，返回前3条结果的标题和链接"""
    return SEARCH


def test_native_task_through_chat_openai(simulated_openai, chat):
    srv = simulated_openai(ArticleTaskModel(parallel=True))
    model = chat(srv).bind_tools([get_weather, search_baidu])
    history = [HumanMessage(ARTICLE_TASK.prompt)]
    first = model.invoke(history)
    assert [c["name"] for c in first.tool_calls] == ["get_weather", "get_weather", "search_baidu"]
    history.append(first)
    tools = {"get_weather": get_weather, "search_baidu": search_baidu}
    history += [
        ToolMessage(tools[c["name"]].invoke(c["args"]), tool_call_id=c["id"])
        for c in first.tool_calls
    ]
    final = model.invoke(history)
    assert not final.tool_calls
    assert_complete(str(final.content), ARTICLE_TASK)


async def test_native_task_through_chat_openai_async(simulated_openai, achat):
    srv = simulated_openai(ArticleTaskModel())
    model = achat(srv).bind_tools([get_weather, search_baidu])
    history = [HumanMessage(ARTICLE_TASK.prompt)]
    tools = {"get_weather": get_weather, "search_baidu": search_baidu}
    for _ in range(3):
        reply = await model.ainvoke(history)
        (call,) = reply.tool_calls
        history += [
            reply,
            ToolMessage(await tools[call["name"]].ainvoke(call["args"]), tool_call_id=call["id"]),
        ]
    final = await model.ainvoke(history)
    assert_complete(str(final.content), ARTICLE_TASK)
    assert len(srv.chat_requests) == 4


def test_article_server_fixture_speaks_the_json_protocol(article_server, oai):
    out = oai(article_server).chat.completions.create(
        model="m", messages=[{"role": "user", "content": ARTICLE_TASK.prompt}]
    )
    action = json.loads(out.choices[0].message.content or "")
    assert action == {"action": "get_weather", "action_input": "北京"}
    assert isinstance(article_server.policy, ArticleTaskModel)
    assert article_server.policy.replies == 1


# --- round 2: several searches, varied damage, notes, nudges ------------------------------


def searching_tools(name: str, arg: str, calls: list[tuple[str, str]]) -> str:
    if name == "search_baidu" and "台风" not in arg:
        return json.dumps(
            [{"title": f"{arg}_百度百科", "link": "https://e.com/x"}], ensure_ascii=False
        )
    return honest_tools(name, arg, calls)


def test_the_stress_task_needs_every_city_and_every_search():
    answer, calls, replies = drive(
        ArticleTaskModel(STRESS_TASK), "json", STRESS_TASK, searching_tools
    )
    queries = [q for q, _ in STRESS_TASK.searches]
    assert calls == [("get_weather", c) for c in STRESS_TASK.cities] + [
        ("search_baidu", q) for q in queries
    ]
    assert len(calls) >= 25 and replies == len(calls) + 1
    for query in queries:
        assert f"“{query}”的搜索结果" in answer
    assert "未能获取" not in answer
    assert STRESS_TASK.prompt.endswith(
        "百度搜索“台风最新路径”、“暴雨预警”和“高温预警”，最后总结这些信息"
    )


def damaged(noise: str, varied: bool, n: int = 60) -> list[str]:
    model = ArticleTaskModel(noise=NoiseProfile(**{noise: 1.0}), seed=5, varied=varied)
    messages = [{"role": "user", "content": ARTICLE_TASK.prompt}]
    return [model(messages, None).content or "" for _ in range(n)]


def test_varied_damage_changes_the_details_not_the_rates():
    plain, varied = [ArticleTaskModel(noise=NOISE, seed=3, varied=v) for v in (False, True)]
    messages = [{"role": "user", "content": ARTICLE_TASK.prompt}]
    for _ in range(300):
        plain(messages, None), varied(messages, None)
    assert plain.noise_counts == varied.noise_counts  # the same draws of what goes wrong
    names = {json.loads(reply)["action"] for reply in damaged("misspelt_tool", True)}
    assert len(names) >= 3 and "get_weather" not in names
    assert {json.loads(r)["action"] for r in damaged("misspelt_tool", False)} == {"get_wether"}
    assert len({len(r) for r in damaged("invalid_json", True)}) >= 5
    assert len({len(r) for r in damaged("invalid_json", False)}) == 1
    wrappers = {r[: r.index("{")] for r in damaged("prose_json", True)}
    assert len(wrappers) >= 3


def test_asked_for_notes_it_writes_the_facts_it_can_read():
    model = ArticleTaskModel(STRESS_TASK)
    notes = model(
        [
            {"role": "system", "content": "You keep the notes of an agent working on a task."},
            {"role": "user", "content": f"New steps:\n{weather('北京')}\nsearch → {SEARCH}"},
        ],
        None,
    )
    assert weather("北京") in notes.content and TITLE in notes.content
    assert model.replies == 0  # a note is not a step of the task


def test_told_it_repeated_a_call_it_does_not_retry_that_call():
    model = ArticleTaskModel()
    messages = [
        {"role": "user", "content": ARTICLE_TASK.prompt},
        {"role": "user", "content": weather("北京")},
        {"role": "assistant", "content": '{"action": "get_weather", "action_input": "北京"}'},
        {"role": "user", "content": "ERROR: you repeated the call get_weather with the same input"},
    ]
    nxt = json.loads(model(messages, None).content)
    assert nxt["action"] == "get_weather" and nxt["action_input"] in ("上海", ADCODES["上海"])


def test_it_reads_back_arguments_its_noise_nested():
    model = ArticleTaskModel()
    call = {"id": "c1", "type": "function", "function": {
        "name": "serach_baidu", "arguments": '{"city": {"city": "台风最新路径"}}'}}  # fmt: skip
    messages = [
        {"role": "user", "content": ARTICLE_TASK.prompt + weather("北京") + weather("上海")},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "ERROR: no tool named 'serach_baidu'"},
    ]
    retry = model(messages, TOOLS).tool_calls[0]
    assert (retry["name"], retry["arguments"]) == ("search_baidu", {"query": "台风最新路径"})


def test_a_repeated_call_is_noise_for_any_history_layout():
    # Facts read from a digest count as done as much as facts in its own turns.
    model = ArticleTaskModel(noise=NoiseProfile(repeat_success=1.0))
    digest = [
        {"role": "user", "content": ARTICLE_TASK.prompt + "\n\nDone so far:\n" + weather("北京")}
    ]
    assert json.loads(model(digest, None).content) == {
        "action": "get_weather",
        "action_input": "北京",
    }
    assert model.noise_counts == Counter({"repeat_success": 1})
