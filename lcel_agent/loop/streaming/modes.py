"""The agent's stream modes besides ``"answer"``: what ``stream``/``astream`` yield per loop.

::

    for record in agent.stream(task):                              # "steps" (the default)
    for message, meta in agent.stream(q, stream_mode="messages"):   # each message, once
    for update in agent.stream(q, stream_mode="updates"):          # {"loop:1": {"messages": [...]}}
    for state in agent.stream(q, stream_mode="values"):            # {"messages": [all so far]}

``"messages"``, ``"updates"`` and ``"values"`` read as LangGraph's modes of the
same names: the messages are those of the ``{"messages": [...]}`` output (the
model's replies with their ids, the tool results), each loop's as the loop ends;
``meta`` is ``{"loop": N}``. The last ``"updates"`` item is ``{"final":
{"messages": [answer], "result": output}}`` and the last ``"values"`` item holds
the run's output under ``"result"``, whatever the input's form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal

from langchain_core.messages import BaseMessage

from ...conversation import RunInput, final_message
from ...conversation.outputs import loop_messages
from ...errors import ConfigurationError
from ...state import AgentResult, StepRecord

__all__ = ["MODES", "ModeView", "StreamMode", "check_mode", "input_of_chunks"]

#: ``stream_mode`` values: the loop's records, the answer's text, or LangGraph's three.
StreamMode = Literal["steps", "answer", "messages", "updates", "values"]
MODES: tuple[str, ...] = ("steps", "answer", "messages", "updates", "values")


def input_of_chunks(chunks: Iterator[Any]) -> Any:
    """One input from a stream of chunks: added up where they add (text), else the last."""
    value: Any = None
    for chunk in chunks:
        try:
            value = chunk if value is None else value + chunk
        except TypeError:
            value = chunk
    return value


def check_mode(mode: Any) -> StreamMode:
    """``mode`` when it is a stream mode; else a :class:`ConfigurationError` naming them."""
    if mode not in MODES:
        raise ConfigurationError(f"stream_mode must be one of {list(MODES)}, got {mode!r}")
    return mode  # type: ignore[no-any-return]


class ModeView:
    """Turns a run's events (loop records, then the result) into one mode's items."""

    def __init__(self, mode: StreamMode, run: Callable[[], RunInput]) -> None:
        # The run's input is asked for at the first event: a resumed run's is read from its
        # checkpoint only when the run opens.
        self.mode = mode
        self._run = run
        self.messages: list[BaseMessage] | None = None

    def items(
        self, event: StepRecord | AgentResult, output: Callable[[AgentResult], Any]
    ) -> list[Any]:
        """The items for one event of the run; ``output`` shapes the result into its form."""
        if self.messages is None:
            self.messages = list(self._run().messages)
        if isinstance(event, AgentResult):
            return self.end(event, output(event))
        return self.step(event)

    def step(self, record: StepRecord) -> list[Any]:
        """The items for one finished loop."""
        if self.mode == "steps":
            return [record]
        new = loop_messages(record)
        assert self.messages is not None
        self.messages += new
        if self.mode == "messages":
            return [(m, {"loop": record.step}) for m in new]
        if self.mode == "updates":
            return [{f"loop:{record.step}": {"messages": new}}] if new else []
        return [{"messages": list(self.messages)}]

    def end(self, result: AgentResult, output: Any) -> list[Any]:
        """The items for the end of the run; ``output`` is the run's output in its form."""
        if self.mode == "steps":
            return [output]
        last = final_message(result)
        if self.mode == "messages":
            return [(last, {"loop": result.loops})]
        if self.mode == "updates":
            return [{"final": {"messages": [last], "result": output}}]
        return [{"messages": [*(self.messages or ()), last], "result": output}]
