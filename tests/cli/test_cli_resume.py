"""Resumable runs from the command line: killed, interrupted, paused, resumed, never twice.

Real ``lcel-agent`` processes on a SQLite file and on a PostgreSQL database of their
own. A process is killed (SIGKILL) or interrupted (SIGINT) inside a tool call; a new
process resumes the thread, and the model calls of both add up to those of one run
without a checkpoint: none was asked again. ``--pause`` stops before each tool call
and ``resume --approve`` goes on, with the same number of loops in the end.
"""

from __future__ import annotations

import json
import signal
from collections import Counter

import pytest
from resume_support import TASK, contents, result_of, resume_command


def _kill_during_shanghai(cli, store, *args):
    """``run TASK --checkpoint STORE ARGS`` killed with SIGKILL inside get_weather(上海)."""
    process = cli.start("run", "--simulate", "--checkpoint", store, *args, TASK, hang="上海")
    try:
        cli.wait_for_hang(process)
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=30) == -signal.SIGKILL
    finally:
        process.kill()
        process.communicate()


def test_a_run_killed_in_a_tool_call_resumes_asking_the_model_nothing_twice(
    cli, store, loops_without_a_checkpoint
):
    _kill_during_shanghai(cli, store, "--thread", "t1")
    assert cli.lines("weather") == ["北京", "上海"]
    asked_before = len(cli.lines("model"))
    listed = cli.run("threads", "--checkpoint", store, "--json")
    (row,) = json.loads(listed.stdout)
    # Its process is gone, so no one holds its lock: stale, not running (issue 36, point 8).
    assert (row["thread_id"], row["state"], row["stop_reason"]) == ("t1", "stale", None)
    assert row["task"] == TASK and row["loops"] == asked_before

    before = contents(store)
    refused = cli.run("resume", "t1", "--checkpoint", store, "--approve")
    assert refused.returncode == 2 and "nothing in thread t1 waits for a decision" in refused.stderr
    assert contents(store) == before  # a crash needs no decision, and gets none

    done = cli.run("resume", "t1", "--checkpoint", store, "--json")
    assert done.returncode == 0, done.stderr
    result = result_of(done)
    assert result["thread_id"] == "t1" and result["stop_reason"] == "final"
    assert "北京市天气" in result["output"] and "上海市天气" in result["output"]
    # Every model call was made once: the two processes together made exactly those of a
    # run that was never interrupted, and the result counts all of them.
    assert len(cli.lines("model")) == result["loops"] == loops_without_a_checkpoint
    # The finished call was recalled; only the killed one ran again.
    assert Counter(cli.lines("weather"))["北京"] == 1


def test_a_paused_run_is_approved_call_by_call_to_the_same_end(
    cli, store, loops_without_a_checkpoint
):
    done = cli.run("run", "--simulate", "--checkpoint", store, "--pause", "--json", TASK)
    assert done.returncode == 8, done.stderr
    first = result_of(done)
    thread = first["thread_id"]
    assert first["stop_reason"] == "paused" and first["pending"][0]["tool"] == "get_weather"
    assert f"checkpointed as thread {thread}" in done.stderr
    listed = json.loads(cli.run("threads", "--checkpoint", store, "--json").stdout)
    assert [(r["thread_id"], r["state"], r["stop_reason"]) for r in listed] == [
        (thread, "paused", "paused")
    ]
    before = contents(store)
    undecided = cli.run("resume", thread, "--checkpoint", store)
    assert undecided.returncode == 2 and "give --approve" in undecided.stderr
    assert contents(store) == before

    approvals = 0
    while done.returncode == 8:  # the exact command it printed, each time
        done = cli.run(*resume_command(done.stderr, "--approve"), "--json")
        approvals += 1
        assert approvals <= loops_without_a_checkpoint, done.stderr
    assert done.returncode == 0, done.stderr
    result = result_of(done)
    assert result["stop_reason"] == "final" and result["thread_id"] == thread
    assert result["loops"] == loops_without_a_checkpoint == len(cli.lines("model"))
    assert approvals == loops_without_a_checkpoint - 1  # one pause per tool call
    assert cli.lines("weather") == ["北京", "上海"]

    table = cli.run("threads", "--checkpoint", store)
    assert table.returncode == 0
    assert thread in table.stdout and "finished (final)" in table.stdout
    before = contents(store)
    again = cli.run("resume", thread, "--checkpoint", store, "--json")  # a finished run
    assert again.returncode == 0 and result_of(again)["output"] == result["output"]
    assert contents(store) == before and len(cli.lines("model")) == result["loops"]


def test_two_resumes_of_one_thread_at_once_the_second_is_told_it_is_busy(
    cli, store, loops_without_a_checkpoint
):
    _kill_during_shanghai(cli, store, "--thread", "t2")
    first = cli.start("resume", "t2", "--checkpoint", store, hang="上海")
    try:
        cli.wait_for_hang(first)  # it holds the thread, inside the call it reruns
        before = contents(store)
        second = cli.run("resume", "t2", "--checkpoint", store)
        assert second.returncode == 2
        assert "thread 't2' is busy" in second.stderr
        assert contents(store) == before
        first.send_signal(signal.SIGKILL)  # its lock goes with it
        first.wait(timeout=30)
    finally:
        first.kill()
        first.communicate()
    done = cli.run("resume", "t2", "--checkpoint", store, "--json")
    assert done.returncode == 0, done.stderr
    assert result_of(done)["loops"] == loops_without_a_checkpoint == len(cli.lines("model"))


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
def test_ctrl_c_in_a_checkpointed_run_prints_the_command_that_resumes_it(
    cli, store, loops_without_a_checkpoint
):
    process = cli.start("run", "--simulate", "--checkpoint", store, "--json", TASK, hang="上海")
    try:
        cli.wait_for_hang(process)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "Traceback" not in err and "lcel-agent: interrupted" in err
    assert out == ""  # no result: the run did not end
    done = cli.run(*resume_command(err), "--json")
    assert done.returncode == 0, done.stderr
    assert result_of(done)["loops"] == loops_without_a_checkpoint == len(cli.lines("model"))
