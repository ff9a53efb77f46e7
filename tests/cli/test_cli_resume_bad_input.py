"""Bad input to the checkpointed commands: one clear line, exit 2, and the store as it was.

A missing store is never made by ``resume`` or ``threads``; a file that is not a
checkpoint store (text, another program's SQLite database, an empty PostgreSQL
database) is refused by every command and left untouched; an unknown thread, a
thread the command line did not start, a decision where nothing waits and a new task
on an unfinished thread change nothing. The usage errors answer before LangChain is
imported, as every usage error does.
"""

from __future__ import annotations

import sqlite3

import pytest
from cli_support import HEAVY, imported_packages
from langchain_core.messages import AIMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from resume_support import TASK, contents, result_of

from lcel_agent import create_agent
from lcel_agent.testing.fake import FunctionChatModel
from lcel_agent.tools import get_weather, search_baidu


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["run", "x", "--pause"], "--pause needs --checkpoint STORE"),
        (["run", "x", "--thread", "t1"], "--thread needs --checkpoint STORE"),
        (["run", "--simulate", "--base-url", "http://127.0.0.1:9/v1"], "leave out --base-url"),
        (["run", "x", "--base-url", "localhost:8080"], "expected an http:// or https:// URL"),
        (["run", "x", "--checkpoint", "c.db", "--pause", "--confirm"], "give one of them"),
        (["resume", "t1", "--checkpoint", "nowhere.db"], "no checkpoint store at nowhere.db"),
        (["threads", "--checkpoint", "nowhere.db"], "no checkpoint store at nowhere.db"),
        (["resume", "t1", "--checkpoint", "c.db", "--approve", "--deny"], "not allowed with"),
        (["resume", "t1", "--checkpoint", "c.db", "--reason", "no"], "--reason goes with --deny"),
        (["resume", "t 1", "--checkpoint", "c.db"], "expected a thread id"),
        (["threads"], "the following arguments are required: --checkpoint"),
    ],
)
def test_usage_errors_answer_before_langchain_and_make_no_file(run_cli, tmp_path, argv, said):
    done = run_cli(*argv, command=["-X", "importtime", "-m", "lcel_agent.cli"], python=True)
    assert done.returncode == 2
    assert said in done.stderr
    assert not imported_packages(done.stderr) & set(HEAVY)
    assert not (tmp_path / "nowhere.db").exists()


def test_help_lists_resume_and_threads(run_cli):
    done = run_cli("--help")
    assert done.returncode == 0
    assert "resume    continue a checkpointed run" in done.stdout
    assert "threads   list the runs a checkpoint STORE holds" in done.stdout


def _other_programs_database(path):
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO users (name) VALUES ('ada')")
    conn.close()


@pytest.mark.parametrize("kind", ["text", "sqlite-of-something-else"])
def test_a_file_that_is_not_a_checkpoint_store_is_refused_and_left_alone(cli, tmp_path, kind):
    path = tmp_path / "notes.db"
    if kind == "text":
        path.write_text("shopping list: 米, 面\n", encoding="utf-8")
    else:
        _other_programs_database(path)
    before = sorted(p.name for p in tmp_path.iterdir()), path.read_bytes()
    for argv in (
        ["threads", "--checkpoint", str(path)],
        ["resume", "t1", "--checkpoint", str(path)],
        ["run", "--simulate", "--checkpoint", str(path), TASK],
    ):
        done = cli.run(*argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert "is not a checkpoint store" in done.stderr and "nothing was changed" in done.stderr
        assert "Traceback" not in done.stderr
    assert (sorted(p.name for p in tmp_path.iterdir()), path.read_bytes()) == before
    assert cli.lines("model") == []


def test_unknown_threads_and_misplaced_decisions_change_nothing(cli, store):
    done = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "t1", "--json", TASK)
    assert done.returncode == 0, done.stderr
    asked = len(cli.lines("model"))
    before = contents(store)
    cases = [
        (["resume", "nope"], "no thread 'nope' in"),
        (["resume", "t1", "--approve"], "its run finished"),
        (["resume", "t1", "--deny", "--reason", "太贵"], "nothing in thread t1 waits"),
    ]
    for argv, said in cases:
        refused = cli.run(*argv[:2], "--checkpoint", store, *argv[2:])
        assert refused.returncode == 2 and said in refused.stderr, (argv, refused.stderr)
    assert contents(store) == before and len(cli.lines("model")) == asked
    assert result_of(cli.run("resume", "t1", "--checkpoint", store, "--json"))["thread_id"] == "t1"


def test_an_empty_sqlite_file_is_no_store_to_read_and_stays_empty(cli, tmp_path):
    path = tmp_path / "new.db"
    path.touch()  # `run --checkpoint new.db` would make it a store; nothing else may
    for argv in (
        ["threads", "--checkpoint", str(path)],
        ["resume", "t1", "--checkpoint", str(path)],
    ):
        done = cli.run(*argv)
        assert done.returncode == 2 and "(an empty database)" in done.stderr
    assert path.read_bytes() == b""


@pytest.mark.parametrize("store", ["postgres"], indirect=True)
def test_an_empty_postgres_database_is_not_a_store_and_stays_empty(cli, store):
    import psycopg

    for argv in (["threads", "--checkpoint", store], ["resume", "t1", "--checkpoint", store]):
        done = cli.run(*argv)
        assert done.returncode == 2 and "no LangGraph checkpoint tables" in done.stderr
    with psycopg.connect(store) as conn:
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        assert tables.fetchone() == (0,)


def test_an_unreachable_postgres_store_is_named_without_its_password(cli):
    # Port 9 (discard) on loopback: nothing listens there.
    url = "postgresql://agent:pw-0d5e7a9c3b@127.0.0.1:9/runs"
    done = cli.run("threads", "--checkpoint", url)
    assert done.returncode == 2
    assert "cannot reach the PostgreSQL store postgresql://agent:***@127.0.0.1:9/runs" in (
        done.stderr
    )
    assert "pw-0d5e7a9c3b" not in done.stdout + done.stderr


def test_a_new_task_on_an_unfinished_thread_is_refused_with_the_way_on(cli, tmp_path):
    store = str(tmp_path / "runs.db")
    paused = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "t1", "--pause", TASK)
    assert paused.returncode == 8, paused.stderr
    before = contents(store)
    again = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "t1", "查询广州天气")
    assert again.returncode == 2
    assert "thread t1 holds an unfinished run (paused)" in again.stderr
    assert f"lcel-agent resume t1 --checkpoint {store} --approve" in again.stderr
    assert contents(store) == before


def test_a_thread_the_command_line_did_not_start_is_left_to_python(cli, tmp_path):
    store = tmp_path / "runs.db"
    saver = SqliteSaver(sqlite3.connect(store, check_same_thread=False))
    final = '{"action": "final", "action_input": "晴"}'
    agent = create_agent(
        FunctionChatModel(lambda messages, tools: AIMessage(final)),
        [get_weather, search_baidu],
        checkpointer=saver,
    )
    agent.invoke("查询北京天气", {"configurable": {"thread_id": "py"}})
    saver.conn.close()
    before = contents(str(store))
    listed = cli.run("threads", "--checkpoint", str(store))
    assert listed.returncode == 0 and "py" in listed.stdout and "finished (final)" in listed.stdout
    done = cli.run("resume", "py", "--checkpoint", str(store))
    assert done.returncode == 2 and "was not started by `lcel-agent run`" in done.stderr
    assert contents(str(store)) == before


def test_a_run_without_a_key_makes_no_store(run_cli, tmp_path):
    done = run_cli("run", "查询北京天气", "--checkpoint", str(tmp_path / "runs.db"))
    assert done.returncode == 2 and "OPENAI_API_KEY" in done.stderr
    assert list(tmp_path.iterdir()) == []
