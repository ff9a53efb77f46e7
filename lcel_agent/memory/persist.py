"""A window as JSON and back: what a durable run's checkpoint stores of its window.

Format 2 keeps, besides the messages, each turn's facts and failed flag and the
digest, so a stored window compacts exactly as it would have. Format 1 (windows
stored by lcel_agent 0.1: turns as plain message lists) still loads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from langchain_core.messages import messages_from_dict, messages_to_dict

from lcel_agent.errors import ConfigurationError

from ._rules import WindowRules
from .compaction import Compactor, Digest
from .counters import TokenCounter

__all__ = ["FORMAT_VERSION", "dump", "load"]

FORMAT_VERSION = 2

# The window's state is declared by WindowRules, below both window.py and this module,
# so this module reads and rebuilds a window without importing window.py (which imports it).
_W = TypeVar("_W", bound=WindowRules)


def dump(memory: WindowRules) -> dict[str, Any]:
    """``memory`` as a JSON-safe dict (``SlidingWindowMemory.to_dict``)."""
    system, question = memory._system, memory._question
    return {
        "version": FORMAT_VERSION,
        "max_tokens": memory.max_tokens,
        "system": messages_to_dict([system]) if system else [],
        "question": messages_to_dict([question]) if question else [],
        "turns": [
            {
                "messages": messages_to_dict(turn.messages),
                "facts": Digest(facts=turn.facts).to_dict()["facts"],
                "failed": turn.failed,
            }
            for turn in memory._turns
        ],
        "digest": memory._digest.to_dict(),
        "history": memory._history,
        "evicted": memory._evicted,
        "truncated": memory._truncated,
        "compacted": memory._compacted,
    }


def load(
    cls: Callable[[int, TokenCounter | str | None, Compactor | None], _W],
    data: dict[str, Any],
    counter: TokenCounter | str | None,
    *,
    max_tokens: int | None,
    compactor: Compactor | None,
) -> _W:
    """A window rebuilt from :func:`dump`'s dict (``SlidingWindowMemory.from_dict``)."""
    version = data.get("version")
    if version not in (1, FORMAT_VERSION):
        raise ConfigurationError(f"unsupported memory format {version!r}")
    size = max_tokens if max_tokens is not None else int(data["max_tokens"])
    memory = cls(size, counter, compactor)
    for message in messages_from_dict(data["system"]):
        memory._place(message)
    for message in messages_from_dict(data["question"]):
        cost = memory._set_question(message)
        memory._total += cost
    for stored in data["turns"]:
        if isinstance(stored, list):  # format 1: a list of messages
            stored = {"messages": stored}
        facts = Digest.from_dict({"facts": stored.get("facts") or []}).facts
        memory._push_turn(
            messages_from_dict(stored["messages"]),
            facts,
            bool(stored.get("failed")),
            resolve=False,  # stored as it was: a stored failure is still unresolved
        )
    memory._history = min(int(data.get("history", 0)), len(memory._turns))
    memory._set_digest(Digest.from_dict(data["digest"]) if "digest" in data else Digest())
    memory._evicted = int(data.get("evicted", 0))
    memory._truncated = int(data.get("truncated", 0))
    memory._compacted = int(data.get("compacted", 0))
    memory._trim()
    return memory
