"""A run remembers where it ran (issue 43, point 2).

``run`` keeps the server's URL beside the thread without its user and password;
``resume`` goes back to that server whatever ``OPENAI_BASE_URL`` says now, and says so;
``--base-url`` names another. A login comes back from ``--base-url`` or from an
``OPENAI_BASE_URL`` that names the same server, never from the store: without one, and
for a thread that does not say where it ran, the command refuses in one line (exit 2)
rather than send the conversation to another provider. Two model servers of the test's
count every request; the command is the real ``lcel-agent``.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from contextlib import closing

import pytest
from cli_support import SECRET, service_env
from langgraph.checkpoint.sqlite import SqliteSaver
from resume_support import TASK, contents, result_of

from lcel_agent.cli._record import load_options, save_options
from lcel_agent.testing.offline import TaskReadingModel
from lcel_agent.testing.server import SimulatedOpenAIServer

PASSWORD = "pw-5c1e9d0b7a"


@pytest.fixture
def servers(services):
    """Two model servers (the run's own, and another one) and the environment of the
    commands: the key, the fake services, and OPENAI_BASE_URL at the other server."""
    with (
        SimulatedOpenAIServer(TaskReadingModel()) as own,
        SimulatedOpenAIServer(TaskReadingModel()) as other,
    ):
        env = {
            "OPENAI_API_KEY": SECRET,
            "OPENAI_BASE_URL": other.base_url,
            **service_env(*services),
        }
        yield own, other, env


def _with_login(url: str) -> str:
    return url.replace("http://", f"http://agent:{PASSWORD}@")


def _kept(store: str, thread: str):
    with closing(sqlite3.connect(store, check_same_thread=False)) as conn:
        return load_options(SqliteSaver(conn), thread)


def test_resume_goes_back_to_its_own_server_and_says_so(cli, servers, tmp_path):
    own, other, env = servers
    store = str(tmp_path / "runs.db")
    paused = cli.run("run", TASK, "--base-url", own.base_url, "--checkpoint", store,
                     "--thread", "t1", "--pause", env=env)  # fmt: skip
    assert paused.returncode == 8, paused.stderr
    resumed = cli.run("resume", "t1", "--checkpoint", store, "--no-pause", env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert f"thread t1 goes on at {own.base_url} (its own server)" in resumed.stderr
    assert f"OPENAI_BASE_URL ({other.base_url}) is not used" in resumed.stderr
    assert f"model gpt-4o-mini @ {own.base_url}" in resumed.stdout  # the header says it too
    assert len(other.chat_requests) == 0 and len(own.chat_requests) == 3


def test_a_run_on_the_environments_server_keeps_that_server(cli, servers, tmp_path):
    own, other, env = servers
    store = str(tmp_path / "runs.db")
    paused = cli.run("run", TASK, "--checkpoint", store, "--thread", "t1", "--pause",
                     env=env | {"OPENAI_BASE_URL": own.base_url})  # fmt: skip
    assert paused.returncode == 8, paused.stderr
    done = cli.run("resume", "t1", "--checkpoint", store, "--no-pause", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert len(other.chat_requests) == 0 and result_of(done)["loops"] == len(own.chat_requests)


def test_a_login_is_never_stored_and_comes_back_from_the_command_line(cli, servers, tmp_path):
    own, other, env = servers
    store = str(tmp_path / "runs.db")
    paused = cli.run("run", TASK, "--base-url", _with_login(own.base_url), "--checkpoint", store,
                     "--thread", "t1", "--pause", "--json", env=env)  # fmt: skip
    assert paused.returncode == 8, paused.stderr
    kept = _kept(store, "t1")
    assert kept is not None and kept.base_url == own.base_url and kept.base_url_login
    assert PASSWORD.encode() not in b"".join(p.read_bytes() for p in tmp_path.glob("runs.db*"))

    before = contents(store)
    refused = cli.run("resume", "t1", "--checkpoint", store, "--approve", env=env)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith("lcel-agent resume: error: thread t1 ran on ")
    assert "--base-url http://USER:PASSWORD@127.0.0.1:" in refused.stderr
    assert contents(store) == before and len(other.chat_requests) == 0

    asked = len(own.chat_requests)
    given = cli.run("resume", "t1", "--checkpoint", store, "--approve", "--json",
                    "--base-url", _with_login(own.base_url), env=env)  # fmt: skip
    assert given.returncode == 8, given.stderr  # the next call waits
    from_env = cli.run("resume", "t1", "--checkpoint", store, "--no-pause", "--json",
                       env=env | {"OPENAI_BASE_URL": _with_login(own.base_url)})  # fmt: skip
    assert from_env.returncode == 0, from_env.stderr
    assert len(own.chat_requests) == asked + 2 and len(other.chat_requests) == 0
    for done in (paused, refused, given, from_env):
        assert PASSWORD not in done.stdout + done.stderr and SECRET not in done.stdout + done.stderr
    assert PASSWORD.encode() not in b"".join(p.read_bytes() for p in tmp_path.glob("runs.db*"))


def test_a_thread_that_does_not_say_where_it_ran_needs_base_url(cli, servers, tmp_path):
    own, other, env = servers
    store = str(tmp_path / "runs.db")
    paused = cli.run("run", TASK, "--base-url", own.base_url, "--checkpoint", store,
                     "--thread", "t1", "--pause", env=env)  # fmt: skip
    assert paused.returncode == 8, paused.stderr
    with closing(sqlite3.connect(store, check_same_thread=False)) as conn:
        saver = SqliteSaver(conn)  # as an older lcel-agent kept it: no server
        older = load_options(saver, "t1")
        assert older is not None
        save_options(saver, "t1", dataclasses.replace(older, base_url=None))
    refused = cli.run("resume", "t1", "--checkpoint", store, "--no-pause", env=env)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert (
        "does not say which server it ran on" in refused.stderr and "--base-url" in refused.stderr
    )
    assert len(other.chat_requests) == 0
    named = cli.run("resume", "t1", "--checkpoint", store, "--no-pause",
                    "--base-url", own.base_url, env=env)  # fmt: skip
    assert named.returncode == 0, named.stderr
    assert f"thread t1 goes on at {own.base_url} (--base-url)" in named.stderr
    assert len(other.chat_requests) == 0


def test_base_url_moves_the_run_and_later_resumes_follow_it(cli, servers, tmp_path):
    own, other, env = servers
    store = str(tmp_path / "runs.db")
    paused = cli.run("run", TASK, "--base-url", own.base_url, "--checkpoint", store,
                     "--thread", "t1", "--pause", env=env)  # fmt: skip
    assert paused.returncode == 8, paused.stderr
    moved = cli.run("resume", "t1", "--checkpoint", store, "--approve", "--base-url",
                    other.base_url, env=env)  # fmt: skip
    assert moved.returncode == 8, moved.stderr  # on to the next call, asked of the other
    after_move = len(own.chat_requests)
    done = cli.run("resume", "t1", "--checkpoint", store, "--approve", env=env)
    assert done.returncode == 0, done.stderr
    assert f"thread t1 goes on at {other.base_url} (its own server)" in done.stderr
    assert len(own.chat_requests) == after_move == 1 and len(other.chat_requests) == 2
