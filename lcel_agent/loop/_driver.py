"""The driving Runnable: runs the stages, loop after loop, until a stop, under exact limits.

``AgentLoop`` is what :func:`~lcel_agent.create_agent` returns. Each iteration
runs the stages in chain order (``assemble_prompt``, ``call_llm``, ...,
``trim_memory``) as children of one run named ``loop:N``, timing each stage
into the loop's :class:`~lcel_agent.state.StepRecord` (``stage_ms``). Before
each loop the pure :func:`~lcel_agent.rules.limits.gate` decides whether another
model call is allowed; after the last, :func:`~lcel_agent.rules.limits.finish` builds
the :class:`~lcel_agent.state.AgentResult`. The sync and async drivers only
differ in ``invoke`` versus ``await ainvoke``.

Input and output (see :mod:`lcel_agent.conversation`): a task string,
``{"input": task}``, a message or a prompt value gives an ``AgentResult``;
``{"messages": [...]}`` gives ``{"messages": [...]}``; a list of messages gives
the final ``AIMessage``. ``stream``/``astream`` yield each loop's
``StepRecord`` as it ends, then the output; with ``stream_mode="answer"`` they
yield the answer's text as the model writes it.

Per-run configuration: ``config["configurable"]`` may set ``max_loops``,
``max_errors``, ``token_budget`` and ``time_budget`` for one run, ``thread_id``
when the agent has a checkpointer (input ``None`` resumes the thread's run; see
:mod:`lcel_agent.durable`; ``session_id`` names the thread too). A session id on an
agent without a checkpointer is ignored (with a DEBUG log).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForChainRun,
    CallbackManagerForChainRun,
)
from langchain_core.runnables import ConfigurableFieldSpec, Runnable, RunnableConfig
from langchain_core.runnables.graph import Graph

from ..calling import check_sync_run, run_config
from ..conversation import RunInput, output_for, read_input, seed_window
from ..durable import CHECKPOINT_STAGE, ARunLoop, Identity, Journey, RunLoop, Threads, ThreadState
from ..errors import AgentRunError, ConfigurationError
from ..memory import SlidingWindowMemory
from ..rules.gathered import gathered
from ..rules.limits import Limits, finish, gate
from ..rules.limits import limit_specs as _limit_specs
from ..rules.structured import ResponseFormat
from ..state import AgentResult, AgentState, StepRecord, StopReason
from ._one_loop import aquiet_loop, atraced_loop, direct_stages, listened, quiet_loop, traced_loop
from ._tracing import mask_traces
from .graph import loop_graph
from .streaming import AnswerTap, aanswer_stream, answer_stream
from .streaming.modes import ModeView, StreamMode, check_mode, joined

__all__ = ["AgentEvent", "AgentLoop", "Limits", "StreamMode", "finish", "gate", "task_of"]

#: What ``stream`` yields in the default mode: a record per loop, then the output.
AgentEvent = StepRecord | AgentResult


def task_of(value: Any) -> str:
    """The task text of an agent input (any accepted form; see :mod:`lcel_agent.conversation`)."""
    return read_input(value).task


class AgentLoop(Runnable[Any, Any]):
    """The agent: a Runnable that drives the stages. Build it with ``create_agent``.

    Attributes:
        step: the step chain (a ``RunnableSequence`` of the stages), for users who
            compose it themselves; the loop runs the stages one by one.
        stages: the stages by name, in chain order.
        memory: the window template; each run works on ``memory.fresh()``.
        limits: the loop's limits (a run's ``configurable`` may override them).
        checkpointer: the LangGraph checkpoint saver of durable runs, if any.
        response_format: the final answer's format, if any.
        raise_on_failure: every stop but ``final`` raises :class:`AgentRunError`.
    """

    name = "lcel_agent"

    @property
    def InputType(self) -> Any:
        """A task string, ``{"input": ...}``, ``{"messages": [...]}``, messages, a prompt value."""
        return Any

    @property
    def OutputType(self) -> type[AgentResult]:
        """``invoke`` returns an :class:`AgentResult` for a task (see the module docstring)."""
        return AgentResult

    def __init__(
        self,
        stages: Mapping[str, Runnable[Any, Any]],
        *,
        system_prompt: str | Callable[[str | None], str],
        memory: SlidingWindowMemory,
        limits: Limits,
        response_format: ResponseFormat | None = None,
        raise_on_failure: bool = False,
        native_tools: bool = False,
        checkpointer: Any = None,
        tool_names: Sequence[str] = (),
        persona: str | None = None,
    ) -> None:
        self.stages = dict(stages)
        self.persona = persona
        """The agent's own instructions (``system_prompt``): the answer stage writes by them."""
        self._stages = tuple(self.stages.items())
        # The stages the quiet loop calls through ``run``/``arun``; the others it invokes.
        self._direct = direct_stages(self._stages)
        chain: Runnable[Any, Any] | None = None
        for stage in self.stages.values():
            chain = stage if chain is None else chain | stage
        if chain is None:
            raise ConfigurationError("the agent needs at least one stage")
        self.step = chain
        if callable(system_prompt):
            self._prompt_for: Callable[[str | None], str] | None = system_prompt
            self.system_prompt = system_prompt(None)
        else:
            self._prompt_for = None
            self.system_prompt = system_prompt
        self.memory = memory
        self.limits = limits
        self.checkpointer = checkpointer
        self.response_format = response_format
        self.raise_on_failure = raise_on_failure
        self.native_tools = native_tools
        names = list(self.stages)  # a resumed loop goes on after its decision's checkpoint
        resume_at = names.index(CHECKPOINT_STAGE) + 1 if CHECKPOINT_STAGE in names else 0
        protocol = "tool_calling" if native_tools else "json"
        self._threads = Threads(memory, checkpointer=checkpointer,
                                identity=Identity(tuple(sorted(tool_names)), protocol),
                                resume_at=resume_at)  # fmt: skip

    # --- what LangChain asks of a Runnable ---------------------------------------------
    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The per-run limits, and ``thread_id`` when the agent has a checkpointer."""
        return _limit_specs(self.limits) + self._threads.specs()

    def get_graph(self, config: RunnableConfig | None = None) -> Graph:
        """The stages in chain order and the loop's back edge (``draw_mermaid()``, ...)."""
        return loop_graph(
            self.stages, self.get_input_schema(config), self.get_output_schema(config)
        )

    # --- shared helpers --------------------------------------------------------------------

    def _system_prompt(self, persona: str | None) -> str:
        if persona is None:
            return self.system_prompt
        if self._prompt_for is not None:
            return self._prompt_for(persona)
        return f"{persona}\n\n{self.system_prompt}"

    def _holds(self, state: AgentState) -> bool:
        """Whether the acting model's answer this loop may yet be replaced by the answer
        stage's, so a stream must not send it as it comes. The stage says (``may_replace``);
        a stage that cannot say may replace any answer once tools have succeeded."""
        stage = self.stages.get("answer")
        may_replace = getattr(stage, "may_replace", None)
        if callable(may_replace):
            return bool(may_replace(state))
        return bool(gathered(state))

    def _begin(self, value: Any, config: RunnableConfig) -> Journey:
        return self._threads.journey(value, config, self.limits)

    def get_state(self, config: RunnableConfig) -> ThreadState | None:
        """The thread's latest checkpoint (None before its first run); needs a checkpointer."""
        return self._threads.state(config, self._result)

    async def aget_state(self, config: RunnableConfig) -> ThreadState | None:
        """Async twin of :meth:`get_state`."""
        return await self._threads.astate(config, self._result)

    def _start(self, run: RunInput, memory: SlidingWindowMemory, limits: Limits) -> AgentState:
        window = memory.copy()
        seed_window(
            window, run, system_prompt=self._system_prompt(run.persona), native=self.native_tools
        )
        started = time.monotonic()
        deadline = None if limits.time_budget is None else started + limits.time_budget
        persona = run.persona if run.persona is not None else self.persona
        return AgentState(
            task=run.task, memory=window, started=started, deadline=deadline, persona=persona
        )

    def _result(self, state: AgentState) -> AgentResult:
        # A gate stop ran no stage: the answer stage says what such a run delivers (pure).
        on_stop = getattr(self.stages.get("answer"), "on_stop", None)
        if callable(on_stop):
            state = on_stop(state)
        result = finish(state)
        if self.response_format is not None and isinstance(result.output, str):
            # A swapped-in stage may let an unchecked answer through: then its text is kept.
            with contextlib.suppress(ValueError):
                loaded = self.response_format.load(result.output)
                result = dataclasses.replace(result, output=loaded)
        return result

    def _output(self, journey: Journey, result: AgentResult) -> Any:
        if self.raise_on_failure and result.stop_reason not in (
            StopReason.FINAL,
            StopReason.PAUSED,
        ):
            raise AgentRunError(result)
        return output_for(journey.input, result, structured=self.response_format is not None)

    # --- drivers -------------------------------------------------------------------------------
    def _loop(self, quiet: bool, n: int, config: RunnableConfig, tap: AnswerTap | None) -> RunLoop:
        """Loop ``n``, from the stage at index ``first`` (the rest of a resumed loop)."""
        if quiet:
            return lambda state, first: quiet_loop(self._direct[first:], state, config)
        return lambda state, first: traced_loop(self._stages[first:], state, n, config, tap)

    def _aloop(
        self, quiet: bool, n: int, config: RunnableConfig, tap: AnswerTap | None
    ) -> ARunLoop:
        """Async twin of :meth:`_loop`."""
        if quiet:
            return lambda state, first: aquiet_loop(self._direct[first:], state, config)
        return lambda state, first: atraced_loop(self._stages[first:], state, n, config, tap)

    def _drive(
        self,
        journey: Journey,
        manager: CallbackManagerForChainRun,
        tap: AnswerTap | None = None,
    ) -> Iterator[AgentEvent]:
        quiet = tap is None and not listened(manager)
        # What LangChain's callbacks trace, masked for LangSmith. The children's tracers come
        # from the inheritable list, which langchain-core 1.x may fill with copies of its own.
        mask_traces([*manager.handlers, *manager.inheritable_handlers])
        with journey.open(self._start) as trip:
            state, iterations = trip.state, trip.iterations
            while (state := trip.gate(state, trip.limits, iterations)).stop is None:
                if tap is not None:
                    if tap.closed:
                        break
                    tap.begin_loop(hold=self._holds(state))
                iterations += 1
                before = len(state.steps)
                state = trip.step(state, self._loop(quiet, iterations, trip.config, tap))
                yield from state.steps[before:]  # the loop's record, and the answer stage's
            result = trip.finish(state, self._result(state))
        yield result

    async def _adrive(
        self,
        journey: Journey,
        manager: AsyncCallbackManagerForChainRun,
        tap: AnswerTap | None = None,
    ) -> AsyncIterator[AgentEvent]:
        quiet = tap is None and not listened(manager)
        mask_traces([*manager.handlers, *manager.inheritable_handlers])
        async with journey.aopen(self._start) as trip:
            state, iterations = trip.state, trip.iterations
            while (state := trip.gate(state, trip.limits, iterations)).stop is None:
                # No tap.closed check, unlike _drive: an answer reader that stops early
                # cancels this run's task (streaming.apump), so the run ends at its next
                # await. A thread cannot be cancelled: the sync run polls the flag instead.
                if tap is not None:
                    tap.begin_loop(hold=self._holds(state))
                iterations += 1
                before = len(state.steps)
                state = await trip.astep(state, self._aloop(quiet, iterations, trip.config, tap))
                for step in state.steps[before:]:
                    yield step
            result = await trip.afinish(state, self._result(state))
        yield result

    # --- Runnable interface --------------------------------------------------------------------
    def _invoke(
        self, value: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        journey = self._begin(value, config)
        *_, result = self._drive(journey, run_manager)
        assert isinstance(result, AgentResult)
        return self._output(journey, result)

    async def _ainvoke(
        self, value: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        journey = self._begin(value, config)
        last: AgentEvent | None = None
        async for event in self._adrive(journey, run_manager):
            last = event
        assert isinstance(last, AgentResult)
        return self._output(journey, last)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Run the agent once; the output's form follows the input's (module docstring)."""
        check_sync_run(self.stages)  # before any model call: an MCP session it cannot reach
        config = run_config(config, kwargs)  # context=ctx: for tools taking a ToolRuntime
        return self._call_with_config(self._invoke, input, config, run_type="chain")

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Async twin of :meth:`invoke`."""
        config = run_config(config, kwargs)
        return await self._acall_with_config(self._ainvoke, input, config, run_type="chain")

    def _transform(
        self,
        inputs: Iterator[Any],
        run_manager: CallbackManagerForChainRun,
        config: RunnableConfig,
        mode: StreamMode = "steps",
    ) -> Iterator[Any]:
        journey = self._begin(joined(inputs), config)
        view = ModeView(mode, lambda: journey.input)
        for event in self._drive(journey, run_manager):
            yield from view.items(event, partial(self._output, journey))

    async def _atransform(
        self,
        inputs: AsyncIterator[Any],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
        mode: StreamMode = "steps",
    ) -> AsyncIterator[Any]:
        chunks = [value async for value in inputs]
        journey = self._begin(joined(iter(chunks)), config)
        view = ModeView(mode, lambda: journey.input)
        async for event in self._adrive(journey, run_manager):
            for item in view.items(event, partial(self._output, journey)):
                yield item

    def _answer(
        self, inputs: Iterator[Any], run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Iterator[str]:
        journey = self._begin(joined(inputs), config)
        result = yield from answer_stream(
            lambda tap: self._drive(journey, run_manager, tap),
            native=self.native_tools,
            whole=self.response_format is not None,  # a structured answer is checked first
        )
        self._output(journey, result)  # raise_on_failure raises here, after the text

    async def _aanswer(
        self,
        inputs: AsyncIterator[Any],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
    ) -> AsyncIterator[str]:
        chunks = [value async for value in inputs]
        journey = self._begin(joined(iter(chunks)), config)
        results: list[AgentResult] = []
        async for text in aanswer_stream(
            lambda tap: self._adrive(journey, run_manager, tap),
            results,
            native=self.native_tools,
            whole=self.response_format is not None,
        ):
            yield text
        self._output(journey, results[0])

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """Yield each loop's :class:`StepRecord` as it ends, then the output.

        ``stream_mode="answer"`` (a keyword argument) yields the final answer's
        text instead, in pieces, as the model writes it (docs/langchain.md).
        """
        yield from self.transform(iter([input]), config, **kwargs)

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """Async twin of :meth:`stream`."""

        async def one() -> AsyncIterator[Any]:
            yield input

        async for event in self.atransform(one(), config, **kwargs):
            yield event

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        mode, config = check_mode(kwargs.get("stream_mode", "steps")), run_config(config, kwargs)
        work = self._answer if mode == "answer" else partial(self._transform, mode=mode)
        check_sync_run(self.stages)
        yield from self._transform_stream_with_config(input, work, config, run_type="chain")

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        mode, config = check_mode(kwargs.get("stream_mode", "steps")), run_config(config, kwargs)
        work = self._aanswer if mode == "answer" else partial(self._atransform, mode=mode)
        async for event in self._atransform_stream_with_config(
            input, work, config, run_type="chain"
        ):
            yield event
