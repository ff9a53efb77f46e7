"""``--max-loops`` on resume lets a run go on past its bound (issue 43, point 5).

A run that stopped at its bound (finished, ``max_loops``, exit 3) goes on when
``resume --max-loops N`` gives it more, asking the model nothing twice; a bound no
higher than the calls made is refused with a command that would do. The header shows
the bound in force, on a paused run too, and later resumes keep it. The real
``lcel-agent``, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json

from resume_support import TASK, contents, result_of, resume_command


def _states(cli, store):
    rows = json.loads(cli.run("threads", "--checkpoint", store, "--json").stdout)
    return {r["thread_id"]: (r["state"], r["stop_reason"], r["loops"]) for r in rows}


def test_a_run_that_stopped_at_its_bound_goes_on_with_a_higher_one(
    cli, store, loops_without_a_checkpoint
):
    bound = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "b1",
                    "--max-loops", "2", "--json", TASK)  # fmt: skip
    assert bound.returncode == 3 and result_of(bound)["stop_reason"] == "max_loops"
    assert _states(cli, store)["b1"] == ("finished", "max_loops", 2)

    before = contents(store)
    low = cli.run("resume", "b1", "--checkpoint", store, "--max-loops", "2")
    assert low.returncode == 2 and low.stderr.count("\n") == 1, low.stderr
    assert "stopped at its bound after 2 model calls; give --max-loops more than 2" in low.stderr
    assert contents(store) == before

    done = cli.run(*resume_command(low.stderr, "--max-loops"))  # the command it gave
    assert done.returncode == 0, done.stderr
    assert "max_loops 4" in done.stdout  # the header: the bound in force
    assert "stop: final" in done.stdout
    assert len(cli.lines("model")) == loops_without_a_checkpoint  # nothing asked twice
    assert _states(cli, store)["b1"] == ("finished", "final", loops_without_a_checkpoint)
    shown = result_of(cli.run("resume", "b1", "--checkpoint", store, "--json"))
    assert shown["loops"] == loops_without_a_checkpoint and shown["stop_reason"] == "final"
    assert [s["step"] for s in shown["steps"]] == list(range(1, loops_without_a_checkpoint + 1))


def test_the_header_shows_the_bound_in_force_on_a_paused_run(cli, store):
    paused = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "p1", "--pause",
                     "--max-loops", "2", TASK)  # fmt: skip
    assert paused.returncode == 8 and "max_loops 2" in paused.stdout
    raised = cli.run("resume", "p1", "--checkpoint", store, "--approve", "--max-loops", "6")
    assert raised.returncode == 8, raised.stderr
    assert "max_loops 6" in raised.stdout and "max_loops 2" not in raised.stdout
    kept = cli.run(*resume_command(raised.stdout + raised.stderr, "--approve"))
    assert kept.returncode == 0, kept.stderr
    assert "max_loops 6" in kept.stdout
