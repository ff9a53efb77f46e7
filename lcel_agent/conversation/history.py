"""Write a run's conversation into its memory window, in the protocol's own terms.

The window's public API does the placing (``add_user`` pins the newest question
and turns the earlier ones into history; ``add_assistant`` starts a turn), so
the window's eviction rules apply to the conversation like to the run's own
turns. With the tool-calling protocol, earlier tool calls stay native
(``AIMessage.tool_calls`` and ``ToolMessage``); a call left without a result
gets one saying so, because chat APIs reject an unanswered tool call. With the
JSON protocol they are rewritten the way the run itself writes them: the
action JSON, then ``Observation [tool]: ...`` as a user message.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from .. import texts
from .._shared.messages import message_text
from .._shared.protocol import ProtocolName
from ..memory import SlidingWindowMemory
from ..state import FINAL_ACTION, Action
from .inputs import RunInput
from .outputs import tool_input_of

__all__ = ["NO_RESULT", "seed_window"]

#: The result written for an earlier tool call that has none in the conversation.
NO_RESULT = "ERROR: this call has no result in the conversation."


def _json_action(message: AIMessage) -> str:
    if not message.tool_calls:
        return json.dumps(
            {"action": FINAL_ACTION, "action_input": message_text(message)}, ensure_ascii=False
        )
    body = [
        {"action": call["name"], "action_input": tool_input_of(call["args"])}
        for call in message.tool_calls
    ]
    return json.dumps(body[0] if len(body) == 1 else body, ensure_ascii=False)


def _observation(action: Action, output: str, several: bool) -> str:
    if several:  # as the run writes them: which result answers which call
        return texts.OBSERVATION_OF.format(name=action.tool, input=action.input_text, output=output)
    return texts.OBSERVATION.format(output=output)


def _add_json(window: SlidingWindowMemory, messages: Iterable[BaseMessage]) -> None:
    calls: dict[str, Action] = {}
    lines: list[str] = []  # the observations of the newest assistant turn

    def flush() -> None:
        if lines:
            window.add_observation("\n".join(lines))
            lines.clear()

    for message in messages:
        if isinstance(message, ToolMessage):
            action = calls.get(message.tool_call_id) or Action(message.name or "tool", "")
            lines.append(_observation(action, message_text(message), len(calls) > 1))
            continue
        flush()
        if isinstance(message, HumanMessage):
            window.add_user(message_text(message))
        elif isinstance(message, AIMessage):
            calls = {
                c["id"] or "": Action(c["name"], tool_input_of(c["args"]))
                for c in message.tool_calls
            }
            window.add_assistant(_json_action(message))
        else:
            window.add_observation(message_text(message))
    flush()


def _add_native(window: SlidingWindowMemory, messages: Iterable[BaseMessage]) -> None:
    open_calls: list[str] = []

    def close_calls() -> None:
        for call_id in open_calls:
            window.add(ToolMessage(content=NO_RESULT, tool_call_id=call_id, status="error"))
        open_calls.clear()

    for message in messages:
        if isinstance(message, ToolMessage):
            if message.tool_call_id in open_calls:
                open_calls.remove(message.tool_call_id)
            window.add(message)
            continue
        close_calls()
        if isinstance(message, HumanMessage):
            window.add_user(message_text(message))
        elif isinstance(message, AIMessage):
            window.add_assistant(message)
            open_calls.extend(c["id"] for c in message.tool_calls if c["id"])
        else:
            window.add_observation(message_text(message))
    close_calls()


def seed_window(
    window: SlidingWindowMemory, run: RunInput, *, system_prompt: str, protocol: ProtocolName
) -> None:
    """Write the system prompt, the conversation, the task and what followed it into ``window``.

    Args:
        window: the run's window (a fresh copy, or the thread's conversation so far).
        run: the read input.
        system_prompt: the run's system prompt (pinned).
        protocol: the agent's protocol (under ``tool_calling`` tool calls stay native).
    """
    add = _add_native if protocol == "tool_calling" else _add_json
    window.add_system(system_prompt)
    with window.placing():  # the conversation is history once its question arrives
        add(window, run.before)
        window.add_user(run.question)
    if run.after:
        add(window, run.after)
