"""What ``create_agent`` does for durable runs: check the saver, place the ``checkpoint`` stage."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import Runnable

from ._stage import CHECKPOINT_STAGE, SaveDecision

__all__ = ["check_checkpointer", "with_checkpoint"]


def check_checkpointer(checkpointer: Any) -> Any:
    """``create_agent``'s check of ``checkpointer``; the saver (or None)."""
    if checkpointer is None:
        return None
    needed = ("get_tuple", "put", "put_writes", "get_next_version")
    if isinstance(checkpointer, type) or not all(hasattr(checkpointer, n) for n in needed):
        raise TypeError(
            "checkpointer must be a LangGraph checkpoint saver (BaseCheckpointSaver: "
            f"InMemorySaver, SqliteSaver, PostgresSaver, ...), not {type(checkpointer).__name__}"
        )
    return checkpointer


def with_checkpoint(stages: dict[str, Runnable[Any, Any]]) -> dict[str, Runnable[Any, Any]]:
    """The stages with ``checkpoint`` between ``parse_action`` and ``dispatch_tools``."""
    names = list(stages)
    at = names.index("dispatch_tools")
    return {
        **{n: stages[n] for n in names[:at]},
        CHECKPOINT_STAGE: SaveDecision(),
        **{n: stages[n] for n in names[at:]},
    }
