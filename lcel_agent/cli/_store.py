"""The STORE of ``--checkpoint``: a SQLite file or a ``postgresql://`` URL, opened and checked.

::

    with open_store("agent.db", create=True) as store:     # run: a new file is set up
        with store.lock("t1"):                              # ThreadBusyError if taken
            agent = create_agent(llm, tools, checkpointer=store.saver)
    with open_store("agent.db", create=False) as store:    # resume, threads: never made
        store.thread_ids()

A store is LangGraph's own saver (``SqliteSaver``, ``PostgresSaver``: the ``durable``
extra), as ``create_agent(checkpointer=...)`` uses it. Opening checks before anything is
written: a missing file is not created for ``resume`` and ``threads``; a file that is
not SQLite, or a database without LangGraph's checkpoint tables that is not new, is
refused (:class:`StoreError`) and left as it was. :func:`precheck` is the part of that
which needs no import, for the usage checks: a folder, a missing folder, and for the
commands that write (``run``, ``resume``) a read-only file or folder.

``threads`` and ``resume`` open with ``create=None``: a store this process cannot write
(a read-only file or folder) is opened read-only, and as immutable when no ``-wal`` file
is beside it (no process has it open for writing then), so reading leaves no
``-wal``/``-shm`` files behind; ``resume`` reads a finished run's result so, and asks
:meth:`Store.writable` before a run goes on.

A PostgreSQL store (:mod:`lcel_agent.cli._postgres`) follows the same rules: a database
that holds other tables is refused unless the checkpoints get a schema of their own
(``--checkpoint-schema NAME``), and a role that lacks a privilege is told which.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ._hints import StoreRef, shown
from ._lock import NO_RECORD_LOCKS, record_locks, sqlite_held, sqlite_lock
from ._postgres import open_postgres
from ._store_base import (
    INSTALL,
    Store,
    StoreError,
    new_store_hint,
    not_a_store,
    read_only,
    unreadable,
)

__all__ = ["Store", "StoreError", "is_postgres", "open_store", "precheck", "shown"]

#: The tables SqliteSaver makes, that every SQLite store must have.
_SQLITE_TABLES = frozenset({"checkpoints", "writes"})


def is_postgres(spec: str) -> bool:
    """Whether ``spec`` is a PostgreSQL URL (else it is a SQLite file's path)."""
    return spec.startswith(("postgresql://", "postgres://"))


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def precheck(ref: StoreRef, *, create: bool, writes: bool = True) -> str | None:
    """What is wrong with ``ref`` that a look at the disk shows, or None (no imports).

    ``create``: a missing file may be made (``run``); ``writes``: the command writes
    checkpoints for sure (``run``; ``resume`` asks :meth:`Store.writable` once it knows).
    """
    spec = ref.spec
    if not spec.strip():
        return "--checkpoint needs a SQLite file path or a postgresql:// URL"
    if is_postgres(spec):
        return None
    if ref.schema is not None:
        return "--checkpoint-schema is for a postgresql:// store; a SQLite file has no schemas"
    path = Path(spec)
    if path.is_dir():
        return f"--checkpoint {spec} is a folder; give a SQLite file (e.g. {path / 'agent.db'})"
    if create and not record_locks():
        return f"--checkpoint {spec}: {NO_RECORD_LOCKS}"
    if path.exists():
        if (denied := unreadable(path)) is not None:
            return f"cannot read the checkpoint store {spec}: {denied}"
        problem = read_only(path) if writes else None
        return None if problem is None else f"cannot write checkpoints to {spec}: {problem}"
    if not create:
        return f"no checkpoint store at {spec} ({new_store_hint(ref)})"
    parent = _folder(path)
    if not parent.is_dir():
        return f"--checkpoint {spec}: the folder {parent} does not exist"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"cannot make the checkpoint store {spec}: its folder {parent} is read-only"
    return None


def _sqlite_error(spec: str, exc: sqlite3.Error) -> StoreError:
    """What a SQLite error means for the store, in words that are true."""
    name = str(getattr(exc, "sqlite_errorname", ""))
    if name == "SQLITE_READONLY_DIRECTORY":
        return StoreError(f"cannot write checkpoints to {spec}: its folder is read-only")
    if name.startswith("SQLITE_READONLY"):
        return StoreError(f"cannot write checkpoints to {spec}: the file is read-only")
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_AUTH")):
        return StoreError(f"cannot open the checkpoint store {spec}: {exc}")
    if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")):
        return not_a_store(spec, f"not a SQLite database: {exc}")
    return StoreError(f"cannot use the checkpoint store {spec}: {exc}")


def _sqlite_uri(path: str, create: bool | None) -> str:
    """How to open the file: ``rwc`` makes it (``run``, none there), ``rw`` never does;
    ``threads`` (``create=None``) opens a store it cannot write read-only, and immutable
    when no ``-wal`` file is beside it (see the module docstring)."""
    if create is None and read_only(Path(path)) is not None:
        wal = Path(f"{path}-wal")
        immutable = not wal.exists() or wal.stat().st_size == 0
        return f"file:{quote(path)}?mode=ro" + ("&immutable=1" if immutable else "")
    mode = "rwc" if create and not os.path.exists(path) else "rw"
    return f"file:{quote(path)}?mode={mode}"


@contextmanager
def _sqlite(ref: StoreRef, create: bool | None) -> Iterator[Store]:
    try:
        from langgraph.checkpoint.sqlite import SqliteSaver
    except ImportError:
        raise StoreError(INSTALL) from None
    spec = ref.spec
    path = os.path.abspath(spec)
    if (denied := unreadable(Path(path))) is not None and os.path.exists(path):
        raise StoreError(f"cannot read the checkpoint store {spec}: {denied}")
    uri = _sqlite_uri(path, create)
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=30, check_same_thread=False)
    except sqlite3.Error as exc:
        raise _sqlite_error(spec, exc) from None
    try:
        try:
            found = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            tables = {str(row[0]) for row in found}
        except sqlite3.Error as exc:
            raise _sqlite_error(spec, exc) from None
        if not tables and not create:
            # What `run` makes a store of (a new file, an empty one) is no store yet.
            raise StoreError(f"no checkpoint store in {spec} yet (an empty database): "
                             f"{new_store_hint(ref)}")  # fmt: skip
        if not tables >= _SQLITE_TABLES and tables:
            raise not_a_store(spec, f"its tables are {sorted(tables)}")
        saver = SqliteSaver(conn)
        if "mode=ro" in uri:
            saver.is_setup = True  # the tables are there; setting up would write
        else:
            try:
                saver.setup()  # a new file gets the tables and WAL; a store is left as it is
            except sqlite3.Error as exc:
                raise _sqlite_error(spec, exc) from None

        def query(sql: str) -> list[Any]:
            with saver.lock:
                return list(conn.execute(sql))

        def held(thread: str) -> bool | None:
            return sqlite_held(path, thread)

        yield Store(ref, "sqlite", saver, lambda thread: sqlite_lock(path, thread), query, held)
    finally:
        conn.close()


def open_store(ref: StoreRef | str, *, create: bool | None) -> AbstractContextManager[Store]:
    """Open the store ``ref`` (StoreError if it cannot be used; see the module docstring).

    ``create``: True for ``run`` (a missing file is made), False for ``resume``, None for
    ``threads`` (only reads).
    """
    ref = StoreRef(ref) if isinstance(ref, str) else ref
    if is_postgres(ref.spec):
        return open_postgres(ref, create)
    return _sqlite(ref, create)
