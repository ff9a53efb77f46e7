"""Every framework the benchmarks compare, each driven one way, for every benchmark.

    from benchmarks import peers

    agent = peers.lcel("json")(llm, tools, max_loops=15)      # build once ...
    outcome = agent("查询北京和上海今天的天气")                  # ... run a task
    outcome.output, outcome.stop, outcome.messages

    outcome = agent(user, history, {"callbacks": [meter]})     # or one turn of a conversation
    outcome = peers.turn(peers.langgraph_prebuilt(), llm, tools, history, user,
                         max_loops=21, config={"callbacks": [meter]})   # build and run at once

A peer is made by its function here (:func:`lcel`, :func:`classic_executor`,
:func:`langchain_v1`, :func:`langgraph_prebuilt`), whose options are the few settings in
which the benchmarks differ. Building it on a chat model and tools, with ``max_loops``
(the most model calls a run may make, mapped to each framework's own limit), gives an
:class:`Agent`; the agent takes a task (a string) or this turn's user messages, the
conversation so far (earlier turns' messages, whichever framework wrote them) and a
``RunnableConfig`` (the benchmark's callbacks), and returns an :class:`Outcome`: this
run's messages, why it stopped, its answer. A framework's failure is its outcome, not a
crash; a framework that is not installed raises :class:`Unavailable` when it is built.

* lcel_agent: ``create_agent(llm, tools, protocol=..., max_loops=..., **options)``; a task
  goes in as the string, a conversation as a ``ChatPromptValue``.
* AgentExecutor: the classic ReAct agent (``create_react_agent`` + ``AgentExecutor``,
  ``handle_parsing_errors=True``, ``max_iterations=max_loops``), from langchain-classic on
  today's stack and from langchain itself on the article's (0.3); its prompt and the way
  its tools read Action Input are options (:mod:`benchmarks.peers.react`).
* LangChain 1.x ``create_agent`` with ``ModelCallLimitMiddleware(run_limit=max_loops)``,
  the graph's recursion limit high (200) so the middleware ends a long run.
* LangGraph's prebuilt ``create_react_agent``, ``recursion_limit = 2 * max_loops`` plus
  ``extra_steps``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.prompt_values import ChatPromptValue
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

from benchmarks.peers.react import (
    REACT_CHAT_PROMPT,
    REACT_PROMPT,
    one_string,
    react_arguments,
    react_messages,
    react_tools,
    render_history,
    text,
)
from lcel_agent import AgentResult, SlidingWindowMemory, create_agent
from lcel_agent.conversation import run_messages

__all__ = [
    "LANGGRAPH_OUT_OF_STEPS",
    "REACT_CHAT_PROMPT",
    "REACT_PROMPT",
    "Agent",
    "Outcome",
    "Peer",
    "Unavailable",
    "classic_executor",
    "langchain_v1",
    "langgraph_graph",
    "langgraph_prebuilt",
    "lcel",
    "turn",
]


class Unavailable(Exception):
    """The framework cannot be built here (not installed, or its API is missing)."""


@dataclass
class Outcome:
    """What one run of one peer produced."""

    stop: str
    """Why it ended: lcel_agent's stop reason, ``final``, a limit, or an exception's name."""
    messages: list[BaseMessage] = field(default_factory=list)
    """This run's messages: the user's, then every message the framework added."""
    output: str | None = None
    """The answer (None when the run ended without one)."""
    detail: str | None = None
    """The framework's own words on a stop other than ``final`` (an error's text)."""
    result: AgentResult | None = None
    """lcel_agent's result (for its record and its HTML report)."""


User = str | Sequence[BaseMessage]
"""A task, or this turn's user messages."""


class Agent(Protocol):
    """One peer built on a model and tools: runs a task, or a turn of a conversation."""

    def __call__(
        self, user: User, history: Sequence[BaseMessage] = (), config: RunnableConfig | None = None
    ) -> Outcome: ...


class Peer(Protocol):
    """One framework as a benchmark runs it: builds its agent on a chat model and tools."""

    def __call__(
        self, llm: BaseChatModel, tools: Sequence[BaseTool], *, max_loops: int
    ) -> Agent: ...


def turn(
    peer: Peer, llm: BaseChatModel, tools: Sequence[BaseTool], history: Sequence[BaseMessage],
    user: User, *, max_loops: int, config: RunnableConfig | None = None,
) -> Outcome:  # fmt: skip
    """Build ``peer`` and run one turn (BFCL's harness: tools may change between turns)."""
    return peer(llm, tools, max_loops=max_loops)(user, history, config)


def _messages(user: User) -> list[BaseMessage]:
    return [HumanMessage(user)] if isinstance(user, str) else list(user)


def _failed(user: User, exc: Exception, stop: str | None = None) -> Outcome:
    """A framework's exception as its outcome."""
    return Outcome(stop or type(exc).__name__, _messages(user), detail=str(exc)[:500])


def lcel(
    protocol: str = "json",
    *,
    memory: Callable[[BaseChatModel], SlidingWindowMemory] | None = None,
    **options: Any,
) -> Peer:
    """lcel_agent with ``protocol``, ``memory(llm)`` and any other ``create_agent`` options."""

    def build(llm: BaseChatModel, tools: Sequence[BaseTool], *, max_loops: int) -> Agent:
        window = {"memory": memory(llm)} if memory is not None else {}
        agent = create_agent(
            llm, tools, protocol=protocol, max_loops=max_loops, **window, **options,  # type: ignore[arg-type]
        )  # fmt: skip

        def run(
            user: User, history: Sequence[BaseMessage] = (), config: RunnableConfig | None = None
        ) -> Outcome:
            asked = _messages(user)
            whole = ChatPromptValue(messages=[*history, *asked])
            # A task alone goes in as the string (the weather tasks), a conversation whole.
            result = agent.invoke(user if isinstance(user, str) and not history else whole, config)
            return Outcome(
                result.stop_reason.value, [*asked, *run_messages(result)], result.output,
                str(result.error) if result.error is not None else None, result,
            )  # fmt: skip

        return run

    return build


def classic_executor(
    prompt: str = REACT_PROMPT, *, json_input: bool = False, stream: bool = True
) -> Peer:
    """LangChain classic: ``create_react_agent`` + ``AgentExecutor``, parsing errors handled.

    ``prompt`` is a ReAct template; where it has ``{chat_history}`` the conversation so far
    is written into it. ``json_input`` is for tools that take an object of arguments: the
    prompt lists each tool's arguments (``render_text_description_and_args``) and each tool
    reads its Action Input as a JSON object (:func:`~benchmarks.peers.react.react_tools`);
    without it a tool gets the Action Input as its one string. ``stream=False`` makes the
    executor call its model without streaming (its ``stream_runnable``: no token stream for
    ``stream_log``, nothing else), for servers that count usage only on whole responses.
    """

    def build(llm: BaseChatModel, tools: Sequence[BaseTool], *, max_loops: int) -> Agent:
        try:
            from langchain_classic.agents import AgentExecutor, create_react_agent
        except ImportError:  # the article's stack (langchain 0.3) keeps it in langchain itself
            try:
                from langchain.agents import (  # type: ignore[attr-defined,no-redef]
                    AgentExecutor,
                    create_react_agent,
                )
            except ImportError:
                raise Unavailable("langchain-classic is not installed") from None
        from langchain_core.prompts import PromptTemplate
        from langchain_core.tools.render import (
            render_text_description,
            render_text_description_and_args,
        )

        template = PromptTemplate.from_template(prompt)
        chat = "chat_history" in template.input_variables
        listed = render_text_description_and_args if json_input else render_text_description
        agent = create_react_agent(llm, list(tools), template, tools_renderer=listed)
        executor = AgentExecutor(  # type: ignore[call-arg]  # stream_runnable: a pydantic field
            agent=agent, tools=react_tools(tools) if json_input else list(tools),
            handle_parsing_errors=True, max_iterations=max_loops, stream_runnable=stream,
            return_intermediate_steps=True,
        )  # fmt: skip

        def run(
            user: User, history: Sequence[BaseMessage] = (), config: RunnableConfig | None = None
        ) -> Outcome:
            if history and not chat:
                raise ValueError("this ReAct prompt has no {chat_history} for the conversation")
            question = user if isinstance(user, str) else "\n".join(text(m) for m in user)
            inputs = {"input": question}
            if chat:
                inputs["chat_history"] = render_history(history)
            try:
                out = executor.invoke(inputs, config)
            except Exception as exc:  # a framework's failure is a result here, not a crash
                return _failed(user, exc)
            answer = str(out["output"])
            stopped = answer.startswith("Agent stopped due to")
            output = None if stopped else answer
            read = react_arguments if json_input else one_string
            added = react_messages(out.get("intermediate_steps") or [], output, tools, read)
            return Outcome(
                "max_iterations" if stopped else "final", [*_messages(user), *added], output
            )

        return run

    return build


#: What LangGraph's prebuilt agent answers in place of a model reply that still calls tools
#: when the recursion limit leaves no step for them (``create_react_agent``'s last step).
LANGGRAPH_OUT_OF_STEPS = "Sorry, need more steps to process this request."


def _graph(graph: Any, recursion_limit: int) -> Agent:
    """A LangGraph agent's runs: the state's new messages, ``final`` when the last answers.

    The run's stop is LangGraph's ``recursion_limit`` where its graph raised
    ``GraphRecursionError`` or answered :data:`LANGGRAPH_OUT_OF_STEPS`, and ``call_limit``
    where it ended on a tool call or on LangChain's model-call limit's message.
    """

    def run(
        user: User, history: Sequence[BaseMessage] = (), config: RunnableConfig | None = None
    ) -> Outcome:
        asked = {"messages": [*history, *_messages(user)]}
        try:
            state = graph.invoke(asked, {**(config or {}), "recursion_limit": recursion_limit})
        except Exception as exc:  # a framework's failure is a result here, not a crash
            recursion = type(exc).__name__ == "GraphRecursionError"
            return _failed(user, exc, "recursion_limit" if recursion else None)
        new = list(state["messages"][len(history) :])
        last = new[-1] if new else None
        if not isinstance(last, AIMessage) or last.tool_calls:
            return Outcome("call_limit", new)
        answer = text(last)
        if answer.strip() == LANGGRAPH_OUT_OF_STEPS:
            return Outcome("recursion_limit", new)
        if "limit" in answer.lower() and "model call" in answer.lower():
            return Outcome("call_limit", new)
        return Outcome("final", new, answer)

    return run


def langchain_v1() -> Peer:
    """LangChain 1.x ``create_agent`` with ``ModelCallLimitMiddleware(run_limit=max_loops)``;
    the graph's recursion limit is high (200), so the middleware ends a long run."""

    def build(llm: BaseChatModel, tools: Sequence[BaseTool], *, max_loops: int) -> Agent:
        try:
            from langchain.agents import create_agent as lc_create_agent
            from langchain.agents.middleware import ModelCallLimitMiddleware
        except ImportError as exc:
            raise Unavailable(
                f"langchain 1.x create_agent/ModelCallLimitMiddleware: {exc}"
            ) from None
        limit = ModelCallLimitMiddleware(run_limit=max_loops)
        return _graph(lc_create_agent(llm, list(tools), middleware=[limit]), 200)

    return build


def langgraph_graph(llm: BaseChatModel, tools: Sequence[BaseTool], **options: Any) -> Any:
    """LangGraph's prebuilt ``create_react_agent`` graph (its deprecation warning quiet)."""
    with warnings.catch_warnings():  # deprecated in favour of langchain.agents.create_agent
        warnings.simplefilter("ignore")
        try:
            from langgraph.prebuilt import create_react_agent
        except ImportError:
            raise Unavailable("langgraph is not installed") from None
        return create_react_agent(llm, list(tools), **options)


def langgraph_prebuilt(extra_steps: int = 0) -> Peer:
    """LangGraph's prebuilt ``create_react_agent``; ``recursion_limit`` 2n + ``extra_steps``.

    Each model call is one graph step and each round of tool calls another, so 2n allows
    n model calls: at the last step that has room for a model call but not for its tools,
    LangGraph replaces a reply that still calls tools with :data:`LANGGRAPH_OUT_OF_STEPS`
    (its own rule), and the run stops as ``recursion_limit``. The weather tasks (the task
    tables and the real models) give it one step more (``2n+1``, as docs/benchmarks.md
    records); BFCL none.
    """

    def build(llm: BaseChatModel, tools: Sequence[BaseTool], *, max_loops: int) -> Agent:
        return _graph(langgraph_graph(llm, tools), 2 * max_loops + extra_steps)

    return build
