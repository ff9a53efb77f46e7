"""``trim_memory``: write the loop into the memory window and keep it within budget.

Inside the agent it adds ``state.pending`` to a copy of the window as one turn,
with the facts it established and whether it failed (so states stay values and
concurrent runs share nothing), and lets the window compact and evict. Model
calls a compactor makes (a written summary) are added to the run's usage, so
``token_budget`` counts them. On its own it trims a plain message list by the
same rules::

    TrimMemory(max_tokens=800).invoke(messages)    # -> the messages that fit
    TrimMemory().invoke([("system", "..."), ("human", "...")])   # LangChain's shorthand works too
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, convert_to_messages
from langchain_core.runnables import RunnableConfig

from ..memory import SlidingWindowMemory, trim_messages
from ..memory.counters import TokenCounter
from ..state import AgentState, Usage
from ._base import Stage

__all__ = ["TrimMemory"]


def _applied(state: AgentState, memory: SlidingWindowMemory) -> AgentState:
    """The state with its new window; a compactor's model calls join the run's usage."""
    before, after = state.memory.digest, memory.digest
    spent = Usage(
        max(after.input_tokens - before.input_tokens, 0),
        max(after.output_tokens - before.output_tokens, 0),
    )
    calls = max(after.calls - before.calls, 0)
    if not calls:
        return dataclasses.replace(state, memory=memory, pending=())
    return dataclasses.replace(
        state,
        memory=memory,
        pending=(),
        usage=state.usage + spent,
        compaction_usage=state.compaction_usage + spent,
        compaction_calls=state.compaction_calls + calls,
    )


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
        memory.add_turn(state.pending, facts=state.pending_facts, failed=state.pending_failed)
        return _applied(state, memory)

    async def arun(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if not state.pending:
            return state
        memory = state.memory.copy()
        await memory.aadd_turn(
            state.pending, facts=state.pending_facts, failed=state.pending_failed
        )
        return _applied(state, memory)

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
