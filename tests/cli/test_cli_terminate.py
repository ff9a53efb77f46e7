"""SIGTERM and SIGHUP end a run as Ctrl-C does (issue 43, point 4).

``timeout``, ``docker stop`` and a closed terminal send SIGTERM or SIGHUP, not SIGINT.
Sent during a tool call of a checkpointed run, each abandons the step in flight, leaves
the store consistent and closed (no ``-wal``/``-shm`` files beside a SQLite store),
prints the command that resumes the run, and exits 128 plus the signal's number (143,
129; 130 for Ctrl-C). The printed command, pasted, finishes the run with every model
call made once. A plain run exits the same way with one line; and a signal that comes
after the result is stored changes nothing. The command is the real ``lcel-agent``.
"""

from __future__ import annotations

import json
import signal
import time

import pytest
from cli_support import SECRET, service_env
from resume_support import TASK, result_of, resume_command

from lcel_agent.testing.faults import Latency
from lcel_agent.testing.server import SimulatedOpenAIServer

SIGNALS = {"SIGTERM": (signal.SIGTERM, 143), "SIGHUP": (signal.SIGHUP, 129),
           "SIGINT": (signal.SIGINT, 130)}  # fmt: skip


@pytest.mark.parametrize("name", list(SIGNALS))
def test_a_signal_in_a_tool_call_leaves_a_run_that_resumes(
    cli, store, tmp_path, name, loops_without_a_checkpoint
):
    signum, status = SIGNALS[name]
    process = cli.start("run", "--simulate", "--checkpoint", store, "--thread", "t1", TASK,
                        hang="上海")  # fmt: skip
    try:
        cli.wait_for_hang(process)
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == status, err
    said = "interrupted" if name == "SIGINT" else f"stopped by {name}"
    assert f"lcel-agent: {said}\n" in err and "Traceback" not in err
    assert "stop:" not in out  # the run did not end
    if not store.startswith("postgresql://"):
        assert sorted(p.name for p in tmp_path.glob("runs.db*")) == ["runs.db"]
    (row,) = json.loads(cli.run("threads", "--checkpoint", store, "--json").stdout)
    assert (row["thread_id"], row["state"]) == ("t1", "stale")

    done = cli.run(*resume_command(err), "--json")
    assert done.returncode == 0, done.stderr
    assert result_of(done)["loops"] == loops_without_a_checkpoint == len(cli.lines("model"))
    assert cli.lines("weather").count("北京") == 1  # the finished call was not run again


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_plain_run_stopped_by_a_signal_says_so_in_one_line(services, name):
    from cli_support import start_cli

    signum, status = SIGNALS[name]
    with SimulatedOpenAIServer(["never sent"], latency=Latency(fixed=20.0)) as server:
        env = {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": server.base_url,
               **service_env(*services)}  # fmt: skip
        process = start_cli(["run", "查询北京天气"], env)
        try:
            deadline = time.monotonic() + 60
            while not server.chat_requests and time.monotonic() < deadline:
                time.sleep(0.05)
            assert server.chat_requests, "the model was never called"
            process.send_signal(signum)
            out, err = process.communicate(timeout=30)
        finally:
            process.kill()
    assert process.returncode == status, err
    assert err.strip().endswith(f"lcel-agent: stopped by {name}")
    assert "Traceback" not in err and SECRET not in out + err


@pytest.mark.parametrize("moment", ["stored", "exit"])
@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
def test_sigterm_after_the_result_is_stored_changes_nothing(cli, store, moment):
    done = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "s1", TASK,
                   env={"LCEL_TEST_SIGINT": moment, "LCEL_TEST_SIGNAL": "SIGTERM"})  # fmt: skip
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert "stopped by" not in done.stderr and "stop: final" in done.stdout
