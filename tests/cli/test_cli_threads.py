"""``threads`` tells live from dead, and a reused thread says so (issue 36, points 4, 8, 10).

A run whose process holds the thread is ``running``; the same run once its process is
killed is ``stale`` (nobody holds the lock), and asking never takes the lock, so a
``resume`` started meanwhile is not made busy. A new question on a finished thread is
announced on standard error and becomes what ``threads`` shows. The table fits its
longest state and prints a 200-character id whole on a line of its own instead of
widening every row. SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import signal

from resume_support import TASK, result_of


def _states(cli, store):
    listed = cli.run("threads", "--checkpoint", store, "--json")
    assert listed.returncode == 0, listed.stderr
    return {row["thread_id"]: row for row in json.loads(listed.stdout)}


def test_a_live_run_is_running_and_a_killed_one_is_stale(cli, store, loops_without_a_checkpoint):
    process = cli.start("run", "--simulate", "--checkpoint", store, "--thread", "live", TASK,
                        hang="上海")  # fmt: skip
    try:
        cli.wait_for_hang(process)
        assert _states(cli, store)["live"]["state"] == "running"
        assert _states(cli, store)["live"]["state"] == "running"  # asking took nothing
        busy = cli.run("resume", "live", "--checkpoint", store)
        assert busy.returncode == 2 and "is busy" in busy.stderr
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        process.kill()
        process.communicate()
    row = _states(cli, store)["live"]
    assert (row["state"], row["stop_reason"]) == ("stale", None)
    assert "stale" in cli.run("threads", "--checkpoint", store).stdout
    done = cli.run("resume", "live", "--checkpoint", store, "--json")
    assert done.returncode == 0, done.stderr
    assert result_of(done)["loops"] == loops_without_a_checkpoint == len(cli.lines("model"))
    assert _states(cli, store)["live"]["state"] == "finished"


def test_a_new_question_on_a_finished_thread_says_so_and_is_listed(cli, store):
    first = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "r1", TASK)
    assert first.returncode == 0, first.stderr
    assert "continuing thread" not in first.stderr  # a new thread: nothing to say
    loops = _states(cli, store)["r1"]["loops"]
    again = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "r1", "--json",
                    "查询广州今天的天气")  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert f"continuing thread r1: finished (final), {loops} loops, new question" in again.stderr
    row = _states(cli, store)["r1"]
    assert row["task"] == "查询广州今天的天气" and row["state"] == "finished"
    same = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "r1",
                   "查询广州今天的天气")  # fmt: skip
    assert "the same question again" in same.stderr


def test_the_table_fits_every_state_and_a_long_id_gets_its_own_line(cli, store):
    long_id = "x" * 200
    assert cli.run("run", "--simulate", "--checkpoint", store, "--thread", long_id,
                   TASK).returncode == 0  # fmt: skip
    assert cli.run("run", "--simulate", "--checkpoint", store, "--thread", "p1", "--pause",
                   TASK).returncode == 8  # fmt: skip
    table = cli.run("threads", "--checkpoint", store).stdout.splitlines()
    assert long_id in table  # whole, alone on its line
    header, *rows = [line for line in table if line != long_id]
    (paused,) = [line for line in rows if line.startswith("p1 ")]
    (finished,) = [line for line in rows if "finished (final)" in line]
    # Every row's state starts where the header says, and the id column stays narrow.
    assert header.index("state") == paused.index("paused") == finished.index("finished") < 30
    assert all(len(line) < 130 for line in rows), rows
