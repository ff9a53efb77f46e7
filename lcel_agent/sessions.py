"""Conversations that outlive one run: memory windows stored in SQLite, by session id.

Deprecated: a checkpointer does this and more (``create_agent(..., checkpointer=saver)``;
``session_id`` then names the thread, and a run survives a crash mid-way). See
:mod:`lcel_agent.durable` and docs/durable.md. This module keeps working meanwhile.

::

    from lcel_agent.memory import SlidingWindowMemory
    from lcel_agent.sessions import SessionStore

    store = SessionStore("agent.db")                  # or ":memory:" (this process only)
    template = SlidingWindowMemory(max_tokens=800)
    with store.session("user-42", template) as handle:   # SessionBusyError if in use
        handle.memory.add_user("北京天气如何？")
        ...                                           # run the agent on handle.memory
        handle.save()                                 # persist; nothing is saved implicitly

Overlapping runs of one session are refused, across threads *and* processes:
entering :meth:`SessionStore.session` takes a *lease*, a row in the ``leases``
table written inside ``BEGIN IMMEDIATE`` (SQLite's write lock, so two takers
serialize), valid for ``lease_seconds``. A second taker waits up to ``wait``
seconds, then gets :class:`~lcel_agent.errors.SessionBusyError`. Leaving the
``with`` block releases the lease; a process that dies holding one blocks the
session until it expires (:meth:`SessionStore.break_lease` ends it at once).
``save`` renews the lease, and refuses to write once another run has taken it.

One store may be shared by many threads (e.g. ``agent.batch``): it holds one
connection opened with ``check_same_thread=False`` and serializes its use with
a lock; every statement is short. The window is loaded with the template's
budget and counter, so changing the template applies to stored sessions too.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field

from lcel_agent.errors import ConfigurationError, SessionBusyError
from lcel_agent.memory import SlidingWindowMemory

__all__ = ["SessionHandle", "SessionStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, data TEXT NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS leases (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires REAL NOT NULL);
"""
_POLL = 0.05  # seconds between attempts while waiting for a busy session


@dataclass
class SessionHandle:
    """A session taken by one run: its window and the means to persist it."""

    session_id: str
    memory: SlidingWindowMemory
    """The window: loaded from the store, or ``template.fresh()`` for a new session."""
    store: SessionStore = field(repr=False)
    owner: str = field(repr=False)

    def save(self, memory: SlidingWindowMemory | None = None) -> None:
        """Persist ``memory`` (default: :attr:`memory`) and renew the lease.

        Raises SessionBusyError if this run no longer holds the lease (it expired
        and another run took it, or :meth:`SessionStore.break_lease` ended it).
        """
        if memory is not None:
            self.memory = memory
        self.store._save(self.session_id, self.owner, self.memory)

    def renew(self) -> None:
        """Extend the lease by ``lease_seconds`` (for runs longer than a lease); see :meth:`save`."""
        self.store._renew(self.session_id, self.owner)


class SessionStore:
    """Memory windows in SQLite, keyed by session id (see the module docstring).

    ``path`` is a file (shared by processes, survives restarts) or
    ``":memory:"`` (this store object only). ``lease_seconds`` bounds how long a
    crashed run can block its session; ``wait`` is how long a second run of a
    busy session waits before SessionBusyError.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        lease_seconds: float = 300.0,
        wait: float = 0.0,
    ) -> None:
        if lease_seconds <= 0:
            raise ConfigurationError(f"lease_seconds must be positive, got {lease_seconds}")
        if wait < 0:
            raise ConfigurationError(f"wait must be >= 0, got {wait}")
        self.path = os.fspath(path)
        self.lease_seconds = lease_seconds
        self.wait = wait
        self._lock = threading.Lock()
        # isolation_level=None: no implicit transactions; we BEGIN IMMEDIATE ourselves.
        # timeout: how long SQLite waits for another process's write lock.
        self._conn = sqlite3.connect(
            self.path, timeout=10.0, isolation_level=None, check_same_thread=False
        )
        with self._lock:
            self._conn.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the connection (a ``:memory:`` store loses its sessions)."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- taking a session -------------------------------------------------------------

    @contextmanager
    def session(self, session_id: str, template: SlidingWindowMemory) -> Iterator[SessionHandle]:
        """Take ``session_id`` for one run; see the module docstring."""
        owner = uuid.uuid4().hex
        deadline = time.monotonic() + self.wait
        while not self._try_lease(session_id, owner):
            self._check_wait(session_id, deadline)
            time.sleep(_POLL)
        try:
            yield self._handle(session_id, owner, template)
        finally:
            self._release(session_id, owner)

    @asynccontextmanager
    async def asession(
        self, session_id: str, template: SlidingWindowMemory
    ) -> AsyncIterator[SessionHandle]:
        """The async twin of :meth:`session`: waits with ``asyncio.sleep``."""
        owner = uuid.uuid4().hex
        deadline = time.monotonic() + self.wait
        while not await asyncio.to_thread(self._try_lease, session_id, owner):
            self._check_wait(session_id, deadline)
            await asyncio.sleep(_POLL)
        try:
            yield await asyncio.to_thread(self._handle, session_id, owner, template)
        finally:
            await asyncio.to_thread(self._release, session_id, owner)

    def _check_wait(self, session_id: str, deadline: float) -> None:
        if time.monotonic() >= deadline:
            raise SessionBusyError(session_id, self.wait)

    def _handle(self, session_id: str, owner: str, template: SlidingWindowMemory) -> SessionHandle:
        try:
            memory = self.load(session_id, template) or template.fresh()
        except BaseException:
            self._release(session_id, owner)
            raise
        return SessionHandle(session_id, memory, self, owner)

    # --- the store --------------------------------------------------------------------

    def load(self, session_id: str, template: SlidingWindowMemory) -> SlidingWindowMemory | None:
        """The stored window (with the template's budget and counter), or None. Takes no lease."""
        with self._lock:
            row = self._conn.execute("SELECT data FROM sessions WHERE id = ?", (session_id,))
            found = row.fetchone()
        if found is None:
            return None
        return SlidingWindowMemory.from_dict(
            json.loads(found[0]),
            template.counter,
            max_tokens=template.max_tokens,
            compactor=template.compactor,
        )

    def delete(self, session_id: str) -> None:
        """Forget a session (its window and any lease on it)."""
        with self._lock, self._transaction():
            self._conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            self._conn.execute("DELETE FROM leases WHERE id = ?", (session_id,))

    def list(self) -> list[str]:
        """Ids of the stored sessions, sorted."""
        with self._lock:
            rows = self._conn.execute("SELECT id FROM sessions ORDER BY id").fetchall()
        return [str(r[0]) for r in rows]

    def is_busy(self, session_id: str) -> bool:
        """Whether a run holds an unexpired lease on ``session_id`` right now."""
        with self._lock:
            row = self._conn.execute(
                "SELECT 1 FROM leases WHERE id = ? AND expires > ?", (session_id, time.time())
            ).fetchone()
        return row is not None

    def break_lease(self, session_id: str) -> None:
        """End any lease on ``session_id`` now (after a crash); its holder can no longer save."""
        with self._lock, self._transaction():
            self._conn.execute("DELETE FROM leases WHERE id = ?", (session_id,))

    # --- leases (wall-clock time: the expiry is compared across processes) ------------

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def _holder(self, session_id: str) -> tuple[str, float] | None:
        row = self._conn.execute(
            "SELECT owner, expires FROM leases WHERE id = ?", (session_id,)
        ).fetchone()
        return None if row is None else (str(row[0]), float(row[1]))

    def _try_lease(self, session_id: str, owner: str) -> bool:
        now = time.time()
        with self._lock, self._transaction():
            holder = self._holder(session_id)
            if holder is not None and holder[0] != owner and holder[1] > now:
                return False
            self._conn.execute(
                "INSERT OR REPLACE INTO leases (id, owner, expires) VALUES (?, ?, ?)",
                (session_id, owner, now + self.lease_seconds),
            )
            return True

    def _release(self, session_id: str, owner: str) -> None:
        with self._lock, self._transaction():
            self._conn.execute("DELETE FROM leases WHERE id = ? AND owner = ?", (session_id, owner))

    def _renew(self, session_id: str, owner: str, data: str | None = None) -> None:
        now = time.time()
        with self._lock, self._transaction():
            holder = self._holder(session_id)
            # An expired lease that nobody took is still ours; a lease another run
            # took (even if it has ended since) or one broken by break_lease is not.
            if holder is None or holder[0] != owner:
                raise SessionBusyError(session_id)
            self._conn.execute(
                "UPDATE leases SET expires = ? WHERE id = ?",
                (now + self.lease_seconds, session_id),
            )
            if data is not None:
                self._conn.execute(
                    "INSERT OR REPLACE INTO sessions (id, data, updated) VALUES (?, ?, ?)",
                    (session_id, data, now),
                )

    def _save(self, session_id: str, owner: str, memory: SlidingWindowMemory) -> None:
        self._renew(session_id, owner, json.dumps(memory.to_dict(), ensure_ascii=False))
