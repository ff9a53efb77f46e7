"""What every STORE is, whatever it is kept in: the opened store, its errors, its hints.

:mod:`lcel_agent.cli._store` (SQLite, and the checks before opening) and
:mod:`lcel_agent.cli._postgres` (PostgreSQL) both build a :class:`Store`; both refuse a
store with :class:`StoreError` (exit 2), in the same words.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ._hints import StoreRef, command, shown
from ._lock import NO_RECORD_LOCKS, record_locks

__all__ = [
    "INSTALL",
    "Store",
    "StoreError",
    "new_store_hint",
    "not_a_store",
    "read_only",
    "unreadable",
]

INSTALL = "--checkpoint needs LangGraph's savers: pip install -e '.[durable]' in a clone"


class StoreError(Exception):
    """A STORE the command cannot use; the message says why (exit status 2)."""


def new_store_hint(ref: StoreRef) -> str:
    """The command that makes a store at ``ref`` (pasted as it is)."""
    return f"{command('run', 'TASK', *ref.words())} makes one"


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def unreadable(path: Path) -> str | None:
    """Why SQLite cannot read the store at ``path`` (an existing file), or None."""
    if not os.access(path, os.R_OK):
        return "no permission to read the file"
    return None


def read_only(path: Path) -> str | None:
    """Why SQLite cannot write the store at ``path`` (an existing file), or None."""
    if (problem := unreadable(path)) is not None:
        return problem
    if not os.access(path, os.W_OK):
        return "the file is read-only"
    if not os.access(_folder(path), os.W_OK | os.X_OK):
        # WAL mode: SQLite makes STORE-wal and STORE-shm beside the store as it writes.
        return f"its folder {_folder(path)} is read-only (SQLite writes STORE-wal beside it)"
    return None


@dataclass
class Store:
    """An opened store: its saver, its threads, and the lock of a thread."""

    ref: StoreRef
    """As the user gave it (the commands this one prints repeat it)."""
    kind: Literal["sqlite", "postgres"]
    saver: Any
    """The LangGraph saver: ``create_agent(..., checkpointer=store.saver)``."""
    _lock: Callable[[str], AbstractContextManager[None]]
    _query: Callable[[str], list[Any]]
    _held: Callable[[str], bool | None]
    _unwritable: Callable[[], str | None] = lambda: None
    """A PostgreSQL store's: why this role cannot write checkpoints there, or None."""

    def lock(self, thread_id: str) -> AbstractContextManager[None]:
        """Hold ``thread_id`` for this process (ThreadBusyError if another holds it)."""
        return self._lock(thread_id)

    def writable(self) -> None:
        """StoreError unless this process can write checkpoints here (``resume`` asks once
        it knows the run goes on: a finished run's result is read from a read-only store)."""
        if self.kind != "sqlite":
            if (why := self._unwritable()) is not None:
                raise StoreError(why)
            return
        problem = read_only(Path(self.ref.spec))
        if problem is not None:
            raise StoreError(f"cannot write checkpoints to {self.ref.spec}: {problem}")
        if not record_locks():
            raise StoreError(f"--checkpoint {self.ref.spec}: {NO_RECORD_LOCKS}")

    def held(self, thread_id: str) -> bool | None:
        """Whether a process holds ``thread_id`` now, asked without taking it (None: this
        system cannot tell without taking it)."""
        return self._held(thread_id)

    def thread_ids(self) -> list[str]:
        """The threads that hold a run's checkpoints (the root namespace only)."""
        rows = self._query("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''")
        return sorted(str(row[0]) for row in rows)


def not_a_store(spec: str, why: str, more: str = "") -> StoreError:
    """Another program's database, or not a database: refused, and left as it was."""
    return StoreError(f"{shown(spec)} is not a checkpoint store ({why}); nothing was changed{more}")
