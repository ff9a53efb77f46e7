"""Adapters: build each framework's agent on a chat model and run one task the same way.

Every adapter is ``build(llm, tools, max_loops=15) -> run`` where ``run(task) -> Outcome``;
``max_loops`` is the most model calls a run may make, mapped to each framework's own
limit. An adapter whose framework is not installed raises :class:`Unavailable` from
``build``, and the runner prints a row saying so instead of failing.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool

from lcel_agent import SlidingWindowMemory, create_agent
from lcel_agent.memory import SummaryCompactor

#: A standard ReAct prompt (the shape of the well-known hub prompt), written out here.
REACT_PROMPT = """Answer the following questions as best you can. You have access to the following tools:

{tools}

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [{tool_names}]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Question: {input}
Thought:{agent_scratchpad}"""


class Unavailable(Exception):
    """The framework cannot be built here (not installed, or its API is missing)."""


@dataclass
class Outcome:
    """What one run of one framework produced."""

    output: str | None
    stop: str
    last_prompt_tokens: int = 0
    detail: str | None = None
    """Why it stopped, where the framework says more than its stop reason (an error's text)."""
    record: dict[str, Any] | None = None
    """The framework's own account of the run, where it gives one (lcel_agent's result)."""


Run = Callable[[str], Outcome]


class Build(Protocol):
    """Builds one framework's agent on a chat model and tools."""

    def __call__(
        self, llm: BaseChatModel, tools: Sequence[BaseTool], max_loops: int = 15
    ) -> Run: ...


def _have(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def lcel(
    protocol: str = "json",
    max_errors: int = 2,
    memory: Callable[[BaseChatModel], SlidingWindowMemory] | None = None,
    keep_record: bool = False,
    **options: Any,
) -> Build:
    """lcel_agent with the given protocol, breaker and memory (default: the defaults).

    ``keep_record`` puts each result's ``to_dict()`` in the outcome (off where runs are
    timed: the overhead benchmark measures the loop, not the record).
    """

    def build(llm: BaseChatModel, tools: Sequence[BaseTool], max_loops: int = 15) -> Run:
        agent = create_agent(
            llm,
            tools,
            protocol=protocol,  # type: ignore[arg-type]
            max_errors=max_errors,
            max_loops=max_loops,
            memory=memory(llm) if memory is not None else None,
            **options,
        )

        def run(task: str) -> Outcome:
            result = agent.invoke(task)
            detail = str(result.error) if result.error is not None else None
            record = result.to_dict() if keep_record else None
            return Outcome(
                result.output, str(result.stop_reason.value), detail=detail, record=record
            )

        return run

    return build


def classic_executor(
    llm: BaseChatModel,
    tools: Sequence[BaseTool],
    max_loops: int = 15,
    *,
    stream_runnable: bool = True,
) -> Run:
    """LangChain classic: create_react_agent + AgentExecutor, parsing errors handled.

    ``stream_runnable=False`` makes the executor call its model without streaming (its
    only effect: no token stream for ``stream_log``), for servers that count usage only
    on whole responses.
    """
    if not _have("langchain_classic"):
        raise Unavailable("langchain-classic is not installed")
    from langchain_classic.agents import AgentExecutor, create_react_agent
    from langchain_core.prompts import PromptTemplate

    agent = create_react_agent(llm, list(tools), PromptTemplate.from_template(REACT_PROMPT))
    executor = AgentExecutor(
        agent=agent,
        tools=list(tools),
        handle_parsing_errors=True,
        max_iterations=max_loops,
        stream_runnable=stream_runnable,
    )

    def run(task: str) -> Outcome:
        try:
            out = str(executor.invoke({"input": task})["output"])
        except Exception as exc:  # a framework's failure is a result here, not a crash
            return Outcome(None, type(exc).__name__, detail=str(exc)[:500])
        if out.startswith("Agent stopped due to"):
            return Outcome(None, "max_iterations")
        return Outcome(out, "final")

    return run


def _last_text(messages: list[BaseMessage]) -> tuple[str | None, str]:
    last = messages[-1] if messages else None
    if isinstance(last, AIMessage) and not last.tool_calls:
        text = last.text if isinstance(last.text, str) else str(last.content)
        if "limit" in text.lower() and "model call" in text.lower():
            return None, "call_limit"
        return text, "final"
    return None, "call_limit"


def langchain_v1(llm: BaseChatModel, tools: Sequence[BaseTool], max_loops: int = 15) -> Run:
    """LangChain 1.x ``create_agent`` with ModelCallLimitMiddleware(run_limit=max_loops).

    The graph's recursion limit is set high (200) so the middleware, not the graph's
    step count, is what ends a long run.
    """
    try:
        from langchain.agents import create_agent as lc_create_agent
        from langchain.agents.middleware import ModelCallLimitMiddleware
    except ImportError as exc:
        raise Unavailable(f"langchain 1.x create_agent/ModelCallLimitMiddleware: {exc}") from None
    limit = ModelCallLimitMiddleware(run_limit=max_loops)
    graph = lc_create_agent(llm, list(tools), middleware=[limit])

    def run(task: str) -> Outcome:
        try:
            state = graph.invoke({"messages": [("user", task)]}, {"recursion_limit": 200})  # type: ignore[call-overload]
        except Exception as exc:
            return Outcome(None, type(exc).__name__, detail=str(exc)[:500])
        output, stop = _last_text(state["messages"])
        return Outcome(output, stop)

    return run


def langgraph_prebuilt(llm: BaseChatModel, tools: Sequence[BaseTool], max_loops: int = 15) -> Run:
    """LangGraph's prebuilt ``create_react_agent``; recursion_limit 2n+1 = n model calls."""
    if not _have("langgraph"):
        raise Unavailable("langgraph is not installed")
    import warnings

    with warnings.catch_warnings():  # deprecated in favour of langchain.agents.create_agent
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

        graph = create_react_agent(llm, list(tools))

    def run(task: str) -> Outcome:
        try:
            config = {"recursion_limit": 2 * max_loops + 1}
            state = graph.invoke({"messages": [("user", task)]}, config)
        except Exception as exc:
            name = type(exc).__name__
            stop = "recursion_limit" if name == "GraphRecursionError" else name
            return Outcome(None, stop, detail=str(exc)[:500])
        output, stop = _last_text(state["messages"])
        return Outcome(output, stop)

    return run


#: The task table's rows: (label, builder). The first is lcel_agent as it comes.
FRAMEWORKS: list[tuple[str, Build]] = [
    ("lcel_agent (defaults: json, max_errors=2, 800-token window)", lcel("json", 2)),
    ("lcel_agent max_errors=3", lcel("json", 3)),
    ("lcel_agent max_errors=5", lcel("json", 5)),
    ("lcel_agent native tool calls", lcel("tool_calling", 2)),
    (
        "lcel_agent plain window (compactor=None)",
        lcel("json", 2, memory=lambda llm: SlidingWindowMemory(800, compactor=None)),
    ),
    (
        "lcel_agent model-written summary (SummaryCompactor)",
        lcel(
            "json", 2, memory=lambda llm: SlidingWindowMemory(800, compactor=SummaryCompactor(llm))
        ),
    ),
    ("classic AgentExecutor (ReAct)", classic_executor),
    ("langchain 1.x create_agent", langchain_v1),
    ("langgraph create_react_agent", langgraph_prebuilt),
]
