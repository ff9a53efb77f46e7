"""Each framework as the BFCL harness drives it: one user turn, messages in, messages out.

    turn = ROWS["lcel-json"].turn
    outcome = turn(llm, tools, history, [HumanMessage("...")], max_loops=21,
                   config={"callbacks": [meter]})
    history += outcome.messages          # the user's messages, then what the framework added

Every adapter gets the conversation so far (``history``: earlier turns' user messages,
tool calls, tool results and answers, whichever framework wrote them) and this turn's
user messages, and returns this turn's messages. ``max_loops`` is the most model calls
the turn may make, mapped to each framework's own limit, and ``config`` carries the
harness's callbacks (the :class:`~benchmarks.bfcl.recording.Meter`) down to the model.

* lcel_agent runs at its defaults but for ``llm_timeout`` (its 60 s default is for hosted
  providers; a 4k-token prompt on two busy cores takes longer) and ``max_loops`` (the
  benchmark's step limit). The conversation goes in as a ``ChatPromptValue``, so the
  run returns its ``AgentResult``; the turn's messages are what ``{"messages": [...]}``
  would have returned (``lcel_agent.conversation.run_messages``).
* LangChain 1.x ``create_agent`` (``ModelCallLimitMiddleware(run_limit=max_loops)``) and
  LangGraph's ``create_react_agent`` (``recursion_limit = 2 * max_loops``) take the
  messages as they are and return their state's messages.
* AgentExecutor runs the classic ReAct agent, whose prompt is text: the conversation so
  far is written into it (:func:`render_history`), the way LangChain's conversational
  ReAct prompt carries ``chat_history``. ReAct's ``Action Input`` is one string, and a
  tool whose ``args_schema`` is a JSON-schema dict refuses a string, so each tool is
  wrapped to read the input as a JSON object of arguments (:func:`react_tools`); the
  prompt lists each tool's arguments with LangChain's ``render_text_description_and_args``.
"""

from __future__ import annotations

import ast
import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.prompt_values import ChatPromptValue
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, Tool

from lcel_agent import AgentResult, create_agent
from lcel_agent.conversation import run_messages

LLM_TIMEOUT = 600.0
"""Seconds one model call may take, for every framework (lcel_agent's ``llm_timeout``, the
client's ``timeout`` for the others): BFCL's tool schemas make prompts of 2-6k tokens, and
a 4k-token prefill on two shared cores has taken over 60 s here (NOTES.md)."""


@dataclass
class TurnOutcome:
    """What one turn of one framework produced."""

    messages: list[BaseMessage]
    """This turn's messages: the user's, then every message the framework added."""
    stop: str
    """Why the turn ended: lcel_agent's stop reason, ``final``, a limit, or an exception name."""
    detail: str | None = None
    """The framework's own words on a stop other than ``final`` (an error's text)."""
    result: AgentResult | None = None
    """lcel_agent's result (for its record and its HTML report)."""


class Turn(Protocol):
    """Runs one user turn of a conversation on one framework."""

    def __call__(
        self, llm: BaseChatModel, tools: Sequence[BaseTool], history: list[BaseMessage],
        user: list[BaseMessage], *, max_loops: int, config: RunnableConfig,
    ) -> TurnOutcome: ...  # fmt: skip


def lcel(protocol: str) -> Turn:
    """lcel_agent with one protocol, at its defaults (see the module docstring)."""

    def turn(
        llm: BaseChatModel, tools: Sequence[BaseTool], history: list[BaseMessage],
        user: list[BaseMessage], *, max_loops: int, config: RunnableConfig,
    ) -> TurnOutcome:  # fmt: skip
        agent = create_agent(
            llm, tools, protocol=protocol,  # type: ignore[arg-type]
            max_loops=max_loops, llm_timeout=LLM_TIMEOUT,
        )  # fmt: skip
        result = agent.invoke(ChatPromptValue(messages=[*history, *user]), config)
        detail = str(result.error) if result.error is not None else None
        return TurnOutcome([*user, *run_messages(result)], result.stop_reason.value, detail, result)

    return turn


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content)


#: What LangGraph's prebuilt agent answers in place of a model reply that still calls tools
#: when the recursion limit leaves no step for them (``create_react_agent``'s last step).
LANGGRAPH_OUT_OF_STEPS = "Sorry, need more steps to process this request."


def _graph_stop(messages: list[BaseMessage]) -> str:
    """``final`` when the last message is an answer, else the limit that cut the turn."""
    last = messages[-1] if messages else None
    if isinstance(last, AIMessage) and not last.tool_calls:
        text = _text(last)
        if text.strip() == LANGGRAPH_OUT_OF_STEPS:
            return "recursion_limit"
        return "call_limit" if "limit" in text.lower() and "model call" in text.lower() else "final"
    return "call_limit"


def langchain_v1(
    llm: BaseChatModel, tools: Sequence[BaseTool], history: list[BaseMessage],
    user: list[BaseMessage], *, max_loops: int, config: RunnableConfig,
) -> TurnOutcome:  # fmt: skip
    """LangChain 1.x ``create_agent``; its recursion limit is high so the middleware ends a turn."""
    from langchain.agents import create_agent as lc_create_agent
    from langchain.agents.middleware import ModelCallLimitMiddleware

    graph = lc_create_agent(
        llm, list(tools), middleware=[ModelCallLimitMiddleware(run_limit=max_loops)]
    )
    try:
        state = graph.invoke({"messages": [*history, *user]}, {**config, "recursion_limit": 200})  # type: ignore[call-overload]
    except Exception as exc:  # the framework's failure is its result
        return TurnOutcome(list(user), type(exc).__name__, str(exc)[:500])
    new = list(state["messages"][len(history) :])
    return TurnOutcome(new, _graph_stop(new))


def langgraph_prebuilt(
    llm: BaseChatModel, tools: Sequence[BaseTool], history: list[BaseMessage],
    user: list[BaseMessage], *, max_loops: int, config: RunnableConfig,
) -> TurnOutcome:  # fmt: skip
    """LangGraph's prebuilt ``create_react_agent``; ``recursion_limit`` 2n allows n model calls.

    Each model call is one graph step and each round of tool calls another. At the last
    step that has room for a model call but not for its tools, LangGraph replaces a reply
    that still calls tools with :data:`LANGGRAPH_OUT_OF_STEPS` (its own rule), so the n-th
    call's tools never run: the turn stops as ``recursion_limit``.
    """
    with warnings.catch_warnings():  # deprecated in favour of langchain.agents.create_agent
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent

        graph = create_react_agent(llm, list(tools))
    try:
        state = graph.invoke(
            {"messages": [*history, *user]}, {**config, "recursion_limit": 2 * max_loops}
        )
    except Exception as exc:
        name = type(exc).__name__
        stop = "recursion_limit" if name == "GraphRecursionError" else name
        return TurnOutcome(list(user), stop, str(exc)[:500])
    new = list(state["messages"][len(history) :])
    return TurnOutcome(new, _graph_stop(new))


#: LangChain's ReAct prompt (the shape of the hub's ``hwchase17/react``) with the previous
#: conversation before the question, as its conversational variant carries ``chat_history``,
#: and Action Input spelled out as a JSON object (the tools take several arguments).
REACT_CHAT_PROMPT = """Answer the following questions as best you can. You have access to the following tools:

{tools}

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [{tool_names}]
Action Input: the input to the action, a JSON object of its arguments
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Previous conversation:
{chat_history}

Question: {input}
Thought:{agent_scratchpad}"""


def render_history(messages: Sequence[BaseMessage]) -> str:
    """The conversation so far as ReAct text: Human, Action / Observation, AI lines."""
    lines: list[str] = []
    for message in messages:
        if isinstance(message, HumanMessage):
            lines.append(f"Human: {_text(message)}")
        elif isinstance(message, ToolMessage):
            lines.append(f"Observation: {_text(message)}")
        elif isinstance(message, AIMessage) and message.tool_calls:
            for call in message.tool_calls:
                lines.append(f"Action: {call['name']}\nAction Input: {_action_input(call['args'])}")
        elif isinstance(message, AIMessage):
            lines.append(f"AI: {_text(message)}")
    return "\n".join(lines) or "(none)"


#: LangChain's key for a tool input that was one string rather than an object.
_SINGLE = "__arg1"


def _action_input(args: dict[str, Any]) -> str:
    """A call's arguments as ReAct's Action Input: the string itself, or the JSON object."""
    if set(args) == {_SINGLE}:
        return str(args[_SINGLE])
    return json.dumps(args, ensure_ascii=False)


def react_arguments(tool: BaseTool, text: str) -> dict[str, Any] | str:
    """ReAct's Action Input as a tool's arguments, or the reason it cannot be one.

    A JSON object is the arguments, and so is a Python dict literal (``{'base': 10, 'flag':
    True}``: what a code model writes as often as JSON); for a tool of one argument, or
    none, anything else is that argument's value (the way single-input ReAct tools have
    always read it).
    """
    stripped = text.strip().strip("`").strip()
    value: Any
    try:
        value = json.loads(stripped)
    except ValueError:
        try:
            value = ast.literal_eval(stripped)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            value = None
    if isinstance(value, dict):
        return value
    names = list(tool.args)
    if not names:
        return {}
    if len(names) == 1:
        return {names[0]: value if value is not None else stripped.strip("'\"")}
    return (
        f"Error: the Action Input of {tool.name} must be a JSON object of its arguments "
        f"({', '.join(names)})."
    )


def react_tools(tools: Sequence[BaseTool]) -> list[BaseTool]:
    """Each tool as a single-input tool reading ReAct's Action Input (:func:`react_arguments`)."""

    def wrap(tool: BaseTool) -> BaseTool:
        def run(text: str) -> str:
            arguments = react_arguments(tool, text)
            return arguments if isinstance(arguments, str) else str(tool.invoke(arguments))

        return Tool(name=tool.name, description=tool.description, func=run)

    return [wrap(t) for t in tools]


def _react_messages(
    steps: list[tuple[Any, Any]], output: str | None, tools: Sequence[BaseTool]
) -> list[BaseMessage]:
    """The turn as messages: each action as a tool call with the arguments it ran with (an
    Action Input that could not be read stays the string it was), its observation, the answer."""
    by_name = {t.name: t for t in tools}
    out: list[BaseMessage] = []
    for i, (action, observation) in enumerate(steps):
        if action.tool == "_Exception":  # a reply the parser could not read: no call was made
            continue
        tool_input = action.tool_input
        read = (
            react_arguments(by_name[action.tool], str(tool_input))
            if action.tool in by_name
            else None
        )
        args = read if isinstance(read, dict) else {_SINGLE: str(tool_input)}
        call_id = f"react-{i}"
        out.append(
            AIMessage(
                content=action.log, tool_calls=[{"name": action.tool, "args": args, "id": call_id}]
            )
        )
        out.append(ToolMessage(content=str(observation), tool_call_id=call_id, name=action.tool))
    if output is not None:
        out.append(AIMessage(content=output))
    return out


def classic_executor(
    llm: BaseChatModel, tools: Sequence[BaseTool], history: list[BaseMessage],
    user: list[BaseMessage], *, max_loops: int, config: RunnableConfig,
) -> TurnOutcome:  # fmt: skip
    """LangChain classic: create_react_agent + AgentExecutor, parsing errors handled.

    Not streamed (``stream_runnable=False``: the executor's own switch, changing only the
    transport), so the server reports usage on every call.
    """
    try:
        from langchain_classic.agents import AgentExecutor, create_react_agent
    except ImportError:  # the article's stack (langchain 0.3) keeps it in langchain itself
        from langchain.agents import AgentExecutor, create_react_agent
    from langchain_core.prompts import PromptTemplate
    from langchain_core.tools.render import render_text_description_and_args

    prompt = PromptTemplate.from_template(REACT_CHAT_PROMPT)
    agent = create_react_agent(
        llm, list(tools), prompt, tools_renderer=render_text_description_and_args
    )
    executor = AgentExecutor(
        agent=agent, tools=react_tools(tools), handle_parsing_errors=True,
        max_iterations=max_loops, stream_runnable=False, return_intermediate_steps=True,
    )  # fmt: skip
    question = "\n".join(_text(m) for m in user)
    try:
        out = executor.invoke({"input": question, "chat_history": render_history(history)}, config)
    except Exception as exc:
        return TurnOutcome(list(user), type(exc).__name__, str(exc)[:500])
    output = str(out["output"])
    stopped = output.startswith("Agent stopped due to")
    steps = out.get("intermediate_steps") or []
    messages = _react_messages(steps, None if stopped else output, tools)
    return TurnOutcome([*user, *messages], "max_iterations" if stopped else "final")


@dataclass(frozen=True)
class Row:
    """One framework as the benchmark runs it, and the server that serves it best."""

    key: str
    label: str
    turn: Turn
    server: str
    """``llama-cpp-python`` (tool calls as text) or ``llama-server`` (upstream, ``--jinja``:
    native tool calls parsed); ``--frameworks KEY@SERVER`` runs a row on the other one."""
    native: bool = False
    """Reads only native tool calls (``AIMessage.tool_calls``)."""


#: Every row runs on upstream llama-server by default. The native-tool rows need its parser;
#: lcel_agent's JSON protocol cannot run on llama-cpp-python 0.3.36 at its defaults (its
#: answer stage's schema-held request, whose keys quote the calls, makes that server fail
#: to parse the grammar and die: docs/benchmarks.md, "BFCL v4"); ReAct is plain text and
#: runs the same on either, so it shares the server with the rest.
ROWS: dict[str, Row] = {
    r.key: r
    for r in (
        Row("lcel-json", "lcel_agent (json)", lcel("json"), "llama-server"),
        Row("lcel-tools", "lcel_agent (tool_calling)", lcel("tool_calling"), "llama-server",
            native=True),
        Row("executor", "AgentExecutor (ReAct)", classic_executor, "llama-server"),
        Row("lc-agent", "langchain 1.x create_agent", langchain_v1, "llama-server", native=True),
        Row("lg-react", "LangGraph create_react_agent", langgraph_prebuilt, "llama-server",
            native=True),
    )
}  # fmt: skip
"""Every framework, in the tables' order."""
