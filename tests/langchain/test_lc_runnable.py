"""raise_on_failure with with_retry / with_fallbacks, per-run config, the graph, the run tree."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from langchain_core.runnables import RunnableLambda
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.schemas import Run
from langgraph.checkpoint.memory import InMemorySaver

from lcel_agent import (
    AgentRunError,
    AgentState,
    ConfigurationError,
    StopReason,
    create_agent,
)
from lcel_agent.stages import STAGE_NAMES
from lcel_agent.testing.fake import FunctionChatModel, ScriptedChatModel


def test_failures_are_returned_by_default(run, weather, act):
    # The same unreadable reply twice: the breaker's max_errors=2.
    result = run(create_agent(ScriptedChatModel(['{"x', '{"x']), [weather]))
    assert result.stop_reason is StopReason.MAX_ERRORS


def test_raise_on_failure_carries_the_result(run, weather, act):
    agent = create_agent(ScriptedChatModel(['{"x', '{"x']), [weather], raise_on_failure=True)
    with pytest.raises(AgentRunError, match="max_errors") as raised:
        run(agent)
    result = raised.value.result
    assert result.stop_reason is StopReason.MAX_ERRORS and result.loops == 2
    assert len(result.steps) == 2 and result.error is not None
    ok = create_agent(ScriptedChatModel([act("final", "ok")]), [weather], raise_on_failure=True)
    assert run(ok).output == "ok"


def test_with_retry_retries_a_failed_run(weather, act):
    # First run: the same unreadable reply twice (max_errors); the retry's run answers.
    llm = ScriptedChatModel(['{"x', '{"x', act("final", "第二次成功")])
    agent = create_agent(llm, [weather], raise_on_failure=True).with_retry(
        retry_if_exception_type=(AgentRunError,),
        stop_after_attempt=2,
        wait_exponential_jitter=False,
    )
    assert agent.invoke("t").output == "第二次成功"
    assert len(llm.calls) == 3


async def test_with_retry_retries_a_failed_run_async(weather, act):
    llm = ScriptedChatModel(['{"x', '{"x', act("final", "第二次成功")])
    agent = create_agent(llm, [weather], raise_on_failure=True).with_retry(
        retry_if_exception_type=(AgentRunError,),
        stop_after_attempt=2,
        wait_exponential_jitter=False,
    )
    assert (await agent.ainvoke("t")).output == "第二次成功"


def _never_answers(act):
    """Asks for a new city every time: progress, but never an answer."""
    cities = iter(range(1000))
    return FunctionChatModel(lambda m, t: act("get_weather", f"城{next(cities)}"))


def test_with_fallbacks_falls_back_on_max_loops(run, weather, act):
    never = _never_answers(act)
    first = create_agent(never, [weather], max_loops=2, raise_on_failure=True)
    backup = create_agent(ScriptedChatModel([act("final", "备用")]), [weather])
    chain = first.with_fallbacks([backup], exceptions_to_handle=(AgentRunError,))
    assert run(chain).output == "备用"


def test_per_run_limits_come_from_the_config(run, weather, act):
    agent = create_agent(_never_answers(act), [weather], max_loops=8)
    result = run(agent, "t", {"configurable": {"max_loops": 3}})
    assert result.stop_reason is StopReason.MAX_LOOPS and result.loops == 3
    assert "max_loops=3" in result.error.message
    result = run(agent, "t", {"configurable": {"token_budget": 1}})
    assert result.stop_reason is StopReason.BUDGET and result.loops == 1
    # The agent's own limits are untouched by a run's.
    assert run(agent).loops == 8


def test_per_run_max_errors_reaches_the_breaker(run, weather, act):
    llm = FunctionChatModel(lambda m, t: '{"garbage')
    agent = create_agent(llm, [weather], max_errors=2, max_loops=10)
    assert run(agent).loops == 2
    assert run(agent, "t", {"configurable": {"max_errors": 4}}).loops == 4


def test_per_run_time_budget(run, weather, act):
    cities = iter(range(1000))

    def slow(messages, tools):
        time.sleep(0.05)
        return act("get_weather", f"城{next(cities)}")

    agent = create_agent(FunctionChatModel(slow), [weather], max_loops=50)
    result = run(agent, "t", {"configurable": {"time_budget": 0.12}})
    assert result.stop_reason is StopReason.BUDGET and 2 <= result.loops < 50


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        ("max_loops", 0, "must be >= 1"),
        ("max_errors", "3", "must be an int"),
        ("time_budget", -1, "must be > 0"),
        ("token_budget", True, "must be an int"),
    ],
)
def test_bad_per_run_limits_are_clear_errors(run, weather, key, value, match):
    llm = ScriptedChatModel([])
    with pytest.raises(ConfigurationError, match=match):
        run(create_agent(llm, [weather]), "t", {"configurable": {key: value}})
    assert llm.calls == []


def test_config_specs_declare_the_run_limits(weather):
    agent = create_agent(ScriptedChatModel([]), [weather], max_loops=7, token_budget=900)
    specs = {spec.id: spec for spec in agent.config_specs}
    assert set(specs) == {"max_loops", "max_errors", "token_budget", "time_budget"}
    assert specs["max_loops"].default == 7 and specs["token_budget"].default == 900
    with_store = create_agent(ScriptedChatModel([]), [weather], checkpointer=InMemorySaver())
    assert "thread_id" in {spec.id for spec in with_store.config_specs}
    # The specs surface through composition, as LangChain merges them.
    chain = RunnableLambda(lambda x: x) | with_store
    assert "max_errors" in {spec.id for spec in chain.config_specs}


def test_get_graph_draws_the_stages_and_the_loop(weather):
    graph = create_agent(ScriptedChatModel([]), [weather]).get_graph()
    assert list(graph.nodes) == ["__start__", *STAGE_NAMES, "__end__"]
    edges = {(e.source, e.target, e.data, e.conditional) for e in graph.edges}
    assert ("answer", "assemble_prompt", "loop", True) in edges
    assert ("answer", "__end__", "stop", True) in edges
    assert ("call_llm", "clean_json", None, False) in edges
    mermaid = graph.draw_mermaid()
    assert "answer -. &nbsp;loop&nbsp; .-> assemble_prompt" in mermaid
    ascii_art = graph.draw_ascii()  # grandalf is in the test extra
    assert all(name in ascii_art for name in STAGE_NAMES)


class RunNames(BaseTracer):
    """A tracer that keeps every finished run, to read the tree."""

    def __init__(self) -> None:
        super().__init__()
        self.roots: list[Run] = []

    def _persist_run(self, run: Run) -> None:
        self.roots.append(run)


def _tree(run: Run) -> Any:
    return (run.name, [_tree(c) for c in sorted(run.child_runs, key=lambda r: r.dotted_order)])


def _check_tree(tracer: RunNames, loops: int) -> None:
    (root,) = tracer.roots
    name, children = _tree(root)
    assert name == "lcel_agent"
    assert [c[0] for c in children] == [f"loop:{n}" for n in range(1, loops + 1)]
    for _, stages in children:
        assert [s[0] for s in stages] == list(STAGE_NAMES)
        call_llm = dict(stages)["call_llm"]
        assert [c[0] for c in call_llm] == ["ScriptedChatModel"]


def test_a_tracer_sees_loops_named_loop_n_with_the_stages(weather, act):
    llm = ScriptedChatModel([act("get_weather", "北京"), act("final", "ok")])
    tracer = RunNames()
    result = create_agent(llm, [weather]).invoke("t", {"callbacks": [tracer]})
    assert result.loops == 2
    _check_tree(tracer, 2)
    for step in result.steps:
        assert [name for name, _ in step.stage_ms] == list(STAGE_NAMES)
        assert all(ms >= 0 for _, ms in step.stage_ms)
        assert dict(step.stage_ms)["call_llm"] >= step.llm_ms * 0.5


def test_a_tracer_sees_loops_named_loop_n_with_the_stages_async(weather, act):
    llm = ScriptedChatModel([act("get_weather", "北京"), act("final", "ok")])
    tracer = RunNames()
    result = asyncio.run(create_agent(llm, [weather]).ainvoke("t", {"callbacks": [tracer]}))
    _check_tree(tracer, 2)
    assert all(len(step.stage_ms) == len(STAGE_NAMES) for step in result.steps)


def test_the_step_chain_still_composes(weather, act):
    """agent.step is the stages as one RunnableSequence, for users who drive it themselves."""
    agent = create_agent(ScriptedChatModel([act("final", "ok")]), [weather])
    assert [s.get_name() for s in agent.step.steps] == list(STAGE_NAMES)
    memory = agent.memory.fresh()
    memory.add_system(agent.system_prompt)
    memory.add_user("t")
    state = agent.step.invoke(AgentState(task="t", memory=memory, started=time.monotonic()))
    assert state.stop is StopReason.FINAL and state.output == "ok" and state.loops == 1
