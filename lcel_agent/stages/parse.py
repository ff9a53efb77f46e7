"""``parse_action``: turn the model's reply into :class:`~lcel_agent.state.Action` values.

Two parsers, one per protocol, each replacing the other under the same stage name:

* :class:`ParseAction` (JSON protocol) reads ``state.parsed``: one object
  ``{"action": ..., "action_input": ...}`` or a list of them (parallel actions).
  The other shapes models write (``{"name", "arguments"}``, a tool with its
  signature, arguments inline or as JSON text) are read where unambiguous: see
  :mod:`lcel_agent.stages._shapes`.
* :class:`ParseToolCalls` (tool-calling protocol) reads ``AIMessage.tool_calls``;
  a reply without tool calls is the final answer, unless its text is a tool call
  written out (plain JSON, fenced, or in ``<tool_call>`` tags) naming one of the
  agent's tools, as models behind servers that do not parse calls write them, or a call
  written in words (a tool's name with its arguments beside it, Python call syntax,
  ReAct's ``Action:`` lines: :mod:`lcel_agent.stages._written`). A reply in words is an
  answer, judged by the answer checks where every answer is (``classify_error``: a plan
  is sent back once). An empty reply once calls have succeeded ends the acting too (the
  answer stage writes the answer); before any, it is a ``format`` error.
  A call of a tool named ``final`` is an ``unknown_tool`` error (no tool may
  have that name).

Shape rules (a violation is a ``format`` error): every action is an object with a
non-empty string ``action`` and an ``action_input`` key; a list is not empty; neither
the name nor the input is a placeholder copied from the prompt (``<tool name>``). A
``final`` beside tool calls is dropped (the calls run; the model answers once it
has their results); several finals alone: the last one is the answer. Whether the tool exists and the input fits is the
dispatcher's business, so both protocols share those checks.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
from collections.abc import Collection, Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig

from .._redact import redact
from .._shared.messages import message_text
from ..errors import ActionParseError, ErrorClass, error_reason
from ..rules.gathered import gathered
from ..rules.protocols import WRITTEN_CALL_PREFIX
from ..rules.structured import ResponseFormat
from ..state import FINAL_ACTION, Action, AgentState, RunError
from ..texts import (
    ANSWER_FORMAT_REPROMPT,
    FINAL_NOT_A_TOOL,
    FORMAT_REPROMPT,
    JSON_CALL,
    JSON_FINAL,
    PROSE_REPROMPT,
)
from ._base import Stage
from ._shapes import ShapeError, read_action
from ._words import judge_words
from ._written import written_calls
from .clean import extract_json, succeeded

__all__ = ["ParseAction", "ParseToolCalls", "final_text", "parse_actions", "text_tool_calls"]


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


# The placeholders of the forms our own texts show the model. A small model re-prompted
# with a form sometimes sends the form back, placeholder and all; acting on it would make
# "<that answer>" the answer.
_PLACEHOLDERS = frozenset(
    re.findall(r"<[^<>\"]+>", JSON_CALL + JSON_FINAL + FORMAT_REPROMPT + PROSE_REPROMPT)
)


def _one(
    item: Any, tools: Collection[str], arguments: Mapping[str, Collection[str]] | None
) -> Action:
    try:
        name, value = read_action(item, tools, arguments)
    except ShapeError as exc:
        raise _reject(str(exc), item) from None
    if name == FINAL_ACTION and value is None:
        raise _reject("the final action has no answer", item)
    if name in _PLACEHOLDERS or (isinstance(value, str) and value.strip() in _PLACEHOLDERS):
        raise _reject("the reply copied a placeholder from the instructions", item)
    return Action(name, value)


def parse_actions(
    value: Any,
    tools: Collection[str] = (),
    arguments: Mapping[str, Collection[str]] | None = None,
    *,
    prefer_final: bool = False,
) -> tuple[Action, ...]:
    """Validate a parsed JSON value and return its actions.

    Args:
        value: one action object or a list of them.
        tools: the agent's tool names, so ``get_weather(city)`` reads as ``get_weather``.
        arguments: each tool's argument names (see :func:`~lcel_agent.stages._shapes.read_action`).
        prefer_final: keep a final answer over tool calls beside it (the loop reserved
            for the answer, where no tool runs).

    Raises:
        ActionParseError: when the value breaks a shape rule (see the module docstring).
    """
    items = value if isinstance(value, list) else [value]
    if not items:
        raise _reject("the action list is empty", value)
    actions = tuple(_one(item, tools, arguments) for item in items)
    finals = tuple(a for a in actions if a.is_final)
    if prefer_final and finals:
        return finals[-1:]
    calls = tuple(a for a in actions if not a.is_final)
    # A final answer beside tool calls was written before their results: the model is
    # planning. The calls run; the answer it guessed is dropped, and it answers again
    # once it has the results (small models write such plans; a re-prompt made them
    # write the same plan again).
    return calls or actions[-1:]


# A tool call as Qwen-style chat templates write it in text.
_TAGGED = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)


def text_tool_calls(
    text: str, tools: Collection[str], arguments: Mapping[str, Collection[str]] | None = None
) -> tuple[Action, ...]:
    """The tool calls written out as text in ``text``, or () when it is not one.

    Read as calls only when every object found names one of ``tools`` (an answer that
    merely contains some JSON stays an answer).
    """
    if not tools:
        return ()
    tagged = [m.group(1) for m in _TAGGED.finditer(text)]
    try:
        values = [extract_json(t) for t in tagged] if tagged else [extract_json(text)]
    except ActionParseError:
        return ()
    items = [item for v in values for item in (v if isinstance(v, list) else [v])]
    try:
        read = [read_action(item, tools, arguments) for item in items]
    except ShapeError:
        return ()
    if not read or any(name not in tools for name, _ in read):
        return ()
    return tuple(Action(name, value) for name, value in read)


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


def _with_written_calls(
    state: AgentState, written: tuple[Action, ...], tools: Mapping[str, Collection[str]]
) -> AgentState:
    """Make calls written as text native: ids, and the reply carrying them as ``tool_calls``.

    The transcript then answers each with a ToolMessage, as for a call the server parsed.
    """
    assert state.reply is not None
    actions = tuple(
        dataclasses.replace(a, call_id=f"{WRITTEN_CALL_PREFIX}{state.loops}_{i}")
        for i, a in enumerate(written)
    )
    calls = [
        {
            "name": a.tool,
            "args": _as_args(a.tool_input, tools.get(a.tool, ())),
            "id": a.call_id,
            "type": "tool_call",
        }
        for a in actions
    ]
    # The text stays the reply's content in the run's records; the transcript writes the turn
    # back in the server's own form (rules/protocols.py: WRITTEN_CALL_PREFIX).
    reply = state.reply.model_copy(update={"tool_calls": calls, "invalid_tool_calls": []})
    return dataclasses.replace(state, actions=actions, reply=reply)


def _as_args(value: Any, arguments: Collection[str]) -> dict[str, Any]:
    """A call's input as the arguments object a tool call carries."""
    if isinstance(value, dict):
        return value
    names = list(arguments)
    return {names[0] if len(names) == 1 else "input": value}


class _ParseStage(Stage):
    """The ``parse_action`` slot, in either protocol: what both parsers are given.

    Args:
        response_format: when set, a final answer that does not fit it is a
            ``format`` loop error telling the model what is wrong.
        tools: the agent's tool names and each one's argument names.
    """

    name = "parse_action"

    def __init__(
        self,
        *,
        response_format: ResponseFormat | None = None,
        tools: Mapping[str, Collection[str]] | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.response_format = response_format
        self.tools: Mapping[str, Collection[str]] = dict(tools or {})


class ParseAction(_ParseStage):
    """JSON protocol: ``state.parsed`` → ``state.actions`` (or a value → actions).

    Args:
        response_format: when set, a final answer that does not fit it is a
            ``format`` loop error telling the model what is wrong.
        tools: the agent's tool names and each one's argument names, so a tool written
            with its signature (``get_weather(city)``) is read as that tool.
    """

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if state.stop is not None or state.loop_error is not None or state.reply is None:
            return state
        if state.notice is not None:  # words sent back with a notice: nothing to parse
            return state
        try:
            actions = parse_actions(
                state.parsed, self.tools, self.tools, prefer_final=state.final_only
            )
        except ActionParseError as exc:
            return _format_error(state, self.name or "parse_action", exc)
        return _with_actions(state, self.name or "parse_action", actions, self.response_format)

    def run_standalone(self, value: Any, config: RunnableConfig) -> Any:
        return parse_actions(value, self.tools, self.tools)


class ParseToolCalls(_ParseStage):
    """Tool-calling protocol: ``reply.tool_calls`` → ``state.actions``.

    Args:
        response_format: as for :class:`ParseAction`; the answer text is read as JSON.
        tools: the agent's tool names and each one's argument names: a reply whose text
            is a call of one of them, written out, is read as that call.
    """

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
        written = text_tool_calls(answer, self.tools, self.tools) or tuple(
            Action(c.tool, c.arguments) for c in written_calls(answer, self.tools, succeeded(state))
        )
        if written:
            return _with_written_calls(state, written, self.tools)
        if not answer:
            if gathered(state):  # said nothing, with results in hand: acting is over
                return dataclasses.replace(state, actions=(Action(FINAL_ACTION, ""),))
            return _format_error(
                state, stage, ValueError("the reply has neither tool calls nor text")
            )
        words = judge_words(answer, state, self.tools, json_protocol=False)
        if words.notice is not None:
            return dataclasses.replace(state, notice=words.notice)
        return _with_actions(state, stage, (Action(FINAL_ACTION, answer),), self.response_format)
