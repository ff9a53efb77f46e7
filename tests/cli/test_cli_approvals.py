"""A stored result needs no model, and approvals are never blind (issue 36, points 7 and 9).

``resume`` of a finished thread prints its result with no key and no server (an
``--simulate`` run's thread resumed without ``--simulate`` machinery: the hook's model
log shows no call, and no key is in the environment); a decision about a thread where
nothing waits is refused in those words, key or not. ``--approve CALL`` approves the
call the hint named and is refused once another waits; ``--no-pause`` approves the rest
of the run; ``--max-loops`` raises the bound of the run it continues (no lower than the
calls made). SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import signal

from resume_support import TASK, contents, result_of, resume_command


def test_a_finished_threads_result_is_printed_with_no_model_key_or_server(cli, store):
    done = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "f1", "--json", TASK)
    assert done.returncode == 0, done.stderr
    asked = len(cli.lines("model"))
    before = contents(store)
    for extra in (["--json"], []):
        again = cli.run("resume", "f1", "--checkpoint", store, *extra)  # no OPENAI_API_KEY
        assert again.returncode == 0, again.stderr
        assert "OPENAI_API_KEY" not in again.stderr
    assert result_of(again if extra else cli.run("resume", "f1", "--checkpoint", store,
                                                 "--json"))["output"] == result_of(done)["output"]  # fmt: skip
    assert len(cli.lines("model")) == asked and contents(store) == before
    assert "stop: final" in again.stdout


def test_a_decision_on_a_running_thread_without_a_key_says_nothing_waits(cli, store):
    process = cli.start("run", "--simulate", "--checkpoint", store, "--thread", "k1", TASK,
                        hang="上海")  # fmt: skip
    try:
        cli.wait_for_hang(process)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        process.kill()
        process.communicate()
    refused = cli.run("resume", "k1", "--checkpoint", store, "--approve")
    assert refused.returncode == 2
    assert "nothing in thread k1 waits for a decision" in refused.stderr
    assert "lcel-agent run needs" not in refused.stderr


def test_approve_names_the_call_it_saw_and_refuses_another(cli, store):
    first = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "a1", "--pause",
                    "--json", TASK)  # fmt: skip
    assert first.returncode == 8, first.stderr
    (waiting,) = result_of(first)["pending"]
    old = resume_command(first.stderr, "--approve")
    assert old[-2:] == ["--approve", waiting["call_id"]]  # the hint names the call
    second = cli.run(*old, "--json")
    assert second.returncode == 8, second.stderr
    (now,) = result_of(second)["pending"]
    assert now["call_id"] != waiting["call_id"]

    before = contents(store)
    stale = cli.run(*old, "--json")  # the old command again: another call waits now
    assert stale.returncode == 2
    assert f"{waiting['call_id']} does not wait in thread a1" in stale.stderr
    assert now["call_id"] in stale.stderr and contents(store) == before
    denied = cli.run(*resume_command(second.stderr, "--deny"), "--json")
    # The model is told and tries another way (this one asks again, so it pauses again).
    assert denied.returncode == 8, denied.stderr
    assert result_of(denied)["pending"][0]["call_id"] != now["call_id"]
    assert "上海" not in cli.lines("weather")  # the refused call never ran


def test_no_pause_approves_the_rest_of_the_run(cli, store, loops_without_a_checkpoint):
    paused = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "n1", "--pause", TASK)
    assert paused.returncode == 8, paused.stderr
    undecided = cli.run("resume", "n1", "--checkpoint", store)
    assert undecided.returncode == 2 and "--no-pause" in undecided.stderr
    done = cli.run(*resume_command(paused.stdout + paused.stderr, "--no-pause"), "--json")
    assert done.returncode == 0, done.stderr  # no second pause
    assert result_of(done)["loops"] == loops_without_a_checkpoint
    assert cli.lines("weather") == ["北京", "上海"]


def test_max_loops_on_resume_raises_the_bound_of_the_run(cli, store, loops_without_a_checkpoint):
    def paused_at_one(thread):
        done = cli.run("run", "--simulate", "--checkpoint", store, "--thread", thread,
                       "--pause", "--max-loops", "2", TASK)  # fmt: skip
        assert done.returncode == 8, done.stderr

    paused_at_one("m1")
    bound = cli.run("resume", "m1", "--checkpoint", store, "--no-pause", "--json")
    assert bound.returncode == 3 and result_of(bound)["loops"] == 2  # the run's own bound
    paused_at_one("m2")
    raised = cli.run("resume", "m2", "--checkpoint", store, "--no-pause", "--max-loops", "5",
                     "--json")  # fmt: skip
    assert raised.returncode == 0, raised.stderr
    assert result_of(raised)["loops"] == loops_without_a_checkpoint
    low = cli.run("resume", "m1", "--checkpoint", store, "--max-loops", "1")
    # m1 finished at its bound: only a higher one lets it go on (issue 43, point 5).
    assert low.returncode == 2 and "stopped at its bound after 2 model calls" in low.stderr
    rows = json.loads(cli.run("threads", "--checkpoint", store, "--json").stdout)
    assert {r["thread_id"]: r["stop_reason"] for r in rows} == {"m1": "max_loops", "m2": "final"}
