"""PostgreSQL stores refuse what is not theirs, and say what a role lacks (issue 43, point 3).

The bad-store table of SQLite (tests/cli/test_cli_bad_stores.py), on the session's
PostgreSQL server: another program's database (a table ``notes``) is refused by every
command, and left as it was, unless the checkpoints get a schema of their own
(``--checkpoint-schema NAME``); a role without CREATE on the schema, without CREATE on
the database (a new schema), without rights on the tables, or with SELECT only, is one
true line and exit 2, with nothing written; a database that does not exist is named.
Every command is the real ``lcel-agent`` in its own process, with no key in its
environment where it needs none.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from resume_support import TASK, result_of, resume_command


def _sql(url: str, *statements: str) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    with psycopg.connect(url, autocommit=True) as conn:
        for statement in statements:
            cursor = conn.execute(statement)
            rows = cursor.fetchall() if cursor.description else []
    return rows


def _as(url: str, role: str) -> str:
    """``url`` with ``role`` as its user (the test server trusts loopback)."""
    return url.replace("postgresql://postgres@", f"postgresql://{role}@")


def _tables(url: str) -> list[tuple[object, ...]]:
    return _sql(url, "SELECT schemaname, tablename FROM pg_tables "
                     "WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2")  # fmt: skip


@pytest.fixture
def database(postgres_url: str) -> Iterator[str]:
    """A new database of its own (made for the test, dropped after it), as postgres."""
    name = f"pg_{uuid.uuid4().hex[:12]}"
    _sql(postgres_url, f"CREATE DATABASE {name}")
    yield f"{postgres_url.rsplit('/', 1)[0]}/{name}"
    _sql(postgres_url, f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture
def role(postgres_url: str, database: str) -> Iterator[str]:
    """A role of its own that may log in and nothing more (dropped after the test, with
    what it was granted in ``database``)."""
    name = f"r_{uuid.uuid4().hex[:10]}"
    _sql(postgres_url, f"CREATE ROLE {name} LOGIN")
    yield name
    _sql(database, f"DROP OWNED BY {name}")
    _sql(postgres_url, f"DROP OWNED BY {name}", f"DROP ROLE {name}")


def _refused(done, *said: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(("lcel-agent run: error: ", "lcel-agent resume: error: ",
                                   "lcel-agent threads: error: ")), done.stderr  # fmt: skip
    for words in said:
        assert words in done.stderr, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def _commands(store: str, *more: str) -> list[list[str]]:
    return [
        ["run", "--simulate", TASK, "--checkpoint", store, *more],
        ["resume", "t1", "--checkpoint", store, *more],
        ["threads", "--checkpoint", store, *more],
    ]


def test_another_programs_database_is_refused_by_every_command(cli, database):
    _sql(database, "CREATE TABLE notes (id serial PRIMARY KEY, body text)",
         "INSERT INTO notes (body) VALUES ('买米')")  # fmt: skip
    before = _tables(database)
    for argv in _commands(database):
        _refused(cli.run(*argv), "is not a checkpoint store (its tables are ['notes'])",
                 "nothing was changed")  # fmt: skip
    assert _tables(database) == before and cli.lines("model") == []
    ran = cli.run(*_commands(database)[0])
    assert "--checkpoint-schema NAME" in ran.stderr  # the way to share the database


def test_a_schema_of_its_own_shares_the_database_and_hints_repeat_it(cli, database):
    _sql(database, "CREATE TABLE notes (id serial PRIMARY KEY, body text)")
    paused = cli.run("run", "--simulate", TASK, "--checkpoint", database, "--checkpoint-schema",
                     "lcel", "--thread", "t1", "--pause")  # fmt: skip
    assert paused.returncode == 8, paused.stderr
    assert ("public", "notes") in _tables(database)
    assert {("lcel", "checkpoints"), ("lcel", "checkpoint_writes")} <= set(_tables(database))
    words = resume_command(paused.stdout + paused.stderr, "--no-pause")
    assert words[:6] == ["resume", "t1", "--checkpoint", database, "--checkpoint-schema", "lcel"]
    done = cli.run(*words, "--json")
    assert done.returncode == 0, done.stderr
    listed = cli.run("threads", "--checkpoint", database, "--checkpoint-schema", "lcel", "--json")
    assert [r["thread_id"] for r in json.loads(listed.stdout)] == ["t1"]
    # Without the schema the database is still another program's, for every command.
    for argv in _commands(database):
        _refused(cli.run(*argv), "its tables are ['lcel.checkpoint_blobs', ")
    missing = cli.run("threads", "--checkpoint", database, "--checkpoint-schema", "other")
    _refused(missing, "no schema other in", "--checkpoint-schema other")
    assert result_of(done)["stop_reason"] == "final"


def test_a_role_without_create_on_the_schema_is_told_so_and_nothing_is_made(cli, database, role):
    _sql(database, f"GRANT CONNECT ON DATABASE {database.rsplit('/', 1)[1]} TO {role}")
    store = _as(database, role)
    _refused(cli.run("run", "--simulate", TASK, "--checkpoint", store),
             f"cannot make the checkpoint tables in {store}: the role {role} lacks CREATE on "
             "the schema public")  # fmt: skip
    _refused(cli.run("run", "--simulate", TASK, "--checkpoint", store, "--checkpoint-schema", "x"),
             f"the role {role} lacks CREATE on the database")  # fmt: skip
    assert _tables(database) == [] and cli.lines("model") == []


def test_a_role_without_rights_on_the_tables_is_told_which(cli, database, role):
    done = cli.run("run", "--simulate", TASK, "--checkpoint", database, "--thread", "t1")
    assert done.returncode == 0, done.stderr
    paused = cli.run("run", "--simulate", TASK, "--checkpoint", database, "--thread", "p1",
                     "--pause")  # fmt: skip
    assert paused.returncode == 8, paused.stderr
    store = _as(database, role)
    before = _sql(database, "SELECT count(*) FROM checkpoints")
    for argv in _commands(store):
        what = "read checkpoints from" if argv[0] != "run" else "write checkpoints to"
        _refused(cli.run(*argv), f"cannot {what} {store}: the role {role} lacks SELECT on "
                 "checkpoints")  # fmt: skip

    _sql(database, f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")  # read-only
    listed = cli.run("threads", "--checkpoint", store, "--json")
    assert listed.returncode == 0, listed.stderr
    assert {r["thread_id"] for r in json.loads(listed.stdout)} == {"t1", "p1"}
    shown = cli.run("resume", "t1", "--checkpoint", store, "--json")
    assert shown.returncode == 0 and result_of(shown)["stop_reason"] == "final"
    for argv in (["resume", "p1", "--checkpoint", store, "--approve"],
                 ["run", "--simulate", TASK, "--checkpoint", store]):  # fmt: skip
        _refused(cli.run(*argv), f"cannot write checkpoints to {store}: the role {role} "
                 "lacks INSERT on checkpoints")  # fmt: skip
    assert _sql(database, "SELECT count(*) FROM checkpoints") == before


def test_a_database_that_does_not_exist_is_named(cli, postgres_url):
    store = f"{postgres_url.rsplit('/', 1)[0]}/no_such_db"
    for argv in _commands(store):
        _refused(cli.run(*argv), "cannot reach the PostgreSQL store", '"no_such_db" does not exist')
