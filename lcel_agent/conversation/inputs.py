"""Read an agent input of any accepted form into a :class:`RunInput`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, convert_to_messages
from langchain_core.prompt_values import ChatPromptValue, PromptValue

from .._shared.messages import has_media, message_text

__all__ = ["InputForm", "RunInput", "read_input", "task_of"]

_TASK_KEYS = ("input", "task", "question")


class InputForm(Enum):
    """The form the run answers in (the form it was asked in)."""

    TASK = "task"
    """A task string, ``{"input": ...}``, one message or a prompt value: an ``AgentResult``."""
    MESSAGES = "messages"
    """``{"messages": [...]}``: ``{"messages": [...]}``."""
    MESSAGE_LIST = "message_list"
    """A list of messages: the final ``AIMessage``."""


@dataclass(frozen=True, slots=True)
class RunInput:
    """One run's input, read."""

    task: str
    """The text of the last human message: what this run must answer."""
    form: InputForm
    """The form of the output."""
    before: tuple[BaseMessage, ...] = ()
    """The conversation before the task (system messages left out)."""
    after: tuple[BaseMessage, ...] = ()
    """Messages after the task (another agent's turns in a shared graph, say)."""
    persona: str | None = None
    """The text of the input's system messages: the persona for this run, if any."""
    messages: tuple[BaseMessage, ...] = ()
    """The input messages as given (messages forms), for the output."""
    content: str | list[str | dict[str, Any]] | None = None
    """The task's message content when it carries media (images ...): the model gets the
    blocks as they were given; None for a text task."""

    @property
    def question(self) -> str | list[str | dict[str, Any]]:
        """What the window's question holds: the task's blocks, or its text."""
        return self.content if self.content is not None else self.task


def _text_task(value: str, media: bool = False) -> str:
    if not value.strip() and not media:
        raise ValueError("the agent's task is empty")
    return value


def _task(message: BaseMessage) -> tuple[str, list[str | dict[str, Any]] | None]:
    """A human message's task text, and its content when that carries media blocks."""
    media = has_media(message)
    content = list(message.content) if media else None
    return _text_task(message_text(message), media), content


def _from_messages(messages: Sequence[BaseMessage], form: InputForm) -> RunInput:
    last = next(
        (i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], HumanMessage)),
        None,
    )
    if last is None:
        raise ValueError("the agent's messages hold no human message: nothing to answer")
    system = [message_text(m) for m in messages if isinstance(m, SystemMessage)]
    task, content = _task(messages[last])
    return RunInput(
        task=task,
        form=form,
        content=content,
        before=tuple(m for m in messages[:last] if not isinstance(m, SystemMessage)),
        after=tuple(m for m in messages[last + 1 :] if not isinstance(m, SystemMessage)),
        persona="\n\n".join(t for t in system if t.strip()) or None,
        messages=tuple(messages),
    )


def _message_list(value: Any, what: str) -> list[BaseMessage]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{what} must be a list of messages, not {type(value).__name__}")
    try:
        return convert_to_messages(value)
    except (ValueError, TypeError, NotImplementedError) as exc:
        raise TypeError(f"{what} must be a list of messages: {exc}") from None


def read_input(value: Any) -> RunInput:
    """Read an agent input; see the package docstring for the forms.

    Raises:
        TypeError: the input is of no accepted form.
        ValueError: the task is empty, or a messages input has no human message.
    """
    if isinstance(value, str):
        return RunInput(_text_task(value), InputForm.TASK)
    if isinstance(value, Mapping):
        if "messages" in value:
            messages = _message_list(value["messages"], "the input's 'messages'")
            return _from_messages(messages, InputForm.MESSAGES)
        key = next((k for k in _TASK_KEYS if k in value), None)
        if key is None:
            raise ValueError(
                f"the agent's input dict needs an 'input' or 'messages' key, got keys {sorted(value)}"
            )
        value = value[key]
        if not isinstance(value, str):
            return (
                read_input(value) if isinstance(value, (BaseMessage, PromptValue)) else _bad(value)
            )
        return RunInput(_text_task(value), InputForm.TASK)
    if isinstance(value, ChatPromptValue):
        return _from_messages(value.to_messages(), InputForm.TASK)
    if isinstance(value, PromptValue):
        return RunInput(_text_task(value.to_string()), InputForm.TASK)
    if isinstance(value, BaseMessage):
        task, content = _task(value)
        return RunInput(task, InputForm.TASK, content=content)
    if isinstance(value, (list, tuple)):
        return _from_messages(_message_list(value, "the input"), InputForm.MESSAGE_LIST)
    return _bad(value)


def _bad(value: Any) -> RunInput:
    raise TypeError(
        "the agent's input must be a task string, {'input': ...}, {'messages': [...]}, "
        f"a list of messages, a message or a prompt value, not {type(value).__name__}"
    )


def task_of(value: Any) -> str:
    """The task text of an agent input (any accepted form; see the package docstring)."""
    return read_input(value).task
