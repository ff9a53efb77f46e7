"""``create_agent``: check the configuration, build the stages, return the loop.

::

    from lcel_agent import create_agent, SlidingWindowMemory
    from lcel_agent.tools import get_weather, search_baidu

    agent = create_agent(ChatOpenAI(model="gpt-4o-mini", temperature=0.2),
                         [get_weather, search_baidu], max_loops=10, max_errors=2,
                         memory=SlidingWindowMemory(max_tokens=800))
    result = agent.invoke("查询北京天气")

Every argument is checked here, so a mistake shows up as a ``TypeError`` or a
:class:`~lcel_agent.errors.ConfigurationError` (a ``ValueError``) when the agent
is built, never in the middle of a run.

The model may also be named (``create_agent("openai:gpt-4o-mini", tools)``) and
a tool may be a plain typed function with a docstring (it becomes
``langchain_core.tools.tool(fn)``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, Literal

from langchain_core.messages import SystemMessage
from langchain_core.runnables import Runnable, RunnableBinding
from langchain_core.tools import BaseTool
from pydantic import SecretStr

from .. import texts
from .._redact import register_secrets, secrets_in
from ..durable import check_checkpointer, with_checkpoint
from ..errors import ConfigurationError, ErrorClass, Policy
from ..loop import AgentLoop
from ..memory import AGENT_COMPACTOR, AGENT_TOOL_COMPACTOR, SlidingWindowMemory
from ..memory.counters import count_message, resolve_counter
from ..rules.limits import Limits
from ..rules.policies import resolve_policies
from ..rules.protocols import JsonTranscript, ToolCallTranscript
from ..rules.structured import ResponseFormat
from ..stages import (
    STAGE_NAMES,
    AssemblePrompt,
    CallLLM,
    ClassifyError,
    CleanJson,
    DispatchTools,
    KeepReply,
    ParseAction,
    ParseToolCalls,
    TrimMemory,
    WriteAnswer,
    build_system_prompt,
    without_client_retries,
)
from ..stages.answer import Answer, AnswerCheck, Evidence, checks_of
from ..stages.dispatch import Approve
from ..stages.prompt import tool_arguments
from ._checks import (
    check_approve,
    check_fallbacks,
    check_format,
    check_limits,
    check_secrets,
    check_stages,
    positive_int,
    seconds,
)
from ._resolve import resolve_llm, resolve_tools

__all__ = ["create_agent", "run_agent"]

Protocol = Literal["json", "tool_calling"]


def _system_prompt(
    persona: str | None,
    *,
    tools: list[BaseTool],
    protocol: str,
    parallel: bool,
    fmt: ResponseFormat | None,
) -> str:
    """The system prompt for a persona (the agent's, or a run's system message)."""
    prompt = build_system_prompt(tools, protocol=protocol, persona=persona, parallel=parallel)
    if fmt is not None:
        prompt += "\n" + texts.ANSWER_FORMAT_RULE.format(schema=fmt.schema_text())
    return prompt


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


def create_agent(
    llm: Runnable[Any, Any] | str,
    tools: Sequence[BaseTool | Callable[..., Any]],
    *,
    max_loops: int = 10,
    max_errors: int = 2,
    memory: SlidingWindowMemory | None = None,
    system_prompt: str | None = None,
    protocol: Protocol = "json",
    parallel_tool_calls: bool = True,
    tool_timeout: float | None = 30.0,
    llm_timeout: float | None = 60.0,
    llm_retries: int = 3,
    llm_backoff: tuple[float, float] = (0.5, 8.0),
    token_budget: int | None = None,
    time_budget: float | None = None,
    tool_call_limits: Mapping[str, int] | None = None,
    fallback_tools: Mapping[str, BaseTool] | None = None,
    policies: Mapping[ErrorClass | str, Policy | str] | None = None,
    reserve_final_answer: bool = False,
    stages: Mapping[str, Runnable[Any, Any]] | None = None,
    max_concurrency: int = 8,
    max_observation_chars: int = 4000,
    secrets: Sequence[str | SecretStr] | None = None,
    max_retry_after: float = 60.0,
    response_format: Any = None,
    raise_on_failure: bool = False,
    approve: Approve | None = None,
    checkpointer: Any = None,
    answer: Answer | str = "auto",
    answer_checks: Sequence[AnswerCheck | Callable[[str, Evidence], str | None]] | None = None,
) -> AgentLoop:
    """Build an agent. See the README's configuration table for every option.

    Every secret the agent can see is registered for redaction: the chat model's
    API key (any ``SecretStr`` field, also inside bindings and fallbacks), keys
    held by the tools, and ``secrets``, your own. From then on they are masked
    in everything a run returns, logs or sends to the model.

    LangChain-native options (docs/langchain.md has the details):

    * ``response_format``: a pydantic model, a TypedDict or a JSON-schema dict;
      the final answer is checked against it and ``result.output`` is the
      validated value.
    * ``raise_on_failure``: every stop but ``final`` raises
      :class:`~lcel_agent.errors.AgentRunError` carrying the result.
    * ``approve``: ``approve(action) -> True | False | str`` (sync or async),
      asked before each tool call runs; ``lcel_agent.approval.pause`` waits for a
      person instead (needs a checkpointer).
    * ``checkpointer``: any LangGraph checkpoint saver; a run with a ``thread_id``
      in ``config["configurable"]`` is checkpointed loop by loop, and
      ``agent.invoke(None, config)`` resumes it after a crash (docs/durable.md).
    * ``answer``: how the final answer is written once tools have succeeded:
      ``"auto"`` keeps the model's own answer when it uses every result and otherwise
      writes it from every result in a fresh, short context; ``"compose"`` always
      writes it; ``"model"`` never does; an :class:`~lcel_agent.stages.answer.Answer`
      sets the details (docs/answer.md).
    * ``answer_checks``: the checks of a final answer, each a named function of the answer
      and the run's record (:class:`~lcel_agent.stages.answer.Evidence`) that returns
      None or a reason; the default is the built-in list,
      :data:`~lcel_agent.stages.answer.DEFAULT_CHECKS` (``plan``, ``echo``, ``omits``).
      A reason of your own check sends the answer back once, then the answer stage
      writes it (docs/answer.md, "Checks").

    Raises:
        TypeError: an argument has the wrong type (a completion-only LLM, a
            function without a docstring as a tool, ...).
        ConfigurationError: an argument has a bad value (``max_loops=0``, no
            tools, duplicate tool names, an unknown stage name, ...).
    """
    chat: Runnable[Any, Any] = resolve_llm(llm)
    tool_list = resolve_tools(tools)
    names = {t.name for t in tool_list}
    positive_int("max_loops", max_loops)
    positive_int("max_errors", max_errors)
    positive_int("llm_retries", llm_retries)
    positive_int("max_concurrency", max_concurrency)
    positive_int("max_observation_chars", max_observation_chars, minimum=100)
    tool_timeout = seconds("tool_timeout", tool_timeout)
    max_retry_after = seconds("max_retry_after", max_retry_after, optional=False) or 0.0
    llm_timeout = seconds("llm_timeout", llm_timeout)
    time_budget = seconds("time_budget", time_budget)
    if token_budget is not None:
        positive_int("token_budget", token_budget)
    if not (
        isinstance(llm_backoff, tuple)
        and len(llm_backoff) == 2
        and 0 <= llm_backoff[0] <= llm_backoff[1]
    ):
        raise ConfigurationError(
            f"llm_backoff must be (initial, maximum) seconds, got {llm_backoff!r}"
        )
    if protocol not in ("json", "tool_calling"):
        raise ConfigurationError(f"protocol must be 'json' or 'tool_calling', got {protocol!r}")
    if memory is not None and not isinstance(memory, SlidingWindowMemory):
        raise TypeError(f"memory must be a SlidingWindowMemory, not {type(memory).__name__}")
    if system_prompt is not None and not isinstance(system_prompt, str):
        raise TypeError("system_prompt must be a string")
    checkpointer = check_checkpointer(checkpointer)
    limits = check_limits(tool_call_limits, names)
    fallbacks = check_fallbacks(fallback_tools, names)
    resolved = resolve_policies(policies)
    swapped = check_stages(stages)
    fmt = check_format(response_format, tool_list, protocol)
    approve = check_approve(approve)
    options = Answer.of(answer)
    checks = checks_of(answer_checks)
    register_secrets(
        [*secrets_in(chat, tool_list, list(fallbacks.values())), *check_secrets(secrets)]
    )

    model = without_client_retries(chat, llm_timeout)
    # The answer stage's model: no tools, no "nostream" tag (what it writes is the answer).
    writer = model if options.llm is None else without_client_retries(options.llm, llm_timeout)
    if options.llm is not None:  # the stage writes with the wrapped model, not the raw one
        options = dataclasses.replace(options, llm=writer)
    tool_calling = protocol == "tool_calling"
    # Each tool's argument names: the parsers read `get_weather(city)` as get_weather.
    arguments = {t.name: list(tool_arguments(t)) for t in tool_list}
    if not tool_calling:
        # The JSON protocol's replies are actions, not words for a chat UI: LangGraph's
        # stream_mode="messages" skips "nostream" runs and shows the agent's output messages.
        model = model.with_config(tags=["nostream"])
    # No tools, nothing to bind (some providers refuse an empty tool list).
    bound = (
        _bind_tools(model, tool_list, parallel_tool_calls) if tool_calling and tool_list else model
    )
    limits_of_run = Limits(max_loops, token_budget, time_budget, reserve_final_answer, max_errors)
    # Policy STOP for transient model errors means: no retries at all.
    retries = 1 if resolved[ErrorClass.LLM_TRANSIENT] is Policy.STOP else llm_retries
    built: dict[str, Runnable[Any, Any]] = {
        "assemble_prompt": AssemblePrompt(),
        "call_llm": CallLLM(
            bound,
            final_llm=model,
            timeout=llm_timeout,
            retries=retries,
            backoff=llm_backoff,
            max_retry_after=max_retry_after,
        ),
        "clean_json": KeepReply() if tool_calling else CleanJson(tools=arguments),
        "parse_action": (
            ParseToolCalls(response_format=fmt, tools=arguments)
            if tool_calling
            else ParseAction(response_format=fmt, tools=arguments)
        ),
        "dispatch_tools": DispatchTools(
            tool_list,
            timeout=tool_timeout,
            tool_call_limits=limits,
            fallback_tools=fallbacks,
            policies=resolved,
            parallel=parallel_tool_calls,
            max_concurrency=max_concurrency,
            max_observation_chars=max_observation_chars,
            approve=approve,
        ),
        "classify_error": ClassifyError(
            max_errors=max_errors,
            policies=resolved,
            transcript=ToolCallTranscript() if tool_calling else JsonTranscript(),
            return_direct=[t.name for t in tool_list if t.return_direct],
            checks=checks,
            tools=names,
            protocol=protocol,
        ),
        "trim_memory": TrimMemory(),
        "answer": WriteAnswer(
            writer,
            options=options,
            limits=limits_of_run,
            timeout=llm_timeout,
            retries=retries,
            backoff=llm_backoff,
            max_retry_after=max_retry_after,
            response_format=fmt,
            tools=names,
            checks=checks,
        ),
    }
    built.update(swapped)
    ordered = {name: built[name] for name in STAGE_NAMES}
    prompt_of = partial(
        _prompt_or_default,
        system_prompt,
        partial(
            _system_prompt,
            tools=tool_list,
            protocol=protocol,
            parallel=parallel_tool_calls,
            fmt=fmt,
        ),
    )
    return AgentLoop(
        with_checkpoint(ordered) if checkpointer is not None else ordered,
        system_prompt=prompt_of,
        memory=memory
        if memory is not None
        else _default_window(ordered["answer"], tool_calling, prompt_of),
        limits=limits_of_run,
        response_format=fmt,
        raise_on_failure=bool(raise_on_failure),
        protocol=protocol,
        checkpointer=checkpointer,
        tool_names=sorted(names),
        persona=system_prompt,
    )


#: The default window's tokens: the article's 800.
DEFAULT_WINDOW = 800
#: What the agent's own system prompt (its rules and, in the JSON protocol, every tool's
#: description) may take of the default window before the window grows by the rest.
OWN_PROMPT_SHARE = 200


def _default_window(
    answer: Runnable[Any, Any], tool_calling: bool, prompt_of: Callable[[str | None], str]
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
    # The stage actually in the chain decides: one of the user's own (stages={"answer": ...})
    # keeps no results for the answer, so the turns stay word for word, as for "model".
    while isinstance(answer, RunnableBinding):  # a stage renamed for its slot
        answer = answer.bound
    if not isinstance(answer, WriteAnswer) or answer.options.mode == "model":
        return SlidingWindowMemory(max_tokens=budget, counter=counter)
    compactor = AGENT_TOOL_COMPACTOR if tool_calling else AGENT_COMPACTOR
    return SlidingWindowMemory(max_tokens=budget, counter=counter, compactor=compactor)


def _prompt_or_default(
    default: str | None, build: Callable[[str | None], str], persona: str | None
) -> str:
    # A run's own system message replaces the agent's persona; the rules stay.
    return build(persona if persona is not None else default)


def run_agent(
    question: str,
    llm: Runnable[Any, Any],
    tools: Sequence[BaseTool | Callable[..., Any]],
    max_loops: int = 10,
    max_errors: int = 2,
    **options: Any,
) -> str:
    """The article's function: the answer, or a string starting with ``ERROR:``.

    A thin shim over :func:`create_agent` for code written against the article;
    new code should use the agent and its :class:`~lcel_agent.AgentResult`.
    """
    result = create_agent(llm, tools, max_loops=max_loops, max_errors=max_errors, **options).invoke(
        question
    )
    # The article's loop gives its error string at its limits, even with results in hand.
    delivered = result.answer is not None and result.answer.trigger == "stopped"
    if result.output is not None and not delivered:
        return str(result.output)
    detail = str(result.error) if result.error else result.stop_reason.value
    messages: dict[str, Callable[[], str]] = {
        "max_loops": lambda: f"ERROR: 达到最大循环次数{max_loops}次，未完成任务",
        "max_errors": lambda: f"ERROR: 连续{max_errors}次错误，终止。最后错误：{detail}",
    }
    return messages.get(
        result.stop_reason.value, lambda: f"ERROR: {result.stop_reason.value}: {detail}"
    )()
