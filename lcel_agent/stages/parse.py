"""``parse_action``: turn the model's reply into :class:`~lcel_agent.state.Action` values.

Two parsers, one per protocol, each replacing the other under the same stage name:

* :class:`ParseAction` (JSON protocol) reads ``state.parsed``: one object
  ``{"action": ..., "action_input": ...}`` or a list of them (parallel actions).
* :class:`ParseToolCalls` (tool-calling protocol) reads ``AIMessage.tool_calls``;
  a reply without tool calls is the final answer, and a call of a tool named
  ``final`` is an ``unknown_tool`` error (no tool may have that name).

Shape rules (a violation is a ``format`` error): every action is an object with a
non-empty string ``action`` and an ``action_input`` key; a list is not empty;
``final`` stands alone. Whether the tool exists and the input fits is the
dispatcher's business, so both protocols share those checks.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from typing import Any

from langchain_core.runnables import RunnableConfig

from .._messages import message_text
from .._redact import redact
from ..errors import ActionParseError, ErrorClass, error_reason
from ..state import FINAL_ACTION, Action, AgentState, RunError
from ..structured import ResponseFormat
from ..texts import ANSWER_FORMAT_REPROMPT, FINAL_NOT_A_TOOL, FORMAT_REPROMPT
from ._base import Stage
from .clean import extract_json

__all__ = ["ParseAction", "ParseToolCalls", "final_text", "parse_actions"]


def final_text(value: Any) -> str:
    """The answer of a ``final`` action as text (objects become JSON)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _reject(why: str, value: Any) -> ActionParseError:
    return ActionParseError(
        why,
        llm_output=json.dumps(value, ensure_ascii=False, default=str),
        observation=FORMAT_REPROMPT,
    )


def _one(item: Any) -> Action:
    if not isinstance(item, dict):
        raise _reject(f"an action must be a JSON object, not {type(item).__name__}", item)
    name = item.get("action")
    if not isinstance(name, str) or not name.strip():
        raise _reject("the action has no 'action' name", item)
    if "action_input" not in item:
        raise _reject("the action has no 'action_input'", item)
    name = name.strip()
    if name.lower() == FINAL_ACTION:
        if item["action_input"] is None:
            raise _reject("the final action has no answer", item)
        return Action(FINAL_ACTION, item["action_input"])
    return Action(name, item["action_input"])


def parse_actions(value: Any) -> tuple[Action, ...]:
    """Validate a parsed JSON value and return its actions.

    Raises:
        ActionParseError: when the value breaks a shape rule (see the module docstring).
    """
    items = value if isinstance(value, list) else [value]
    if not items:
        raise _reject("the action list is empty", value)
    actions = tuple(_one(item) for item in items)
    if len(actions) > 1 and any(a.is_final for a in actions):
        raise _reject("'final' cannot be mixed with other actions", value)
    return actions


def _format_error(state: AgentState, stage: str, exc: Exception) -> AgentState:
    error = RunError(state.loops, stage, ErrorClass.FORMAT, redact(error_reason(exc)))
    return dataclasses.replace(state, loop_error=error)


def _with_actions(
    state: AgentState, stage: str, actions: tuple[Action, ...], fmt: ResponseFormat | None
) -> AgentState:
    """Set the actions; with a response format, check a final answer against it first."""
    if fmt is None or len(actions) != 1 or not actions[0].is_final:
        return dataclasses.replace(state, actions=actions)
    value = actions[0].tool_input
    if isinstance(value, str):
        # A JSON answer written as text, fenced or not; else the string itself is checked,
        # which names the problem for the model.
        with contextlib.suppress(ActionParseError):
            value = extract_json(value)
    checked = fmt.check(value)
    if checked.problem is None:
        return dataclasses.replace(state, actions=(Action(FINAL_ACTION, checked.value),))
    problem = redact(checked.problem)
    error = RunError(
        state.loops,
        stage,
        ErrorClass.FORMAT,
        f"the answer does not fit response_format {fmt.name}: {problem}",
        notice=ANSWER_FORMAT_REPROMPT.format(problems=problem),
    )
    return dataclasses.replace(state, actions=actions, loop_error=error)


class ParseAction(Stage):
    """JSON protocol: ``state.parsed`` → ``state.actions`` (or a value → actions).

    Args:
        response_format: when set, a final answer that does not fit it is a
            ``format`` loop error telling the model what is wrong.
    """

    name = "parse_action"

    def __init__(
        self, *, response_format: ResponseFormat | None = None, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        self.response_format = response_format

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if state.stop is not None or state.loop_error is not None or state.reply is None:
            return state
        try:
            actions = parse_actions(state.parsed)
        except ActionParseError as exc:
            return _format_error(state, self.name or "parse_action", exc)
        return _with_actions(state, self.name or "parse_action", actions, self.response_format)

    def run_standalone(self, value: Any, config: RunnableConfig) -> Any:
        return parse_actions(value)


class ParseToolCalls(Stage):
    """Tool-calling protocol: ``reply.tool_calls`` → ``state.actions``.

    Args:
        response_format: as for :class:`ParseAction`; the answer text is read as JSON.
    """

    name = "parse_action"

    def __init__(
        self, *, response_format: ResponseFormat | None = None, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        self.response_format = response_format

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        reply = state.reply
        if state.stop is not None or state.loop_error is not None or reply is None:
            return state
        stage = self.name or "parse_action"
        if reply.invalid_tool_calls:
            bad = reply.invalid_tool_calls[0]
            return _format_error(
                state, stage, ValueError(f"unreadable tool call {bad.get('name')!r}")
            )
        if any(call["name"].strip().lower() == FINAL_ACTION for call in reply.tool_calls):
            # No tool may be named "final" (create_agent refuses one): this call names none of
            # the agent's tools, so none of the reply runs, and it is certainly not the answer.
            error = RunError(
                state.loops,
                stage,
                ErrorClass.UNKNOWN_TOOL,
                "the model called a tool named 'final'; the final answer is a reply without tool calls",
                notice=FINAL_NOT_A_TOOL,
            )
            return dataclasses.replace(state, loop_error=error)
        if reply.tool_calls:
            actions = tuple(
                Action(call["name"], call.get("args", {}), call.get("id"))
                for call in reply.tool_calls
            )
            return dataclasses.replace(state, actions=actions)
        answer = message_text(reply).strip()
        if not answer:
            return _format_error(
                state, stage, ValueError("the reply has neither tool calls nor text")
            )
        return _with_actions(state, stage, (Action(FINAL_ACTION, answer),), self.response_format)
