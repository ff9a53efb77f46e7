"""A fake model that plays BFCL's ground truth through any framework of the BFCL harness.

``ground_truth_model(entry, truth, form)`` answers each model call with the next
ground-truth call of the current turn (one call per step), then with a final answer.
The current turn is the latest of the entry's user messages that the request contains
(every framework shows the model the conversation so far, as messages or as text), so
the fake needs no hook into the harness and ignores calls it cannot place (an answer
stage's extra call gets the final answer too).

``form`` is how the call is written: ``"native"`` (``AIMessage.tool_calls``), ``"json"``
(lcel_agent's JSON protocol) or ``"react"`` (Thought / Action / Action Input).
"""

from __future__ import annotations

import ast
import itertools
import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from benchmarks.bfcl.harness import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
from lcel_agent.testing import FunctionChatModel

_ids = itertools.count()


def parse(text: str, positional: dict[str, list[str]]) -> tuple[str, dict[str, Any]]:
    """A ground-truth call string as (name, arguments); positional names from the docs."""
    node = ast.parse(text, mode="eval").body
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    names = positional.get(node.func.id, [])
    arguments = {names[i]: ast.literal_eval(a) for i, a in enumerate(node.args)}
    arguments |= {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    return node.func.id, arguments


def _text(messages: list[BaseMessage]) -> str:
    return "\n".join(m.content if isinstance(m.content, str) else str(m.content) for m in messages)


def ground_truth_model(
    entry: dict[str, Any], truth: list[list[str]], form: str = "native"
) -> FunctionChatModel:
    functions = [
        *entry["function"],
        *itertools.chain(*(entry.get("missed_function") or {}).values()),
    ]
    positional = {f["name"]: list(f["parameters"]["properties"]) for f in functions}
    questions = [
        " ".join(m["content"] for m in turn)
        if turn
        else DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
        for turn in entry["question"]
    ]
    emitted: dict[int, int] = {}

    def reply(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> str | AIMessage:
        seen = _text(messages)
        turn = max((i for i, q in enumerate(questions) if q in seen), default=0)
        done = emitted.get(turn, 0)
        if done >= len(truth[turn]):
            return _final(form, _last_result(messages))
        emitted[turn] = done + 1
        name, arguments = parse(truth[turn][done], positional)
        return _call(form, name, arguments)

    return FunctionChatModel(reply)


def _call(form: str, name: str, arguments: dict[str, Any]) -> str | AIMessage:
    if form == "native":
        return AIMessage(
            content="", tool_calls=[{"name": name, "args": arguments, "id": f"c{next(_ids)}"}]
        )
    if form == "json":
        return json.dumps({"action": name, "action_input": arguments})
    return f"Thought: I call {name}.\nAction: {name}\nAction Input: {json.dumps(arguments)}"


def _last_result(messages: list[BaseMessage]) -> str:
    """The newest tool result the request shows (an answer should carry what it found)."""
    for message in reversed(messages):
        if isinstance(message, ToolMessage) or "Observation" in str(message.content):
            text = str(message.content)
            return text[text.rfind("Observation") :][:300] if "Observation" in text else text[:300]
    return ""


def _final(form: str, found: str) -> str:
    answer = f"Done. {found}".strip()
    if form == "json":
        return json.dumps({"action": "final", "action_input": answer})
    if form == "react":
        return f"Thought: I now know the final answer\nFinal Answer: {answer}"
    return answer
