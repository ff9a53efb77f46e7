"""Where the system has no record locks (Windows: no ``fcntl``), a SQLite store is refused
for what runs a thread, in words, before anything is written (issue 36, point 11).

A run there could not keep a second ``resume`` of its thread out, so the commands say
so instead of running unguarded (as they once did); what only reads still works
(``threads``, and ``resume`` printing a finished run's result), and a PostgreSQL store,
whose lock is the server's, works in full. The child processes see no ``fcntl`` module:
a ``sitecustomize`` on their path hides it, as Windows' Python has none.
"""

from __future__ import annotations

import json

from resume_support import TASK, result_of

_NO_FCNTL = 'import sys\nsys.modules["fcntl"] = None\n'


def _without_fcntl(tmp_path, cli):
    (cli.log.parent / "hook" / "sitecustomize.py").write_text(
        (cli.log.parent / "hook" / "sitecustomize.py").read_text(encoding="utf-8") + _NO_FCNTL,
        encoding="utf-8",
    )


def test_sqlite_runs_are_refused_without_record_locks_and_reads_still_work(cli, store, tmp_path):
    done = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "w1", TASK)
    assert done.returncode == 0, done.stderr  # made where locks exist
    paused = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "w2", "--pause",
                     TASK)  # fmt: skip
    assert paused.returncode == 8
    _without_fcntl(tmp_path, cli)
    postgres = store.startswith("postgresql://")
    new = str(tmp_path / "new.db")
    refused = cli.run("run", "--simulate", "--checkpoint", new, TASK)
    assert refused.returncode == 2 and "needs record locks" in refused.stderr
    assert not list(tmp_path.glob("new.db*"))
    go_on = cli.run("resume", "w2", "--checkpoint", store, "--no-pause", "--json")
    if postgres:  # the server's advisory lock: nothing of fcntl is needed
        assert go_on.returncode == 0, go_on.stderr
    else:
        assert go_on.returncode == 2 and "needs record locks" in go_on.stderr
    shown = cli.run("resume", "w1", "--checkpoint", store, "--json")
    assert shown.returncode == 0 and result_of(shown)["stop_reason"] == "final"
    listed = cli.run("threads", "--checkpoint", store, "--json")
    assert listed.returncode == 0 and {r["thread_id"] for r in json.loads(listed.stdout)} == {
        "w1", "w2"
    }  # fmt: skip
