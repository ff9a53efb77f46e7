"""A PostgreSQL STORE: ``--checkpoint postgresql://... [--checkpoint-schema NAME]``, opened and checked.

::

    with open_postgres(StoreRef("postgresql://agent@db/app", "lcel"), create=True) as store:
        store.saver            # PostgresSaver, its tables in the schema lcel (made if missing)

The same rules as a SQLite file (:mod:`lcel_agent.cli._store`), checked before anything
is written:

* LangGraph's tables (``checkpoints``, ``checkpoint_writes``, ...) in the store's schema
  make it a store. A database without them that holds other tables is another
  program's: refused, for every command, unless the checkpoints are given a schema of
  their own (``--checkpoint-schema NAME``: ``run`` makes it, the others only use it).
  An empty database is a new store for ``run``, and no store yet for the others.
* A role that lacks a privilege the command needs is told which, in one line: CREATE
  on the database (a new schema) or on the schema (new tables), SELECT on the tables
  (every command), INSERT and UPDATE on them (``run``, ``resume``). ``threads`` only
  reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from typing import Any

from .._redact import redact
from ._hints import StoreRef, command
from ._lock import postgres_held, postgres_lock
from ._store_base import INSTALL, Store, StoreError, new_store_hint, not_a_store

__all__ = ["open_postgres"]

#: The tables every store has; LangGraph's PostgresSaver makes these and two more.
_STORE_TABLES = frozenset({"checkpoints", "checkpoint_writes"})
_LANGGRAPH_TABLES = _STORE_TABLES | {"checkpoint_blobs", "checkpoint_migrations"}
#: What reading and writing checkpoints needs on each of LangGraph's data tables.
_READS, _WRITES = ("SELECT",), ("SELECT", "INSERT", "UPDATE")
_DATA_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")
_OWN_SCHEMA = "; --checkpoint-schema NAME keeps the checkpoints in a schema of their own"

# Every relation of the database outside PostgreSQL's own schemas (the catalog lists them
# whatever the role may do with them).
_TABLES_SQL = """
SELECT n.nspname AS schema, c.relname AS name
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
"""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return redact(text.splitlines()[0] if text else type(exc).__name__)


def _one(conn: Any, sql: str, *params: Any) -> Any:
    row = conn.execute(sql, params).fetchone()
    return None if row is None else next(iter(row.values()))


def _schema(conn: Any, ref: StoreRef, create: bool | None) -> str:
    """The schema the checkpoints live in: ``--checkpoint-schema``'s (made for ``run``),
    else the connection's own (``public`` unless the role's search_path says otherwise)."""
    if ref.schema is None:
        return str(_one(conn, "SELECT current_schema()") or "public")
    if _one(conn, "SELECT count(*) FROM pg_namespace WHERE nspname = %s", ref.schema):
        return ref.schema
    if not create:
        made = command("run", "TASK", *ref.words())
        raise StoreError(f"no schema {ref.schema} in {StoreRef(ref.spec)} yet: {made} makes it")
    if not _one(conn, "SELECT has_database_privilege(current_database(), 'CREATE')"):
        role = _one(conn, "SELECT current_user")
        raise StoreError(
            f"cannot make the schema {ref.schema} in {StoreRef(ref.spec)}: the role {role} "
            f"lacks CREATE on the database (make it first: CREATE SCHEMA {ref.schema} "
            f"AUTHORIZATION {role})"
        )
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS {ref.schema}")  # a checked identifier
    return ref.schema


def _check_tables(conn: Any, ref: StoreRef, schema: str, create: bool | None) -> bool:
    """Refuse another program's database; whether LangGraph's tables are there."""
    found = [(str(r["schema"]), str(r["name"])) for r in conn.execute(_TABLES_SQL)]
    own = {name for where, name in found if where == schema}
    if own >= _STORE_TABLES:
        return True
    in_scope = found if ref.schema is None else [(w, n) for w, n in found if w == schema]
    others = sorted(
        name if where == schema else f"{where}.{name}"
        for where, name in in_scope
        if not (where == schema and name in _LANGGRAPH_TABLES)
    )
    if others:
        listed = others[:5] + (["..."] if len(others) > 5 else [])
        raise not_a_store(ref.spec, f"its tables are {listed}", "" if ref.schema else _OWN_SCHEMA)
    if not create:
        raise StoreError(f"no checkpoint store in {StoreRef(ref.spec)} yet (no LangGraph "
                         f"checkpoint tables in that database): {new_store_hint(ref)}")  # fmt: skip
    return False


def _missing(conn: Any, schema: str, needed: tuple[str, ...]) -> list[str]:
    """The privileges on LangGraph's data tables this role lacks, as ``PRIVILEGE on TABLE``."""
    lacking = []
    for table in _DATA_TABLES:
        name = _one(conn, "SELECT quote_ident(%s) || '.' || quote_ident(%s)", schema, table)
        if not _one(conn, "SELECT to_regclass(%s) IS NOT NULL", name):
            continue
        for privilege in needed:
            if not _one(conn, "SELECT has_table_privilege(%s, %s)", name, privilege):
                lacking.append(f"{privilege} on {table}")
    if not _one(conn, "SELECT has_schema_privilege(%s, 'USAGE')", schema):
        lacking.insert(0, f"USAGE on the schema {schema}")
    return lacking


def _behind(conn: Any, schema: str, migrations: int) -> bool:
    """Whether LangGraph's setup has work to do: tables to make, or migrations to run."""
    table = _one(conn, "SELECT quote_ident(%s) || '.checkpoint_migrations'", schema)
    if not _one(conn, "SELECT to_regclass(%s) IS NOT NULL", table):
        return True
    latest = _one(conn, f"SELECT max(v) FROM {table}")
    return latest is None or int(latest) < migrations - 1


def _set_up(conn: Any, saver: Any, ref: StoreRef, schema: str, create: bool | None) -> None:
    """Make the tables of a new store, or migrate an older one (once, as LangGraph does)."""
    if not _behind(conn, schema, len(saver.MIGRATIONS)):
        return  # nothing to write: a role that may only read or write rows is enough
    if not _one(conn, "SELECT has_schema_privilege(%s, 'CREATE')", schema):
        if create is None:
            return  # threads only reads: an older store is read as it is
        role = _one(conn, "SELECT current_user")
        raise StoreError(
            f"cannot make the checkpoint tables in {StoreRef(ref.spec)}: the role {role} "
            f"lacks CREATE on the schema {schema} (GRANT CREATE ON SCHEMA {schema} TO {role}, "
            "or give --checkpoint-schema NAME, a schema of its own)"
        )
    saver.setup()


def _lacking(conn: Any, ref: StoreRef, schema: str, writes: bool) -> str | None:
    """Why this role cannot read (or write) checkpoints in ``schema``, or None."""
    lacking = _missing(conn, schema, _WRITES if writes else _READS)
    if not lacking:
        return None
    role = _one(conn, "SELECT current_user")
    what = "write checkpoints to" if writes else "read checkpoints from"
    return f"cannot {what} {StoreRef(ref.spec)}: the role {role} lacks {', '.join(lacking)}"


def _opened(conn: Any, ref: StoreRef, create: bool | None) -> tuple[Any, str]:
    """The saver on ``conn`` and its schema, once the store is checked (StoreError says
    what is wrong). ``threads`` and ``resume`` check reading here; ``resume`` asks
    :meth:`Store.writable` once it knows the run goes on."""
    from langgraph.checkpoint.postgres import PostgresSaver

    schema = _schema(conn, ref, create)
    found = _check_tables(conn, ref, schema, create)
    # A store's rows first: a role that may not read them may not read its migrations either.
    if found and (why := _lacking(conn, ref, schema, writes=bool(create))) is not None:
        raise StoreError(why)
    saver = PostgresSaver(conn)
    _set_up(conn, saver, ref, schema, create)
    return saver, schema


@contextmanager
def _postgres(ref: StoreRef, create: bool | None) -> Iterator[Store]:
    try:
        import psycopg
        from psycopg.rows import dict_row
    except ImportError:
        raise StoreError(INSTALL) from None
    where = StoreRef(ref.spec)
    # The checkpoints' schema first on the search path: LangGraph's SQL names no schema.
    options: dict[str, Any] = {"options": f"-c search_path={ref.schema}"} if ref.schema else {}

    def connect() -> Any:
        # The options PostgresSaver.from_conn_string uses.
        return psycopg.Connection.connect(ref.spec, autocommit=True, prepare_threshold=0,
                                          row_factory=dict_row, connect_timeout=10, **options)  # fmt: skip

    try:
        conn = connect()
    except psycopg.Error as exc:
        raise StoreError(f"cannot reach the PostgreSQL store {where}: {_first_line(exc)}") from None
    try:
        try:
            saver, schema = _opened(conn, ref, create)
        except psycopg.errors.InsufficientPrivilege as exc:  # what the checks did not foresee
            raise StoreError(
                f"cannot use the checkpoint store {where}: {_first_line(exc)}"
            ) from None

        def query(sql: str) -> list[Any]:
            return [tuple(row.values()) for row in conn.execute(sql)]

        def lock(thread: str) -> AbstractContextManager[None]:
            return postgres_lock(connect, thread)

        def unwritable() -> str | None:
            return _lacking(conn, ref, schema, writes=True)

        held = partial(postgres_held, conn)
        yield Store(ref, "postgres", saver, lock, query, held, unwritable)
    finally:
        conn.close()


def open_postgres(ref: StoreRef, create: bool | None) -> AbstractContextManager[Store]:
    """Open the PostgreSQL store ``ref`` (see the module docstring; ``create`` as
    :func:`lcel_agent.cli._store.open_store` takes it)."""
    return _postgres(ref, create)
