"""The driving Runnable: runs the stages, loop after loop, until a stop, under exact limits.

``AgentLoop`` is what :func:`~lcel_agent.create_agent` returns. Each iteration runs the
stages in chain order (``assemble_prompt``, ``call_llm``, ..., ``trim_memory``,
``answer``), timing each into the loop's :class:`~lcel_agent.state.StepRecord`
(``stage_ms``): as children of a run named ``loop:N`` when a callback handler listens,
else on the quiet loop (:mod:`._one_loop`). Before each loop the pure
:func:`~lcel_agent.rules.limits.gate` decides whether another model call is allowed;
after the last, :func:`~lcel_agent.rules.limits.finish` builds the
:class:`~lcel_agent.state.AgentResult`. Where a run starts (a fresh window or a thread's
checkpoint) and what is saved after each loop is the durable room's: a ``RunStart`` (its
``Journey``) opens the run. The sync and async drivers differ only in ``await``.

Input and output (see :mod:`lcel_agent.conversation`): a task string, ``{"input": task}``,
a message or a prompt value gives an ``AgentResult``; ``{"messages": [...]}`` gives
``{"messages": [...]}``; a list of messages gives the final ``AIMessage``.
``stream``/``astream`` yield each loop's ``StepRecord`` as it ends, then the output; with
``stream_mode="answer"`` they yield the answer's text as the model writes it, holding the
acting model's answer while the answer stage may yet replace it (:mod:`._answer_stage`).

Per-run configuration: ``config["configurable"]`` may set ``max_loops``, ``max_errors``,
``token_budget`` and ``time_budget`` for one run, ``thread_id`` when the agent has a
checkpointer (input ``None`` resumes the thread's run; see :mod:`lcel_agent.durable`;
``session_id`` names the thread too). A session id on an agent without a checkpointer is
ignored (with a DEBUG log).
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
from langchain_core.callbacks.manager import BaseRunManager
from langchain_core.runnables import ConfigurableFieldSpec, Runnable, RunnableConfig
from langchain_core.runnables.graph import Graph

from .._shared.protocol import ProtocolName
from ..calling import check_sync_run, run_config
from ..conversation import RunInput, output_for, seed_window, task_of
from ..durable import CHECKPOINT_STAGE, Identity, Threads, ThreadState
from ..durable import Journey as RunStart
from ..durable import Trip as OpenRun
from ..errors import AgentRunError
from ..memory import SlidingWindowMemory
from ..rules.limits import Limits, finish, gate
from ..rules.limits import limit_specs as _limit_specs
from ..rules.structured import ResponseFormat
from ..state import AgentResult, AgentState, StepRecord, StopReason
from ._answer_stage import delivered
from ._one_loop import RunLoops, quiet_stages, step_chain, takes_quiet_loop
from .graph import loop_graph
from .streaming import AnswerListener, aanswer_stream, answer_stream
from .streaming.modes import ModeView, StreamMode, check_mode, input_of_chunks

__all__ = ["AgentEvent", "AgentLoop", "Limits", "StreamMode", "finish", "gate", "task_of"]

#: What ``stream`` yields in the default mode: a record per loop, then the output.
AgentEvent = StepRecord | AgentResult
#: The stops ``raise_on_failure`` does not raise for: an answer, a run that waits.
_NOT_FAILURES = (StopReason.FINAL, StopReason.PAUSED)


def _persona_first(prompt: str, persona: str | None) -> str:
    return prompt if persona is None else f"{persona}\n\n{prompt}"


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
        raise_on_failure: every stop but ``final`` and ``paused`` raises :class:`AgentRunError`.
        protocol: ``"json"`` or ``"tool_calling"``, as ``create_agent`` was given it.
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
        protocol: ProtocolName = "json",
        checkpointer: Any = None,
        tool_names: Sequence[str] = (),
        persona: str | None = None,
    ) -> None:
        self.stages = dict(stages)
        self.persona = persona
        """The agent's own instructions (``system_prompt``): the answer stage writes by them."""
        self._stages = tuple(self.stages.items())
        # The stages the quiet loop calls through ``run``/``arun``; the others it invokes.
        self._quiet_stages = quiet_stages(self._stages)
        self.step = step_chain(self.stages.values())
        # The system prompt for a persona (the agent's own, or a run's system message).
        self._prompt_for: Callable[[str | None], str] = (
            system_prompt if callable(system_prompt) else partial(_persona_first, system_prompt)
        )
        self.system_prompt = self._prompt_for(None)
        self.memory = memory
        self.limits = limits
        self.checkpointer = checkpointer
        self.response_format = response_format
        self.raise_on_failure = raise_on_failure
        self.protocol: ProtocolName = protocol
        names = list(self.stages)  # a resumed loop goes on after its decision's checkpoint
        resume_at = names.index(CHECKPOINT_STAGE) + 1 if CHECKPOINT_STAGE in names else 0
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

    # --- a run's first state and its output --------------------------------------------------
    def _run_start(self, value: Any, config: RunnableConfig) -> RunStart:
        """The run's input and config, read (a bad input raises here, before anything runs)."""
        return self._threads.journey(value, config, self.limits)

    def get_state(self, config: RunnableConfig) -> ThreadState | None:
        """The thread's latest checkpoint (None before its first run); needs a checkpointer."""
        return self._threads.state(config, self._result)

    async def aget_state(self, config: RunnableConfig) -> ThreadState | None:
        """Async twin of :meth:`get_state`."""
        return await self._threads.astate(config, self._result)

    def _first_state(
        self, run: RunInput, memory: SlidingWindowMemory, limits: Limits
    ) -> AgentState:
        """A new run's first state: its window seeded, its clock started."""
        window = memory.copy()
        seed_window(
            window, run, system_prompt=self._prompt_for(run.persona), protocol=self.protocol
        )
        started = time.monotonic()
        deadline = None if limits.time_budget is None else started + limits.time_budget
        persona = run.persona if run.persona is not None else self.persona
        return AgentState(
            task=run.task, memory=window, started=started, deadline=deadline, persona=persona
        )

    def _result(self, state: AgentState) -> AgentResult:
        # A gate stop ran no stage: the answer stage says what such a run delivers (pure).
        result = finish(delivered(self.stages.get("answer"), state))
        if self.response_format is not None and isinstance(result.output, str):
            # A swapped-in stage may let an unchecked answer through: then its text is kept.
            with contextlib.suppress(ValueError):
                loaded = self.response_format.load(result.output)
                result = dataclasses.replace(result, output=loaded)
        return result

    def _output(self, run_start: RunStart, result: AgentResult) -> Any:
        if self.raise_on_failure and result.stop_reason not in _NOT_FAILURES:
            raise AgentRunError(result)
        return output_for(run_start.input, result, structured=self.response_format is not None)

    # --- drivers -------------------------------------------------------------------------------
    def _loops(
        self, open_run: OpenRun, manager: BaseRunManager, listener: AnswerListener | None
    ) -> RunLoops:
        """The run's loops: quiet when nobody listens and no answer streams."""
        quiet = takes_quiet_loop(manager, listener)
        answer = self.stages.get("answer")
        return RunLoops(open_run, self._stages, self._quiet_stages, answer,
                        quiet=quiet, listener=listener)  # fmt: skip

    def _drive(
        self,
        run_start: RunStart,
        manager: CallbackManagerForChainRun,
        listener: AnswerListener | None = None,
    ) -> Iterator[AgentEvent]:
        with run_start.open(self._first_state) as open_run:
            loops = self._loops(open_run, manager, listener)
            while (one_loop := loops.next()) is not None:
                yield from loops.records(open_run.step(loops.state, one_loop.run))
            result = open_run.finish(loops.state, self._result(loops.state))
        yield result

    async def _adrive(
        self,
        run_start: RunStart,
        manager: AsyncCallbackManagerForChainRun,
        listener: AnswerListener | None = None,
    ) -> AsyncIterator[AgentEvent]:
        async with run_start.aopen(self._first_state) as open_run:
            loops = self._loops(open_run, manager, listener)
            while (one_loop := loops.next()) is not None:
                for record in loops.records(await open_run.astep(loops.state, one_loop.arun)):
                    yield record
            result = await open_run.afinish(loops.state, self._result(loops.state))
        yield result

    # --- Runnable interface --------------------------------------------------------------------
    def _invoke(
        self, value: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        run_start = self._run_start(value, config)
        *_, result = self._drive(run_start, run_manager)
        assert isinstance(result, AgentResult)
        return self._output(run_start, result)

    async def _ainvoke(
        self, value: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        run_start = self._run_start(value, config)
        last: AgentEvent | None = None
        async for event in self._adrive(run_start, run_manager):
            last = event
        assert isinstance(last, AgentResult)
        return self._output(run_start, last)

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
        run_start = self._run_start(input_of_chunks(inputs), config)
        view = ModeView(mode, lambda: run_start.input)
        for event in self._drive(run_start, run_manager):
            yield from view.items(event, partial(self._output, run_start))

    async def _atransform(
        self,
        inputs: AsyncIterator[Any],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
        mode: StreamMode = "steps",
    ) -> AsyncIterator[Any]:
        chunks = [value async for value in inputs]
        run_start = self._run_start(input_of_chunks(iter(chunks)), config)
        view = ModeView(mode, lambda: run_start.input)
        async for event in self._adrive(run_start, run_manager):
            for item in view.items(event, partial(self._output, run_start)):
                yield item

    def _answer(
        self, inputs: Iterator[Any], run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Iterator[str]:
        run_start = self._run_start(input_of_chunks(inputs), config)
        result = yield from answer_stream(
            lambda listener: self._drive(run_start, run_manager, listener),
            protocol=self.protocol,
            whole=self.response_format is not None,  # a structured answer is checked first
        )
        self._output(run_start, result)  # raise_on_failure raises here, after the text

    async def _aanswer(
        self,
        inputs: AsyncIterator[Any],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
    ) -> AsyncIterator[str]:
        chunks = [value async for value in inputs]
        run_start = self._run_start(input_of_chunks(iter(chunks)), config)
        results: list[AgentResult] = []
        async for text in aanswer_stream(
            lambda listener: self._adrive(run_start, run_manager, listener),
            results,
            protocol=self.protocol,
            whole=self.response_format is not None,
        ):
            yield text
        self._output(run_start, results[0])

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
