"""The window's rules on a plain message list, for ordinary chains.

::

    from lcel_agent.memory import trim_messages, trim_memory_runnable

    kept = trim_messages(messages, max_tokens=800)        # pinned first, whole turns, no compaction
    chain = prompt | trim_memory_runnable(800) | llm      # a Runnable named "trim_memory"
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, SystemMessage
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableLambda

from .counters import TokenCounter, resolve_counter
from .window import SlidingWindowMemory

__all__ = ["trim_memory_runnable", "trim_messages"]


def trim_messages(
    messages: Sequence[BaseMessage] | PromptValue,
    max_tokens: int,
    counter: TokenCounter | str | None = None,
) -> list[BaseMessage]:
    """Apply the window's rules to a plain list of messages and return what is kept.

    The first SystemMessage and the first HumanMessage are pinned (and returned
    first, in that order); each AIMessage groups with the messages after it
    until the next one. Nothing is compacted: what does not fit is dropped.
    A PromptValue is accepted too (``prompt | trimmer``).
    """
    if isinstance(messages, PromptValue):
        messages = messages.to_messages()
    memory = SlidingWindowMemory(max_tokens, counter, compactor=None)
    pinned_system = False
    for message in messages:
        if isinstance(message, SystemMessage) and pinned_system:
            memory._join(message)  # only the first system message is pinned in a list
        else:
            pinned_system = pinned_system or isinstance(message, SystemMessage)
            memory._place(message)
    memory._trim()
    return memory.messages


def trim_memory_runnable(
    max_tokens: int = 800, counter: TokenCounter | str | None = None
) -> Runnable[Sequence[BaseMessage] | PromptValue, list[BaseMessage]]:
    """A Runnable named ``trim_memory`` for ordinary chains: ``prompt | trimmer | llm``."""
    SlidingWindowMemory(max_tokens, counter)  # validate the arguments now, not on first use
    resolved = resolve_counter(counter)

    def trim_memory(messages: Sequence[BaseMessage] | PromptValue) -> list[BaseMessage]:
        return trim_messages(messages, max_tokens, resolved)

    return RunnableLambda(trim_memory, name="trim_memory")
