"""ReAct as text: the prompts AgentExecutor runs with, and calls and conversations to and from it.

    prompt = PromptTemplate.from_template(REACT_CHAT_PROMPT)
    inputs = {"input": question, "chat_history": render_history(history)}
    tools = react_tools(tools)                 # each reads a JSON Action Input
    messages = react_messages(steps, output, tools, read=react_arguments)

The classic ReAct agent's prompt is text and its Action Input one string. A task of
tools that take one string (the article's) needs nothing more. Where a tool takes an
object of arguments (BFCL's: a JSON-schema dict that refuses a string), the prompt asks
for a JSON object and each tool is wrapped to read one (:func:`react_tools`); a
conversation's earlier turns are written into the prompt (:func:`render_history`), the
way LangChain's conversational ReAct prompt carries ``chat_history``.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, Tool

#: A standard ReAct prompt (the shape of the hub's ``hwchase17/react``), written out here.
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

#: :data:`REACT_PROMPT` with the previous conversation before the question, as its
#: conversational variant carries ``chat_history``, and Action Input spelled out as a JSON
#: object (the tools take several arguments).
REACT_CHAT_PROMPT = REACT_PROMPT.replace(
    "Action Input: the input to the action\n",
    "Action Input: the input to the action, a JSON object of its arguments\n",
).replace("Begin!\n\n", "Begin!\n\nPrevious conversation:\n{chat_history}\n\n")

#: LangChain's key for a tool input that was one string rather than an object.
SINGLE = "__arg1"


def text(message: BaseMessage) -> str:
    """A message's text: its string content, or its content blocks' text joined."""
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content)


def render_history(messages: Sequence[BaseMessage]) -> str:
    """The conversation so far as ReAct text: Human, Action / Observation, AI lines."""
    lines: list[str] = []
    for message in messages:
        if isinstance(message, HumanMessage):
            lines.append(f"Human: {text(message)}")
        elif isinstance(message, ToolMessage):
            lines.append(f"Observation: {text(message)}")
        elif isinstance(message, AIMessage) and message.tool_calls:
            for call in message.tool_calls:
                lines.append(f"Action: {call['name']}\nAction Input: {_action_input(call['args'])}")
        elif isinstance(message, AIMessage):
            lines.append(f"AI: {text(message)}")
    return "\n".join(lines) or "(none)"


def _action_input(args: dict[str, Any]) -> str:
    """A call's arguments as ReAct's Action Input: the string itself, or the JSON object."""
    if set(args) == {SINGLE}:
        return str(args[SINGLE])
    return json.dumps(args, ensure_ascii=False)


def react_arguments(tool: BaseTool, given: str) -> dict[str, Any] | str:
    """ReAct's Action Input as a tool's arguments, or the reason it cannot be one.

    A JSON object is the arguments, and so is a Python dict literal (``{'base': 10, 'flag':
    True}``: what a code model writes as often as JSON); for a tool of one argument, or
    none, anything else is that argument's value (the way single-input ReAct tools have
    always read it).
    """
    stripped = given.strip().strip("`").strip()
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


def one_string(tool: BaseTool, given: str) -> dict[str, Any]:
    """The Action Input as a single-input tool gets it: one string (how LangChain keys it)."""
    return {SINGLE: given}


def react_tools(tools: Sequence[BaseTool]) -> list[BaseTool]:
    """Each tool as a single-input tool reading ReAct's Action Input (:func:`react_arguments`)."""

    def wrap(tool: BaseTool) -> BaseTool:
        def run(given: str) -> str:
            arguments = react_arguments(tool, given)
            return arguments if isinstance(arguments, str) else str(tool.invoke(arguments))

        return Tool(name=tool.name, description=tool.description, func=run)

    return [wrap(t) for t in tools]


#: How an Action Input became the arguments a tool ran with: ``react_arguments`` or ``one_string``.
Read = Callable[[BaseTool, str], dict[str, Any] | str]


def react_messages(
    steps: list[tuple[Any, Any]], output: str | None, tools: Sequence[BaseTool], read: Read
) -> list[BaseMessage]:
    """The run as messages: each action as a tool call with the arguments it ran with (an
    Action Input that could not be read stays the string it was), its observation, the answer."""
    by_name = {t.name: t for t in tools}
    out: list[BaseMessage] = []
    for i, (action, observation) in enumerate(steps):
        if action.tool == "_Exception":  # a reply the parser could not read: no call was made
            continue
        given = str(action.tool_input)
        arguments = read(by_name[action.tool], given) if action.tool in by_name else None
        args = arguments if isinstance(arguments, dict) else {SINGLE: given}
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
