"""Every bad store is one true line and exit 2, and leaves nothing behind (issue 36, point 2).

A read-only store file, a store in a read-only folder, a missing folder, a folder, and
another program's database. Permissions are real: the commands run as a user the
modes bind. Run as root (CI is), each command runs without the capabilities that let
root write past a mode (``setpriv`` drops ``CAP_DAC_OVERRIDE`` and
``CAP_DAC_READ_SEARCH`` from its bounding set), which is what a normal user has.
A read-only store still answers what only reads: ``threads`` lists it and ``resume``
prints a finished run's result, and neither leaves ``-wal``/``-shm`` files beside it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from resume_support import TASK, contents, result_of

#: How each command is run: as a user file modes bind (see the module docstring).
AS_A_USER: tuple[str, ...] = (
    ("setpriv", "--bounding-set=-dac_override,-dac_read_search") if os.geteuid() == 0 else ()
)


@pytest.fixture
def stores(cli, tmp_path):
    """A folder with a finished thread ``done`` and a paused thread ``waits``."""
    if AS_A_USER and shutil.which("setpriv") is None:
        pytest.fail("running as root needs setpriv (util-linux) to act as a normal user")
    folder = tmp_path / "stores"
    folder.mkdir()
    store = str(folder / "runs.db")
    done = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "done", TASK)
    assert done.returncode == 0, done.stderr
    paused = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "waits", "--pause",
                     TASK)  # fmt: skip
    assert paused.returncode == 8, paused.stderr
    return folder, Path(store)


def _refused(done, *said):
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("lcel-agent"), done.stderr
    for words in said:
        assert words in done.stderr, done.stderr
    assert "internal error" not in done.stderr and "not a SQLite database" not in done.stderr


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_store_refuses_what_writes_and_answers_what_reads(cli, stores, what):
    folder, store = stores
    (store if what == "file" else folder).chmod(0o444 if what == "file" else 0o555)
    try:
        before = sorted(p.name for p in folder.iterdir()), contents(str(store))
        problem = "the file is read-only" if what == "file" else f"its folder {folder} is read-only"
        _refused(cli.run("run", "--simulate", "--checkpoint", str(store), TASK, prefix=AS_A_USER),
                 f"cannot write checkpoints to {store}", problem)  # fmt: skip
        _refused(
            cli.run("resume", "waits", "--checkpoint", str(store), "--approve", prefix=AS_A_USER),
            f"cannot write checkpoints to {store}", problem,
        )  # fmt: skip
        listed = cli.run("threads", "--checkpoint", str(store), "--json", prefix=AS_A_USER)
        assert listed.returncode == 0, listed.stderr
        assert {r["thread_id"]: r["state"] for r in json.loads(listed.stdout)} == {
            "done": "finished", "waits": "paused"
        }  # fmt: skip
        shown = cli.run("resume", "done", "--checkpoint", str(store), "--json", prefix=AS_A_USER)
        assert shown.returncode == 0, shown.stderr
        assert result_of(shown)["stop_reason"] == "final"
        assert (sorted(p.name for p in folder.iterdir()), contents(str(store))) == before
    finally:
        store.chmod(0o644)
        folder.chmod(0o755)


def test_a_new_store_in_a_read_only_folder_is_refused_and_not_made(cli, tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        done = cli.run("run", "--simulate", "--checkpoint", str(folder / "new.db"), TASK,
                       prefix=AS_A_USER)  # fmt: skip
    finally:
        folder.chmod(0o755)
    assert done.returncode == 2
    assert f"its folder {folder} is read-only" in done.stderr
    assert list(folder.iterdir()) == [] and cli.lines("model") == []


@pytest.mark.parametrize("kind", ["missing folder", "a folder", "another program's database"])
def test_other_bad_stores_are_one_true_line_for_every_command(cli, tmp_path, kind):
    if kind == "missing folder":  # run would make a file, but not a folder; the others none
        spec, said = tmp_path / "nowhere" / "runs.db", "nowhere"
    elif kind == "a folder":
        spec, said = tmp_path, "is a folder; give a SQLite file"
    else:
        import sqlite3

        spec, said = tmp_path / "app.db", "is not a checkpoint store (its tables are ['users'])"
        with sqlite3.connect(spec) as conn:
            conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY)")
        conn.close()
    before = sorted(p.name for p in tmp_path.iterdir())
    for argv in (["run", "--simulate", TASK], ["resume", "t1"], ["threads"]):
        done = cli.run(*argv, "--checkpoint", str(spec))
        assert done.returncode == 2, (argv, done.stderr)
        assert said in done.stderr and done.stderr.count("\n") == 1, (argv, done.stderr)
        if kind == "missing folder":
            missing = "does not exist" if argv[0] == "run" else "no checkpoint store at"
            assert missing in done.stderr, (argv, done.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing left behind


def test_a_store_no_one_may_read_is_called_so_not_read_only(cli, stores):
    folder, store = stores
    before = sorted(p.name for p in folder.iterdir())
    store.chmod(0o000)  # issue 43, point 8: it was called "read-only"
    try:
        for argv in (["run", "--simulate", TASK], ["resume", "waits", "--approve"],
                     ["resume", "done"], ["threads"]):  # fmt: skip
            done = cli.run(*argv, "--checkpoint", str(store), prefix=AS_A_USER)
            _refused(done, f"cannot read the checkpoint store {store}: no permission to read")
            assert "read-only" not in done.stderr
    finally:
        store.chmod(0o644)
    assert sorted(p.name for p in folder.iterdir()) == before
