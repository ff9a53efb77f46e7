"""Messages in, messages out: history the model sees, outputs in the input's form.

Real langchain-core / LangGraph classes: ``RunnableWithMessageHistory`` with an
in-memory history, and a LangGraph ``StateGraph(MessagesState)`` node (both stacks:
langgraph 1.x on today's, 0.5 on the article's).
"""

from __future__ import annotations

import asyncio
import json

from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables.history import RunnableWithMessageHistory
from lc_support import graph_of

from lcel_agent import AgentResult, SlidingWindowMemory, StopReason, create_agent
from lcel_agent.testing.fake import FunctionChatModel, ScriptedChatModel

WEATHER = "：晴"


def weather_then_answer(act):
    """Calls get_weather once, then answers with the human turns of its first prompt, and
    the weather it found (an answer the question asked for stands as the model wrote it)."""
    prompts: list[list[str]] = []

    def reply(messages, tools):
        prompts.append([str(m.content) for m in messages if m.type == "human"])
        if len(prompts) % 2 == 1:
            return act("get_weather", "北京")
        return act("final", " | ".join(prompts[-2]) + WEATHER)

    return FunctionChatModel(reply)


def test_messages_dict_in_gives_messages_out(run, weather, act):
    llm = weather_then_answer(act)
    earlier = [HumanMessage("你好"), AIMessage("你好！有什么可以帮你？")]
    out = run(
        create_agent(llm, [weather]),
        {"messages": [*earlier, HumanMessage("北京天气")]},
    )
    messages = out["messages"]
    assert messages[:3] == [*earlier, HumanMessage("北京天气")]
    call, result, answer = messages[3:]
    (tool_call,) = call.tool_calls
    assert tool_call["name"] == "get_weather" and tool_call["args"] == {"__arg1": "北京"}
    assert isinstance(result, ToolMessage) and result.tool_call_id == tool_call["id"]
    assert result.content.startswith("北京市天气") and result.status == "success"
    # The earlier turns were in the model's context, before the task.
    assert answer.content == "你好 | 北京天气" + WEATHER
    assert answer.response_metadata["stop_reason"] == "final"
    assert answer.response_metadata["loops"] == 2 and answer.response_metadata["error"] is None
    assert answer.usage_metadata["total_tokens"] > 0
    # The history went into the window as text turns of the JSON protocol.
    first_prompt = llm.calls[0]
    assert [m.content for m in first_prompt[1:]][-1] == "北京天气"
    assert [m.type for m in first_prompt] == ["system", "human", "ai", "human"]
    assert json.loads(first_prompt[2].content) == {
        "action": "final",
        "action_input": "你好！有什么可以帮你？",
    }


def test_a_list_of_messages_gives_the_final_message(run, weather, act):
    out = run(create_agent(weather_then_answer(act), [weather]), [HumanMessage("北京天气")])
    assert isinstance(out, AIMessage) and out.content == "北京天气" + WEATHER


def test_history_is_trimmed_by_the_window(run, weather, act):
    llm = ScriptedChatModel([act("final", "ok")])
    old = [
        m for i in range(40) for m in (HumanMessage(f"问题{i} " * 30), AIMessage(f"答{i} " * 30))
    ]
    agent = create_agent(llm, [weather], memory=SlidingWindowMemory(max_tokens=400))
    run(agent, {"messages": [*old, HumanMessage("最新的问题")]})
    prompt = llm.calls[0]
    text = "\n".join(str(m.content) for m in prompt)
    assert len(text) < sum(len(str(m.content)) for m in old) / 4
    assert prompt[-1].content.startswith("最新的问题")  # the task is pinned, never evicted
    # The newest exchange stays whole (never cut for older lines), the oldest went.
    contents = [m.content for m in prompt]
    assert "问题39 " * 30 in contents and "答39 " * 30 in str(contents)
    assert "问题0 " not in text


def test_a_system_message_becomes_the_persona(run, weather, act):
    llm = ScriptedChatModel([act("final", "ok")])
    run(
        create_agent(llm, [weather]),
        [SystemMessage("你是一个只说中文的助手。"), HumanMessage("hi")],
    )
    system = llm.calls[0][0].content
    assert system.startswith("你是一个只说中文的助手。")
    assert "get_weather" in system and "Reply with JSON only" in system  # the rules stay


def test_tool_calling_history_stays_native_and_unanswered_calls_are_closed(run, weather):
    seen = []

    def reply(messages, tools):
        seen.append(messages)
        return AIMessage("好的")

    history = [
        HumanMessage("北京天气"),
        AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "北京"}, "id": "c1"}]),
        ToolMessage("北京晴", tool_call_id="c1"),
        AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "上海"}, "id": "c2"}]),
        AIMessage("北京晴；上海没查到"),
        HumanMessage("算了，谢谢"),
    ]
    # A plain window keeps the turns word for word: native calls, each with a result.
    plain = SlidingWindowMemory(800, compactor=None)
    agent = create_agent(FunctionChatModel(reply), [weather], protocol="tool_calling", memory=plain)
    assert run(agent, history).content == "好的"
    prompt = seen[-1]
    kinds = ["system", "human", "ai", "tool", "ai", "tool", "ai", "human"]
    assert [m.type for m in prompt] == kinds
    assert prompt[3].content == "北京晴" and prompt[2].tool_calls[0]["id"] == "c1"
    assert prompt[5].tool_call_id == "c2" and prompt[5].content.startswith("ERROR:")
    # The default window has room for all of it: the same turns, word for word.
    agent = create_agent(FunctionChatModel(reply), [weather], protocol="tool_calling")
    run(agent, history)
    assert seen[-1] == prompt
    # A window too small for every turn folds the oldest turns' facts into the digest,
    # shown with the new question, which stays the newest message.
    small = SlidingWindowMemory(100)
    agent = create_agent(FunctionChatModel(reply), [weather], protocol="tool_calling", memory=small)
    run(agent, history)
    prompt = seen[-1]
    assert small.fresh().counter is small.counter and len(prompt) < len(kinds)
    assert prompt[-1].content.startswith("算了，谢谢") and "北京晴" in prompt[-1].content


def test_a_chat_prompt_keeps_its_messages(run, weather, act):
    llm = ScriptedChatModel([act("final", "ok")])
    prompt = ChatPromptTemplate.from_messages(
        [("system", "简短回答。"), ("human", "你是谁"), ("ai", "我是天气助手"), ("human", "{q}")]
    )
    result = run(create_agent(llm, [weather]), prompt.invoke({"q": "北京天气"}))
    assert isinstance(result, AgentResult) and result.input == "北京天气"
    system, *rest = llm.calls[0]
    assert system.content.startswith("简短回答。")
    assert [m.content for m in rest] == [
        "你是谁",
        json.dumps({"action": "final", "action_input": "我是天气助手"}, ensure_ascii=False),
        "北京天气",
    ]


def test_a_failed_run_still_answers_with_a_message(run, weather, act):
    llm = ScriptedChatModel(['{"garbage', '{"garbage'])  # unreadable JSON (words would answer)
    out = run(create_agent(llm, [weather]), [HumanMessage("北京天气")])
    assert out.content == ""
    assert out.response_metadata["stop_reason"] == StopReason.MAX_ERRORS.value
    assert "format" in out.response_metadata["error"]


def _history_agent(act):
    def reply(messages, tools):
        humans = [m.content for m in messages if m.type == "human"]
        return act("final", f"第{len(humans)}问：{humans[-1]}")

    return FunctionChatModel(reply)


def test_runnable_with_message_history(weather, act):
    store: dict[str, InMemoryChatMessageHistory] = {}

    def history(session_id: str) -> InMemoryChatMessageHistory:
        return store.setdefault(session_id, InMemoryChatMessageHistory())

    chat = RunnableWithMessageHistory(create_agent(_history_agent(act), [weather]), history)
    config = {"configurable": {"session_id": "u1"}}
    assert chat.invoke([HumanMessage("北京天气")], config).content == "第1问：北京天气"
    assert chat.invoke([HumanMessage("上海呢")], config).content == "第2问：上海呢"
    assert [m.content for m in store["u1"].messages] == [
        "北京天气",
        "第1问：北京天气",
        "上海呢",
        "第2问：上海呢",
    ]
    # Streamed, the history is written too: the run's recorded output is the message.
    events = list(chat.stream([HumanMessage("广州呢")], config))
    assert events[-1].content == "第3问：广州呢"
    assert store["u1"].messages[-1].content == "第3问：广州呢"


async def test_runnable_with_message_history_async(weather, act):
    store: dict[str, InMemoryChatMessageHistory] = {}
    chat = RunnableWithMessageHistory(
        create_agent(_history_agent(act), [weather]),
        lambda sid: store.setdefault(sid, InMemoryChatMessageHistory()),
    )
    config = {"configurable": {"session_id": "u1"}}
    await chat.ainvoke([HumanMessage("一")], config)
    second = await chat.ainvoke([HumanMessage("二")], config)
    assert second.content == "第2问：二" and len(store["u1"].messages) == 4


def test_a_node_of_a_langgraph_messages_graph(weather, act):
    app = graph_of(create_agent(weather_then_answer(act), [weather]))
    state = app.invoke({"messages": [HumanMessage("北京天气")]})
    kinds = [m.type for m in state["messages"]]
    assert kinds == ["human", "ai", "tool", "ai"]
    assert state["messages"][-1].content == "北京天气" + WEATHER
    assert len({m.id for m in state["messages"]}) == 4  # merged by id, nothing doubled
    # A second turn on the same graph state: the earlier turn is in the model's context.
    state = app.invoke({"messages": [*state["messages"], HumanMessage("谢谢")]})
    assert len(state["messages"]) == 8
    answer = state["messages"][-1].content  # the human turns of the model's first prompt
    # The earlier question, the result of the model's own earlier call (its own turn,
    # not folded into the question), then the new question.
    assert answer.startswith("北京天气 | Observation: 北京市天气") and answer.endswith(
        " | 谢谢" + WEATHER
    )


def test_a_node_of_a_langgraph_messages_graph_async(weather, act):
    app = graph_of(create_agent(weather_then_answer(act), [weather]))
    state = asyncio.run(app.ainvoke({"messages": [HumanMessage("北京天气")]}))
    assert state["messages"][-1].content == "北京天气" + WEATHER
