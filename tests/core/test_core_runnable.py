"""The agent is a real Runnable, and every stage is a named child run on every loop."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableLambda, RunnableParallel

from lcel_agent import AgentResult, StepRecord, StopReason, create_agent
from lcel_agent.stages import STAGE_NAMES, CleanJson, DispatchTools, TrimMemory
from lcel_agent.testing.fake import FunctionChatModel, ScriptedChatModel


def echo_model(act):
    """Answers with the task text after one weather call."""

    def reply(messages, tools):
        task = messages[1].content.split("\n\n")[0]  # the question, without the digest
        if "市天气" not in "".join(str(m.content) for m in messages[1:]):
            return act("get_weather", "北京")
        return act("final", f"answer:{task}")

    return FunctionChatModel(reply)


class Names(BaseCallbackHandler):
    def __init__(self) -> None:
        self.names: list[str] = []

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self.names.append(kwargs.get("name") or (serialized or {}).get("name", ""))


def test_every_stage_is_a_child_run_on_every_loop(weather, act):
    handler = Names()
    result = create_agent(echo_model(act), [weather]).invoke("t", {"callbacks": [handler]})
    assert result.loops == 2
    for name in STAGE_NAMES:
        assert handler.names.count(name) == 2, name
    assert handler.names[0] == "lcel_agent"


def test_astream_events_shows_the_stages(weather, act):
    agent = create_agent(echo_model(act), [weather])

    async def collect() -> list[str]:
        return [
            e["name"]
            async for e in agent.astream_events("t", version="v2")
            if e["event"] == "on_chain_start"
        ]

    names = asyncio.run(collect())
    for name in STAGE_NAMES:
        assert names.count(name) == 2, name


def test_batch_and_abatch_keep_inputs_apart(weather, act):
    agent = create_agent(echo_model(act), [weather])
    tasks = [f"任务{i}" for i in range(12)]
    results = agent.batch(tasks, {"max_concurrency": 4})
    assert [r.output for r in results] == [f"answer:{t}" for t in tasks]
    results = asyncio.run(agent.abatch(tasks, {"max_concurrency": 5}))
    assert [r.output for r in results] == [f"answer:{t}" for t in tasks]


def test_stream_yields_steps_then_the_result(weather, act):
    agent = create_agent(echo_model(act), [weather])
    events = list(agent.stream("t"))
    assert [type(e) for e in events] == [StepRecord, StepRecord, AgentResult]
    assert events[-1].steps == tuple(events[:2])

    async def collect() -> list[Any]:
        return [e async for e in agent.astream("t")]

    events = asyncio.run(collect())
    assert [type(e) for e in events] == [StepRecord, StepRecord, AgentResult]


def test_composition_config_and_parallel(weather, act):
    agent = create_agent(echo_model(act), [weather])
    chain = RunnableLambda(lambda x: x["q"].upper()) | agent | (lambda r: r.output)
    assert chain.invoke({"q": "abc"}) == "answer:ABC"
    assert asyncio.run(chain.ainvoke({"q": "x"})) == "answer:X"
    assert list(chain.stream({"q": "s"}))[-1] == "answer:S"
    both = RunnableParallel(a=agent, n=RunnableLambda(len))
    out = both.invoke("hello")
    assert out["a"].output == "answer:hello" and out["n"] == 5
    tagged = agent.with_config(run_name="my_agent", tags=["t"])
    handler = Names()
    tagged.invoke("t", {"callbacks": [handler]})
    assert handler.names[0] == "my_agent"


def test_a_stage_can_be_swapped_by_name(weather, act):
    seen = []

    def spy_clean(state):
        seen.append(state.loops)
        return CleanJson().invoke(state)

    handler = Names()
    agent = create_agent(
        echo_model(act), [weather], stages={"clean_json": RunnableLambda(spy_clean)}
    )
    result = agent.invoke("t", {"callbacks": [handler]})
    assert result.stop_reason is StopReason.FINAL and seen == [1, 2]
    assert handler.names.count("clean_json") >= 2


def test_stages_work_standalone(weather):
    llm = ScriptedChatModel(
        ['Here you go:\n```json\n{"action": "final", "action_input": "hi"}\n```']
    )
    assert (llm | CleanJson()).invoke("q") == {"action": "final", "action_input": "hi"}
    obs = DispatchTools([weather]).invoke(
        {"action": "get_weather", "action_input": {"city": "北京"}}
    )
    assert obs.ok and obs.output.startswith("北京市天气")
    obs = asyncio.run(DispatchTools([weather]).ainvoke({"action": "nope", "action_input": "x"}))
    assert not obs.ok and "get_weather" in obs.output
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    messages = [SystemMessage("s"), HumanMessage("q")] + [
        m for i in range(50) for m in (AIMessage(f"a{i} " * 20), HumanMessage(f"o{i} " * 20))
    ]
    kept = TrimMemory(max_tokens=200).invoke(messages)
    assert kept[:2] == messages[:2] and len(kept) < len(messages) and kept[-1] == messages[-1]


def test_an_empty_task_is_rejected(weather, act):
    agent = create_agent(echo_model(act), [weather])
    with pytest.raises(ValueError, match="empty"):
        agent.invoke("   ")
    with pytest.raises(TypeError):
        agent.invoke(42)
