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
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["ThreadBusyError", "postgres_lock", "sqlite_lock"]

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


@contextmanager
def sqlite_lock(path: str, thread_id: str, *, ofd: bool | None = None) -> Iterator[None]:
    """Hold ``thread_id``'s lock on the SQLite store at ``path`` (see the module docstring).

    ``ofd`` chooses the kind (default: open-file-description locks where the system
    has them); tests pass ``False`` to check the other.
    """
    try:
        import fcntl
    except ImportError:  # Windows: no record locks; runs of one thread go unguarded there
        yield
        return
    use_ofd = hasattr(fcntl, "F_OFD_SETLK") if ofd is None else ofd
    offset = _BASE + _key(thread_id) % _SPAN
    if use_ofd:
        fd = os.open(path, os.O_RDWR)
        # struct flock: l_type, l_whence, l_start, l_len, l_pid (0 for OFD locks), padding.
        request = struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, offset, 1, 0)

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


@contextmanager
def postgres_lock(connect: Any, thread_id: str) -> Iterator[None]:
    """Hold ``thread_id``'s advisory lock on a connection of its own (``connect()`` opens
    one; it is closed at the end, which lets go of the lock)."""
    key = _key(thread_id) - (1 << 63)  # PostgreSQL's bigint is signed
    conn = connect()
    try:
        row = conn.execute("SELECT pg_try_advisory_lock(%s) AS taken", (key,)).fetchone()
        taken = row["taken"] if isinstance(row, dict) else row[0]
        if not taken:
            raise ThreadBusyError(thread_id)
        yield
    finally:
        conn.close()
