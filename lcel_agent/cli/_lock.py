"""One process at a time per thread: a lock that a dead process lets go of by itself.

Two ``lcel-agent resume`` of one thread at once would both run it (the library leaves
overlapping runs to its caller, as LangGraph does), so every command that runs a
thread holds this lock for the whole run. It is taken without waiting: a second
taker gets :class:`ThreadBusyError` at once. Both kinds are released by the system
when their holder dies, so a run killed with SIGKILL never leaves its thread locked:

* SQLite: an open-file-description lock (Linux ``F_OFD_SETLK``) on one byte of the
  store file, chosen by the thread id far above the bytes SQLite locks itself
  (``0x40000000`` and the 510 after it). It writes nothing; the kernel drops it
  when the holder's file is closed, by the holder or by its death. Where the system
  has no such locks, a POSIX record lock on a file beside the store does the same.
* PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``) keyed by the
  thread id, on a connection of its own held for the run; the server drops it when
  that connection closes, or its process dies.

Windows has no record locks that Python reaches the same way (``fcntl``):
:func:`record_locks` says so, and the commands refuse a SQLite store there before
anything is written (a PostgreSQL store works everywhere), rather than run unguarded.

``lcel-agent threads`` tells a live run from a dead one by asking whether the lock is
held, without taking it (:func:`sqlite_held`, :func:`postgres_held`), so listing never
makes a starting ``resume`` busy.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

__all__ = [
    "NO_RECORD_LOCKS",
    "ThreadBusyError",
    "postgres_held",
    "postgres_lock",
    "record_locks",
    "sqlite_held",
    "sqlite_lock",
]

#: Why a SQLite store cannot be run on this system (see :func:`record_locks`).
NO_RECORD_LOCKS = (
    "a SQLite store needs record locks (fcntl), which this system does not have "
    "(Windows): two commands could run one thread at once. Use a postgresql:// store"
)

# Above SQLite's own lock bytes, and far from any file's size: a byte range may lie
# beyond the end of a file, so nothing is written.
_BASE = 1 << 40
_SPAN = 1 << 40


class ThreadBusyError(Exception):
    """Another process runs this thread right now."""

    def __init__(self, thread_id: str) -> None:
        super().__init__(
            f"thread {thread_id!r} is busy: another lcel-agent process is running it now "
            "(wait for it to end, or stop it; a process that died lets go by itself)"
        )
        self.thread_id = thread_id


def _key(thread_id: str) -> int:
    """A stable 64-bit number for the thread id."""
    digest = hashlib.blake2b(f"lcel-agent thread {thread_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _fcntl() -> ModuleType | None:
    try:
        import fcntl
    except ImportError:
        return None
    return fcntl


def record_locks() -> bool:
    """Whether this system has the record locks a SQLite store's thread lock needs."""
    return _fcntl() is not None


def _request(fcntl: ModuleType, kind: int, offset: int) -> bytes:
    # struct flock: l_type, l_whence, l_start, l_len, l_pid (0 for OFD locks), padding.
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, offset, 1, 0)


def _offset(thread_id: str) -> int:
    return _BASE + _key(thread_id) % _SPAN


def sqlite_held(path: str, thread_id: str) -> bool | None:
    """Whether a process holds ``thread_id``'s lock on the SQLite store at ``path``, asked
    without taking it; None where the system cannot tell without taking it.

    Linux answers with ``F_OFD_GETLK``, which reports a conflicting lock and takes none.
    """
    fcntl = _fcntl()
    if fcntl is None or not hasattr(fcntl, "F_OFD_GETLK"):
        return None
    # F_WRLCK asked for on a read-only descriptor is still answered (GETLK only looks).
    fd = os.open(path, os.O_RDONLY)
    try:
        found = fcntl.fcntl(
            fd, fcntl.F_OFD_GETLK, _request(fcntl, fcntl.F_WRLCK, _offset(thread_id))
        )
    finally:
        os.close(fd)
    kind: int = struct.unpack("hhqqi4x", found)[0]
    return bool(kind != fcntl.F_UNLCK)


@contextmanager
def sqlite_lock(path: str, thread_id: str, *, ofd: bool | None = None) -> Iterator[None]:
    """Hold ``thread_id``'s lock on the SQLite store at ``path`` (see the module docstring).

    ``ofd`` chooses the kind (default: open-file-description locks where the system
    has them); tests pass ``False`` to check the other. Without record locks
    (:func:`record_locks`) it raises :class:`OSError` with :data:`NO_RECORD_LOCKS`; the
    commands check that before they open the store.
    """
    fcntl = _fcntl()
    if fcntl is None:
        raise OSError(NO_RECORD_LOCKS)
    use_ofd = hasattr(fcntl, "F_OFD_SETLK") if ofd is None else ofd
    offset = _offset(thread_id)
    if use_ofd:
        fd = os.open(path, os.O_RDWR)
        request = _request(fcntl, fcntl.F_WRLCK, offset)

        def take() -> None:
            fcntl.fcntl(fd, fcntl.F_OFD_SETLK, request)

    else:
        # POSIX record locks belong to the process and vanish when it closes *any*
        # descriptor of the file, which SQLite does: so they live on a file of their own.
        fd = os.open(f"{path}.lcel-agent-lock", os.O_RDWR | os.O_CREAT, 0o600)

        def take() -> None:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)

    try:
        try:
            take()
        except OSError as exc:  # EAGAIN or EACCES: someone holds it
            raise ThreadBusyError(thread_id) from exc
        yield
    finally:
        os.close(fd)  # lets go of the lock


def _pg_key(thread_id: str) -> int:
    return _key(thread_id) - (1 << 63)  # PostgreSQL's bigint is signed


def postgres_held(conn: Any, thread_id: str) -> bool:
    """Whether a session holds ``thread_id``'s advisory lock, asked without taking it.

    ``pg_locks`` shows a bigint advisory key as its high and low 32 bits (``classid``,
    ``objid``) with ``objsubid`` 1, in the database it was taken in.
    """
    key = _pg_key(thread_id) & 0xFFFF_FFFF_FFFF_FFFF
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"
        " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        " AND classid = %s::bigint::oid AND objid = %s::bigint::oid AND objsubid = 1) AS held",
        (key >> 32, key & 0xFFFF_FFFF),
    ).fetchone()
    return bool(row["held"] if isinstance(row, dict) else row[0])


@contextmanager
def postgres_lock(connect: Any, thread_id: str) -> Iterator[None]:
    """Hold ``thread_id``'s advisory lock on a connection of its own (``connect()`` opens
    one; it is closed at the end, which lets go of the lock)."""
    key = _pg_key(thread_id)
    conn = connect()
    try:
        row = conn.execute("SELECT pg_try_advisory_lock(%s) AS taken", (key,)).fetchone()
        taken = row["taken"] if isinstance(row, dict) else row[0]
        if not taken:
            raise ThreadBusyError(thread_id)
        yield
    finally:
        conn.close()
