"""The Ray executor with a checkpointer every worker reaches: a killed worker's run resumes.

Two workers run four tasks, one at a time each; task 1's worker is killed with SIGKILL
inside one of its calls, after the other calls of that reply finished (one task per
worker, so the kill interrupts task 1 alone, at a known point). The driver runs task 1 again on
a worker that is up; the run resumes from the shared SQLite checkpoints: its finished
calls do not run again and no model call is repeated.
"""

from __future__ import annotations

import functools
import os
import signal
import sqlite3
import time
from collections import Counter
from pathlib import Path

import pytest
from batch_support import ids_of, in_background, read_lines
from durable_batch_support import make_agent, saver, script, tasks

from lcel_agent.batch import run_batch

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("local_ray")]


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def finished_writes(db: Path) -> int:
    if not db.exists():
        return 0
    conn = sqlite3.connect(db, timeout=30)
    try:
        found = conn.execute(
            "SELECT count(*) FROM writes WHERE channel = 'lcel_agent:call' AND thread_id LIKE ?",
            ("%:1",),
        )
        return int(found.fetchone()[0])
    except sqlite3.OperationalError:  # the tables are not made yet
        return 0
    finally:
        conn.close()


def test_a_run_whose_worker_was_killed_resumes_on_another_worker(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    saver(str(tmp_path)).conn.close()  # the file set up before the workers start
    make = functools.partial(make_agent, str(tmp_path))
    job, finished = in_background(lambda: run_batch(
        make, tasks(4), out=out, executor="ray", workers=2, max_in_flight=1, progress=False,
    ))  # fmt: skip
    hang = tmp_path / "hang"
    deadline = time.monotonic() + 90
    db = tmp_path / "checkpoints.db"
    while not (hang.exists() and hang.read_text() and finished_writes(db) == 2):
        assert time.monotonic() < deadline and job.is_alive(), "task 1 never reached its hang"
        time.sleep(0.05)
    os.kill(int(hang.read_text()), signal.SIGKILL)  # the worker dies inside get_weather("上海1")
    job.join(timeout=120)

    assert finished, "the job did not finish"
    summary = finished[0]
    assert sorted(ids_of(out)) == [0, 1, 2, 3]
    assert all(line["result"]["stop_reason"] == "final" for line in read_lines(out))
    assert summary.reruns >= 1  # task 1 ran again, on a worker that was up
    # Task 1's finished calls did not run again; the killed one ran once more.
    tools = Counter(lines(tmp_path / "tools"))
    assert tools == Counter(
        f"{a['action']}:{a['action_input']}"
        for i in range(4)
        for reply in script(i)[:2]
        for a in (reply if isinstance(reply, list) else [reply])
    )
    # One model call per reply for every task: the resumed run asked for nothing twice.
    model = Counter(lines(tmp_path / "model"))
    assert model == Counter(f"{i}:{t}" for i in range(4) for t in range(3))
    task1 = next(line for line in read_lines(out) if line["id"] == 1)["result"]
    assert len(task1["steps"]) == 3 and task1["output"] == "任务1：都是晴天"
