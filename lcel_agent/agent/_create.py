"""``create_agent``: check the arguments, build the parts, return the loop.

::

    from lcel_agent import create_agent, SlidingWindowMemory
    from lcel_agent.tools import get_weather, search_baidu

    agent = create_agent(ChatOpenAI(model="gpt-4o-mini", temperature=0.2),
                         [get_weather, search_baidu], max_loops=10, max_errors=2,
                         memory=SlidingWindowMemory(max_tokens=800))
    result = agent.invoke("查询北京天气")

``create_agent`` reads as the list of its parts: every argument checked in one place
(:func:`~._checks.check_arguments`), so a mistake shows up as a ``TypeError`` or a
:class:`~lcel_agent.errors.ConfigurationError` (a ``ValueError``) when the agent is built,
never in the middle of a run; then the models and each stage, built by a function of
:mod:`._parts` named for it; then the loop around them.

The model may also be named (``create_agent("openai:gpt-4o-mini", tools)``) and
a tool may be a plain typed function with a docstring (it becomes
``langchain_core.tools.tool(fn)``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import SecretStr

from .._redact import register_secrets, secrets_in
from .._shared.protocol import ProtocolName
from ..errors import ErrorClass, Policy
from ..loop import AgentLoop
from ..memory import SlidingWindowMemory
from ..result import Trigger
from ..stages import AssemblePrompt, TrimMemory
from ..stages.answer import Answer, AnswerCheck, Evidence
from ..stages.dispatch import Approve
from ._checks import check_arguments
from ._parts import (
    agent_loop,
    build_models,
    call_llm,
    classify_error,
    clean_json,
    dispatch_tools,
    parse_action,
    write_answer,
)

__all__ = ["create_agent", "run_agent"]


def create_agent(
    llm: Runnable[Any, Any] | str,
    tools: Sequence[BaseTool | Callable[..., Any]],
    *,
    max_loops: int = 10,
    max_errors: int = 2,
    memory: SlidingWindowMemory | None = None,
    system_prompt: str | None = None,
    protocol: ProtocolName = "json",
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

    Every secret the agent can see is registered for redaction: the chat model's API key
    (any ``SecretStr`` field, also inside bindings and fallbacks), keys held by the tools,
    and ``secrets``, your own. From then on they are masked in everything a run returns,
    logs or sends to the model. LangChain-native options (docs/langchain.md):

    * ``response_format``: a pydantic model, a TypedDict or a JSON-schema dict; the final
      answer is checked against it and ``result.output`` is the validated value.
    * ``raise_on_failure``: every stop but ``final`` and ``paused`` raises ``AgentRunError``.
    * ``approve``: ``approve(action) -> True | False | str`` (sync or async), asked before
      each tool call; ``lcel_agent.approval.pause`` waits for a person (needs a checkpointer).
    * ``checkpointer``: a LangGraph checkpoint saver; a run with a ``thread_id`` is
      checkpointed loop by loop, and ``agent.invoke(None, config)`` resumes it.
    * ``answer``: how the answer is written once tools have succeeded (docs/answer.md):
      ``"auto"`` keeps the model's own when it uses every result, else writes it from the
      results; ``"compose"`` always writes it; ``"model"`` never; an ``Answer``: the details.
    * ``answer_checks``: named functions of the answer and the run's record (``Evidence``)
      that return None or a reason (default: ``plan``, ``echo``, ``omits``); a reason of
      your own check sends the answer back once, then the answer stage writes it.

    Raises:
        TypeError: an argument has the wrong type (a completion-only LLM, a
            function without a docstring as a tool, ...).
        ConfigurationError: an argument has a bad value (``max_loops=0``, no
            tools, duplicate tool names, an unknown stage name, ...).
    """
    arguments = check_arguments(locals())  # every argument, before anything is built
    fallbacks = list(arguments.dispatch["fallback_tools"].values())
    found = secrets_in(arguments.llm, arguments.tools, fallbacks)
    register_secrets([*found, *arguments.secrets])
    models = build_models(arguments)
    built = {
        "assemble_prompt": AssemblePrompt(),
        "call_llm": call_llm(arguments, models),
        "clean_json": clean_json(arguments),
        "parse_action": parse_action(arguments),
        "dispatch_tools": dispatch_tools(arguments),
        "classify_error": classify_error(arguments),
        "trim_memory": TrimMemory(),
        "answer": write_answer(arguments, models),
    }
    return agent_loop(arguments, {**built, **arguments.stages})


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
    delivered = result.answer is not None and result.answer.trigger == Trigger.STOPPED
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
