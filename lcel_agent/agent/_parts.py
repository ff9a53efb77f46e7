"""The parts ``create_agent`` builds from its checked arguments, each by its own function.

The models (:func:`build_models`: the acting model with its tools bound, the model of the
loop reserved for a final answer, the answer stage's writer), one function per stage
that takes settings (:func:`call_llm`, :func:`clean_json`, :func:`parse_action`,
:func:`dispatch_tools`, :func:`classify_error`, :func:`write_answer`), the system prompt
(:func:`system_prompt_of`), the default window (:func:`default_window`) and the loop
around the chain (:func:`agent_loop`). Each reads the :class:`~._checks.Arguments`,
checked already: nothing here raises for a bad argument but a model that cannot bind
tools.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from langchain_core.messages import SystemMessage
from langchain_core.runnables import Runnable, RunnableBinding
from langchain_core.tools import BaseTool

from .. import texts
from ..durable import with_checkpoint
from ..errors import ConfigurationError
from ..loop import AgentLoop
from ..memory import AGENT_COMPACTOR, AGENT_TOOL_COMPACTOR, SlidingWindowMemory
from ..memory.counters import count_message, resolve_counter
from ..rules.protocols import JsonTranscript, ToolCallTranscript
from ..stages import (
    STAGE_NAMES,
    CallLLM,
    ClassifyError,
    CleanJson,
    DispatchTools,
    KeepReply,
    ParseAction,
    ParseToolCalls,
    WriteAnswer,
    build_system_prompt,
    without_client_retries,
)
from ..stages.prompt import tool_arguments
from ._checks import Arguments

__all__ = [
    "DEFAULT_WINDOW",
    "OWN_PROMPT_SHARE",
    "Models",
    "agent_loop",
    "build_models",
    "call_llm",
    "classify_error",
    "clean_json",
    "default_window",
    "dispatch_tools",
    "parse_action",
    "system_prompt_of",
    "write_answer",
]

#: The default window's tokens: the article's 800.
DEFAULT_WINDOW = 800
#: What the agent's own system prompt (its rules and, in the JSON protocol, every tool's
#: description) may take of the default window before the window grows by the rest.
OWN_PROMPT_SHARE = 200


@dataclass(frozen=True)
class Models:
    """The models the stages call, each wrapped once (client retries off, the timeout)."""

    acting: Runnable[Any, Any]
    """What ``call_llm`` asks while acting: the tools bound (tool calling), or tagged
    ``nostream`` (JSON: its replies are actions, not words for a chat UI)."""
    final: Runnable[Any, Any]
    """What ``call_llm`` asks on the loop reserved for a final answer: no tools."""
    writer: Runnable[Any, Any]
    """What the answer stage writes with: its own ``Answer.llm``, else the model, untagged
    (what it writes is the answer)."""


def build_models(arguments: Arguments) -> Models:
    timeout = arguments.calls["timeout"]
    model = without_client_retries(arguments.llm, timeout)
    own = arguments.answer.llm
    writer = model if own is None else without_client_retries(own, timeout)
    if arguments.protocol == "json":
        # LangGraph's stream_mode="messages" skips "nostream" runs and shows the agent's
        # output messages instead.
        model = model.with_config(tags=["nostream"])
    # No tools, nothing to bind (some providers refuse an empty tool list).
    binds = arguments.protocol == "tool_calling" and arguments.tools
    parallel = arguments.dispatch["parallel"]
    acting = _bind_tools(model, arguments.tools, parallel) if binds else model
    return Models(acting=acting, final=model, writer=writer)


def _bind_tools(
    model: Runnable[Any, Any], tools: list[BaseTool], parallel: bool
) -> Runnable[Any, Any]:
    bind = getattr(model, "bind_tools", None)
    if bind is None:
        raise ConfigurationError(
            "protocol='tool_calling' needs a chat model with bind_tools(); use protocol='json'"
        )
    try:
        return bind(tools) if parallel else bind(tools, parallel_tool_calls=False)  # type: ignore[no-any-return]
    except NotImplementedError:
        raise ConfigurationError(
            f"{type(model).__name__} does not support tool calling; use protocol='json'"
        ) from None
    except TypeError:
        return bind(tools)  # type: ignore[no-any-return]  # a model without the parallel flag


def _argument_names(arguments: Arguments) -> dict[str, list[str]]:
    # Each tool's argument names: the parsers read `get_weather(city)` as get_weather.
    return {t.name: list(tool_arguments(t)) for t in arguments.tools}


def call_llm(arguments: Arguments, models: Models) -> CallLLM:
    return CallLLM(models.acting, final_llm=models.final, **arguments.calls)


def clean_json(arguments: Arguments) -> CleanJson | KeepReply:
    if arguments.protocol == "tool_calling":
        return KeepReply()
    return CleanJson(tools=_argument_names(arguments))


def parse_action(arguments: Arguments) -> ParseAction | ParseToolCalls:
    parse = ParseToolCalls if arguments.protocol == "tool_calling" else ParseAction
    return parse(response_format=arguments.response_format, tools=_argument_names(arguments))


def dispatch_tools(arguments: Arguments) -> DispatchTools:
    return DispatchTools(arguments.tools, policies=arguments.policies, **arguments.dispatch)


def classify_error(arguments: Arguments) -> ClassifyError:
    tool_calling = arguments.protocol == "tool_calling"
    return ClassifyError(
        max_errors=arguments.run_limits.max_errors,
        policies=arguments.policies,
        transcript=ToolCallTranscript() if tool_calling else JsonTranscript(),
        return_direct=[t.name for t in arguments.tools if t.return_direct],
        checks=arguments.answer_checks,
        tools=arguments.tool_names,
        protocol=arguments.protocol,
    )


def write_answer(arguments: Arguments, models: Models) -> WriteAnswer:
    options = arguments.answer
    if options.llm is not None:  # the stage writes with the wrapped model, not the raw one
        options = dataclasses.replace(options, llm=models.writer)
    return WriteAnswer(
        models.writer,
        options=options,
        limits=arguments.run_limits,
        response_format=arguments.response_format,
        tools=arguments.tool_names,
        checks=arguments.answer_checks,
        **arguments.calls,
    )


def system_prompt_of(arguments: Arguments) -> Callable[[str | None], str]:
    """The system prompt for a persona: a run's own system message replaces the agent's
    ``system_prompt``; the rules (and, in the JSON protocol, the tools) stay."""
    return partial(_system_prompt, arguments)


def _system_prompt(arguments: Arguments, persona: str | None) -> str:
    prompt = build_system_prompt(
        arguments.tools,
        protocol=arguments.protocol,
        persona=persona if persona is not None else arguments.system_prompt,
        parallel=arguments.dispatch["parallel"],
    )
    if arguments.response_format is not None:
        schema = arguments.response_format.schema_text()
        prompt += "\n" + texts.ANSWER_FORMAT_RULE.format(schema=schema)
    return prompt


def default_window(
    answer: Runnable[Any, Any], arguments: Arguments, prompt_of: Callable[[str | None], str]
) -> SlidingWindowMemory:
    """The default window: 800 tokens, plus what the agent's own system prompt takes beyond
    200 of them.

    A handful of tools costs the article's task about 150 tokens of system prompt, part of
    the 800. Forty tools are 2,000 or more: counted inside 800 they would leave the
    question and the results no room at all, so the prompt's excess over 200 tokens is
    counted apart (under ``tool_calling`` the tools' schemas travel as the request's
    ``tools`` and were never in the window). A window given as ``memory=`` is used as it
    is, its budget and all.

    With an answer stage that keeps every result for the answer, results fold into their
    lines at once (``AGENT_COMPACTOR``: the newest lines keep their results whole while
    every older line keeps its own; under tool calling ``AGENT_TOOL_COMPACTOR`` keeps the
    newest turn whole); with ``answer="model"``, or an answer stage of the user's own in
    the chain (``stages={"answer": ...}``), the model answers from its window, so turns
    stay word for word while there is room (the window's default). The builder chooses
    the window by the stage actually in the chain; no other stage reads its options.
    """
    counter = resolve_counter(None)
    own = count_message(SystemMessage(prompt_of(None)), counter)
    budget = DEFAULT_WINDOW + max(0, own - OWN_PROMPT_SHARE)
    while isinstance(answer, RunnableBinding):  # a stage renamed for its slot
        answer = answer.bound
    if not isinstance(answer, WriteAnswer) or answer.options.mode == "model":
        return SlidingWindowMemory(max_tokens=budget, counter=counter)
    tool_calling = arguments.protocol == "tool_calling"
    compactor = AGENT_TOOL_COMPACTOR if tool_calling else AGENT_COMPACTOR
    return SlidingWindowMemory(max_tokens=budget, counter=counter, compactor=compactor)


def agent_loop(arguments: Arguments, stages: Mapping[str, Runnable[Any, Any]]) -> AgentLoop:
    """The loop around the stages, in chain order (with the ``checkpoint`` stage when
    there is a checkpointer)."""
    ordered = {name: stages[name] for name in STAGE_NAMES}
    prompt_of = system_prompt_of(arguments)
    memory = arguments.memory
    return AgentLoop(
        with_checkpoint(ordered) if arguments.checkpointer is not None else ordered,
        system_prompt=prompt_of,
        memory=memory
        if memory is not None
        else default_window(ordered["answer"], arguments, prompt_of),
        limits=arguments.run_limits,
        response_format=arguments.response_format,
        raise_on_failure=arguments.raise_on_failure,
        protocol=arguments.protocol,
        checkpointer=arguments.checkpointer,
        tool_names=sorted(arguments.tool_names),
        persona=arguments.system_prompt,
    )
