"""The pieces under ``resume``: the thread lock, and the options kept beside a run.

The lock is taken by one holder at a time per thread, for any two holders (two open
files in one process, two processes, two PostgreSQL connections), writes nothing into
the store, and is let go when its holder closes or dies. The options are kept through
the saver's own interface and come back as they were, a base URL holding a secret left
out.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import psycopg
import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from psycopg.rows import dict_row

from lcel_agent._redact import register_secret
from lcel_agent.cli._lock import ThreadBusyError, postgres_lock, sqlite_lock
from lcel_agent.cli._record import RunOptions, load_options, save_options
from lcel_agent.cli._store import open_store


@pytest.fixture
def db(tmp_path):
    with open_store(str(tmp_path / "runs.db"), create=True):
        pass  # a real store: tables, WAL
    return tmp_path / "runs.db"


def test_one_holder_per_thread_and_nothing_written(db):
    before = db.read_bytes()
    with sqlite_lock(str(db), "t1"):
        with pytest.raises(ThreadBusyError, match="'t1' is busy"), sqlite_lock(str(db), "t1"):
            pass
        with sqlite_lock(str(db), "t2"):  # another thread of the same store
            pass
    with sqlite_lock(str(db), "t1"):  # let go
        pass
    assert db.read_bytes() == before


_HOLD = """
import sys, time
from lcel_agent.cli._lock import sqlite_lock
with sqlite_lock(sys.argv[1], "t1", ofd=sys.argv[2] == "ofd"):
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.mark.parametrize("kind", ["ofd", "posix"])
def test_a_holder_in_another_process_excludes_this_one_until_it_dies(db, kind):
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_HOLD), str(db), kind],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(ThreadBusyError), sqlite_lock(str(db), "t1", ofd=kind == "ofd"):
            pass
        holder.kill()
        holder.wait(timeout=30)
        with sqlite_lock(str(db), "t1", ofd=kind == "ofd"):
            pass
    finally:
        holder.kill()
        holder.communicate()


def test_a_sqlite_connection_closing_does_not_drop_the_lock(db):
    # POSIX record locks would vanish here: SQLite opens and closes its own descriptors.
    with sqlite_lock(str(db), "t1"):
        sqlite3.connect(db).close()
        with pytest.raises(ThreadBusyError), sqlite_lock(str(db), "t1"):
            pass


def test_postgres_advisory_lock_per_thread(postgres_url):
    def connect():
        return psycopg.connect(postgres_url, autocommit=True, row_factory=dict_row)

    with postgres_lock(connect, "t1"):
        with pytest.raises(ThreadBusyError), postgres_lock(connect, "t1"):
            pass
        with postgres_lock(connect, "t2"):
            pass
    with postgres_lock(connect, "t1"):
        pass


def test_options_come_back_as_kept_and_a_secret_url_is_not_kept(db):
    register_secret("sk-kept-nowhere-5c1d")
    saver = SqliteSaver(sqlite3.connect(db, check_same_thread=False))
    options = RunOptions(model="qwen", base_url="http://127.0.0.1:8080/v1", pause=True)
    save_options(saver, "t1", options)
    assert load_options(saver, "t1") == options
    changed = RunOptions(protocol="tool_calling", max_loops=4)
    save_options(saver, "t1", changed)  # a later run on the thread replaces them
    assert load_options(saver, "t1") == changed
    secret = RunOptions(base_url="https://api.example.com/v1?key=sk-kept-nowhere-5c1d")
    save_options(saver, "t2", secret)
    assert load_options(saver, "t2") == RunOptions(base_url=None)
    save_options(saver, "t3", RunOptions(base_url="http://me:pw-4e1c@127.0.0.1:8080/v1"))
    assert load_options(saver, "t3") == RunOptions(base_url=None)
    assert load_options(saver, "nope") is None
    saver.conn.close()
    stored = b"".join(path.read_bytes() for path in db.parent.glob("runs.db*"))
    assert b"sk-kept-nowhere-5c1d" not in stored and b"pw-4e1c" not in stored
    assert b"qwen" in stored  # the check can fail: the options are stored as plain text
