"""Hints are commands, and printed URLs keep their passwords (issue 36, points 3 and 5).

The command a paused or interrupted run prints is pasted back as it is: one line
whatever the terminal's width (here 40 columns, with a long store path), every
argument quoted for the shell (a thread id with a quote and a dollar sign). An id
that starts with ``-`` is refused with the rule, which ``--help`` states. A password
in ``--base-url`` is never printed.
"""

from __future__ import annotations

import pytest
from cli_support import SECRET, service_env
from resume_support import TASK, resume_command

from lcel_agent.testing.offline import TaskReadingModel
from lcel_agent.testing.server import SimulatedOpenAIServer


@pytest.mark.parametrize("json_output", [False, True], ids=["trace", "json"])
def test_the_pause_hint_is_one_pasteable_line_at_any_width(cli, store, tmp_path, json_output):
    if not store.startswith("postgresql://"):
        deep = tmp_path / ("a-folder-with-a-long-name-" * 3) / "and another one"
        deep.mkdir(parents=True)
        store = str(deep / "runs.db")
    thread = "it's-$HOME-1"
    narrow = {"COLUMNS": "40"}
    extra = ["--json"] if json_output else []
    done = cli.run("run", "--simulate", "--checkpoint", store, "--thread", thread, "--pause",
                   *extra, TASK, env=narrow)  # fmt: skip
    assert done.returncode == 8, done.stderr
    output = done.stdout + done.stderr
    assert store in output.replace("'", "")  # whole, on one line
    approvals = 0
    while done.returncode == 8:
        words = resume_command(output, "--approve")  # shlex reads the line back
        assert words[:4] == ["resume", thread, "--checkpoint", store]
        done = cli.run(*words, *extra, env=narrow)
        output = done.stdout + done.stderr
        approvals += 1
        assert approvals < 5, output
    assert done.returncode == 0, output


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "x", "--checkpoint", "c.db", "--thread=-dash2"],
        ["resume", "--checkpoint", "c.db", "--", "-dash2"],
    ],
)
def test_an_id_that_starts_with_a_dash_is_refused_with_the_rule(run_cli, argv):
    done = run_cli(*argv)
    assert done.returncode == 2
    assert "not starting with '-'" in done.stderr and "'-dash2'" in done.stderr
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("command", ["run", "resume", "threads"])
def test_help_states_the_thread_id_rule(run_cli, command):
    done = run_cli(command, "--help")
    assert done.returncode == 0
    assert "1 to 200 printable characters, no spaces, not starting with '-'" in " ".join(
        done.stdout.split()
    )


def test_resume_and_threads_help_have_their_own_words_not_runs(run_cli):
    run_help = run_cli("run", "--help").stdout
    for command in ("resume", "threads"):
        own = run_cli(command, "--help").stdout
        assert "time limits (run)" in run_help and "time limits (run)" not in own
        assert len(own.splitlines()) < len(run_help.splitlines())
    assert "stale" in run_cli("threads", "--help").stdout


def test_a_password_in_the_base_url_is_never_printed(cli, services, tmp_path):
    store = str(tmp_path / "runs.db")
    password = "s3cr3tpw-b7"
    with SimulatedOpenAIServer(TaskReadingModel()) as server:
        url = server.base_url.replace("http://", f"http://agent:{password}@")
        env = {"OPENAI_API_KEY": SECRET, **service_env(*services)}
        runs = [
            cli.run("run", TASK, "--base-url", url, env=env),
            cli.run(
                "run",
                TASK,
                "--base-url",
                url,
                "--checkpoint",
                store,
                "--thread",
                "p1",
                "--pause",
                env=env,
            ),
            cli.run(
                "resume", "p1", "--checkpoint", store, "--no-pause", "--base-url", url, env=env
            ),
        ]
    for done in runs:
        assert done.returncode in (0, 8), done.stderr
        assert password not in done.stdout + done.stderr
        assert SECRET not in done.stdout + done.stderr
    assert "agent:***@127.0.0.1" in runs[0].stdout  # the header says where, without it
    assert "agent:***@127.0.0.1" in runs[2].stdout
    assert password.encode() not in b"".join(p.read_bytes() for p in tmp_path.glob("runs.db*"))
