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
which needs no import, for the usage checks.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, urlsplit, urlunsplit

from .._redact import redact, register_secret
from ._lock import postgres_lock, sqlite_lock

__all__ = ["Store", "StoreError", "is_postgres", "open_store", "precheck", "shown"]

#: The tables SqliteSaver and PostgresSaver make, that every store must have.
_SQLITE_TABLES = frozenset({"checkpoints", "writes"})
_POSTGRES_TABLES = ("checkpoints", "checkpoint_writes")
_INSTALL = "--checkpoint needs LangGraph's savers: pip install -e '.[durable]' in a clone"


class StoreError(Exception):
    """A STORE the command cannot use; the message says why (exit status 2)."""


def is_postgres(spec: str) -> bool:
    """Whether ``spec`` is a PostgreSQL URL (else it is a SQLite file's path)."""
    return spec.startswith(("postgresql://", "postgres://"))


def shown(spec: str) -> str:
    """``spec`` as it may be printed: a URL's password masked (it is a secret)."""
    if not is_postgres(spec):
        return spec
    parts = urlsplit(spec)
    if parts.password is None:
        return spec
    register_secret(parts.password)
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def precheck(spec: str, *, create: bool) -> str | None:
    """What is wrong with ``spec`` that a look at the disk shows, or None (no imports)."""
    if not spec.strip():
        return "--checkpoint needs a SQLite file path or a postgresql:// URL"
    if is_postgres(spec):
        return None
    path = Path(spec)
    if path.is_dir():
        return f"--checkpoint {spec} is a folder; give a SQLite file (e.g. {path / 'agent.db'})"
    if path.exists():
        return None
    if not create:
        return f"no checkpoint store at {spec} (lcel-agent run TASK --checkpoint {spec} makes one)"
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        return f"--checkpoint {spec}: the folder {parent} does not exist"
    return None


@dataclass
class Store:
    """An opened store: its saver, its threads, and the lock of a thread."""

    spec: str
    """As the user gave it (the commands this one prints repeat it)."""
    kind: Literal["sqlite", "postgres"]
    saver: Any
    """The LangGraph saver: ``create_agent(..., checkpointer=store.saver)``."""
    _lock: Callable[[str], AbstractContextManager[None]]
    _query: Callable[[str], list[Any]]

    def lock(self, thread_id: str) -> AbstractContextManager[None]:
        """Hold ``thread_id`` for this process (ThreadBusyError if another holds it)."""
        return self._lock(thread_id)

    def thread_ids(self) -> list[str]:
        """The threads that hold a run's checkpoints (the root namespace only)."""
        rows = self._query("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_ns = ''")
        return sorted(str(row[0]) for row in rows)


def _not_a_store(spec: str, why: str) -> StoreError:
    return StoreError(f"{shown(spec)} is not a checkpoint store ({why}); nothing was changed")


@contextmanager
def _sqlite(spec: str, create: bool) -> Iterator[Store]:
    try:
        from langgraph.checkpoint.sqlite import SqliteSaver
    except ImportError:
        raise StoreError(_INSTALL) from None
    path = os.path.abspath(spec)
    # mode=rw never makes a file: only `run` (create) may, and only where none is.
    mode = "rwc" if create and not os.path.exists(path) else "rw"
    try:
        conn = sqlite3.connect(
            f"file:{quote(path)}?mode={mode}", uri=True, timeout=30, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open {spec}: {exc}") from None
    try:
        try:
            found = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            tables = {str(row[0]) for row in found}
        except sqlite3.DatabaseError as exc:
            raise _not_a_store(spec, f"not a SQLite database: {exc}") from None
        if not tables >= _SQLITE_TABLES and (tables or not create):
            why = "an empty database" if not tables else f"its tables are {sorted(tables)}"
            raise _not_a_store(spec, why)
        saver = SqliteSaver(conn)
        saver.setup()  # a new file gets the tables and WAL; a store is left as it is

        def query(sql: str) -> list[Any]:
            with saver.lock:
                return list(conn.execute(sql))

        yield Store(spec, "sqlite", saver, lambda thread: sqlite_lock(path, thread), query)
    finally:
        conn.close()


@contextmanager
def _postgres(spec: str, create: bool) -> Iterator[Store]:
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
    except ImportError:
        raise StoreError(_INSTALL) from None
    where = shown(spec)

    def connect() -> Any:
        # The options PostgresSaver.from_conn_string uses.
        return psycopg.Connection.connect(
            spec, autocommit=True, prepare_threshold=0, row_factory=dict_row, connect_timeout=10
        )

    try:
        conn = connect()
    except psycopg.Error as exc:
        detail = redact(str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc))
        raise StoreError(f"cannot reach the PostgreSQL store {where}: {detail}") from None
    try:
        checks = ", ".join(f"to_regclass('{t}') IS NOT NULL AS {t}" for t in _POSTGRES_TABLES)
        found = conn.execute(f"SELECT {checks}").fetchone() or {}
        if not create and not all(found.get(t) for t in _POSTGRES_TABLES):
            raise _not_a_store(spec, "no LangGraph checkpoint tables in that database")
        saver = PostgresSaver(conn)
        saver.setup()  # makes the tables in a new database; migrates an older store

        def query(sql: str) -> list[Any]:
            return [tuple(row.values()) for row in conn.execute(sql)]

        yield Store(spec, "postgres", saver, lambda thread: postgres_lock(connect, thread), query)
    finally:
        conn.close()


def open_store(spec: str, *, create: bool) -> AbstractContextManager[Store]:
    """Open the store ``spec`` (StoreError if it cannot be used; see the module docstring)."""
    return _postgres(spec, create) if is_postgres(spec) else _sqlite(spec, create)
