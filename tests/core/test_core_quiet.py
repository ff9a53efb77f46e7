"""The quiet loop: nobody listening costs no run bookkeeping; anyone listening sees every stage.

When no callback handler hears a run, the loop calls the built-in stages' pure
``run``/``arun`` itself; as soon as one does (a handler in the config,
``collect_runs``, the LangSmith tracer switched on by ``tracing_v2_enabled`` or
the tracing environment variables) every stage is again a named child run of
``loop:N``. Each test runs sync and async (the ``run`` fixture).
"""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tracers import BaseTracer
from langchain_core.tracers.context import collect_runs, tracing_v2_enabled
from langchain_core.tracers.langchain import wait_for_all_tracers

from lcel_agent import AgentResult, create_agent
from lcel_agent.stages import STAGE_NAMES, CleanJson, Stage
from lcel_agent.stages._base import runs_directly
from lcel_agent.state import AgentState
from lcel_agent.testing.fake import FunctionChatModel

#: The answer, with every fact of the weather call's result (the answer stage keeps it).
ANSWER = "北京晴，温度25℃，湿度40%"


def weather_then_answer(act: Any) -> FunctionChatModel:
    """One weather call, then the answer."""

    def reply(messages: Any, tools: Any) -> str:
        if "市天气" not in "".join(str(m.content) for m in messages[1:]):
            return str(act("get_weather", "北京"))
        return str(act("final", ANSWER))

    return FunctionChatModel(reply)


class Runs(BaseCallbackHandler):
    """Every chain run: its name and its parent's name."""

    def __init__(self) -> None:
        self.names: dict[UUID, str] = {}
        self.edges: list[tuple[str, str | None]] = []

    def on_chain_start(
        self, serialized: Any, inputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        name = kwargs.get("name") or ""
        self.names[run_id] = name
        self.edges.append((name, self.names.get(parent_run_id) if parent_run_id else None))


class Probe(CleanJson):
    """``clean_json`` that notes, each time it runs, which run the LangSmith tracers see it in."""

    def __init__(self) -> None:
        super().__init__(name="clean_json")
        self.seen: list[list[str]] = []

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        manager = config.get("callbacks")
        parent = str(getattr(manager, "parent_run_id", None))
        tracers = [h for h in getattr(manager, "handlers", []) if isinstance(h, BaseTracer)]
        self.seen.append([t.run_map[parent].name for t in tracers if parent in t.run_map])
        return super().run(state, config)


class _Sink(http.server.BaseHTTPRequestHandler):
    """Takes whatever a LangSmith client posts, and says it went well."""

    def _ok(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = do_PATCH = _ok

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def langsmith_sink() -> Iterator[str]:
    """A loopback endpoint for the LangSmith client: tracing on, no network.

    One for the module: langsmith keeps the client the environment made, address and all.
    """
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _drain_tracers() -> None:
    """Let the LangSmith client post what it queued, from its own thread, before the sink goes.

    The langsmith of the pinned stack has no ``Client.flush``; there this is best effort.
    """
    with contextlib.suppress(AttributeError):
        wait_for_all_tracers()


def _loop_children(runs: Runs) -> list[tuple[str, str | None]]:
    return [(name, parent) for name, parent in runs.edges if name in STAGE_NAMES]


def test_a_handler_sees_every_stage_as_a_child_of_its_loop(run, weather, act):
    runs = Runs()
    result = run(create_agent(weather_then_answer(act), [weather]), "t", {"callbacks": [runs]})
    assert result.loops == 2
    expected = [(name, f"loop:{n}") for n in (1, 2) for name in STAGE_NAMES]
    assert _loop_children(runs) == expected
    assert ("loop:1", "lcel_agent") in runs.edges and ("loop:2", "lcel_agent") in runs.edges


def test_collect_runs_sees_every_stage(run, weather, act):
    with collect_runs() as collector:
        result = run(create_agent(weather_then_answer(act), [weather]), "t")
    assert result.loops == 2
    (root,) = collector.traced_runs
    loops = [child for child in root.child_runs if child.name.startswith("loop:")]
    assert [loop.name for loop in loops] == ["loop:1", "loop:2"]
    for loop in loops:
        assert [stage.name for stage in loop.child_runs] == list(STAGE_NAMES)


def test_langsmith_tracing_sees_every_stage(run, weather, act, langsmith_sink):
    from langsmith import Client

    probe = Probe()
    agent = create_agent(weather_then_answer(act), [weather], stages={"clean_json": probe})
    client = Client(api_url=langsmith_sink, api_key="test-key", auto_batch_tracing=False)
    with tracing_v2_enabled(project_name="i17", client=client):
        result = run(agent, "t")
    _drain_tracers()
    assert result.loops == 2
    assert probe.seen == [["clean_json"], ["clean_json"]]


def test_the_tracing_environment_variables_switch_the_stage_runs_on(
    run, weather, act, langsmith_sink, monkeypatch
):
    from langsmith import utils as ls_utils

    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_ENDPOINT", langsmith_sink)
    monkeypatch.setenv("LANGSMITH_API_KEY", "test-key")
    ls_utils.get_env_var.cache_clear()  # langsmith caches what it read from the environment
    try:
        probe = Probe()
        agent = create_agent(weather_then_answer(act), [weather], stages={"clean_json": probe})
        result = run(agent, "t")
        _drain_tracers()
    finally:
        monkeypatch.undo()
        ls_utils.get_env_var.cache_clear()
    assert result.loops == 2
    assert probe.seen == [["clean_json"], ["clean_json"]]


def _untimed(result: AgentResult) -> tuple[Any, ...]:
    """What a run did, without how long it took."""
    # Call ids are drawn at random per run: compare the calls, not their ids.
    steps = [
        (
            s.step,
            s.raw,
            [(a.tool, a.tool_input) for a in s.actions],
            [o.output for o in s.observations],
        )
        for s in result.steps
    ]
    return (result.output, result.stop_reason, result.loops, steps, result.usage, result.messages)


def test_the_quiet_loop_gives_what_the_traced_loop_gives(run, weather, act):
    agent = create_agent(weather_then_answer(act), [weather])
    quiet = run(agent, "t")
    traced = run(agent, "t", {"callbacks": [Runs()]})
    assert _untimed(quiet) == _untimed(traced)
    assert quiet.output == ANSWER
    for step in quiet.steps:  # the stage timings are kept on the quiet path too
        assert [name for name, _ms in step.stage_ms] == list(STAGE_NAMES)
        assert all(ms >= 0 for _name, ms in step.stage_ms)


def test_the_quiet_loop_still_invokes_a_swapped_in_runnable(run, weather, act):
    seen: list[int] = []

    def spy(state: AgentState) -> AgentState:
        seen.append(state.loops)
        return CleanJson().run(state, {})

    agent = create_agent(
        weather_then_answer(act), [weather], stages={"clean_json": RunnableLambda(spy)}
    )
    result = run(agent, "t")
    assert result.output == ANSWER and seen == [1, 2]


class _OwnInvoke(CleanJson):
    """A Stage that does its own thing in ``invoke``: the loop must go through it."""

    calls = 0

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        type(self).calls += 1
        return super().invoke(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        type(self).calls += 1
        return await super().ainvoke(input, config, **kwargs)


def test_a_stage_with_its_own_invoke_is_invoked(run, weather, act):
    _OwnInvoke.calls = 0
    agent = create_agent(weather_then_answer(act), [weather], stages={"clean_json": _OwnInvoke()})
    assert run(agent, "t").output == ANSWER
    assert _OwnInvoke.calls == 2


def test_which_stages_run_directly():
    assert runs_directly(CleanJson())
    assert not runs_directly(_OwnInvoke())
    assert not runs_directly(RunnableLambda(lambda s: s))
    assert not runs_directly(CleanJson().with_config(tags=["x"]))
    assert issubclass(Probe, Stage) and runs_directly(Probe())


class LoopTags(BaseCallbackHandler):
    """The tags each chain run starts with, by run name."""

    def __init__(self) -> None:
        self.tags: dict[str, list[str]] = {}

    def on_chain_start(
        self, serialized: Any, inputs: Any, *, run_id: UUID, tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        self.tags[kwargs.get("name") or ""] = list(tags or [])


def test_each_loop_run_carries_its_own_loop_tag(run, weather, act):
    handler = LoopTags()
    agent = create_agent(weather_then_answer(act), [weather])
    result = run(agent, "t", {"callbacks": [handler], "tags": ["outer"]})
    assert result.loops == 2
    assert handler.tags["loop:1"] == ["outer", "loop:1"]
    assert handler.tags["loop:2"] == ["outer", "loop:2"]
    # The tag is the loop run's own: its stages inherit only the caller's tags.
    assert handler.tags["clean_json"] == ["outer"]


@pytest.mark.parametrize("listening", [False, True])
def test_the_quiet_loop_is_taken_exactly_when_nobody_listens(
    run, weather, act, monkeypatch, listening
):
    from lcel_agent.loop import _one_loop as loop

    taken: list[int] = []
    quiet, aquiet = loop.quiet_loop, loop.aquiet_loop

    def spy(stages: Any, state: AgentState, config: RunnableConfig) -> AgentState:
        taken.append(state.loops)
        return quiet(stages, state, config)

    async def aspy(stages: Any, state: AgentState, config: RunnableConfig) -> AgentState:
        taken.append(state.loops)
        return await aquiet(stages, state, config)

    monkeypatch.setattr(loop, "quiet_loop", spy)
    monkeypatch.setattr(loop, "aquiet_loop", aspy)
    agent = create_agent(weather_then_answer(act), [weather])
    result = run(agent, "t", {"callbacks": [Runs()]} if listening else None)
    assert result.output == ANSWER
    assert len(taken) == (0 if listening else result.loops)
