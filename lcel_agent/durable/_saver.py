"""A LangGraph checkpoint saver, as a durable run uses it: read the latest, put, write.

Any ``BaseCheckpointSaver`` works (``InMemorySaver``, ``SqliteSaver``,
``PostgresSaver``, their async twins, your own): this module speaks only the
saver interface, the same on the 2.x savers of langchain-core 0.3's day and on
today's. A thread is ``(thread_id, checkpoint_ns)``; each checkpoint names its
parent, and its one channel gets a new version from the saver itself
(``get_next_version``), so savers that store channels apart (PostgreSQL) keep
every value.

Async code uses the saver's async methods; a saver that has none (``SqliteSaver``
raises ``NotImplementedError`` there) is called on a worker thread instead, so
``ainvoke`` works with every saver. Nothing from the user's run config reaches
the saver: it gets the thread's keys only, so no configurable value ends up in a
checkpoint's metadata.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from .._redact import redact
from ..errors import CheckpointError
from ._record import CHANNEL, Phase

__all__ = ["Saver", "Thread", "Tip"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Thread:
    """Where a run's checkpoints go."""

    thread_id: str
    checkpoint_ns: str = ""

    def config(self, checkpoint_id: str | None = None) -> dict[str, Any]:
        """The saver's config for this thread (its latest checkpoint, or ``checkpoint_id``)."""
        keys: dict[str, Any] = {"thread_id": self.thread_id, "checkpoint_ns": self.checkpoint_ns}
        if checkpoint_id is not None:
            keys["checkpoint_id"] = checkpoint_id
        return {"configurable": keys}


@dataclass(frozen=True, slots=True)
class Tip:
    """The latest checkpoint of a thread, as found."""

    checkpoint_id: str
    version: Any
    """The channel's version (the next put asks the saver for the one after it)."""
    values: dict[str, Any]
    writes: list[tuple[str, str, Any]]
    updated: str = ""
    """When the checkpoint was written (LangGraph's ``ts``: ISO 8601, UTC)."""
    parent: str | None = None
    """The checkpoint it was written after (a failed run resumes from there)."""


#: DB-API errors of the storage itself (a locked file, a lost connection): not the checkpoint's.
_STORAGE_ERRORS = frozenset({"OperationalError", "InterfaceError"})


def _unreadable(thread: Thread, exc: Exception) -> Exception:
    """What a failed read raises: the storage's own error when the storage failed (so a
    caller can retry it), else CheckpointError (the checkpoint itself cannot be read)."""
    if isinstance(exc, OSError | TimeoutError) or type(exc).__name__ in _STORAGE_ERRORS:
        return exc
    detail = redact(f"{type(exc).__name__}: {exc}")[:300]
    return CheckpointError(thread.thread_id, f"its latest checkpoint cannot be read ({detail})")


@contextmanager
def _reading(thread: Thread) -> Iterator[None]:
    """Around a read of ``thread``: a failure leaves as :func:`_unreadable` says."""
    try:
        yield
    except Exception as exc:
        found = _unreadable(thread, exc)
        if found is exc:
            raise
        raise found from None


class Saver:
    """A ``BaseCheckpointSaver`` seen through the few calls a durable run makes."""

    def __init__(self, saver: Any) -> None:
        self.saver = saver
        self._threaded = False  # set once the saver turns out to have no async methods

    # --- pure helpers (shared by the sync and async calls) -------------------------------
    @staticmethod
    def _tip(found: Any) -> Tip | None:
        if found is None:
            return None
        checkpoint = found.checkpoint
        parent = ((found.parent_config or {}).get("configurable") or {}).get("checkpoint_id")
        return Tip(
            checkpoint_id=str(checkpoint["id"]),
            version=(checkpoint.get("channel_versions") or {}).get(CHANNEL),
            values=dict(checkpoint.get("channel_values") or {}),
            writes=list(found.pending_writes or ()),
            updated=str(checkpoint.get("ts") or ""),
            parent=None if parent is None else str(parent),
        )

    def _checkpoint(
        self, value: dict[str, Any], version: Any, phase: Phase, step: int
    ) -> tuple[Any, dict[str, Any], Any]:
        from langgraph.checkpoint.base import empty_checkpoint

        new_version = self.saver.get_next_version(version, None)
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {CHANNEL: value}
        checkpoint["channel_versions"] = {CHANNEL: new_version}
        metadata = {"source": "loop", "step": step, "parents": {}, "lcel_agent": phase.value}
        return checkpoint, metadata, new_version

    # --- sync --------------------------------------------------------------------------
    def latest(self, thread: Thread, checkpoint_id: str | None = None) -> Tip | None:
        """The thread's latest checkpoint (or ``checkpoint_id``) and its writes;
        CheckpointError if unreadable."""
        with _reading(thread):
            return self._tip(self.saver.get_tuple(thread.config(checkpoint_id)))

    def put(
        self,
        thread: Thread,
        parent: str | None,
        version: Any,
        value: dict[str, Any],
        phase: Phase,
        step: int,
    ) -> tuple[str, Any]:
        """Write a checkpoint after ``parent``; its id and its channel version."""
        checkpoint, metadata, new_version = self._checkpoint(value, version, phase, step)
        saved = self.saver.put(thread.config(parent), checkpoint, metadata, {CHANNEL: new_version})
        return str(saved["configurable"]["checkpoint_id"]), new_version

    def write(
        self, thread: Thread, checkpoint_id: str, task: str, channel: str, value: Any
    ) -> None:
        """Attach one write to a checkpoint."""
        self.saver.put_writes(thread.config(checkpoint_id), [(channel, value)], task)

    # --- async (the saver's own async calls, else the sync ones on a thread) ------------
    async def _acall(self, name: str, *args: Any) -> Any:
        if not self._threaded:
            try:
                return await getattr(self.saver, f"a{name}")(*args)
            except NotImplementedError:
                self._threaded = True
        call: Callable[..., Any] = getattr(self.saver, name)
        return await asyncio.to_thread(call, *args)

    async def alatest(self, thread: Thread, checkpoint_id: str | None = None) -> Tip | None:
        """Async twin of :meth:`latest`."""
        with _reading(thread):
            return self._tip(await self._acall("get_tuple", thread.config(checkpoint_id)))

    async def aput(
        self,
        thread: Thread,
        parent: str | None,
        version: Any,
        value: dict[str, Any],
        phase: Phase,
        step: int,
    ) -> tuple[str, Any]:
        """Async twin of :meth:`put`."""
        checkpoint, metadata, new_version = self._checkpoint(value, version, phase, step)
        saved = await self._acall(
            "put", thread.config(parent), checkpoint, metadata, {CHANNEL: new_version}
        )
        return str(saved["configurable"]["checkpoint_id"]), new_version

    async def awrite(
        self, thread: Thread, checkpoint_id: str, task: str, channel: str, value: Any
    ) -> None:
        """Async twin of :meth:`write`."""
        writes: Sequence[tuple[str, Any]] = [(channel, value)]
        await self._acall("put_writes", thread.config(checkpoint_id), writes, task)
