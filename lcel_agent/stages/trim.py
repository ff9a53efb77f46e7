"""``trim_memory``: write the loop into the memory window and keep it within budget.

Inside the agent it adds ``state.pending`` to a copy of the window (so states
stay values and concurrent runs share nothing) and lets the window evict its
oldest turns. On its own it trims a plain message list by the same rules::

    TrimMemory(max_tokens=800).invoke(messages)    # -> the messages that fit
    TrimMemory().invoke([("system", "..."), ("human", "...")])   # LangChain's shorthand works too
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, convert_to_messages
from langchain_core.runnables import RunnableConfig

from ..memory import trim_messages
from ..state import AgentState
from ..tokens import TokenCounter
from ._base import Stage

__all__ = ["TrimMemory"]


class TrimMemory(Stage):
    """Apply the loop's messages to the window.

    Args:
        max_tokens: the budget for standalone use on a message list (inside the
            agent the window's own ``max_tokens`` applies).
        counter: the token counter for standalone use (default: the estimate).
    """

    name = "trim_memory"

    def __init__(
        self,
        *,
        max_tokens: int = 800,
        counter: TokenCounter | str | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.max_tokens = max_tokens
        self.counter = counter

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if not state.pending:
            return state
        memory = state.memory.copy()
        for message in state.pending:
            memory.add(message)
        return dataclasses.replace(state, memory=memory, pending=())

    def run_standalone(self, value: Any, config: RunnableConfig) -> list[BaseMessage]:
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise TypeError("trim_memory takes an AgentState or a list of messages")
        try:
            # Messages, or what LangChain accepts for them: ("human", "q") tuples, dicts, strings.
            messages = convert_to_messages(value)
        except (ValueError, TypeError, NotImplementedError) as exc:
            raise TypeError(
                f"trim_memory takes an AgentState or a list of messages: {str(exc).splitlines()[0]}"
            ) from None
        return trim_messages(messages, self.max_tokens, self.counter)
